/* SPDX-License-Identifier: MIT */
/*
 * Passes over one event stream: read the trace once, analyse many ways (as perf's tools share
 * one session). Each analysis registers a pass (the event types it wants, a callback per
 * event, a finish); mt_passes_run() reads the trace with one cursor in time order and hands
 * every event to the passes that asked for its type. The stream is handed out in batches, to
 * the passes in the order they were added: a batch pass sees a batch once every pass added
 * before it has seen all of it, so it may ask an earlier pass about any time up to the batch's
 * end (the access pass asks the symbolizer's mapping index); consecutive event passes see it
 * event by event, each event to each of them in order.
 */
#ifndef MEMTAP_ANALYSIS_PASS_H
#define MEMTAP_ANALYSIS_PASS_H

#include <stddef.h>
#include <stdint.h>

struct mt_reader;
struct mt_event;

struct mt_pass {
	const char *name;
	uint64_t types; /* bit t: events of type t; 0: none (finish only) */
	void *ctx;
	/* Every selected event, in time order (ties in file order); < 0 stops the run. */
	int (*event)(void *ctx, const struct mt_event *ev);
	/* Instead of event: each batch of the stream whole (every type; the pass skips what it
	 * does not want), for a pass that looks ahead (prefetching). */
	int (*batch)(void *ctx, const struct mt_event *evs, int n);
	/* Called once whatever happened, with the run's status so far (< 0: failed); frees
	 * what the pass holds but not its results; returns the pass's status. May be NULL. */
	int (*finish)(void *ctx, int status);
};

#define MT_MAX_PASSES 24

struct mt_passes {
	struct mt_pass v[MT_MAX_PASSES];
	size_t n;
	int status; /* the first failure of a pass's setup, else 0 */
};

void mt_passes_init(struct mt_passes *ps);
/*
 * Adds the pass a setup function made: rc is that function's status. A failed setup (rc < 0,
 * its pass left without state) makes the whole run fail with rc, after every added pass was
 * finished. Returns rc.
 */
int mt_passes_add(struct mt_passes *ps, int rc, const struct mt_pass *p);
/* Reads the trace once for all the passes, then finishes each (also on failure); returns 0
 * or the first error. */
int mt_passes_run(struct mt_reader *r, struct mt_passes *ps);
/* A pass alone: the analyses' one-call functions. */
int mt_pass_run_one(struct mt_reader *r, int rc, const struct mt_pass *p);

#endif
