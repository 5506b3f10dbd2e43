/* SPDX-License-Identifier: MIT */
/* Folded stacks ("root;...;leaf weight" lines) for flamegraph.pl, inferno and speedscope. */
#ifndef MEMTAP_EXPORT_FOLDED_H
#define MEMTAP_EXPORT_FOLDED_H

#include <stdint.h>
#include <stdio.h>

struct mt_reader;

enum mt_folded_weight {
	MT_FOLD_BYTES, /* requested bytes allocated */
	MT_FOLD_CALLS, /* allocation calls */
	MT_FOLD_PEAK, /* bytes live at the overall heap peak */
	MT_FOLD_LEAKED, /* bytes live at exit */
	MT_FOLD_TEMPORARY, /* temporary allocations */
};

struct mt_folded_stats {
	uint64_t lines; /* stacks written */
	uint64_t total; /* sum of the weights written */
	uint64_t unresolved_frames; /* frames written as module+offset or a bare address */
};

/*
 * Writes one line per allocation site with a non-zero weight: the process ("comm pid")
 * as the root frame, then the call stack outermost first; inlined frames are marked
 * "_[i]" as flamegraph.pl expects. -errno on failure (-ENODATA: no allocation events).
 */
int mt_export_folded(struct mt_reader *r, enum mt_folded_weight w, FILE *out,
		     struct mt_folded_stats *stats);

#endif
