/* SPDX-License-Identifier: MIT */
/* Time series of a run in bounded memory (for memtap view and plot): resident memory by
 * type, live heap bytes and page faults in a fixed number of time buckets, and the phases'
 * intervals. */
#ifndef MEMTAP_ANALYSIS_TIMELINE_H
#define MEMTAP_ANALYSIS_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"

struct mt_reader;
struct mt_event;

/*
 * Live heap bytes per process from the allocation events: a block's usable bytes count from
 * its allocation to its free (or realloc's move). A process counts the blocks it allocated
 * itself; frees of blocks it inherited at fork are not seen as its own (counted apart).
 */
struct mt_heap_tracker {
	struct mt_map64 blocks; /* pid << 47 | address -> usable bytes */
	struct mt_map64 live; /* pid -> live bytes */
	uint64_t total; /* over every process */
	uint64_t unknown_frees; /* frees of blocks never seen allocated */
};

void mt_heap_init(struct mt_heap_tracker *h);
void mt_heap_release(struct mt_heap_tracker *h);
/* Applies one MT_EV_ALLOC event; returns the process's live bytes after it. */
uint64_t mt_heap_event(struct mt_heap_tracker *h, const struct mt_event *ev);

#define MT_TL_BUCKETS 2000

/* One bucket of the run's time: values at its end (gauges) or summed over it (counts). */
struct mt_tl_bucket {
	uint64_t rss[4]; /* file, anon, shmem, swap: the live processes' latest records, summed */
	uint64_t rss_max; /* the largest file + anon + shmem sum within the bucket */
	uint64_t heap; /* live heap bytes, every process, at the bucket's end */
	uint64_t heap_max; /* the largest within the bucket */
	uint64_t faults_minor, faults_major; /* in the bucket: the workload's */
	uint64_t faults_tracking; /* page-write tracking's (memtap's), in neither */
	bool rss_seen; /* an RSS record in or before it */
	bool heap_seen; /* an allocation event in or before it */
};

struct mt_tl_phase {
	uint32_t pid;
	char *name;
	uint64_t start_ns, end_ns;
};

/* A span of the workload (memtap_span_begin/end), for the timeline's spans lane. */
struct mt_tl_span {
	uint32_t pid, tid, depth; /* depth: spans open around it on its thread */
	char *name;
	uint64_t start_ns, end_ns;
	bool open; /* never ended: drawn to the trace's end */
};

struct mt_timeline {
	uint64_t t0, t1; /* the trace's first and last event (CLOCK_MONOTONIC ns) */
	uint64_t bucket_ns; /* (t1 - t0) / MT_TL_BUCKETS, at least 1 */
	struct mt_tl_bucket b[MT_TL_BUCKETS];
	bool has_rss, has_heap, has_faults;
	uint64_t rss_peak, heap_peak; /* exact, over the whole run */
	uint64_t unknown_frees;
	struct mt_tl_phase *phases; /* in time order; at most MT_TL_MAX_PHASES (the rest counted) */
	size_t nphases;
	uint64_t phases_dropped;
	struct mt_tl_span *spans; /* in begin order; at most MT_TL_MAX_SPANS (the rest counted) */
	size_t nspans, spans_cap;
	uint64_t spans_dropped;
};

#define MT_TL_MAX_SPANS 100000

#define MT_TL_MAX_PHASES 100000

/* One pass over the RSS, allocation, fault, phase and process-exit events. 0 or -errno. */
struct mt_pass;
int mt_timeline_pass(struct mt_reader *r, struct mt_timeline *tl, struct mt_pass *pass);
int mt_timeline_build(struct mt_reader *r, struct mt_timeline *tl);
void mt_timeline_release(struct mt_timeline *tl);

#endif
