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
};

/* Adds or replaces the row of (workload, config, kind, rep). */
int mt_exp_index_put(const char *results, const struct mt_exp_index_row *r);
/* Every row, in running order; -ENOENT when the directory has no index. */
int mt_exp_index_read(const char *results, struct mt_exp_index_row **rows, size_t *n);
void mt_exp_index_free(struct mt_exp_index_row *rows, size_t n);

/* Per workload x configuration, over the ok runs (warm-ups left out). */
struct mt_exp_stat {
	const char *workload, *config; /* point into the rows */
	size_t traced, baseline, failed; /* ok traced, ok baseline, not ok (any kind) */
	double wall_mean_s,
		wall_sd_s; /* traced runs (baseline runs for a baseline configuration) */
	double base_mean_s, base_sd_s; /* baseline runs */
	double rss_mean, base_rss_mean; /* peak RSS of the run's process tree, bytes */
	/* traced / baseline mean wall time, with a 95 % bootstrap interval (2000 resamples of
	 * each side, seeded): NaN without both */
	double observer, observer_lo, observer_hi;
};

int mt_exp_stats(const struct mt_exp_index_row *rows, size_t n, struct mt_exp_stat **stats,
		 size_t *nstats);

#endif
