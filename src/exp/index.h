/* SPDX-License-Identifier: MIT */
/* The experiment's index (results/index.sqlite) and the figures memtap runs gives from it. */
#ifndef MEMTAP_EXP_INDEX_H
#define MEMTAP_EXP_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* One completed run, as `memtap run` records it (table runs; docs/experiments.md). */
struct mt_exp_index_row {
	const char *workload, *config, *kind, *status, *directory;
	unsigned rep;
	size_t index;
	int exit_status;
	uint64_t wall_ns, user_ns, sys_ns, max_rss_bytes, start_ns;
	const char *validity, *reason; /* validity NULL (SQL NULL): not measured */
	double background_pct, observer_cpu_pct, observer_mem_pct; /* NaN: NULL */
	/* -1: NULL (not measured, or not traced) */
	int64_t recorder_cpu_ns, recorder_max_rss, peak_rss, peak_heap, faults_minor, faults_major;
	int64_t wss_peak_pages, lost_events, data_read_bytes, reread_bytes;
};

/* Adds or replaces the row of (workload, config, kind, rep). */
int mt_exp_index_put(const char *results, const struct mt_exp_index_row *r);
/* Every row, in running order; -ENOENT when the directory has no index. */
int mt_exp_index_read(const char *results, struct mt_exp_index_row **rows, size_t *n);
void mt_exp_index_free(struct mt_exp_index_row *rows, size_t n);

#endif
