/* SPDX-License-Identifier: MIT */
/*
 * Mergeable quantile sketches of u64 values (lifetimes in ns) with a stated relative error:
 * sparse log-linear histograms. A value x >= 2^r falls into one of 2^r equal sub-buckets of
 * its power of two [2^e, 2^(e+1)); below 2^r every value is its own bucket. A quantile is
 * the nearest-rank bucket's midpoint, clamped to the exact min and max: within 2^-(r+1) of
 * the true value, relatively (1.6% at r = 5). Sketches of one family share r, so they merge
 * by adding counts; when the family's buckets outgrow its memory budget, every sketch is
 * collapsed to r - 1 (two sub-buckets into one), which halves the resolution and at most
 * the memory. Memory is bounded by the budget, whatever the number of sketches and values.
 */
#ifndef MEMTAP_ANALYSIS_SKETCH_H
#define MEMTAP_ANALYSIS_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#define MT_SKETCH_R_MAX 5

struct mt_sketch {
	uint64_t n, sum, min, max;
	uint64_t *v; /* sorted (bucket << 48 | count) pairs */
	uint32_t len, cap;
};

struct mt_sketch_family {
	unsigned r; /* sub-buckets per power of two: 2^r */
	size_t pairs, budget; /* buckets held by every sketch of the family, and their limit */
	unsigned collapses;
};

void mt_sketch_family_init(struct mt_sketch_family *f, size_t budget_pairs);
/* Adds x; -ENOMEM when no memory (x counted in n, sum, min, max only). */
int mt_sketch_add(struct mt_sketch_family *f, struct mt_sketch *s, uint64_t x);
/* True when the family is over its budget: collapse every sketch, then mt_sketch_collapsed. */
static inline int mt_sketch_over(const struct mt_sketch_family *f)
{
	return f->pairs > f->budget && f->r > 0;
}
void mt_sketch_collapse(struct mt_sketch_family *f, struct mt_sketch *s);
void mt_sketch_collapsed(struct mt_sketch_family *f);
/* The nearest-rank quantile p in [0, 1]; 0 for an empty sketch. */
uint64_t mt_sketch_quantile(const struct mt_sketch_family *f, const struct mt_sketch *s, double p);
/* The relative error bound of the family's quantiles (0.016 at r = 5). */
double mt_sketch_rel_error(const struct mt_sketch_family *f);
void mt_sketch_release(struct mt_sketch *s);

#endif
