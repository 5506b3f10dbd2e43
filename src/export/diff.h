/* SPDX-License-Identifier: MIT */
/*
 * `memtap diff A B`: two runs side by side. Allocation sites are matched by their symbolized
 * stacks (the folded line, process by name: pids differ between runs), region types by name,
 * system calls by name; every pair with its two values, the change and the ratio B/A, sorted
 * by the absolute change. Also the difference as flamegraph.pl's difffolded.pl writes it
 * ("stack A B" lines) for a differential flame graph.
 */
#ifndef MEMTAP_EXPORT_DIFF_H
#define MEMTAP_EXPORT_DIFF_H

#include <stdio.h>

#include "export/folded.h"
#include "export/report.h"

struct mt_diff_side {
	const struct mt_report *rep;
	const char *path;
	struct mt_folded_lines lines; /* its sites, merged by symbolized stack */
};

/* Site lines of both sides: rep must hold the alloc section (its sites and symbolizer). */
int mt_diff_side_load(struct mt_diff_side *s, const struct mt_report *rep, const char *path);
void mt_diff_side_release(struct mt_diff_side *s);
/* The diff as text, Markdown, JSON or CSV (the sites); top: rows per table for people. */
int mt_diff_print(const struct mt_diff_side *a, const struct mt_diff_side *b,
		  enum mt_report_format fmt, unsigned top, FILE *f);
/* difffolded lines of one weight: every stack of either side, "stack A B". */
int mt_diff_folded(const struct mt_diff_side *a, const struct mt_diff_side *b,
		   enum mt_folded_weight w, FILE *f);

#endif
