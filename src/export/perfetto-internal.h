/* SPDX-License-Identifier: MIT */
/* The Perfetto timeline's state and its two writers: Trace Event JSON (perfetto.c) and
 * Perfetto's own protobuf trace (perfetto-pb.c). */
#ifndef MEMTAP_EXPORT_PERFETTO_INTERNAL_H
#define MEMTAP_EXPORT_PERFETTO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/own.h"
#include "analysis/timeline.h"
#include "common/buf.h"
#include "common/hash.h"
#include "export/perfetto.h"

struct mt_reader;

#define MAX_INSTANTS 100000
#define HEAP_POINTS 20000 /* per process, at most */
#define PHASE_TID_BASE 0x40000000u /* the "phases" pseudo-thread of process p: base + p */

struct proc {
	uint32_t pid;
	uint64_t heap_live, heap_last_ns;
	bool heap_pending;
	uint64_t fwin; /* fault window + 1 (0: none yet) */
	uint64_t fminor, fmajor;
	uint32_t phase; /* string id + 1 in phase_stream, 0: none */
	uint32_t phase_stream;
	uint64_t phase_since;
	bool phases_named;
};

struct pf {
	FILE *f;
	const struct mt_perfetto_opts *o;
	struct mt_perfetto_stats *st;
	struct mt_reader *r;
	uint64_t t0, window_ns, heap_step;
	struct proc *procs;
	size_t nprocs, procs_cap;
	struct mt_map64 proc_ix; /* pid -> index + 1 */
	struct mt_heap_tracker heap;
	struct mt_map64 thread_named; /* tid -> 1 */
	struct mt_own own; /* memtap's own memory: out of the counters */
	bool first;
	uint64_t last; /* the time of the last event read */
	/* protobuf: the tracks described so far, the packet being built, scratch messages */
	bool proto, pb_started, pb_failed; /* pb_failed: a packet found no memory, or a write */
	struct mt_map64 tracks; /* track uuid -> 1 */
	struct mt_buf pkt, ev, m, a;
};

/* One argument of an event: a number, an address ("0x..." in JSON) or a string. */
enum pf_arg_kind { PF_U64, PF_I64, PF_HEX, PF_STR };
struct pf_arg {
	const char *key;
	enum pf_arg_kind kind;
	uint64_t u;
	const char *s;
};

/* perfetto-pb.c: the same events as TracePackets, appended to p->f one by one (a Trace
 * message is its packets, each a length-delimited field 1). */
void mt_pf_pb_init(struct pf *p);
void mt_pf_pb_release(struct pf *p);
void mt_pf_pb_process(struct pf *p, uint32_t pid, const char *name);
void mt_pf_pb_thread(struct pf *p, uint32_t pid, uint32_t tid, const char *name);
void mt_pf_pb_counter(struct pf *p, uint32_t pid, const char *name, uint64_t t,
		      const struct pf_arg *a, int n);
void mt_pf_pb_instant(struct pf *p, uint32_t pid, uint32_t tid, const char *cat, const char *name,
		      uint64_t t, const struct pf_arg *a, int n);
void mt_pf_pb_slice(struct pf *p, uint32_t pid, uint32_t tid, const char *cat, const char *name,
		    uint64_t t, uint64_t dur, const struct pf_arg *a, int n);

#endif
