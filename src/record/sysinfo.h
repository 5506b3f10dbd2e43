/* SPDX-License-Identifier: MIT */
/* Facts about the machine: sysctls, CPU, tracefs, and the metadata block of a trace. */
#ifndef MEMTAP_RECORD_SYSINFO_H
#define MEMTAP_RECORD_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

struct mt_kv;

/* The integer in a /proc/sys or /sys file, or def when it cannot be read. */
int mt_sysctl_int(const char *path, int def);
/* The CPU vendor string ("GenuineIntel", "AuthenticAMD", ...), or "unknown". */
void mt_sys_cpu_vendor(char *buf, size_t size);
/* True when /proc/cpuinfo has the "hypervisor" flag (x86) or DMI names a hypervisor. */
bool mt_sys_is_virtual(void);
/* Whether transparent huge pages are always on (the kernel's [always] setting). */
bool mt_sys_thp_always(void);
/* The tracefs mount (mounting it at /sys/kernel/tracing when root and unmounted). */
int mt_tracefs_path(char *buf, size_t size);
/* The perf id of a tracepoint "system/name", or -errno. */
int mt_tracepoint_id(const char *tp);
/* The format description of a tracepoint "system/name" (*text: malloc'd, NUL-ended).
 * 0, -ENODEV without tracefs, or -errno. */
int mt_tracepoint_format(const char *tp, char **text);

/*
 * Adds the machine's description to kv: kernel, CPU, memory, page size, perf and THP
 * settings, hostname, virtualisation, and the environment variables that change a
 * workload's memory behaviour (LD_PRELOAD, MALLOC_*, GLIBC_TUNABLES, ...).
 */
int mt_sysinfo_meta(struct mt_kv *kv);

#endif
