/* SPDX-License-Identifier: MIT */
/* Allocation rows put back in time order (record/alloc-reorder.h). */
#include "record/alloc-reorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "format/block.h"

/* A run for b's rows: a spare one large enough, else a new one. */
static int spare_take(struct mt_reorder *r, const struct mt_block *b, struct mt_block *run)
{
	for (size_t k = 0; k < r->nspare; k++) {
		if (r->spare[k].cap < b->count || r->spare[k].type != b->type)
			continue;
		*run = r->spare[k];
		r->spare[k] = r->spare[--r->nspare];
		run->count = 0;
		return 0;
	}
	/* as large as the runtime's blocks come, so that it serves the next ones too */
	return mt_block_init(run, b->type, b->count > 16384 ? b->count : 16384);
}

static void spare_put(struct mt_reorder *r, struct mt_block *run)
{
	if (r->nspare < sizeof(r->spare) / sizeof(r->spare[0]))
		r->spare[r->nspare++] = *run;
	else
		mt_block_release(run);
}

int mt_reorder_add(struct mt_reorder *r, const struct mt_block *b)
{
	struct mt_block run;
	uint64_t lo, hi;

	if (!b->count)
		return 0;
	size_t had = r->cap;

	if (mt_grow_array(&r->runs, &r->cap, r->nruns + 1, sizeof(*r->runs)) < 0)
		return -ENOMEM;
	if (r->cap != had) {
		uint32_t *h = realloc(r->heads, r->cap * sizeof(*h));
		uint64_t *ht;

		if (h)
			r->heads = h;
		ht = h ? realloc(r->head_t, r->cap * sizeof(*ht)) : NULL;
		if (!ht) {
			r->cap = had; /* heads and head_t hold had entries at least */
			return -ENOMEM;
		}
		r->head_t = ht;
	}
	if (spare_take(r, b, &run) < 0)
		return -ENOMEM;
	for (unsigned f = 0; f < b->nfields; f++)
		memcpy(run.col[f], b->col[f], b->count * sizeof(uint64_t));
	run.count = b->count;
	if (run.count > r->scratch_rows) {
		uint64_t *sc = realloc(r->scratch, (size_t)run.count * 2 * sizeof(*sc));

		if (!sc) {
			spare_put(r, &run);
			return -ENOMEM;
		}
		r->scratch = sc;
		r->scratch_rows = run.count;
	}
	if (mt_block_sort(&run, r->scratch) < 0) {
		mt_block_release(&run);
		return -ENOMEM;
	}
	mt_block_time_range(&run, &lo, &hi);
	for (uint32_t i = 0; i < run.count && run.col[MT_F_TIME][i] < r->released; i++)
		r->late++;
	if (hi > r->newest)
		r->newest = hi;
	r->held += run.count;
	r->heads[r->nruns] = 0;
	r->head_t[r->nruns] = run.col[MT_F_TIME][0];
	r->runs[r->nruns++] = run;
	return 0;
}

/* The run whose next row is the oldest (the first of equals: runs keep their order). */
static size_t oldest(const struct mt_reorder *r)
{
	size_t best = 0;

	for (size_t k = 1; k < r->nruns; k++)
		if (r->head_t[k] < r->head_t[best])
			best = k;
	return best;
}

void mt_reorder_release(struct mt_reorder *r, uint64_t until, mt_reorder_fn fn, void *ctx)
{
	while (r->nruns) {
		size_t k = oldest(r);
		struct mt_block *run = &r->runs[k];
		uint64_t t = r->head_t[k];

		if (t >= until && r->held <= MT_REORDER_MAX_ROWS)
			break;
		if (t > r->released)
			r->released = t;
		fn(ctx, run, r->heads[k]);
		r->held--;
		if (++r->heads[k] < run->count) {
			r->head_t[k] = run->col[MT_F_TIME][r->heads[k]];
			continue;
		}
		spare_put(r, run);
		/* keep the runs' order (ties come out in arrival order) */
		memmove(run, run + 1, (r->nruns - k - 1) * sizeof(*run));
		memmove(&r->heads[k], &r->heads[k + 1], (r->nruns - k - 1) * sizeof(*r->heads));
		memmove(&r->head_t[k], &r->head_t[k + 1], (r->nruns - k - 1) * sizeof(*r->head_t));
		r->nruns--;
	}
}

void mt_reorder_free(struct mt_reorder *r)
{
	for (size_t k = 0; k < r->nruns; k++)
		mt_block_release(&r->runs[k]);
	for (size_t k = 0; k < r->nspare; k++)
		mt_block_release(&r->spare[k]);
	free(r->runs);
	free(r->heads);
	free(r->head_t);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}
