/* SPDX-License-Identifier: MIT */
/* The RSS collector: each process's resident memory by type over time. */
#ifndef MEMTAP_RECORD_RSS_H
#define MEMTAP_RECORD_RSS_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_session;
struct mt_kv;

/* kmem:rss_stat through per-CPU perf rings, else polling /proc/PID/statm. 0 or -errno. */
int mt_rss_open(struct mt_session *s);
int mt_rss_pollfds(struct mt_session *s, struct pollfd *fds, int max);
/* Reads the rings (or polls when due) and writes RSS events. */
void mt_rss_drain(struct mt_session *s);
/* How long the recorder may sleep before the next poll (-1: no limit). */
int mt_rss_timeout_ms(struct mt_session *s);
/* A process attached to runs already: its counters as /proc/PID/status has them now (the
 * tracepoint reports one counter at each change; the others would read 0). */
void mt_rss_seed(struct mt_session *s, pid_t pid);
/* Process pid exited at t: its state goes a while later (records still in the rings), so
 * that a long recording's memory does not grow with the processes it saw. */
void mt_rss_on_exit(struct mt_session *s, pid_t pid, uint64_t t);
/* A thread of pid stopped at its exit, its memory still there: when records were lost or
 * polled, a peak they missed is taken from the kernel's high-water mark (rss.c). */
void mt_rss_exit_stop(struct mt_session *s, pid_t pid);
void mt_rss_close(struct mt_session *s, struct mt_kv *kv);

#endif
