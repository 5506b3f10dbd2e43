/* SPDX-License-Identifier: MIT */
/* Quantiles of a stream of u64 values in bounded memory: exact up to MT_QS_EXACT values,
 * then a log-linear histogram (64 sub-buckets per power of two: within 1/128 relative). */
#ifndef MEMTAP_ANALYSIS_QUANTILE_H
#define MEMTAP_ANALYSIS_QUANTILE_H

#include <stdbool.h>
#include <stdint.h>

#define MT_QS_EXACT 4096

struct mt_qs {
	uint64_t n;
	double sum;
	uint64_t *v; /* the values while n <= MT_QS_EXACT */
	uint32_t nv, cap;
	uint64_t *hist; /* after that (or from the first weighted value) */
	bool sorted;
};

int mt_qs_add(struct mt_qs *q, uint64_t x);
/* x standing for w values (a sample at rate 1/w); w > 1 turns the set into the histogram. */
int mt_qs_add_w(struct mt_qs *q, uint64_t x, uint64_t w);
/* pandas' Series.quantile (linear interpolation) while exact; the bucket's midpoint after.
 * 0 for an empty set. */
double mt_qs_quantile(struct mt_qs *q, double p);
static inline double mt_qs_mean(const struct mt_qs *q)
{
	return q->n ? q->sum / (double)q->n : 0.0;
}
static inline bool mt_qs_exact(const struct mt_qs *q)
{
	return !q->hist;
}
void mt_qs_release(struct mt_qs *q);

#endif
