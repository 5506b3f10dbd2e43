/* SPDX-License-Identifier: MIT */
/*
 * Allocation rows put back in time order (record/alloc-reorder.c). The runtime's threads hand
 * their rows over in buffers, some seconds after other threads' later rows: a consumer that
 * follows blocks by address (the --alloc=sites fold) must see an allocation before its free
 * even when another thread freed it. Rows wait here, in the sorted runs they came in, until
 * the caller releases them up to a time; they come out merged in time order.
 */
#ifndef MEMTAP_RECORD_ALLOC_REORDER_H
#define MEMTAP_RECORD_ALLOC_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include "format/block.h"

struct mt_reorder {
	struct mt_block *runs; /* each sorted by time; heads[k]: its next row, head_t[k] its time */
	uint32_t *heads;
	uint64_t *head_t;
	size_t nruns, cap;
	struct mt_block spare[4]; /* runs emptied, kept for reuse (no new pages to fault in) */
	size_t nspare;
	uint64_t *scratch; /* the sort's, 2 words per row of the largest run */
	size_t scratch_rows;
	uint64_t held; /* rows waiting */
	uint64_t newest; /* the latest row time added */
	uint64_t released; /* rows were released up to this time */
	uint64_t late; /* rows added already behind it: they come out out of order */
};

/* Rows held at most, whatever their times: past it the oldest come out early. */
#define MT_REORDER_MAX_ROWS (1u << 18)

typedef void (*mt_reorder_fn)(void *ctx, const struct mt_block *b, uint32_t i);

/* Takes a copy of b's rows (b is left as it was); -ENOMEM when it cannot. */
int mt_reorder_add(struct mt_reorder *r, const struct mt_block *b);
/* Passes every held row timed before `until` (and the oldest beyond MT_REORDER_MAX_ROWS) to
 * fn, in time order. */
void mt_reorder_release(struct mt_reorder *r, uint64_t until, mt_reorder_fn fn, void *ctx);
void mt_reorder_free(struct mt_reorder *r);

#endif
