/* SPDX-License-Identifier: MIT */
/* The state of one recording, shared by the recorder's files (not a public API). */
#ifndef MEMTAP_RECORD_SESSION_H
#define MEMTAP_RECORD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/hash.h"
#include "record/budget.h"
#include "record/perf.h"
#include "record/record.h"

struct mt_writer;
struct mt_alloc_state;
struct mt_access_state;
struct mt_faults_state;
struct mt_rss_state;
struct mt_pagewrites_state;
struct mt_syscalls_state;
struct mt_tracepoints_state;
struct mt_ustack;
struct mt_live;
struct syscount_bpf;

/* A collector's identity and totals, written as a COLLECTOR chunk at start and end. */
struct mt_coll {
	const char *name;
	char mechanism[64];
	char status[16]; /* active, degraded, unavailable, off */
	char reason[320];
	uint64_t events;
	uint64_t lost;
};

enum task_state {
	TASK_UNANNOUNCED, /* its first stop came before its parent's fork/clone event */
	TASK_LIVE,
	TASK_GONE,
};

struct task {
	pid_t tid;
	pid_t pid; /* thread group */
	enum task_state state;
	uint64_t first_seen;
	bool exit_pending; /* exited while unannounced */
	int exit_status; /* wait status */
	uint64_t exit_time;
};

struct mt_session {
	const struct mt_record_opts *o;
	struct mt_writer *w;
	pid_t self;
	pid_t root;
	bool root_exited;
	int root_status; /* wait status */
	bool exec_failed;
	int exec_errno;
	bool exec_done;
	bool stop_requested;
	bool own_group; /* the command runs in its own process group (record.c) */
	bool attached; /* record --pid or -a: root ran before the recording (record/attach.c) */
	/* record --pid: the processes attached to (pids[0] is root), their pidfds (-1: it
	 * exited), and from when each one's allocations are exact (0: no runtime in it) */
	pid_t pids[MT_MAX_ATTACH];
	int pidfds[MT_MAX_ATTACH];
	uint64_t pid_alloc_from[MT_MAX_ATTACH];
	unsigned npids, npids_gone;
	bool system_wide; /* record -a: every process but memtap's; root is -1 */
	struct mt_live *livefig; /* the live figures for memtap top (record/live.c) */
	char live_command[256]; /* the command as shown */
	uint64_t deadline; /* --duration: the recording ends then (0: no limit) */
	struct mt_budget budget; /* --max-size (record/budget.c) */
	uint64_t root_sig_ns[65]; /* when each signal last reached the command's process */
	uint64_t t_start;
	/* the command's run, from its go to the tree's exit, and the recorder's own CPU time at
	 * both ends (its cost while the workload ran, not its start-up and finish) */
	uint64_t t_go, t_gone, cpu_go, cpu_gone;
	uint64_t t_end;
	/* record --pid: the runtime loaded into the process (record/attach-rt.c), allocations
	 * exact from alloc_from (0: not loaded) */
	uint64_t alloc_from;
	pid_t inject_tid;
	unsigned inject_slots;
	int uninjected; /* slots given back at the end (-1: some could not be) */

	enum mt_follow follow; /* the mechanism in use */
	struct mt_coll proc;
	struct mt_coll maps;
	struct mt_coll alloc_coll;
	struct mt_alloc_state *alloc;
	struct mt_coll access_coll;
	struct mt_access_state *access;
	struct mt_coll faults_coll;
	struct mt_faults_state *faults;
	struct mt_coll rss_coll;
	struct mt_rss_state *rss;
	struct mt_coll pagewrites_coll;
	struct mt_pagewrites_state *pagewrites;
	struct mt_coll syscalls_coll;
	struct mt_syscalls_state *syscalls;
	struct syscount_bpf *syscalls_bpf; /* --syscalls=summary: the in-kernel counters */
	double syscalls_bpf_cost_ns; /* measured cost of counting one call */
	struct mt_ustack *ustack; /* --syscall-stacks: executable mappings, the unwinder, a trie */
	struct mt_coll events_coll; /* --event tracepoints */
	struct mt_tracepoints_state *tracepoints;

	struct task *tasks;
	size_t ntasks, tasks_cap;
	struct mt_map64 task_ix; /* tid -> index, live tasks only */
	size_t live;
	uint64_t nprocesses, nthreads;

	struct mt_perf_ring *rings;
	int nrings;
	bool perf_build_ids;
	uint64_t perf_records;
};

/* Event helpers (events.c). Times are CLOCK_MONOTONIC ns. */
void mt_emit_task_new(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, pid_t ppid,
		      pid_t ptid, int kind);
/* Reads exe, argv and comm from /proc; when the process is already gone, comm and argv
 * fall back to the hints (either may be NULL). */
void mt_emit_exec(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, pid_t old_tid,
		  const char *comm_hint, char *const *argv_hint);
void mt_emit_comm(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, const char *comm);
void mt_emit_exit(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, int kind, int status);
void mt_emit_lost(struct mt_session *s, uint64_t t, struct mt_coll *c, uint64_t count,
		  const char *reason);
/* For a PERF_RECORD_LOST of collector c's ring: a LOST event at t; returns the count (0 for
 * any other record). */
struct perf_event_header;
uint64_t mt_emit_perf_lost(struct mt_session *s, const struct perf_event_header *h, uint64_t t,
			   struct mt_coll *c, const char *reason);
/* Writes one MMAP event per line of /proc/PID/maps, all at time t. */
int mt_snapshot_maps(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid);

/* Task table (tracer.c). */
struct task *mt_task_find(struct mt_session *s, pid_t tid);
struct task *mt_task_add(struct mt_session *s, pid_t tid, pid_t pid, enum task_state st,
			 uint64_t t);
void mt_task_remove(struct mt_session *s, struct task *t);

/* ptrace follower (tracer.c). */
int mt_tracer_seize(struct mt_session *s, pid_t pid);
void mt_tracer_handle(struct mt_session *s, pid_t tid, int status);
void mt_tracer_finish(struct mt_session *s);

/* perf collector of mappings and task records (perfmon.c). */
int mt_perfmon_open(struct mt_session *s);
void mt_perfmon_drain(struct mt_session *s);
void mt_perfmon_close(struct mt_session *s);

#endif
