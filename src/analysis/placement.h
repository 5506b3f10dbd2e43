/* SPDX-License-Identifier: MIT */
/*
 * What-if placement (docs/metrics.md, "What-if placement"): for each MRM candidate and each
 * tier of the model it could move to, the DRAM it would free, the bandwidth it needs, the
 * rewrites a retention window would need, and a first-order model of the access time it
 * would add; ranked by DRAM freed per second of added time.
 */
#ifndef MEMTAP_ANALYSIS_PLACEMENT_H
#define MEMTAP_ANALYSIS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/candidates.h"
#include "analysis/tiers.h"

#define MT_PLACE_LINE 64 /* bytes moved per sampled access: one cache line (the model) */

/* What the figures come from. */
struct mt_place_in {
	const struct mt_candidate *cands;
	size_t ncands;
	const struct mt_tiers *tiers;
	double run_s; /* the recording's duration */
	/* the access sampling: its period and unit ("loads", "ns", "cycles"); period 0 or
	 * unit NULL: no samples (the columns that need them are null) */
	uint64_t period;
	const char *unit;
	bool page_writes; /* the pagewrites collector ran: refresh figures can be known */
};

/* How access counts are known. */
enum mt_place_basis {
	MT_PLACE_NONE, /* no access samples */
	MT_PLACE_COUNTS, /* a sample stands for `period` accesses (PEBS, IBS, SPE) */
	MT_PLACE_TIME, /* a sample stands for `period` ns of CPU time (cpu-clock) */
	MT_PLACE_CYCLES, /* for `period` cycles: neither counts nor time without a clock */
};

struct mt_placement {
	size_t cand; /* index into the candidates */
	unsigned tier; /* index into the model's tiers, >= 1 */
	uint64_t bytes; /* DRAM it frees */
	/* bytes per second over the run, and the 95% half-width of the estimate (Poisson
	 * counts of samples); NaN unless MT_PLACE_COUNTS */
	double read_bps, read_bps_err, write_bps, write_bps_err;
	/* CPU time its sampled loads and stores stand for, s, with the 95% half-width; NaN
	 * unless MT_PLACE_TIME */
	double read_time_s, write_time_s, time_err_s;
	/* the model's added access time, s (NaN when the samples cannot give it) */
	double added_s, added_err_s;
	/* rewrites because data outlived the tier's retention window, over the recording:
	 * bytes (estimate, least, most), per second, and the time they take at the tier's
	 * write latency per line; 0 for a tier without a window; NaN when not known */
	double refresh_bytes, refresh_lo, refresh_hi, refresh_bps, refresh_s;
	double cost_s; /* added_s + refresh_s; NaN when either is unknown */
	double score; /* bytes per second of cost (INFINITY at no cost; NaN: cost unknown) */
};

enum mt_place_basis mt_place_basis_of(uint64_t period, const char *unit);
const char *mt_place_basis_name(unsigned basis);
/* One row per candidate and target tier, ranked: known cost first, by score (ties: bytes),
 * then unknown cost by bytes. 0 or -ENOMEM. */
int mt_placement_build(const struct mt_place_in *in, struct mt_placement **out, size_t *n);

#endif
