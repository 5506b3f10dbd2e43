/* SPDX-License-Identifier: MIT */
/* `memtap syscalls`: the summary, the list of calls and the rereads, rendered. */
#ifndef MEMTAP_EXPORT_SYSCALLS_VIEW_H
#define MEMTAP_EXPORT_SYSCALLS_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/rereads.h"
#include "analysis/syscalls.h"

struct mt_reader;

/* How to render: format 0 text, 1 JSON, 2 CSV; all_files: --rereads shows every kind of
 * file, not the workload's data files only. */
struct mt_sc_view {
	int format;
	bool all_files;
	FILE *f;
};

/* The strace -c table of the workload's calls, and the runtime's apart. */
void mt_sc_print_summary(const struct mt_sc_view *v, const struct mt_syscalls_stats *st,
			 uint64_t cost_ns, const char *mech, bool loader_unknown);
/* Every call the filter selects, in time order (t0: the run's start). */
int mt_sc_print_list(const struct mt_sc_view *v, struct mt_reader *r,
		     const struct mt_syscall_filter *f, uint64_t t0);
/* Per file, the byte ranges read more than once. */
void mt_sc_print_rereads(const struct mt_sc_view *v, const struct mt_rereads *rr);

#endif
