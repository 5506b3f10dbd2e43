/* SPDX-License-Identifier: MIT */
/* Growable byte buffers with a hard maximum. */
#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "varint.h"

void mt_buf_init(struct mt_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void mt_buf_release(struct mt_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

int mt_buf_reserve(struct mt_buf *b, size_t extra)
{
	size_t need, cap;
	uint8_t *p;

	if (extra <= b->cap - b->len)
		return 0;
	if (extra > b->max || b->len > b->max - extra) {
		mt_buf_release(b);
		return -MT_ERR_LIMIT;
	}
	need = b->len + extra;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > b->max / 2 ? b->max : cap * 2;
	if (cap > b->max)
		cap = b->max;
	p = realloc(b->data, cap);
	if (!p) {
		mt_buf_release(b);
		return -ENOMEM;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

int mt_buf_append(struct mt_buf *b, const void *p, size_t n)
{
	int r;

	if (!n)
		return 0;
	r = mt_buf_reserve(b, n);
	if (r < 0)
		return r;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int mt_buf_putc(struct mt_buf *b, uint8_t c)
{
	return mt_buf_append(b, &c, 1);
}

int mt_buf_put_varint(struct mt_buf *b, uint64_t v)
{
	int r = mt_buf_reserve(b, MT_VARINT_MAX);

	if (r < 0)
		return r;
	b->len += mt_varint_put(b->data + b->len, v);
	return 0;
}

int mt_buf_printf(struct mt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		mt_buf_release(b);
		return -EINVAL;
	}
	r = mt_buf_reserve(b, (size_t)n + 1);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int mt_buf_cstr(struct mt_buf *b)
{
	int r = mt_buf_reserve(b, 1);

	if (r < 0)
		return r;
	b->data[b->len] = 0;
	return 0;
}
