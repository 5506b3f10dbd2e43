/* SPDX-License-Identifier: MIT */
/* Quantiles of right-censored durations: pandas' interpolation, or Kaplan–Meier. */
#include "analysis/survival.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

int mt_surv_add(struct mt_surv *s, uint64_t t, bool censored)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct mt_surv_obs *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct mt_surv_obs){ t, censored };
	s->censored += censored;
	s->sorted = false;
	return 0;
}

/* By time; at one time the deaths before the censored (the usual convention: a value
 * censored at t was still at risk at t). */
static int cmp_obs(const void *a, const void *b)
{
	const struct mt_surv_obs *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (int)x->censored - (int)y->censored;
}

/* pandas' Series.quantile: linear interpolation between the closest ranks. */
static double interpolated(const struct mt_surv *s, double p)
{
	double pos = p * (double)(s->n - 1);
	size_t lo = (size_t)pos;

	if (lo + 1 >= s->n)
		return (double)s->v[s->n - 1].t;
	return (double)s->v[lo].t +
	       ((double)s->v[lo + 1].t - (double)s->v[lo].t) * (pos - (double)lo);
}

double mt_surv_quantile(struct mt_surv *s, double p, bool *lower)
{
	double surv = 1.0;
	size_t i = 0;

	*lower = false;
	if (!s->n)
		return NAN;
	if (!s->sorted) {
		mt_qsort(s->v, s->n, sizeof(*s->v), cmp_obs);
		s->sorted = true;
	}
	if (!s->censored)
		return interpolated(s, p);
	while (i < s->n) {
		size_t at_risk = s->n - i, deaths = 0, j = i;

		for (; j < s->n && s->v[j].t == s->v[i].t; j++)
			deaths += !s->v[j].censored;
		if (deaths) {
			surv *= 1.0 - (double)deaths / (double)at_risk;
			if (1.0 - surv >= p - 1e-12)
				return (double)s->v[i].t;
		}
		i = j;
	}
	*lower = true;
	return (double)s->v[s->n - 1].t;
}

unsigned mt_surv_estimator(const struct mt_surv *s)
{
	return s->censored ? MT_SURV_KAPLAN_MEIER : MT_SURV_OBSERVED;
}

const char *mt_surv_estimator_name(unsigned e)
{
	return e == MT_SURV_KAPLAN_MEIER ? "kaplan-meier" : "observed";
}

void mt_surv_release(struct mt_surv *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
