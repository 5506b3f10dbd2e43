/* SPDX-License-Identifier: MIT */
/* Quantiles in bounded memory. */
#include "common/array.h"
#include "analysis/quantile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SUB 64 /* sub-buckets per power of two */
#define NBUCKETS (SUB + (64 - 6) * SUB)

static unsigned bucket(uint64_t x)
{
	unsigned e;

	if (x < SUB)
		return (unsigned)x;
	e = 63u - (unsigned)__builtin_clzll(x); /* >= 6 */
	return SUB + (e - 6) * SUB + (unsigned)((x >> (e - 6)) & (SUB - 1));
}

/* The middle of bucket b's range of values. */
static double bucket_mid(unsigned b)
{
	unsigned e, sub;
	double lo, width;

	if (b < SUB)
		return b;
	e = (b - SUB) / SUB + 6;
	sub = (b - SUB) % SUB;
	width = (double)(1ull << (e - 6));
	lo = (double)(1ull << e) + sub * width;
	return lo + (width - 1) / 2;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* From the exact values to the histogram. */
static int to_hist(struct mt_qs *q)
{
	q->hist = calloc(NBUCKETS, sizeof(*q->hist));
	if (!q->hist)
		return -ENOMEM;
	for (uint32_t i = 0; i < q->nv; i++)
		q->hist[bucket(q->v[i])]++;
	free(q->v);
	q->v = NULL;
	q->nv = q->cap = 0;
	return 0;
}

int mt_qs_add(struct mt_qs *q, uint64_t x)
{
	return mt_qs_add_w(q, x, 1);
}

int mt_qs_add_w(struct mt_qs *q, uint64_t x, uint64_t w)
{
	if (!q->hist && w == 1 && q->nv < MT_QS_EXACT) { /* still exact */
		if (q->nv == q->cap) {
			uint32_t cap = q->cap ? q->cap * 2 : 16;
			uint64_t *v = realloc(q->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			q->v = v;
			q->cap = cap;
		}
		q->v[q->nv++] = x;
		q->sorted = false;
	} else {
		if (!q->hist && to_hist(q) < 0)
			return -ENOMEM;
		q->hist[bucket(x)] += w;
	}
	q->n += w;
	q->sum += (double)x * (double)w;
	return 0;
}

double mt_qs_quantile(struct mt_qs *q, double p)
{
	double pos;
	uint64_t rank, seen = 0;

	if (!q->n)
		return 0.0;
	if (!q->hist) {
		size_t lo;

		if (!q->sorted) {
			mt_qsort(q->v, q->nv, sizeof(*q->v), cmp_u64);
			q->sorted = true;
		}
		pos = p * (double)(q->nv - 1);
		lo = (size_t)pos;
		if (lo + 1 >= q->nv)
			return (double)q->v[q->nv - 1];
		return (double)q->v[lo] +
		       ((double)q->v[lo + 1] - (double)q->v[lo]) * (pos - (double)lo);
	}
	rank = (uint64_t)(p * (double)(q->n - 1));
	for (unsigned b = 0; b < NBUCKETS; b++) {
		seen += q->hist[b];
		if (seen > rank)
			return bucket_mid(b);
	}
	return bucket_mid(NBUCKETS - 1);
}

void mt_qs_release(struct mt_qs *q)
{
	free(q->v);
	free(q->hist);
	memset(q, 0, sizeof(*q));
}
