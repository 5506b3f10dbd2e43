/* SPDX-License-Identifier: MIT */
/* Sets of page runs: one boundary sweep for union, intersection and difference. */
#include "record/pwset.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/array.h"

int mt_pwset_append(struct mt_pwset *s, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 0;
	if (s->n && s->v[s->n - 1].hi >= lo) {
		if (hi > s->v[s->n - 1].hi)
			s->v[s->n - 1].hi = hi;
		return 0;
	}
	if (mt_grow_array(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	s->v[s->n++] = (struct mt_pwrun){ lo, hi };
	return 0;
}

/* The next boundary of a run list at position *i (inside: at its end, else at its start). */
static uint64_t next_edge(const struct mt_pwrun *v, size_t n, size_t *i, bool in)
{
	while (!in && *i < n && v[*i].hi <= v[*i].lo)
		(*i)++; /* an empty run has no inside */
	return *i < n ? (in ? v[*i].hi : v[*i].lo) : UINT64_MAX;
}

int mt_pwset_combine(const struct mt_pwrun *a, size_t na, const struct mt_pwrun *b, size_t nb,
		     enum mt_pwset_op op, size_t max, struct mt_pwset *out)
{
	size_t i = 0, j = 0;
	bool ina = false, inb = false, cur = false;
	uint64_t start = 0;

	out->n = 0;
	for (;;) {
		uint64_t xa = next_edge(a, na, &i, ina), xb = next_edge(b, nb, &j, inb);
		uint64_t x = xa < xb ? xa : xb;
		bool now;

		if (x == UINT64_MAX)
			break;
		if (xa == x) {
			i += ina;
			ina = !ina;
		}
		if (xb == x) {
			j += inb;
			inb = !inb;
		}
		now = op == MT_PWSET_OR	   ? ina || inb
		      : op == MT_PWSET_AND ? ina && inb
					   : ina && !inb;
		if (now && !cur) {
			start = x;
		} else if (!now && cur) {
			bool joins = out->n && out->v[out->n - 1].hi >= start;

			if (!joins && out->n >= max)
				return -ENOSPC;
			if (mt_pwset_append(out, start, x) < 0)
				return -ENOMEM;
		}
		cur = now;
	}
	return 0;
}

int mt_pwset_apply(struct mt_pwset *s, const struct mt_pwrun *b, size_t nb, enum mt_pwset_op op,
		   size_t max, struct mt_pwset *tmp)
{
	struct mt_pwset t;
	int r = mt_pwset_combine(s->v, s->n, b, nb, op, max, tmp);

	if (r < 0)
		return r;
	t = *s;
	*s = *tmp;
	*tmp = t;
	return 0;
}

uint64_t mt_pwset_bytes(const struct mt_pwrun *v, size_t n)
{
	uint64_t b = 0;

	for (size_t i = 0; i < n; i++)
		b += v[i].hi > v[i].lo ? v[i].hi - v[i].lo : 0;
	return b;
}

bool mt_pwset_overlaps(const struct mt_pwset *s, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = s->n;

	while (a < b) { /* the first run that ends after lo */
		size_t m = a + (b - a) / 2;

		if (s->v[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < s->n && s->v[a].lo < hi && hi > lo;
}

void mt_pwset_free(struct mt_pwset *s)
{
	free(s->v);
	*s = (struct mt_pwset){ 0 };
}
