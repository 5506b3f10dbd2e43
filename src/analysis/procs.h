/* SPDX-License-Identifier: MIT */
/* The process tree of a trace, built from its lifecycle events. */
#ifndef MEMTAP_ANALYSIS_PROCS_H
#define MEMTAP_ANALYSIS_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_reader;

#define MT_NO_PARENT SIZE_MAX

struct mt_proc {
	uint32_t pid;
	uint32_t ppid;
	size_t parent; /* index in mt_procs.v, or MT_NO_PARENT */
	char *comm;
	char *exe;
	char *cgroup; /* its cgroup v2 path at the exec or the attach; NULL: unknown */
	char *argv; /* NUL-separated */
	size_t argv_len;
	uint64_t start_ns;
	uint64_t end_ns;
	bool ended;
	bool status_known;
	int64_t exit_code; /* -1 when killed by a signal */
	int signal;
	bool core_dumped;
	bool vfork;
	uint32_t threads; /* threads created besides the main one */
	uint32_t execs;
	/* Counted by mt_procs_pass_figures (faults and RSS have their own passes): system calls
	 * (per-call records or in-kernel sums; the runtime's own calls left out), access
	 * samples. */
	uint64_t syscalls, samples;
};

/* Processes in order of creation (ties in trace order). */
struct mt_procs {
	struct mt_proc *v;
	size_t n;
};

struct mt_pass;
/* The pass that builds the tree (results in out once the run is over). */
int mt_procs_pass(struct mt_reader *r, struct mt_procs *out, struct mt_pass *pass);
/* The same, also counting each process's system calls and access samples. */
int mt_procs_pass_figures(struct mt_reader *r, struct mt_procs *out, struct mt_pass *pass);
int mt_procs_build(struct mt_reader *r, struct mt_procs *out);
void mt_procs_release(struct mt_procs *p);

/*
 * Depth-first order of the tree, children in creation order: order[k] is an index into
 * p->v and depth[k] its depth (0 for roots). Both malloc'd; returns the count or -ENOMEM.
 */
int mt_procs_tree_order(const struct mt_procs *p, size_t **order, unsigned **depth);

/* The command name of process pid at time t (the last process with that pid started by
 * then: pids are reused), or "?" when the trace does not know it. */
const char *mt_procs_comm_at(const struct mt_procs *p, uint32_t pid, uint64_t t);

/* Shell-style status: the exit code, 128+N for a signal death, -1 when unknown/running. */
int mt_proc_exit_status(const struct mt_proc *p);

#endif
