/* SPDX-License-Identifier: MIT */
/* x86-64 syscall names (the installed header's, and newer ones memtap knows) and classes. */
#ifndef MEMTAP_DECODE_SYSCALLS_H
#define MEMTAP_DECODE_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

/* Classes, as strace groups syscalls (a syscall may be in several). */
enum {
	MT_SC_FILE = 1 << 0, /* takes a file name */
	MT_SC_DESC = 1 << 1, /* works on a file descriptor */
	MT_SC_MEMORY = 1 << 2, /* maps or changes memory */
	MT_SC_PROCESS = 1 << 3, /* process lifecycle */
	MT_SC_NETWORK = 1 << 4, /* sockets */
	MT_SC_IPC = 1 << 5, /* System V IPC */
	MT_SC_SIGNAL = 1 << 6, /* signals */
	MT_SC_ALL = 0x7f,
	MT_SC_SUMMARY = 1 << 7, /* not a class: count in the kernel (BPF), no per-call records */
};

/* The syscall's name, or "syscall_NR" written into buf. */
const char *mt_syscall_name(unsigned nr, char *buf, size_t size);
/* The number of a syscall name, or -1. */
int mt_syscall_by_name(const char *name);
/* The argument (0-based) holding a path for the syscalls whose path memtap captures, or -1. */
int mt_syscall_path_arg(unsigned nr);
/* How many arguments nr takes (the kernel's own list), or -1 when unknown. */
int mt_syscall_nargs(unsigned nr);
/* The kernel's name of argument i of nr ("pathname"), or NULL. */
const char *mt_syscall_arg_name(unsigned nr, int i);
/* The up to n (≤ 8) syscall names nearest to name by edit distance, nearest first. */
size_t mt_syscall_closest(const char *name, const char **best, size_t n);
/* The classes of syscall nr (0: in none but "all"). */
unsigned mt_syscall_classes(unsigned nr);
/* Class bits from a comma-separated list ("file,memory", "all"; "summary" adds
 * MT_SC_SUMMARY); -1 with *bad set to the offending name. */
int mt_syscall_parse_classes(const char *list, const char **bad);
/* The arguments of a call as text: decoded for the memory and file-I/O syscalls (mmap's
 * protections and flags, madvise's advice, read/pread sizes and offsets, lseek, brk...), the
 * first three in hex for others. Returns the length written (truncated to fit). */
size_t mt_syscall_format_args(unsigned nr, const uint64_t a[6], char *buf, size_t size);

/* The same with what the trace adds: the path argument as copied at entry (NULL: none),
 * and the file behind a descriptor argument (fdname returns a path or NULL), shown as
 * strace -y does: 3</etc/hostname>. */
typedef const char *(*mt_fdname_fn)(void *ctx, int fd);
size_t mt_syscall_format_call(unsigned nr, const uint64_t a[6], const char *path,
			      mt_fdname_fn fdname, void *ctx, char *buf, size_t size);
/* "file, desc, memory, process, network, ipc, signal, all" */
const char *mt_syscall_class_names(void);

#endif
