/* SPDX-License-Identifier: MIT */
/* memtap view: one self-contained, offline HTML report of a trace. */
#ifndef MEMTAP_EXPORT_VIEW_H
#define MEMTAP_EXPORT_VIEW_H

#include <stdbool.h>
#include <stdint.h>

struct mt_reader;
struct mt_access_opts;

#define MT_VIEW_MAX_POINTS 250000

struct mt_view_opts {
	bool force; /* replace an existing file */
	unsigned max_points; /* samples and faults drawn (0: MT_VIEW_MAX_POINTS) */
	unsigned top; /* rows of the sites table (0: 50) */
	const struct mt_access_opts *ao; /* window, MRM thresholds, rules */
};

struct mt_view_stats {
	uint64_t points_total; /* samples with an address and faults in the trace */
	uint64_t points; /* of which drawn */
	uint64_t stride; /* 1 in stride drawn */
	unsigned segments; /* bands of the address axis */
	uint64_t bytes; /* of the file */
};

/*
 * Writes the report of trace r (path: its name) to out ("-": standard output): run header
 * (command, duration, exit status, every collector's mechanism, parameters and losses),
 * timelines (RSS by type, heap bytes, working set, faults per interval, phases as bands), the
 * address x time view of sampled loads/stores and faults (1 in stride when there are more
 * than max_points, said on the page) with region overlays, and the tables (regions and their
 * metrics, region types, allocation sites with stacks, system calls, re-reads, processes).
 * The page loads nothing: its script, styles and data are inline, and every string from the
 * trace is escaped. A file appears only when complete. 0 or -errno.
 */
int mt_export_view(struct mt_reader *r, const char *path, const char *out,
		   const struct mt_view_opts *o, struct mt_view_stats *st);

#endif
