/* SPDX-License-Identifier: MIT */
/* The syscall collector's state, shared by record/syscalls.c and record/syscalls-pair.c. */
#ifndef MEMTAP_RECORD_SYSCALLS_INTERNAL_H
#define MEMTAP_RECORD_SYSCALLS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hash.h"
#include "format/block.h"
#include "record/rt-loader.h"
#include "record/syscalls.h"
#include "decode/sample.h"

/*
 * raw_syscalls:sys_enter and sys_exit, one event each per CPU (exit writes into the enter
 * event's ring: two fds per CPU, since closing a tracepoint fd costs ~30 ms here). A
 * thread's entry and exit may land in different CPUs' rings, so each drain gathers the
 * records of every ring, sorts them by time and pairs them per thread; records newer than
 * the drain's start wait for the next drain, when every ring holds what came before them.
 * This costs two perf records per call in the kernel (research: 21x on dd bs=1, 8x on
 * find); the in-kernel BPF summary (syscalls-bpf.c) is the cheap path. The entry also
 * samples the user r12, where the preload runtime marks its own calls (format/rt-mark.h).
 */

#define RING_PAGES 4096 /* 16 MiB per CPU: a call is ~150 bytes of records */

#define RING_PAGES_MIN 256 /* where locked memory is limited (perf_event_mlock_kb) */

#define ENTER_SAMPLE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER)

#define EXIT_SAMPLE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

#define ENTER_REGS (1ull << PERF_REG_X86_R12) /* the runtime's mark (format/rt-mark.h) */

/* --syscall-stacks: the registers an unwind starts from, and a copy of the stack */
#define STACK_REGS (1ull << PERF_REG_X86_IP | 1ull << PERF_REG_X86_SP | 1ull << PERF_REG_X86_BP)

#define STACK_BYTES 8192

struct rec {
	uint64_t time;
	uint32_t pid, tid;
	uint16_t exit, runtime;
	int64_t id, ret;
	uint64_t args[6];
	uint64_t stack; /* stack id, 0 for none */
};

struct pending {
	uint64_t time;
	uint32_t pid, tid;
	int64_t nr;
	uint64_t args[6];
	uint64_t stack;
	bool used, runtime;
};

/* A path copied at a syscall's entry by BPF, waiting for its call's record. */
struct path {
	uint64_t time;
	int nr;
	size_t len;
	char *s;
};

/* One thread's queue: a thread makes one call at a time, so its paths come in the order of
 * its calls and the one for a call is at the head (older heads had no call: dropped). */
struct tpaths {
	struct path *v;
	size_t head, n, cap;
};

#define PATH_WINDOW_NS 1000000ull /* a path and its call's entry: within 1 ms */

struct mt_syscalls_state {
	struct mt_perf_ring *rings;
	int *exit_fds;
	int nrings;
	int enter_type, exit_type; /* tracepoint ids, the records' common_type */
	unsigned ring_pages;
	unsigned classes;
	uint64_t enter_sample, enter_regs; /* ENTER_*, with the stack's when stacks are asked */
	struct mt_tp_field f_type, f_id, f_args, f_ret;
	struct rec *recs;
	size_t nrecs, cap;
	struct mt_map64 pend_ix; /* tid -> index into pend */
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t calls, no_exit, no_entry, child_returns, filtered, lost, malformed, records;
	uint64_t runtime_calls;
#ifdef MEMTAP_BPF
	struct mt_bpf_ring *paths_bpf; /* BPF path capture */
	struct mt_bpf_ring *sysrec; /* BPF per-call records: no perf rings at all */
#endif
	const char *cur_path; /* the path of the call being emitted from a BPF record */
	size_t cur_plen;
	uint64_t bpf_lost_reported;
	const char *paths_why; /* why there are no paths, or NULL */
	double cost_ns; /* measured tracing cost per call, 0 if not measured */
	struct tpaths *tq; /* per thread, its paths in arrival (= entry) order */
	size_t ntq, tq_cap;
	struct mt_map64 tq_ix; /* tid -> index + 1 into tq */
	uint64_t npaths; /* queued in all */
	uint64_t paths_joined, paths_missing, paths_unmatched, paths_truncated, paths_faulted;
	struct mt_loader_watch loader; /* the loader's work for the runtime, after each exec */
	uint64_t loader_calls;
	/* record --pid: the thread memtap held to load the runtime, and when (its calls then
	 * are memtap's: the loader's work for the runtime) */
	struct {
		uint32_t tid;
		uint64_t from, to;
	} memtap[64];
	unsigned nmemtap;
};

/* syscalls-pair.c */
void mt_sc_emit(struct mt_session *s, uint64_t t, uint32_t pid, uint32_t tid, int64_t nr,
		int64_t ret, uint64_t dur, const uint64_t *args, unsigned flags, uint64_t stack);
void mt_sc_expire_paths(struct mt_syscalls_state *c, uint64_t upto);
void mt_sc_on_path(void *ctx, uint64_t time, uint32_t tid, int nr, const char *path, int len);
void mt_sc_process(struct mt_session *s, uint64_t upto);

#endif
