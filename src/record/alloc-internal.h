/* SPDX-License-Identifier: MIT */
/* The allocation collector's state, shared by record/alloc.c, alloc-slots.c and alloc-conn.c. */
#ifndef MEMTAP_RECORD_ALLOC_INTERNAL_H
#define MEMTAP_RECORD_ALLOC_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/hash.h"
#include "format/block.h"
#include "format/rt-proto.h"
#include "record/alloc.h"

#define RT_VERSION "memtap-rt " MEMTAP_VERSION " proto " MT_RT_PROTO_STR

/* The event types a runtime connection produces, one block each. */
enum { B_ALLOC, B_MMAP, B_MUNMAP, B_MREMAP, B_BRK, NBLOCKS };

/* A row of a slot being drained: where it starts, its time (0 until interpolated). */
struct row_ref {
	uint32_t pos;
	uint64_t t;
};

struct ready_ent {
	uint64_t seq; /* copied once: the workload could change it while we sort */
	uint32_t idx;
};

struct conn {
	int fd; /* the socket; once it closed while the process lives, a pidfd */
	pid_t pid; /* the kernel's (SO_PEERCRED), never the greeting's */
	uint32_t stream;
	bool closed; /* to be drained one last time and closed */
	bool pidfd; /* fd is the process's pidfd: the socket is gone, the region is drained
		     * until the process exits */
	bool resumed; /* a RESUME greeting, handed over to the connection of its region */
	uint64_t accepted_ns; /* a connection without a greeting is dropped after a while */
	uint64_t hello_ns;
	/* A private copy of the region's geometry, validated once: the workload can scribble
	 * on the shared header, never on these. */
	struct mt_rt_region *region;
	size_t size;
	uint32_t nslots, slot_words;
	uint64_t slots_off, slot_size, nodes_off, nodes_cap, ready_off, free_off;
	uint64_t nodes_sent; /* nodes with smaller ids are in the trace */
	uint64_t own_seq; /* the region's own_now_seq when last read */
	uint64_t region_addr, arena_addr; /* memtap's own memory, in the workload */

	struct mt_block blocks[NBLOCKS];
	uint32_t live_seen; /* rows of blocks[B_ALLOC] memtap top's figures have seen */
	uint64_t events, bad_rows;
	uint64_t rescans; /* rounds that read the ready bitmap twice (a thread's slot left) */
	uint64_t raised; /* rows timed over 1 us before their thread's previous one: moved up */
	/* Each thread's last event time: converting TSC values of slots drained at different
	 * calibration points may step back by nanoseconds; a thread's events never do. */
	struct mt_map64 last_ns;
	struct mt_map64 last_seq; /* tid -> the seq of its last slot drained */
	/* Each thread's open span (memtap_span_*), from the MARK rows of its slots */
	struct mt_map64 span_cur;
	struct ready_ent *ready; /* scratch: the READY slots of one round, nslots entries */
	struct row_ref *evs; /* scratch: the rows of the slot being drained */
	struct mt_ac_sites *sites; /* --alloc=sites: the fold's state (record/alloc-sites.c) */
	uint64_t sites_lost; /* rows the fold could not count (no memory) */
	uint64_t sites_late; /* rows folded out of time order (later than the reorder wait) */
	bool fold_off; /* --max-size: no memory for the fold's state, every row written */
};

/* Per-process record of whether the runtime came up after the last exec. */
struct proc_rt {
	pid_t pid;
	bool exec_seen;
	bool rt_seen;
	uint64_t exec_ns; /* CLOCK_MONOTONIC of the last exec */
	uint64_t hello_ns; /* the runtime's start in its last greeting */
	char reason[200];
	bool counted; /* counted as untraced already */
	bool exited; /* perf follower: its exit was read */
	bool inherited; /* forked from an untraced process, not exec'd since: untraced too */
	pid_t parent; /* the process it was forked from (0: not seen forked) */
};

/* Why connections to the runtime's socket were refused (connections_refused_*). */
enum refuse {
	REF_KEY, /* without the recording's key: not the workload's */
	REF_MEMFD, /* a region that is not a memfd sealed against shrinking, or too small */
	REF_MALFORMED, /* a greeting of the wrong size, version or geometry */
	REF_SILENT, /* no greeting within CONN_HELLO_NS, or evicted by newer ones */
	REF_RESUME, /* a RESUME for a process whose region the recorder does not hold */
	REF_NOFD, /* the recorder had no descriptor left for the region */
	REF_MAX,
};

struct mt_alloc_state {
	int lsock;
	char sockname[64];
	char lib[PATH_MAX];
	char env_preload[PATH_MAX * 2];
	char env_conf[256];
	struct conn *conns;
	size_t nconns, conns_cap;
	uint32_t next_stream;
	/* TSC calibration pairs taken by the recorder. */
	bool tsc;
	struct cal {
		uint64_t tsc, ns;
	} * cal;
	size_t ncal, cal_cap;
	uint64_t cal_gen; /* changes with every pair taken or moved */
	uint64_t cal_width_max; /* the widest pair taken, in TSC ticks: twice the error bound */
	/* the segment last used by tsc_to_ns: [seg_tsc, seg_end) at seg_rate ns per tick */
	uint64_t seg_tsc, seg_end, seg_ns;
	double seg_rate;
	uint64_t seg_gen; /* cal_gen when the segment was chosen */
	struct proc_rt *procs;
	size_t nprocs, procs_cap;
	/* totals over closed connections */
	uint64_t processes, events, stalls, stall_ns, dropped, guard, truncated, depth_limited,
		rule_misses, unwind_chunk_reads, unwind_in_memory, unsupported, trie_full,
		memo_hits, walked, reused, nodes, bad_rows, slot_rescans, times_raised, trie_resets,
		node_waits, trunc[MT_RT_TRUNC_MAX], own_lost, own_outside, notifies, labels,
		labels_dropped, bad_labels;
	uint64_t regions_overwritten; /* regions whose geometry the workload wrote over */
	/* Python frames: processes by enum mt_rt_py_state, the last version met of each state,
	 * functions announced (and lost, malformed), stacks with Python frames, and those whose
	 * outer Python frames lay beyond the captured native ones */
	uint64_t py_procs[4], py_funcs, py_funcs_lost, py_bad, py_stacks, py_unplaced;
	uint32_t py_version[4];
	char untraced[1024];
	uint64_t nuntraced;
	uint8_t key[MT_RT_KEY_BYTES]; /* the recording's secret, in the workload's MEMTAP_RT */
	uint64_t refused[REF_MAX];
	uint64_t fd_exhausted; /* accept() found no descriptor left */
	uint64_t accept_after; /* the listening socket is not polled before this (EMFILE) */
	bool lsock_polled; /* the last poll set holds it */
	int spare; /* a descriptor held in reserve for a greeting's memfd (/dev/null) */
	uint64_t chan_lost, chan_resumed, starved_drops; /* over closed connections */
	/* memtap_event, memtap_span_*: recorded, malformed, lost in the runtime (socket full,
	 * fields too long), ends without a begin, begins too deep */
	uint64_t appev, appev_bad, appev_dropped, appev_fields_dropped, spans_unmatched,
		spans_too_deep;
	unsigned fd_limit; /* RLIMIT_NOFILE's soft limit the recorder runs with */
	unsigned interval_ms; /* the next collection round, while connections are open */
	uint64_t time_est; /* rows whose time was interpolated */
	bool sites; /* --alloc=sites: rows folded into per-site windows, not written */
	uint64_t sites_lost, sites_late; /* over closed connections */
	/* --max-size (record/budget.c): the fold follows every process's heap; from fold_from
	 * (when half the size was written; 0: not yet) on, the rows of blocks below keep_min
	 * are folded, the rest written; fold_first: the earliest folded row's time */
	bool budget;
	uint64_t fold_from, fold_first, keep_min, fold_off;
};

/* TSC to CLOCK_MONOTONIC: linear between the bracketing calibration pairs. A time past the
 * last pair (a row drained before the round's calibration) gets a new pair first: every
 * row's time is in the past, so it then lies between two pairs. */
#define RT_SEG_OK(a, t) ((a)->seg_gen == (a)->cal_gen && (t) >= (a)->seg_tsc && (t) < (a)->seg_end)

/* alloc-slots.c */
void mt_ac_drain_slot(struct mt_session *s, struct conn *c, struct mt_rt_slot *sl);
void mt_ac_send_nodes(struct mt_session *s, struct conn *c);
struct mt_rt_slot *mt_ac_slot_at(struct conn *c, uint32_t i);
void mt_ac_write_block(struct mt_session *s, struct conn *c, int b);
void mt_ac_live_feed(struct mt_session *s, struct conn *c);
void mt_ac_slot_release(struct conn *c, struct mt_rt_slot *sl);
/* Threads of the process sleeping until the recorder frees what they wait for (rt-proto.h,
 * slot_waiters, node_waiters): the generation moves on and up to n of them wake. The futex
 * is a shared one, in the memfd both map. */
void mt_ac_wake_waiters(uint32_t *waiters, uint32_t *gen, unsigned n);
uint64_t mt_ac_tsc_to_ns_slow(struct mt_alloc_state *a, uint64_t t); /* alloc-time.c */
/* alloc-appev.c: memtap_event and memtap_span_* as MT_EV_APP events */
void mt_ac_on_appev(struct mt_session *s, struct conn *c, const struct mt_rt_appev *h, size_t n);
void mt_ac_appev_keys(struct mt_kv *kv, const struct mt_alloc_state *a);

/* alloc-conn.c */
void mt_ac_conn_accept(struct mt_session *s);
void mt_ac_conn_close(struct mt_session *s, struct conn *c);
/* alloc-counters.c: the closing region's own counters into the totals, unless the workload
 * wrote over its geometry (then counted in regions_overwritten and left out). */
void mt_ac_sum_counters(struct mt_session *s, struct conn *c);
/* The totals as the collector's keys: stacks and unwinding; the runtime's channel. */
void mt_ac_unwind_keys(struct mt_kv *kv, const struct mt_alloc_state *a);
void mt_ac_channel_keys(struct mt_kv *kv, const struct mt_alloc_state *a);
unsigned mt_ac_conn_drain(struct mt_session *s, struct conn *c, bool all, uint32_t dead_tid);
void mt_ac_conn_flush(struct mt_session *s, struct conn *c);
void mt_ac_on_hello(struct mt_session *s, struct conn *c);
void mt_ac_own_rss(struct mt_session *s, struct conn *c, uint64_t t, uint64_t anon, uint64_t shmem);
struct proc_rt *mt_ac_proc_get(struct mt_alloc_state *a, pid_t pid, bool create);
/* The process pid is not recorded, for the reason why (counted once). */
void mt_ac_untraced(struct mt_alloc_state *a, pid_t pid, const char *why);
/* The process pid ran its runtime at time t (its greeting). */
void mt_ac_proc_greeted(struct mt_alloc_state *a, pid_t pid, uint64_t t);
void mt_ac_read_conn(struct mt_session *s, struct conn *c);

/* alloc-time.c */
void mt_ac_calibrate(struct mt_alloc_state *a);
/* Half the widest calibration pair taken, in ns: the stated bound of converted times (0: none). */
uint64_t mt_ac_cal_bound_ns(const struct mt_alloc_state *a);

#endif
