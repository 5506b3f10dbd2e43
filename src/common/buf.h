/* SPDX-License-Identifier: MIT */
/* Growable byte buffers with a hard maximum (curl's dynbuf idea). */
#ifndef MEMTAP_COMMON_BUF_H
#define MEMTAP_COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

/*
 * Invariants: len <= cap <= max; data is NULL only while cap == 0. Any failing call
 * (-ENOMEM, or -MT_ERR_LIMIT when the buffer would grow past max) releases the buffer, so
 * a caller can never continue with half-appended data.
 */
struct mt_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t max;
};

void mt_buf_init(struct mt_buf *b, size_t max);
void mt_buf_release(struct mt_buf *b);
/* Empties the buffer and keeps its memory. */
static inline void mt_buf_reset(struct mt_buf *b)
{
	b->len = 0;
}
/* Makes room for at least extra more bytes after len (data + len stays valid). */
int mt_buf_reserve(struct mt_buf *b, size_t extra);
int mt_buf_append(struct mt_buf *b, const void *p, size_t n);
int mt_buf_putc(struct mt_buf *b, uint8_t c);
int mt_buf_put_varint(struct mt_buf *b, uint64_t v);
int mt_buf_printf(struct mt_buf *b, const char *fmt, ...) MT_PRINTF(2, 3);
/* Appends a NUL without counting it in len, so data can be used as a C string. */
int mt_buf_cstr(struct mt_buf *b);

#endif
