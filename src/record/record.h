/* SPDX-License-Identifier: MIT */
/* `memtap record`: launch a command, follow its process tree, write one trace. */
#ifndef MEMTAP_RECORD_RECORD_H
#define MEMTAP_RECORD_RECORD_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the process tree is followed (the "process" collector). */
enum mt_follow {
	MT_FOLLOW_AUTO, /* ptrace if it works, else perf task records, else the root only */
	MT_FOLLOW_PTRACE, /* ptrace event stops: exact exit statuses and argv at every exec */
	MT_FOLLOW_PERF, /* perf FORK/EXIT/COMM records: no exit statuses below the root */
	MT_FOLLOW_NONE, /* the command's own process only */
};

#define MT_MAX_ATTACH 64

struct mt_record_opts {
	const char *output; /* trace path */
	bool force; /* replace an existing output */
	unsigned mode; /* the trace's permissions before the umask; 0: 0600 */
	bool quiet; /* no summary on stderr */
	bool live; /* publish live figures for memtap top (record/live.c) */
	char **argv; /* the command, NULL-terminated; NULL with attach_pid */
	pid_t attach_pid; /* record --pid: attach to this running process instead */
	pid_t attach_pids[MT_MAX_ATTACH]; /* --pid A,B,...: attach_pid is the first */
	unsigned nattach;
	bool system_wide; /* record -a: every process on the machine but memtap's */
	uint64_t duration_ns; /* --duration: detach after this long (0: until it exits) */
	uint64_t max_size; /* --max-size: the trace's size at most (0: no limit; record/budget.h) */
	enum mt_follow follow;
	bool mmaps; /* record mappings from perf MMAP2 records */
	unsigned ring_pages; /* data pages per per-CPU perf ring (power of two) */
	uint64_t flush_ns; /* write buffered events at least this often */
	const char *syscalls; /* --syscalls[=CLASSES]: requested, or NULL */
	bool syscall_stacks; /* --syscall-stacks: the user stack at each call's entry */
	const char *const *events; /* --event SUBSYS:NAME, nevents of them (checked already) */
	size_t nevents;
	bool alloc; /* preload the allocation runtime */
	bool alloc_sites; /* --alloc=sites: per-site windows instead of every call's row */
	unsigned stack_depth; /* frames per allocation stack; 0: none */
	bool python_frames; /* CPython's frames in the stacks (3.11) */
	unsigned rt_slots; /* shared-memory slots per traced process */
	unsigned time_every; /* the runtime reads the clock on every Nth event of a busy thread */
	int zstd_level; /* trace compression level (1: fast) */
	int access; /* enum mt_access_mode (record/access.h) */
	bool faults; /* record every page fault */
	bool rss; /* record each process's resident memory over time */
	uint64_t rss_interval_ns; /* at most one RSS event per process per interval */
	uint64_t page_writes_ns; /* page-write tracking epoch of labelled ranges; 0: off */
	uint64_t page_writes_min; /* blocks and writable mappings this large are tracked too */
	bool page_writes_full; /* every epoch's writes (no settling: pagewrites.c) */
	uint64_t access_period; /* sampling period in the event's unit; 0: from access_freq */
	uint64_t access_freq; /* samples per second per thread; 0: the default, 10000 */
	const cpu_set_t *cpus; /* the command's CPUs; NULL: as memtap's */
	int numa_node; /* the command's node (its CPUs unless cpus, its memory); -1: none */
	const char *heap; /* the command's heap placed: "pmem:DIR" or "numa:N"; NULL: not */
	const char *heap_lib; /* libmemtap-heap.so, which places it (found by the caller) */
};

void mt_record_opts_init(struct mt_record_opts *o);

/*
 * Records o->argv. Returns the exit status memtap should exit with: the workload's (128+N
 * when a signal killed it), 127/126 when the command cannot be run, or a negative errno
 * when recording could not start (nothing was run; the error has been printed).
 */
int mt_record(const struct mt_record_opts *o);

/* The git commit this memtap was built from ("unknown" outside a checkout; "... with local
 * changes" from a modified tree), and the features compiled into the recorder, as
 * "name=value" words: bpf-syscalls, zydis, libdw, page-writes. Both go into every trace. */
const char *mt_record_build(void);
const char *mt_record_features(void);

#endif
