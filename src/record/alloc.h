/* SPDX-License-Identifier: MIT */
/* The allocation collector: the preload runtime's connections, drained into the trace. */
#ifndef MEMTAP_RECORD_ALLOC_H
#define MEMTAP_RECORD_ALLOC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_session;
struct mt_kv;

/*
 * Finds and checks the runtime library, opens the listening socket and prepares the
 * environment for the workload. Returns 0, or -errno after printing one line (a missing or
 * mismatched runtime is an error before anything runs).
 */
int mt_alloc_open(struct mt_session *s);
/* In the child, before exec: LD_PRELOAD and MEMTAP_RT. */
void mt_alloc_child_env(struct mt_session *s);
/* The preload runtime's path as LD_PRELOAD names it, or NULL without one. */
const char *mt_alloc_rt_path(const struct mt_session *s);
/* What MEMTAP_RT holds for the runtime (record --pid passes it to the injected runtime). */
const char *mt_alloc_conf(const struct mt_session *s);
/* Can the runtime enter the command cmd (searched on PATH like execvp)? Not a static,
 * setuid or 32-bit program: those get no runtime variables in their environment. */
bool mt_alloc_can_enter(const char *cmd);
/* Fills poll entries for the listening socket and every connection; returns the count. */
int mt_alloc_pollfds(struct mt_session *s, struct pollfd *fds, int max);
int mt_alloc_npollfds(struct mt_session *s);
/* Handles what poll reported for the entries mt_alloc_pollfds() filled. */
void mt_alloc_handle(struct mt_session *s, const struct pollfd *fds, int n);
/* Drains every READY slot (all slots of closed connections) and writes new stack nodes. */
void mt_alloc_drain(struct mt_session *s);
/* How long the recorder may sleep before collecting READY slots (-1: no limit). */
int mt_alloc_timeout_ms(struct mt_session *s);
/* Writes the events buffered per connection (periodic flush and the end). */
void mt_alloc_flush(struct mt_session *s);
/* --alloc=sites, --max-size: every row waiting to be put in time order folded or written. */
void mt_alloc_drain_folds(struct mt_session *s);
/* Lifecycle notes from the process collector. */
void mt_alloc_on_exec(struct mt_session *s, pid_t pid);
/* The same for an exec seen after the fact (perf's COMM record), at its time t. */
void mt_alloc_on_exec_at(struct mt_session *s, pid_t pid, uint64_t t);
void mt_alloc_on_thread_exit(struct mt_session *s, pid_t pid, pid_t tid);
void mt_alloc_on_process_exit(struct mt_session *s, pid_t pid);
/* A process child forked (not exec'd yet): the child of a process the runtime surely is not
 * in (its reason known) is untraced too, and counted so when it exits without an exec. */
void mt_alloc_on_fork(struct mt_session *s, pid_t parent, pid_t child);
/* A process memtap meant to trace and could not (--pid: the runtime could not be loaded):
 * counted untraced, with why. */
void mt_alloc_untraced(struct mt_session *s, pid_t pid, const char *why);
/* Reads the memtap.h messages process pid has sent and the recorder not yet read. */
void mt_alloc_read_messages(struct mt_session *s, pid_t pid);
/* Takes a CLOCK_MONOTONIC/TSC calibration pair (called every loop iteration). */
void mt_alloc_calibrate(struct mt_session *s);
/* Drains everything left, closes the connections; adds the collector's totals to kv. */
void mt_alloc_close(struct mt_session *s, struct mt_kv *kv);

/* A library of memtap's (libmemtap-rt.so, libmemtap-heap.so) next to the memtap binary (the
 * build tree), else in ../lib/memtap/ (installed): 0, or -ENOENT with path the first place. */
int mt_find_lib(const char *name, char *path, size_t size);
/* The runtime record preloads: $MEMTAP_RT_LIB when set, else libmemtap-rt.so as above. */
int mt_find_rt_lib(char *path, size_t size);

#endif
