/* SPDX-License-Identifier: MIT */
/* The allocation pass: counts, peak, leaks, temporaries, lifetimes and slack per call site. */
#ifndef MEMTAP_ANALYSIS_ALLOC_H
#define MEMTAP_ANALYSIS_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/sketch.h"

struct mt_reader;

/* One allocation site: a call stack in one process stream (stack 0: recorded without one). */
struct mt_alloc_site {
	uint32_t stream;
	uint32_t pid;
	uint64_t stack;
	uint64_t first_ns; /* first allocation, for symbolizing against the mappings then */
	uint64_t calls; /* successful allocation calls (realloc included) */
	uint64_t bytes; /* requested bytes, summed */
	uint64_t slack; /* usable - requested bytes, summed */
	uint64_t frees; /* its blocks released (free, realloc's move or shrink to 0) */
	uint64_t temporary; /* heaptrack's: freed with no other allocation in between */
	uint64_t live_bytes, live_blocks; /* in processes still running (during the pass) */
	uint64_t leaked_bytes, leaked_blocks; /* live when their process exited or exec'd */
	uint64_t max_live_bytes; /* this site's own maximum */
	uint64_t peak_bytes; /* bytes live from this site at the moment of the overall peak */
	uint64_t folded_calls; /* --max-size: calls counted in site windows, without rows */
	struct mt_sketch life; /* lifetimes of its freed blocks, ns (st->life_family) */
	/* private: lazy snapshot of live_bytes at the overall peak */
	uint64_t saved_live, saved_epoch, mod_epoch;
};

/* Per process image (one runtime stream: a process between its exec and exit). */
struct mt_alloc_proc {
	uint32_t stream;
	uint32_t pid;
	uint64_t calls, frees, bytes, temporary, slack;
	uint64_t live_bytes, live_blocks; /* at the end: leaked */
	uint64_t peak_bytes, peak_ns;
	uint64_t untracked_frees; /* frees of blocks this stream never saw allocated */
	uint64_t inherited_frees; /* frees of blocks of the parent's heap copied by fork */
	uint64_t first_ns;
	uint64_t last_row_ns; /* its last allocation row */
	bool ended; /* its process exited or exec'd */
	bool folded; /* --max-size: its heap from windows once its rows were folded */
};

struct mt_alloc_stats {
	bool present; /* the trace has allocation events */
	/* recorded with --alloc=sites: per-site windows, no blocks. Lifetimes, temporary
	 * allocations, the sites' heap at the peak, per-event flags and times are unknown; the
	 * overall peak is known (peak_known) when one process image allocated */
	bool sites_mode, peak_known;
	/* recorded with --max-size, whose fold began at folded_from_ns: from then on the calls
	 * of blocks below the kept size are counted in site windows (folded_calls), the rest
	 * are rows. Lifetimes and temporary allocations cover the rows only; the peak is known
	 * when one process image was folded and no other allocated after folded_from_ns, and
	 * the sites' heap at the peak when the peak came before it (site_peaks_known). */
	bool folded, site_peaks_known;
	uint64_t folded_from_ns, folded_calls;
	uint64_t calls, frees, bytes, temporary, slack;
	/* heaptrack 1.4 counts a free as temporary when the process's previous allocation had
	 * the same call stack and size, whichever block it frees; kept for comparisons */
	uint64_t temporary_heaptrack;
	uint64_t by_kind[10]; /* successful calls per enum mt_alloc_kind (FREE: frees) */
	uint64_t untracked_frees; /* frees of blocks never seen allocated */
	uint64_t inherited_frees; /* frees, in a fork child, of blocks its parent allocated */
	uint64_t reordered_frees; /* frees that came after their address was allocated again */
	uint64_t leaked_bytes, leaked_blocks;
	uint64_t peak_bytes, peak_ns; /* the largest sum of live requested bytes, and when */
	uint64_t peak_usable; /* usable bytes live at that moment */
	uint64_t peak_blocks;
	uint64_t events, time_estimated, nested, truncated;
	uint64_t no_frames; /* allocations recorded without a single frame */
	uint64_t size_hist[65]; /* calls by requested size: [0] is 0 bytes, [k] is 2^(k-1)..2^k-1 */
	/* Lifetimes (free time - allocation time, ns) of every freed block, overall and per site:
	 * quantile sketches within life_family's stated relative error. */
	struct mt_sketch life;
	struct mt_sketch_family life_overall, life_family;
	uint64_t life_lost; /* frees whose lifetime found no memory (counted, never dropped silently) */
	struct mt_alloc_site *sites;
	size_t nsites;
	struct mt_alloc_proc *procs;
	size_t nprocs;
};

/* One pass over the allocation and lifecycle events. -errno on failure. */
struct mt_pass;
/* The pass that replays every allocation and free. */
int mt_alloc_pass(struct mt_reader *r, struct mt_alloc_stats *st, struct mt_pass *pass);
int mt_alloc_analyze(struct mt_reader *r, struct mt_alloc_stats *st);
void mt_alloc_release(struct mt_alloc_stats *st);

#endif
