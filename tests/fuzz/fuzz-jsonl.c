/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the JSON-lines scanner (decode/jsonl.c) on any bytes, line by line; every
 * value it returns lies inside the line or the scratch buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const struct mt_jv *v, const char *line, size_t n, const char *scratch)
{
	const char *lo = v->type == MT_JV_STRING ? scratch : line;

	if (v->type == MT_JV_MISSING)
		return;
	if (v->s < lo || v->s + v->len > lo + n)
		abort();
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
	return 0;
}
