/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the JSON-lines scanner (decode/jsonl.c) on any bytes, line by line; every
 * value it returns lies inside the line (a string without escapes, any other value) or the
 * scratch buffer (an unescaped string). Also the decompressing input stream on the bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdbool.h>
#include <unistd.h>

#include "decode/instream.h"
#include "decode/jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool within(const char *s, size_t len, const char *lo, size_t n)
{
	return s >= lo && s + len <= lo + n;
}

static void inside(const struct mt_jv *v, const char *line, size_t n, const char *scratch)
{
	if (v->type == MT_JV_MISSING)
		return;
	if (!within(v->s, v->len, line, n) &&
	    (v->type != MT_JV_STRING || !within(v->s, v->len, scratch, n)))
		abort();
}

/* The bytes as a compressed (or plain) stream through a pipe: reads end, never crash. */
static void stream(const uint8_t *data, size_t size)
{
	struct mt_instream *in;
	char buf[4096];
	int fds[2];

	if (size > 60000 || pipe(fds) < 0)
		return; /* within a pipe's buffer: written whole before reading */
	if (write(fds[1], data, size) != (ssize_t)size) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	close(fds[1]);
	if (mt_instream_open(fds[0], &in) == 0) {
		while (mt_instream_read(in, buf, sizeof(buf)) > 0)
			;
		mt_instream_close(in);
	}
	close(fds[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "ts", "probe", "view_id", "wall_ms", "hit", "a" };
	const char *p = (const char *)data, *end = p + size;
	char *scratch = malloc(size + 1);
	struct mt_jv v[6];

	if (!scratch)
		return 0;
	while (p <= end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (mt_jsonl_object(p, n, keys, 6, v, scratch) == MT_JSONL_OK)
			for (int i = 0; i < 6; i++)
				inside(&v[i], p, n, scratch);
		(void)mt_jsonl_errname(-1);
		if (!nl)
			break;
		p = nl + 1;
	}
	free(scratch);
	stream(data, size);
	return 0;
}
