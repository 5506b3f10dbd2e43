/* SPDX-License-Identifier: MIT */
/* Attaching to a running process (record --pid): what record.c calls, in order. */
#ifndef MEMTAP_RECORD_ATTACH_H
#define MEMTAP_RECORD_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

struct mt_session;

/* Can pid be attached to? 0, or -errno after one line on stderr naming the cause: no such
 * process, a kernel thread, a zombie, a thread id, memtap itself, another user's. */
int mt_attach_check(pid_t pid);
/* record -a: 0 when this memtap may open perf events of every process (pid -1); else says
 * in one line which capability it needs and returns -EPERM (a whole-system recording
 * without them would hold /proc snapshots only). */
int mt_attach_check_system(void);
/* Can the allocation runtime be loaded into pid with ptrace? 0, or -EBUSY after one line
 * on stderr when another process traces it (a debugger, strace). */
int mt_attach_traced(pid_t pid);
/* Its argument list (NUL-separated in buf) as argv (at most max - 1 entries, NULL-ended). */
int mt_attach_argv(pid_t pid, char *buf, size_t size, char **argv, size_t max);
/* Before the collectors open: the process and its threads announced, its program and
 * mappings from /proc, the perf task and mapping records opened for it. */
void mt_attach_tree(struct mt_session *s);
/* After the collectors opened: threads created meanwhile given their events, the RSS
 * counters read as they are. */
void mt_attach_settle(struct mt_session *s);
/* record -a: the same for every user process but memtap's (perf events with pid -1). */
void mt_system_tree(struct mt_session *s);
void mt_system_settle(struct mt_session *s);
/* A pidfd of pid: readable when it exits. */
int mt_attach_pidfd(pid_t pid);

#endif
