/* SPDX-License-Identifier: MIT */
/* Columnar encoding of event blocks: each column picks the smallest of four encodings. */
#include "block.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/varint.h"
#include "format/heap-addr.h"
#include "format/schema.h"

int mt_block_init(struct mt_block *b, unsigned type, uint32_t cap)
{
	const struct mt_type_desc *d = mt_type_desc(type);
	uint64_t *storage;
	int r;

	if (!d || !cap || cap > MT_MAX_BLOCK_EVENTS)
		return -EINVAL;
	storage = calloc((size_t)cap * d->nfields, sizeof(uint64_t));
	if (!storage)
		return -ENOMEM;
	r = mt_block_init_static(b, type, cap, storage);
	if (r < 0) {
		free(storage);
		return r;
	}
	b->owned = 1;
	return 0;
}

int mt_block_init_static(struct mt_block *b, unsigned type, uint32_t cap, uint64_t *storage)
{
	const struct mt_type_desc *d = mt_type_desc(type);

	if (!d || !cap || cap > MT_MAX_BLOCK_EVENTS || d->nfields > MT_MAX_FIELDS)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->type = (uint16_t)type;
	b->nfields = (uint16_t)d->nfields;
	b->cap = cap;
	for (unsigned f = 0; f < d->nfields; f++)
		b->col[f] = storage + (size_t)f * cap;
	return 0;
}

void mt_block_release(struct mt_block *b)
{
	if (b->owned)
		free(b->col[0]);
	memset(b, 0, sizeof(*b));
}

static int sorted(const struct mt_block *b)
{
	const uint64_t *t = b->col[MT_F_TIME];

	for (uint32_t i = 1; i < b->count; i++)
		if (t[i] < t[i - 1])
			return 0;
	return 1;
}

/* Stable merge sort of row indices by time. */
static void msort(const uint64_t *t, uint32_t *idx, uint32_t *tmp, uint32_t n)
{
	uint32_t h, i, j, k;

	if (n < 2)
		return;
	h = n / 2;
	msort(t, idx, tmp, h);
	msort(t, idx + h, tmp, n - h);
	for (i = 0, j = h, k = 0; i < h && j < n;)
		tmp[k++] = t[idx[j]] < t[idx[i]] ? idx[j++] : idx[i++];
	while (i < h)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

int mt_block_sort(struct mt_block *b, uint64_t *scratch)
{
	uint64_t *mem = scratch, *vals;
	uint32_t *idx, *tmp;

	if (sorted(b))
		return 0;
	if (!mem) {
		mem = malloc((size_t)b->count * 2 * sizeof(uint64_t));
		if (!mem)
			return -ENOMEM;
	}
	/* Layout of the 2*count words: idx and tmp (u32 each) share the first count words. */
	idx = (uint32_t *)mem;
	tmp = idx + b->count;
	vals = mem + b->count;
	for (uint32_t i = 0; i < b->count; i++)
		idx[i] = i;
	msort(b->col[MT_F_TIME], idx, tmp, b->count);
	for (unsigned f = 0; f < b->nfields; f++) {
		for (uint32_t i = 0; i < b->count; i++)
			vals[i] = b->col[f][idx[i]];
		memcpy(b->col[f], vals, b->count * sizeof(uint64_t));
	}
	if (mem != scratch)
		free(mem);
	return 0;
}

void mt_block_time_range(const struct mt_block *b, uint64_t *t_min, uint64_t *t_max)
{
	uint64_t lo = 0, hi = 0;

	for (uint32_t i = 0; i < b->count; i++) {
		uint64_t t = b->col[MT_F_TIME][i];

		if (!i || t < lo)
			lo = t;
		if (!i || t > hi)
			hi = t;
	}
	*t_min = lo;
	*t_max = hi;
}

size_t mt_block_encoded_max(const struct mt_block *b)
{
	/* Per column: field id, encoding, length, and the worst case of 10 bytes per value. */
	return MT_VARINT_MAX +
	       (size_t)b->nfields * (3 * MT_VARINT_MAX + 1 + (size_t)b->count * MT_VARINT_MAX);
}

/*
 * Picks a column's encoding. Constant columns are found with a full (cheap) comparison;
 * otherwise the sizes of the other three encodings are estimated from at most 256 rows
 * spread over the column, which is what keeps the recorder ahead of a workload producing
 * millions of events per second. The estimate only picks the encoding; the encoded size is
 * exact.
 */
static unsigned pick_encoding(const uint64_t *c, uint32_t n)
{
	uint32_t step, i;
	size_t v = 0, z = 0, d = 0;
	bool constant = true;

	for (i = 1; i < n && constant; i++)
		constant = c[i] == c[0];
	if (constant)
		return MT_ENC_CONST;
	step = n > 256 ? n / 256 : 1;
	for (i = step; i < n; i += step) {
		v += mt_varint_len(c[i]);
		z += mt_varint_len(mt_zigzag((int64_t)c[i]));
		d += mt_varint_len(mt_zigzag((int64_t)(c[i] - c[i - 1])));
	}
	if (d < v && d < z)
		return MT_ENC_DELTA;
	return z < v ? MT_ENC_ZIGZAG : MT_ENC_VARINT;
}

static uint8_t *encode_col(uint8_t *p, const uint64_t *c, uint32_t n, unsigned enc)
{
	switch (enc) {
	case MT_ENC_CONST:
		p += mt_varint_put(p, c[0]);
		break;
	case MT_ENC_VARINT:
		for (uint32_t i = 0; i < n; i++)
			p += mt_varint_put(p, c[i]);
		break;
	case MT_ENC_ZIGZAG:
		for (uint32_t i = 0; i < n; i++)
			p += mt_varint_put(p, mt_zigzag((int64_t)c[i]));
		break;
	case MT_ENC_DELTA:
		p += mt_varint_put(p, c[0]);
		for (uint32_t i = 1; i < n; i++)
			p += mt_varint_put(p, mt_zigzag((int64_t)(c[i] - c[i - 1])));
		break;
	}
	return p;
}

size_t mt_block_encode_to(const struct mt_block *b, uint8_t *out, size_t cap)
{
	uint8_t *p = out, *end = out + cap;

	if (cap < mt_block_encoded_max(b))
		return 0;
	p += mt_varint_put(p, b->nfields);
	for (unsigned f = 0; f < b->nfields; f++) {
		unsigned enc = b->count ? pick_encoding(b->col[f], b->count) : MT_ENC_VARINT;
		uint8_t *data, *dend;
		size_t len, plen, heap = 0;

		p += mt_varint_put(p, f);
		/* Data first, after the encoding byte and room for the longest length prefix;
		 * then the prefix, and the data moved down next to it. */
		data = p + 1 + MT_VARINT_MAX;
		if (b->type == MT_EV_ALLOC && f == MT_F_ALLOC_ADDR && b->count)
			heap = mt_heap_addr_encode(b, data); /* the model's codes, if it can */
		if (heap)
			enc = MT_ENC_HEAP_ADDR;
		*p++ = (uint8_t)enc;
		if (heap)
			dend = data + heap;
		else
			dend = b->count ? encode_col(data, b->col[f], b->count, enc) : data;
		len = (size_t)(dend - data);
		plen = mt_varint_put(p, len);
		memmove(p + plen, data, len);
		p += plen + len;
	}
	return p <= end ? (size_t)(p - out) : 0;
}

int mt_block_encode(const struct mt_block *b, struct mt_buf *out)
{
	size_t max = mt_block_encoded_max(b), n;
	int r = mt_buf_reserve(out, max);

	if (r < 0)
		return r;
	n = mt_block_encode_to(b, out->data + out->len, max);
	if (!n)
		return -MT_ERR_LIMIT;
	out->len += n;
	return 0;
}

static int decode_col(uint64_t *c, unsigned enc, const uint8_t *p, const uint8_t *end, uint32_t n)
{
	uint64_t v;

	switch (enc) {
	case MT_ENC_CONST:
		if (mt_varint_get(&p, end, &v) < 0)
			return -MT_ERR_CORRUPT;
		for (uint32_t i = 0; i < n; i++)
			c[i] = v;
		break;
	case MT_ENC_VARINT:
	case MT_ENC_ZIGZAG:
	case MT_ENC_HEAP_ADDR: /* codes, turned into addresses once every column is in */
		for (uint32_t i = 0; i < n; i++) {
			if (mt_varint_get(&p, end, &v) < 0)
				return -MT_ERR_CORRUPT;
			c[i] = enc == MT_ENC_ZIGZAG ? (uint64_t)mt_unzigzag(v) : v;
		}
		break;
	case MT_ENC_DELTA:
		for (uint32_t i = 0; i < n; i++) {
			if (mt_varint_get(&p, end, &v) < 0)
				return -MT_ERR_CORRUPT;
			c[i] = i ? c[i - 1] + (uint64_t)mt_unzigzag(v) : v;
		}
		break;
	default:
		return -MT_ERR_VERSION; /* an encoding a newer memtap wrote */
	}
	/* A column must be exactly as long as it says. */
	return p == end ? 0 : -MT_ERR_CORRUPT;
}

int mt_block_decode(struct mt_block *b, const uint8_t *p, size_t n, uint32_t count)
{
	const uint8_t *end = p + n;
	uint32_t seen = 0; /* bit f: column f decoded */
	uint64_t ncols;
	bool heap = false;

	if (count > b->cap)
		return -MT_ERR_LIMIT;
	if (mt_varint_get(&p, end, &ncols) < 0 || ncols > 4096)
		return -MT_ERR_CORRUPT;
	for (uint64_t k = 0; k < ncols; k++) {
		uint64_t field, len;
		unsigned enc;

		if (mt_varint_get(&p, end, &field) < 0 || p >= end)
			return -MT_ERR_CORRUPT;
		enc = *p++;
		if (mt_varint_get(&p, end, &len) < 0 || len > (uint64_t)(end - p))
			return -MT_ERR_CORRUPT;
		if (field < b->nfields) {
			int r;

			if (seen & (1u << field))
				return -MT_ERR_CORRUPT;
			seen |= 1u << field;
			if (enc == MT_ENC_HEAP_ADDR &&
			    (b->type != MT_EV_ALLOC || field != MT_F_ALLOC_ADDR))
				return -MT_ERR_CORRUPT;
			heap |= enc == MT_ENC_HEAP_ADDR;
			r = decode_col(b->col[field], enc, p, p + len, count);
			if (r < 0)
				return r;
		} else if (enc > MT_ENC_HEAP_ADDR) {
			return -MT_ERR_VERSION;
		}
		p += len;
	}
	if (p != end)
		return -MT_ERR_CORRUPT;
	for (unsigned f = 0; f < b->nfields; f++)
		if (!(seen & (1u << f)))
			memset(b->col[f], 0, count * sizeof(uint64_t));
	/* Time order inside a block is an invariant the merge relies on. */
	for (uint32_t i = 1; i < count; i++)
		if (b->col[MT_F_TIME][i] < b->col[MT_F_TIME][i - 1])
			return -MT_ERR_CORRUPT;
	b->count = count;
	if (heap) { /* the addresses, from the model's codes and the other columns */
		int r = mt_heap_addr_decode(b);

		if (r < 0) {
			b->count = 0;
			return r;
		}
	}
	return 0;
}
