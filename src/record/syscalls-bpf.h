/* SPDX-License-Identifier: MIT */
/* The in-kernel syscall summary (BPF), built where clang, bpftool and libbpf exist. */
#ifndef MEMTAP_RECORD_SYSCALLS_BPF_H
#define MEMTAP_RECORD_SYSCALLS_BPF_H

struct mt_session;
struct mt_kv;

/* Loads and attaches the programs and marks the command (before its execve). 0 or -errno. */
int mt_syscalls_bpf_open(struct mt_session *s);
/* Reads the totals into SYSCALL_SUM events and unloads. */
void mt_syscalls_bpf_close(struct mt_session *s, struct mt_kv *kv);

#endif
