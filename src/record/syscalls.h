/* SPDX-License-Identifier: MIT */
/* The syscall collector: every system call of the tree, paired entry and exit. */
#ifndef MEMTAP_RECORD_SYSCALLS_H
#define MEMTAP_RECORD_SYSCALLS_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_session;
struct mt_kv;

/* Opens raw_syscalls:sys_enter/sys_exit on the command; classes: MT_SC_* bits; stacks:
 * copy and unwind the user stack at each entry (--syscall-stacks). */
int mt_syscalls_open(struct mt_session *s, unsigned classes, bool stacks);
int mt_syscalls_pollfds(struct mt_session *s, struct pollfd *fds, int max);
void mt_syscalls_drain(struct mt_session *s);
/* Thread tid's calls in [from, to] are memtap's (it loaded the runtime then). */
void mt_syscalls_memtap_window(struct mt_session *s, pid_t tid, uint64_t from, uint64_t to);
void mt_syscalls_close(struct mt_session *s, struct mt_kv *kv);

/* What records the calls: "bpf-records" or "tracepoint-raw_syscalls". */
const char *mt_syscalls_mechanism(const struct mt_session *s);

/* The fastest of three rounds of n getppid() calls by the recorder, ns per call. */
double mt_syscall_ns(unsigned n);

#endif
