/* SPDX-License-Identifier: MIT */
/* Sparse log-linear quantile sketches that collapse together under a memory budget. */
#include "analysis/sketch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

#define COUNT_MASK ((1ull << 48) - 1)

void mt_sketch_family_init(struct mt_sketch_family *f, size_t budget_pairs)
{
	memset(f, 0, sizeof(*f));
	f->r = MT_SKETCH_R_MAX;
	f->budget = budget_pairs;
}

static unsigned bucket(unsigned r, uint64_t x)
{
	unsigned e;

	if (x < (1ull << r))
		return (unsigned)x;
	e = 63u - (unsigned)__builtin_clzll(x);
	return ((e - r + 1) << r) | (unsigned)((x >> (e - r)) & ((1ull << r) - 1));
}

/* The smallest value of bucket b, and the first of the next. */
static uint64_t bucket_lo(unsigned r, unsigned b)
{
	unsigned e = (b >> r) + r - 1;

	if (b < (1u << r))
		return b;
	return (1ull << e) | (uint64_t)(b & ((1u << r) - 1)) << (e - r);
}

static uint64_t bucket_hi(unsigned r, unsigned b)
{
	unsigned n = b + 1;

	return n >= (1u << r) && (n >> r) + r - 1 >= 64 ? UINT64_MAX : bucket_lo(r, n);
}

int mt_sketch_add(struct mt_sketch_family *f, struct mt_sketch *s, uint64_t x)
{
	uint64_t b = bucket(f->r, x);
	uint32_t lo = 0, hi = s->len;

	if (!s->n || x < s->min)
		s->min = x;
	if (x > s->max)
		s->max = x;
	s->n++;
	s->sum += x;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (s->v[mid] >> 48 < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->len && s->v[lo] >> 48 == b) {
		s->v[lo]++;
		return 0;
	}
	if (s->len == s->cap) {
		size_t cap = s->cap;

		if (mt_grow_array(&s->v, &cap, (size_t)s->len + 1, sizeof(*s->v)) < 0)
			return -ENOMEM;
		s->cap = (uint32_t)cap;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->len - lo) * sizeof(*s->v));
	s->v[lo] = b << 48 | 1;
	s->len++;
	f->pairs++;
	return 0;
}

void mt_sketch_collapse(struct mt_sketch_family *f, struct mt_sketch *s)
{
	uint32_t w = 0;

	if (!f->r)
		return;
	for (uint32_t i = 0; i < s->len; i++) {
		uint64_t b = bucket(f->r - 1, bucket_lo(f->r, (unsigned)(s->v[i] >> 48)));
		uint64_t c = s->v[i] & COUNT_MASK;

		if (w && s->v[w - 1] >> 48 == b)
			s->v[w - 1] += c;
		else
			s->v[w++] = b << 48 | c;
	}
	f->pairs -= s->len - w;
	s->len = w;
}

void mt_sketch_collapsed(struct mt_sketch_family *f)
{
	if (f->r) {
		f->r--;
		f->collapses++;
	}
}

uint64_t mt_sketch_quantile(const struct mt_sketch_family *f, const struct mt_sketch *s, double p)
{
	uint64_t rank, seen = 0;

	if (!s->n)
		return 0;
	if (p <= 0)
		return s->min;
	rank = (uint64_t)(p * (double)s->n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	for (uint32_t i = 0; i < s->len; i++) {
		seen += s->v[i] & COUNT_MASK;
		if (seen >= rank) {
			unsigned b = (unsigned)(s->v[i] >> 48);
			uint64_t lo = bucket_lo(f->r, b), hi = bucket_hi(f->r, b) - 1;
			uint64_t mid = lo + (hi - lo) / 2;

			return mid < s->min ? s->min : mid > s->max ? s->max : mid;
		}
	}
	return s->max; /* counts lost to a failed allocation */
}

double mt_sketch_rel_error(const struct mt_sketch_family *f)
{
	return 1.0 / (double)(2ull << f->r);
}

void mt_sketch_release(struct mt_sketch *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
