/* SPDX-License-Identifier: MIT */
/* The figures of memtap runs stat and compare, from an experiment's index. */
#ifndef MEMTAP_EXP_STATS_H
#define MEMTAP_EXP_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "exp/index.h"

/* A run's figures (docs/experiments.md, "Figures"). */
enum mt_exp_fig {
	MT_FIG_WALL, /* wall time, s */
	MT_FIG_RSS, /* peak RSS, bytes: a traced run's from its trace, else the kernel's maxrss */
	MT_FIG_HEAP, /* peak heap, bytes (traced) */
	MT_FIG_FAULTS, /* page faults, minor + major (traced) */
	MT_FIG_WSS, /* working set, peak pages per window (traced, with access samples) */
	MT_FIG_RECORDER_CPU, /* memtap record's own CPU time, s (traced) */
	MT_FIG_DATA_READ, /* bytes of data files read, a re-read counted again (traced, syscalls) */
	MT_FIG_REREAD, /* bytes of data files read more than once, each counted once (same) */
	MT_NFIGS
};

/* Its JSON name ("wall_s", "peak_rss_bytes", ...) and its value in r (NaN: r lacks it). */
const char *mt_exp_fig_name(int f);
double mt_exp_fig(const struct mt_exp_index_row *r, int f);

/* Per workload x configuration, over its ok runs (warm-ups left out; contaminated runs too
 * unless asked). */
struct mt_exp_stat {
	const char *workload, *config; /* point into the rows */
	size_t traced, baseline; /* ok runs aggregated */
	size_t failed; /* not ok, any kind */
	size_t contaminated; /* ok but contaminated: left out (unless included) */
	size_t marginal; /* aggregated, marginal */
	const char *kind; /* the runs mean[] and sd[] are of: "traced", or "baseline" */
	double mean[MT_NFIGS], sd[MT_NFIGS]; /* NaN without runs that have the figure */
	size_t count[MT_NFIGS];
	double base_mean_s, base_sd_s, base_rss_mean; /* baseline runs beside traced ones */
	/* traced / baseline mean wall time, with a 95 % bootstrap interval (2000 seeded
	 * resamples of each side): NaN without both */
	double observer, observer_lo, observer_hi;
};

int mt_exp_stats(const struct mt_exp_index_row *rows, size_t n, bool with_contaminated,
		 struct mt_exp_stat **stats, size_t *nstats);

/* Configuration b against a for one workload: per figure both means, b/a with its 95 %
 * bootstrap interval (NaN where either side lacks the figure). */
struct mt_exp_cmp {
	const char *workload;
	size_t na, nb; /* runs aggregated on each side */
	double a[MT_NFIGS], b[MT_NFIGS], ratio[MT_NFIGS], lo[MT_NFIGS], hi[MT_NFIGS];
};

/* Every workload that has runs of kind (traced or baseline) in both configurations. */
int mt_exp_compare(const struct mt_exp_index_row *rows, size_t n, const char *a, const char *b,
		   const char *kind, bool with_contaminated, struct mt_exp_cmp **out, size_t *nout);

#endif
