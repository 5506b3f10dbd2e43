/* SPDX-License-Identifier: MIT */
/* Which file each descriptor of each process names, replayed from syscall events. */
#ifndef MEMTAP_ANALYSIS_FDTABLE_H
#define MEMTAP_ANALYSIS_FDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"

struct mt_reader;
struct mt_event;

struct mt_fd_ent {
	uint32_t pid;
	int fd;
	bool live, cloexec;
	const char *path; /* the reader's string (as the program gave it) */
	size_t len;
	uint64_t pos; /* the file offset read() and write() advance (lseek sets it) */
};

struct mt_fdtab {
	struct mt_map64 ix; /* pid << 32 | fd -> index + 1; fd -100 (AT_FDCWD): the cwd */
	struct mt_fd_ent *v;
	size_t n, cap;
	const char *cwd; /* the command's working directory: every process's until chdir */
	char **owned; /* the absolute paths made here */
	size_t nowned, owned_cap;
};

/* cwd: the recording's (META "cwd"), or NULL: relative paths then stay relative. */
void mt_fdtab_init(struct mt_fdtab *t, const char *cwd);
void mt_fdtab_release(struct mt_fdtab *t);

/* Replays one event, in time order: a syscall (open*, creat, close, dup*, fcntl F_DUPFD*,
 * execve dropping close-on-exec descriptors, lseek, read/write offsets, chdir), or a
 * task_new (a process inherits its parent's table and cwd). Paths come from the syscall's
 * captured path, made absolute against the directory descriptor or the cwd (lexically:
 * "." and ".." folded, symbolic links not followed). */
void mt_fdtab_apply(struct mt_fdtab *t, struct mt_reader *r, const struct mt_event *ev);

/* The live entry of pid's fd, or NULL. */
struct mt_fd_ent *mt_fdtab_get(struct mt_fdtab *t, uint32_t pid, int fd);

#endif
