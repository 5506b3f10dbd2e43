/* SPDX-License-Identifier: MIT */
/* LEB128 varints and zigzag encoding, the byte-level encoding of the trace format. */
#ifndef MEMTAP_COMMON_VARINT_H
#define MEMTAP_COMMON_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define MT_VARINT_MAX 10

static inline size_t mt_varint_len(uint64_t v)
{
	/* 1 + floor(bit length - 1) / 7, without a loop */
	return (size_t)(63 - __builtin_clzll(v | 1)) / 7 + 1;
}

/* Writes v at p (which must have MT_VARINT_MAX bytes of room); returns the bytes written. */
static inline size_t mt_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * Reads a varint from *p, never past end. Returns 0 and advances *p, or -1 when the input
 * ends inside the varint or the varint is longer than 10 bytes or overflows 64 bits.
 */
static inline int mt_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;
	unsigned shift = 0;

	while (q < end) {
		uint8_t c = *q++;

		if (shift == 63 && c > 1)
			return -1;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			*p = q;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static inline uint64_t mt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t mt_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Little-endian fixed-width helpers for headers. */
static inline void mt_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void mt_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void mt_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t mt_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t mt_get_le32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline uint64_t mt_get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

#endif
