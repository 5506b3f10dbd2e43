/* SPDX-License-Identifier: MIT */
/* The in-kernel syscall summary (BPF), built where clang, bpftool and libbpf exist. */
#ifndef MEMTAP_RECORD_SYSCALLS_BPF_H
#define MEMTAP_RECORD_SYSCALLS_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_session;
struct mt_kv;

/* Loads and attaches the programs and marks the command (before its execve). 0 or -errno. */
int mt_syscalls_bpf_open(struct mt_session *s);
/* Reads the totals into SYSCALL_SUM events and unloads. */
void mt_syscalls_bpf_close(struct mt_session *s, struct mt_kv *kv);

/* A ring program's records: a descriptor to poll, the call that hands what waits to the
 * program's callback, and the records the ring had no room for. */
struct mt_bpf_ring;
int mt_bpf_ring_fd(struct mt_bpf_ring *g);
void mt_bpf_ring_consume(struct mt_bpf_ring *g);
uint64_t mt_bpf_ring_dropped(struct mt_bpf_ring *g);
/* Detaches and unloads the program; NULL is a no-op. */
void mt_bpf_ring_close(struct mt_bpf_ring *g);

/* Path capture for per-call records: one record per entry of a path-taking syscall. */
typedef void (*mt_syspath_fn)(void *ctx, uint64_t time, uint32_t tid, int nr, const char *path,
			      int len);
/* Loads and attaches, marks the command; *ret is the handle. 0 or -errno. */
int mt_syspaths_open(struct mt_session *s, mt_syspath_fn fn, void *ctx, struct mt_bpf_ring **ret);

/* Per-call records in BPF: one per call, at its exit (entry time, duration, arguments,
 * result, flags, path). */
struct mt_sysrec_call {
	uint64_t time, duration;
	uint32_t pid, tid;
	int64_t nr, ret;
	uint64_t args[6];
	uint32_t flags; /* MT_SYSCALL_* */
	const char *path; /* NULL: none */
	size_t path_len;
	bool path_unreadable, path_truncated;
};
typedef void (*mt_sysrec_fn)(void *ctx, const struct mt_sysrec_call *c);
/* allow: a bit per syscall number to record (1024 bits). Loads, attaches, marks the command;
 * measures the cost of one recorded call (*cost_ns). 0 or -errno. */
int mt_sysrec_open(struct mt_session *s, const uint64_t allow[16], mt_sysrec_fn fn, void *ctx,
		   double *cost_ns, struct mt_bpf_ring **ret);

#endif
