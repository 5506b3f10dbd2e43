/* SPDX-License-Identifier: MIT */
/* Folded stacks ("root;...;leaf weight" lines) for flamegraph.pl, inferno and speedscope. */
#ifndef MEMTAP_EXPORT_FOLDED_H
#define MEMTAP_EXPORT_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mt_reader;
struct mt_alloc_stats;
struct mt_procs;
struct mt_symbolizer;

enum mt_folded_weight {
	MT_FOLD_BYTES, /* requested bytes allocated */
	MT_FOLD_CALLS, /* allocation calls */
	MT_FOLD_PEAK, /* bytes live at the overall heap peak */
	MT_FOLD_LEAKED, /* bytes live at exit */
	MT_FOLD_TEMPORARY, /* temporary allocations */
	MT_FOLD_NWEIGHTS,
};

/* A stack as one folded line, with every weight of the sites that symbolize to it. */
struct mt_folded_line {
	char *text; /* "root;outermost;...;innermost" */
	uint64_t w[MT_FOLD_NWEIGHTS];
};

struct mt_folded_lines {
	struct mt_folded_line *v; /* sorted by text, each text once */
	size_t n, cap;
};

struct mt_folded_stats {
	uint64_t lines; /* stacks written */
	uint64_t total; /* sum of the weights written */
	uint64_t unresolved_frames; /* frames written as module+offset or a bare address */
};

/*
 * Writes one line per allocation site with a non-zero weight: the process ("comm pid")
 * as the root frame, then the call stack outermost first; inlined frames are marked
 * "_[i]" as flamegraph.pl expects. -errno on failure (-ENODATA: no allocation events;
 * -EOPNOTSUPP: a weight a trace recorded with --alloc=sites cannot give).
 */
int mt_export_folded(struct mt_reader *r, enum mt_folded_weight w, FILE *out,
		     struct mt_folded_stats *stats);

/*
 * The lines of every site with calls or bytes, from an analysis already made (its sites,
 * process tree and symbolizer): the root is "comm pid", or "comm" alone without with_pid
 * (runs compared: their pids differ). 0 or -errno.
 */
int mt_folded_lines(struct mt_reader *r, const struct mt_alloc_stats *st,
		    const struct mt_procs *procs, struct mt_symbolizer *sym, bool with_pid,
		    struct mt_folded_lines *out, struct mt_folded_stats *stats);
void mt_folded_lines_release(struct mt_folded_lines *l);

#endif
