/* SPDX-License-Identifier: MIT */
/* Columnar event blocks: the payload of EVENTS chunks, encoded and decoded. */
#ifndef MEMTAP_FORMAT_BLOCK_H
#define MEMTAP_FORMAT_BLOCK_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

struct mt_buf;

/*
 * A block holds up to cap events of one type as columns of u64: col[f][i] is field f of
 * row i. The writer appends rows; the reader decodes a payload into one. Columns for
 * fields this memtap does not know are never held (a newer writer's extra columns are
 * skipped on decode).
 *
 * A block either owns its columns (mt_block_init/mt_block_release use malloc) or uses
 * storage the caller provides (mt_block_init_static), which is what a lock-free per-thread
 * buffer in the preload runtime needs: no allocation, no lock, one block per thread.
 */
struct mt_block {
	uint16_t type;
	uint16_t nfields;
	uint32_t count;
	uint32_t cap;
	uint8_t owned;
	uint64_t *col[MT_MAX_FIELDS];
};

/* -EINVAL for an unknown type or cap above MT_MAX_BLOCK_EVENTS; -ENOMEM. */
int mt_block_init(struct mt_block *b, unsigned type, uint32_t cap);
/* storage must hold cap * nfields(type) values. */
int mt_block_init_static(struct mt_block *b, unsigned type, uint32_t cap, uint64_t *storage);
void mt_block_release(struct mt_block *b);

/* Appends a row of nfields values; -ENOSPC when full. */
static inline int mt_block_add(struct mt_block *b, const uint64_t *row)
{
	if (b->count >= b->cap)
		return -ENOSPC;
	for (unsigned f = 0; f < b->nfields; f++)
		b->col[f][b->count] = row[f];
	b->count++;
	return 0;
}

/*
 * Sorts the rows by time (stable), so that every encoded block is in time order; the
 * reader's merge relies on it. Needs count * 2 words of scratch space, or uses malloc when
 * scratch is NULL. Returns -ENOMEM on failure (rows unchanged).
 */
int mt_block_sort(struct mt_block *b, uint64_t *scratch);

/* Minimum and maximum time of the rows (0, 0 for an empty block). */
void mt_block_time_range(const struct mt_block *b, uint64_t *t_min, uint64_t *t_max);

/* Upper bound of the encoded size of b, for callers with fixed buffers. */
size_t mt_block_encoded_max(const struct mt_block *b);
/* Encodes b (already sorted) into out[0..cap); returns the size, or 0 if it does not fit. */
size_t mt_block_encode_to(const struct mt_block *b, uint8_t *out, size_t cap);
/* Encodes b, appending to out. */
int mt_block_encode(const struct mt_block *b, struct mt_buf *out);

/*
 * Decodes an EVENTS payload of count rows of the given type into b, which must have been
 * initialised for that type with cap >= count. Known fields missing from the payload are 0.
 * Returns 0, or -MT_ERR_CORRUPT when the payload is inconsistent (never reads outside
 * p[0..n)), or -MT_ERR_LIMIT.
 */
int mt_block_decode(struct mt_block *b, const uint8_t *p, size_t n, uint32_t count);

#endif
