/* SPDX-License-Identifier: MIT */
/* Ordered sets of address ranges: treaps in one node pool (analysis/rangeset.h). */
#include "analysis/rangeset.h"

#include "common/array.h"

uint32_t mt_rs_new(struct mt_rs_pool *p, uint64_t start, uint64_t end, uint32_t a, uint32_t b)
{
	uint32_t i;

	if (p->free) {
		i = p->free;
		p->free = p->v[i].l;
	} else {
		if (mt_grow_array(&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0)
			return 0;
		if (!p->n)
			p->n = 1; /* the null node */
		if (mt_grow_array(&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0)
			return 0;
		i = (uint32_t)p->n++;
	}
	p->seed = p->seed * 1103515245u + 12345u;
	p->v[i] = (struct mt_rs_node){ start, end, p->seed, 0, 0, a, b, 0, 0 };
	return i;
}

void mt_rs_free(struct mt_rs_pool *p, uint32_t t)
{
	while (t) {
		uint32_t r = p->v[t].r;

		mt_rs_free(p, p->v[t].l);
		p->v[t].l = p->free;
		p->free = t;
		t = r;
	}
}

/* Splits t into keys < key (*l) and keys >= key (*r). */
static void split(struct mt_rs_pool *p, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
		return;
	}
	if (p->v[t].start < key) {
		split(p, p->v[t].r, key, &p->v[t].r, r);
		*l = t;
	} else {
		split(p, p->v[t].l, key, l, &p->v[t].l);
		*r = t;
	}
}

static uint32_t merge(struct mt_rs_pool *p, uint32_t a, uint32_t b)
{
	if (!a || !b)
		return a ? a : b;
	if (p->v[a].prio > p->v[b].prio) {
		p->v[a].r = merge(p, p->v[a].r, b);
		return a;
	}
	p->v[b].l = merge(p, a, p->v[b].l);
	return b;
}

/* Removes every range starting in [lo, hi). */
void mt_rs_erase(struct mt_rs_pool *p, uint32_t *root, uint64_t lo, uint64_t hi)
{
	uint32_t l, m, r;

	split(p, *root, lo, &l, &r);
	split(p, r, hi, &m, &r);
	mt_rs_free(p, m);
	*root = merge(p, l, r);
}

void mt_rs_insert(struct mt_rs_pool *p, uint32_t *root, uint32_t n)
{
	uint32_t l, r;

	mt_rs_erase(p, root, p->v[n].start, p->v[n].start + 1);
	split(p, *root, p->v[n].start, &l, &r);
	*root = merge(p, merge(p, l, n), r);
}

void mt_rs_each(const struct mt_rs_pool *p, uint32_t t,
		void (*fn)(const struct mt_rs_node *, void *), void *ctx)
{
	while (t) { /* recursion on the left only: a treap is O(log n) deep */
		mt_rs_each(p, p->v[t].l, fn, ctx);
		fn(&p->v[t], ctx);
		t = p->v[t].r;
	}
}

/* The range with the largest start <= addr, or 0. */
uint32_t mt_rs_find_le(const struct mt_rs_pool *p, uint32_t t, uint64_t addr)
{
	uint32_t best = 0;

	while (t) {
		if (p->v[t].start <= addr) {
			best = t;
			t = p->v[t].r;
		} else {
			t = p->v[t].l;
		}
	}
	return best;
}

uint32_t mt_rs_find(const struct mt_rs_pool *p, uint32_t t, uint64_t addr)
{
	uint32_t n = mt_rs_find_le(p, t, addr);

	return n && addr < p->v[n].end ? n : 0;
}

/*
 * Cuts [lo, hi) out of the ranges, as the kernel splits its vmas (munmap, mprotect, a new
 * mapping over part of an old one): a range reaching past either end keeps what lies
 * outside, under its own region.
 */
void mt_rs_punch(struct mt_rs_pool *p, uint32_t *root, uint64_t lo, uint64_t hi)
{
	uint32_t prev, last;

	if (hi <= lo)
		return;
	/* The last range starting inside [lo, hi) may reach past hi: keep its tail. */
	last = mt_rs_find_le(p, *root, hi - 1);
	if (last && p->v[last].start >= lo && p->v[last].end > hi) {
		uint32_t tail = mt_rs_new(p, hi, p->v[last].end, p->v[last].a, p->v[last].b);

		mt_rs_erase(p, root, lo, hi);
		if (tail)
			mt_rs_insert(p, root, tail);
	} else {
		mt_rs_erase(p, root, lo, hi);
	}
	/* A range starting before lo: cut at lo, and keep its part past hi. */
	prev = mt_rs_find_le(p, *root, lo);
	if (prev && p->v[prev].start < lo && p->v[prev].end > lo) {
		uint64_t end = p->v[prev].end;

		p->v[prev].end = lo;
		if (end > hi) {
			uint32_t tail = mt_rs_new(p, hi, end, p->v[prev].a, p->v[prev].b);

			if (tail)
				mt_rs_insert(p, root, tail);
		}
	}
}

void mt_rs_copy(struct mt_rs_pool *p, uint32_t t, uint32_t *to)
{
	while (t) {
		struct mt_rs_node n = p->v[t];
		uint32_t c;

		mt_rs_copy(p, n.l, to);
		c = mt_rs_new(p, n.start, n.end, n.a, n.b);
		if (c) {
			p->v[c].c = n.c;
			p->v[c].t = n.t;
			mt_rs_insert(p, to, c);
		}
		t = p->v[t].r; /* p->v may have moved: re-read through the index */
	}
}
