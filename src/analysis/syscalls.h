/* SPDX-License-Identifier: MIT */
/* The syscall pass: per-syscall calls, errors and time, as strace -c counts them. */
#ifndef MEMTAP_ANALYSIS_SYSCALLS_H
#define MEMTAP_ANALYSIS_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_reader;

struct mt_syscall_stat {
	unsigned nr;
	uint64_t calls; /* calls that returned (strace -c's "calls") */
	uint64_t errors; /* of which returned -4095..-1 */
	uint64_t no_return; /* entries never followed by an exit (exit_group, a killed thread) */
	uint64_t total_ns, min_ns, max_ns; /* entry to exit, tracing overhead included */
};

struct mt_syscall_filter {
	bool by_pid;
	uint32_t pid;
	int nr; /* -1: any */
	unsigned classes; /* MT_SC_* bits; 0 or MT_SC_ALL: any */
};

struct mt_syscall_table {
	struct mt_syscall_stat *v; /* sorted by total_ns, largest first */
	size_t n;
	uint64_t calls, errors, no_return, total_ns;
};

struct mt_syscalls_stats {
	bool present;
	bool summary; /* in-kernel totals (tree-wide; no per-call records, no min/max) */
	struct mt_syscall_table work; /* the workload's calls */
	struct mt_syscall_table rt; /* memtap's preload runtime's own (MT_SYSCALL_RUNTIME) */
};

struct mt_pass;
/* The pass; f (may be NULL) must live until the run is over. */
int mt_syscalls_pass(struct mt_reader *r, const struct mt_syscall_filter *f,
		     struct mt_syscalls_stats *st, struct mt_pass *pass);
int mt_syscalls_analyze(struct mt_reader *r, const struct mt_syscall_filter *f,
			struct mt_syscalls_stats *st);
void mt_syscalls_release(struct mt_syscalls_stats *st);

#endif
