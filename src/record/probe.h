/* SPDX-License-Identifier: MIT */
/* Run-time feature probes: what the kernel and machine let memtap do, and why not. */
#ifndef MEMTAP_RECORD_PROBE_H
#define MEMTAP_RECORD_PROBE_H

#include <stdbool.h>
#include <stdint.h>

enum mt_feat {
	MT_FEAT_PERF, /* perf_event_open on the workload's processes */
	MT_FEAT_PERF_RING, /* per-CPU inherited events with an mmap ring */
	MT_FEAT_CLOCKID, /* perf timestamps on CLOCK_MONOTONIC (use_clockid) */
	MT_FEAT_MMAP2, /* PERF_RECORD_MMAP2 mapping records */
	MT_FEAT_BUILD_ID, /* build-ids inside MMAP2 records (Linux 5.12) */
	MT_FEAT_HW_SAMPLING, /* sampling on hardware counters (cycles) */
	MT_FEAT_REGS_HW, /* user registers in hardware-counter samples */
	MT_FEAT_REGS_SW, /* user registers in cpu-clock samples */
	MT_FEAT_PEBS, /* Intel PEBS load latency */
	MT_FEAT_IBS, /* AMD IBS op sampling */
	MT_FEAT_SPE, /* ARM SPE */
	MT_FEAT_SW_FAULTS, /* page-fault software events with data addresses */
	MT_FEAT_TRACEFS, /* tracefs mounted and readable */
	MT_FEAT_TP_SYSCALLS, /* raw_syscalls:sys_enter/sys_exit */
	MT_FEAT_TP_RSS, /* kmem:rss_stat */
	MT_FEAT_TP_SCHED, /* sched:sched_process_fork/exec/exit */
	MT_FEAT_TP_FAULTS, /* exceptions:page_fault_user */
	MT_FEAT_PTRACE, /* PTRACE_SEIZE of a child with event stops */
	MT_FEAT_VM_READV, /* process_vm_readv of a traced child */
	MT_FEAT_UFFD, /* userfaultfd in user mode */
	MT_FEAT_UFFD_WP_ASYNC, /* userfaultfd asynchronous write-protect (exact written pages) */
	MT_FEAT_BPF, /* loading BPF programs */
	MT_FEAT_BTF, /* kernel BTF for CO-RE and tp_btf programs */
	_MT_FEAT_MAX,
};

struct mt_probe_result {
	bool available;
	char detail[320]; /* why not, or what exactly works */
	char hint[200]; /* what the user can do about it; may be empty */
};

/* Short ids used by MEMTAP_DISABLE_FEAT and `memtap probe` output, e.g. "ptrace". */
const char *mt_feat_id(enum mt_feat f);
/* Human-readable name, e.g. "ptrace (process tree)". */
const char *mt_feat_name(enum mt_feat f);

/*
 * Runs the probe for f once per process and caches its result. A feature listed in the
 * environment variable MEMTAP_DISABLE_FEAT (comma-separated ids, or "all") is reported as
 * unavailable without probing, so tests can force every fallback path.
 */
const struct mt_probe_result *mt_probe(enum mt_feat f);
/* Closes the tracepoint events the probes held open (probe.c says why). */
void mt_probe_release(void);
static inline bool mt_feat_ok(enum mt_feat f)
{
	return mt_probe(f)->available;
}

/* Parses Intel's sysfs event syntax ("event=0xcd,umask=0x1,ldlat=3") into config words. */
void mt_intel_event_parse(const char *s, uint64_t *config, uint64_t *config1);

/* True if f is disabled by MEMTAP_DISABLE_FEAT. */
bool mt_feat_disabled(enum mt_feat f);

#endif
