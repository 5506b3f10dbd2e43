/* SPDX-License-Identifier: MIT */
/* Plain, gzip or zstd input, told by its magic (instream.h). */
#include "decode/instream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define IN_BUF (1u << 17)

struct mt_instream {
	int fd;
	enum mt_instream_kind kind;
	unsigned char *in;
	size_t in_pos, in_len; /* the unread input in[in_pos, in_len) */
	bool eof, ended; /* the descriptor's end; the compressed stream's last byte */
	z_stream z;
	ZSTD_DCtx *zd;
};

static ssize_t fill(struct mt_instream *s)
{
	ssize_t got;

	if (s->in_pos < s->in_len || s->eof)
		return (ssize_t)(s->in_len - s->in_pos);
	do
		got = read(s->fd, s->in, IN_BUF);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	s->in_pos = 0;
	s->in_len = (size_t)got;
	s->eof = got == 0;
	return got;
}

int mt_instream_open(int fd, struct mt_instream **ret)
{
	struct mt_instream *s = calloc(1, sizeof(*s));
	ssize_t got;

	*ret = NULL;
	if (!s || !(s->in = calloc(1, IN_BUF))) {
		free(s);
		return -ENOMEM;
	}
	s->fd = fd;
	/* the magic: read until 4 bytes or the end */
	while (s->in_len < 4 && !s->eof) {
		do
			got = read(fd, s->in + s->in_len, IN_BUF - s->in_len);
		while (got < 0 && errno == EINTR);
		if (got < 0) {
			int e = -errno;

			free(s->in);
			free(s);
			return e;
		}
		s->in_len += (size_t)got;
		s->eof = got == 0;
	}
	if (s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
		s->kind = MT_IN_GZIP;
		if (inflateInit2(&s->z, 15 + 32) != Z_OK) {
			mt_instream_close(s);
			return -ENOMEM;
		}
	} else if (s->in_len >= 4 && !memcmp(s->in, "\x28\xb5\x2f\xfd", 4)) {
		s->kind = MT_IN_ZSTD;
		if (!(s->zd = ZSTD_createDCtx())) {
			mt_instream_close(s);
			return -ENOMEM;
		}
	}
	*ret = s;
	return 0;
}

static ssize_t read_gzip(struct mt_instream *s, void *buf, size_t n)
{
	s->z.next_out = buf;
	s->z.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
	while ((void *)s->z.next_out == buf) {
		ssize_t got = fill(s);
		int r;

		if (got < 0)
			return got;
		if (got == 0)
			return s->ended ? 0 : -EBADMSG; /* the end, or cut short */
		if (s->ended) { /* more after a member's end: the next member (gzip concatenates) */
			if (inflateReset(&s->z) != Z_OK)
				return -EBADMSG;
			s->ended = false;
		}
		s->z.next_in = s->in + s->in_pos;
		s->z.avail_in = (uInt)(s->in_len - s->in_pos);
		r = inflate(&s->z, Z_NO_FLUSH);
		s->in_pos = s->in_len - s->z.avail_in;
		if (r == Z_STREAM_END)
			s->ended = true;
		else if (r != Z_OK && r != Z_BUF_ERROR)
			return -EBADMSG;
	}
	return (unsigned char *)s->z.next_out - (unsigned char *)buf;
}

static ssize_t read_zstd(struct mt_instream *s, void *buf, size_t n)
{
	ZSTD_outBuffer out = { buf, n, 0 };

	while (out.pos == 0) {
		ssize_t got = fill(s);
		ZSTD_inBuffer in;
		size_t r;

		if (got < 0)
			return got;
		if (got == 0)
			return s->ended ? 0 : -EBADMSG;
		in = (ZSTD_inBuffer){ s->in, s->in_len, s->in_pos };
		r = ZSTD_decompressStream(s->zd, &out, &in);
		s->in_pos = in.pos;
		if (ZSTD_isError(r))
			return -EBADMSG;
		s->ended = r == 0; /* a frame ended: a next one may follow */
	}
	return (ssize_t)out.pos;
}

ssize_t mt_instream_read(struct mt_instream *s, void *buf, size_t n)
{
	ssize_t got;

	if (!n)
		return 0;
	switch (s->kind) {
	case MT_IN_GZIP:
		return read_gzip(s, buf, n);
	case MT_IN_ZSTD:
		return read_zstd(s, buf, n);
	default:
		if (s->in_pos < s->in_len) { /* the magic's bytes first */
			size_t k = s->in_len - s->in_pos < n ? s->in_len - s->in_pos : n;

			memcpy(buf, s->in + s->in_pos, k);
			s->in_pos += k;
			return (ssize_t)k;
		}
		do
			got = read(s->fd, buf, n);
		while (got < 0 && errno == EINTR);
		return got < 0 ? -errno : got;
	}
}

enum mt_instream_kind mt_instream_kind(const struct mt_instream *s)
{
	return s->kind;
}

const char *mt_instream_kind_name(enum mt_instream_kind k)
{
	return k == MT_IN_GZIP ? "gzip" : k == MT_IN_ZSTD ? "zstd" : "plain";
}

void mt_instream_close(struct mt_instream *s)
{
	if (!s)
		return;
	if (s->kind == MT_IN_GZIP)
		inflateEnd(&s->z);
	ZSTD_freeDCtx(s->zd);
	free(s->in);
	free(s);
}
