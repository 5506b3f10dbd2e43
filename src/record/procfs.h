/* SPDX-License-Identifier: MIT */
/* Reading a process's state from /proc: maps, cmdline, comm, exe, status. */
#ifndef MEMTAP_RECORD_PROCFS_H
#define MEMTAP_RECORD_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_maps_entry {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	unsigned prot; /* PROT_* */
	bool shared;
	unsigned maj;
	unsigned min;
	uint64_t ino;
	const char *path; /* "" for anonymous; points into the parsed line */
};

/*
 * Parses one /proc/PID/maps line (without or with its newline) in place. Returns 0, or
 * -EINVAL for a line that is not in the kernel's format.
 */
int mt_maps_parse_line(char *line, struct mt_maps_entry *e);

/* Calls fn for every mapping of pid; stops early when fn returns non-zero (returned). */
typedef int (*mt_maps_fn)(void *ctx, const struct mt_maps_entry *e);
int mt_procfs_maps(pid_t pid, mt_maps_fn fn, void *ctx);

/* The NUL-separated argument list; returns its length (cut at size) or -errno. */
long mt_procfs_cmdline(pid_t pid, char *buf, size_t size);
int mt_procfs_comm(pid_t pid, char *buf, size_t size);
/* Its cgroup v2 path ("/system.slice/x.service"): 0, or -errno (no v2 hierarchy line). */
int mt_procfs_cgroup(pid_t pid, char *buf, size_t size);
int mt_procfs_exe(pid_t pid, char *buf, size_t size);
/* Calls fn for every thread of pid (/proc/PID/task), the leader included; fn returns the
 * number of threads it counts (summed and returned), or -errno when pid is gone. */
int mt_procfs_tasks(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);
/* Tgid and PPid from /proc/TID/status. */
int mt_procfs_status(pid_t tid, pid_t *tgid, pid_t *ppid);

#endif
