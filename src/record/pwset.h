/* SPDX-License-Identifier: MIT */
/* Sets of page runs (sorted, disjoint, half-open address intervals) for page-write settling. */
#ifndef MEMTAP_RECORD_PWSET_H
#define MEMTAP_RECORD_PWSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_pwrun {
	uint64_t lo, hi;
};

struct mt_pwset {
	struct mt_pwrun *v;
	size_t n, cap;
};

enum mt_pwset_op { MT_PWSET_OR, MT_PWSET_AND, MT_PWSET_MINUS };

/*
 * out = a OP b, where a and b are sorted, disjoint runs (empty runs are ignored); out is
 * sorted, disjoint and coalesced, and must be neither input. At most max runs: -ENOSPC when
 * the result would hold more (out is then partial), -ENOMEM; else 0.
 */
int mt_pwset_combine(const struct mt_pwrun *a, size_t na, const struct mt_pwrun *b, size_t nb,
		     enum mt_pwset_op op, size_t max, struct mt_pwset *out);
/* Appends [lo, hi) after the set's last run (coalesced with it when they touch). */
int mt_pwset_append(struct mt_pwset *s, uint64_t lo, uint64_t hi);
/* *s = *s OP b, through the scratch set tmp (swapped in); unchanged on failure. */
int mt_pwset_apply(struct mt_pwset *s, const struct mt_pwrun *b, size_t nb, enum mt_pwset_op op,
		   size_t max, struct mt_pwset *tmp);
uint64_t mt_pwset_bytes(const struct mt_pwrun *v, size_t n);
/* Whether a run of the set overlaps [lo, hi) (a binary search). */
bool mt_pwset_overlaps(const struct mt_pwset *s, uint64_t lo, uint64_t hi);
void mt_pwset_free(struct mt_pwset *s);

#endif
