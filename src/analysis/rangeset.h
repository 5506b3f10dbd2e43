/* SPDX-License-Identifier: MIT */
/*
 * Ordered sets of address ranges (treaps keyed by start address, nodes in one pool): the
 * region model's mappings, heap blocks and labels per process. A node carries two values
 * (a, b) for its owner. Node 0 is the null node; a tree is named by its root index.
 */
#ifndef MEMTAP_ANALYSIS_RANGESET_H
#define MEMTAP_ANALYSIS_RANGESET_H

#include <stddef.h>
#include <stdint.h>

struct mt_rs_node {
	uint64_t start, end;
	uint32_t prio, l, r;
	uint32_t a, b; /* mappings: region; blocks: site, region (NONE until sampled) */
	uint64_t c; /* blocks: the site's allocations when this one was made (0 elsewhere) */
	uint64_t t; /* blocks: when it was allocated (0 elsewhere) */
};

struct mt_rs_pool {
	struct mt_rs_node *v; /* v[0] is the null node */
	size_t n, cap;
	uint32_t free;
	uint32_t seed;
};

/* A new node [start, end) with values a, b; 0 when memory is short. */
uint32_t mt_rs_new(struct mt_rs_pool *p, uint64_t start, uint64_t end, uint32_t a, uint32_t b);
/* Frees every node of tree t. */
void mt_rs_free(struct mt_rs_pool *p, uint32_t t);
/* Removes every range starting in [lo, hi). */
void mt_rs_erase(struct mt_rs_pool *p, uint32_t *root, uint64_t lo, uint64_t hi);
/* Inserts node n (replacing a range with the same start). */
void mt_rs_insert(struct mt_rs_pool *p, uint32_t *root, uint32_t n);
/* The range with the largest start <= addr, or 0. */
uint32_t mt_rs_find_le(const struct mt_rs_pool *p, uint32_t t, uint64_t addr);
/* The range holding addr, or 0. */
uint32_t mt_rs_find(const struct mt_rs_pool *p, uint32_t t, uint64_t addr);
/* Cuts [lo, hi) out of the ranges, keeping what lies outside under the same values. */
void mt_rs_punch(struct mt_rs_pool *p, uint32_t *root, uint64_t lo, uint64_t hi);
/* Calls fn(node, ctx) for every node of tree t, in address order. */
void mt_rs_each(const struct mt_rs_pool *p, uint32_t t,
		void (*fn)(const struct mt_rs_node *, void *), void *ctx);
/* Copies tree t into *to. */
void mt_rs_copy(struct mt_rs_pool *p, uint32_t t, uint32_t *to);

#endif
