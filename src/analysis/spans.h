/* SPDX-License-Identifier: MIT */
/*
 * The workload's own events and spans in a trace (memtap_event, memtap_span_*), each joined
 * with what it did to memory, then summarised like JSON lines (analysis/appev.h): `memtap
 * events TRACE.mtap`. The joins, and why each is exact (docs/metrics.md, "Spans"):
 *  - allocations and frees: by the span id the recorder put on each allocation event from
 *    the thread's own row stream (the runtime writes a mark there at every begin and end),
 *    whatever the times;
 *  - page faults and access samples: by thread and time, the span's times being the
 *    workload's own CLOCK_MONOTONIC readings in the calls and the kernel's events on the same
 *    clock: everything the thread did between the calls lies between the readings;
 *  - the heap peak and the resident memory change: the whole process over the span's window
 *    (window figures, not the span's own).
 * A span's figures are its own: while a nested span is open, the nested span gets them.
 */
#ifndef MEMTAP_ANALYSIS_SPANS_H
#define MEMTAP_ANALYSIS_SPANS_H

#include "analysis/appev.h"

struct mt_reader;
struct mt_pass;

/* One span as a table row (memtap export's spans table). */
struct mt_span_row {
	uint32_t pid, tid;
	uint64_t id, parent, begin_ns, end_ns;
	char *name, *fields; /* as given (fields: the JSON object's text, "" when none) */
	struct mt_appev_mem mem;
	bool ended_by_exit;
};

struct mt_span_rows {
	struct mt_span_row *v;
	size_t n, cap;
};

void mt_span_rows_release(struct mt_span_rows *rows);
/* The pass behind mt_spans_run, for a read shared with other analyses; with rows, every
 * summed span is also kept there. 0 or -ENOMEM. */
int mt_spans_pass(struct mt_reader *r, struct mt_appev *a, struct mt_span_rows *rows,
		  struct mt_pass *pass);

/* Reads the trace once; every span and event goes to a (mt_appev_init()ed), the join's
 * counts to a->trace. 0 or -errno. */
int mt_spans_run(struct mt_reader *r, struct mt_appev *a);

#endif
