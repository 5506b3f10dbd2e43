/* SPDX-License-Identifier: MIT */
/*
 * Quantiles of durations some of which are right-censored: a region alive at the end of the
 * recording has a lifetime (and a retention) of at least what was seen, not that
 * (docs/metrics.md, "Censored lifetimes"). Without a censored value the quantile is pandas'
 * linear interpolation, as mrm-trace computes it; with one, the Kaplan–Meier estimator.
 */
#ifndef MEMTAP_ANALYSIS_SURVIVAL_H
#define MEMTAP_ANALYSIS_SURVIVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_surv_obs {
	uint64_t t;
	bool censored;
};

struct mt_surv {
	struct mt_surv_obs *v;
	size_t n, cap;
	uint64_t censored; /* of n */
	bool sorted;
};

/* Which estimator a quantile came from (mt_surv_estimator_name). */
enum { MT_SURV_OBSERVED, MT_SURV_KAPLAN_MEIER };

int mt_surv_add(struct mt_surv *s, uint64_t t, bool censored);
/*
 * The p-quantile (0 < p < 1), NaN for an empty set. With censored values it is the first
 * time at which the Kaplan–Meier estimate of the distribution reaches p; when it never
 * does (the quantile lies beyond every death seen), the largest time is returned and
 * *lower set: the quantile is at least that.
 */
double mt_surv_quantile(struct mt_surv *s, double p, bool *lower);
unsigned mt_surv_estimator(const struct mt_surv *s);
const char *mt_surv_estimator_name(unsigned e);
void mt_surv_release(struct mt_surv *s);

#endif
