/* SPDX-License-Identifier: MIT */
/*
 * A run's telemetry and validity (docs/experiments.md, "Validity"): what else used the
 * machine while it ran (other processes' CPU, steal time), throttling, CPU frequency, the
 * kernel lowering the perf sample rate; for a traced run, memtap's own cost (the recorder's
 * CPU, memtap's memory) and the trace's headline figures; then the class: clean, marginal
 * or contaminated, with the reasons.
 */
#ifndef MEMTAP_EXP_TELEMETRY_H
#define MEMTAP_EXP_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "exp/experiment.h"

struct mt_json;

/* The machine at one moment, as far as it says. */
struct mt_exp_snap {
	uint64_t t_ns; /* CLOCK_MONOTONIC */
	bool cpu_ok; /* /proc/stat read */
	uint64_t busy_ns, steal_ns; /* all CPUs, since boot (USER_HZ ticks converted) */
	int64_t throttle; /* thermal throttle events since boot, all CPUs; -1: not exposed */
	int64_t perf_rate; /* kernel.perf_event_max_sample_rate; -1: unreadable */
	uint64_t self_cpu_ns; /* this process's own CPU time (memtap run's) */
	uint64_t others_cpu_ns; /* of processes the run owns but does not wait for (services) */
};

/* Takes a snapshot; pids (n, 0 entries skipped) are the run's services, whose CPU time is
 * the run's, not the background's. */
void mt_exp_snap(struct mt_exp_snap *s, const pid_t *pids, size_t n);

/* The machine's busy share over seconds of doing nothing (before an experiment): percent of
 * all CPUs, NaN when /proc/stat cannot be read. */
double mt_exp_idle_baseline(double seconds);

struct mt_exp_telemetry {
	double idle_pct; /* the experiment's idle baseline (NaN: not measured) */
	/* other processes' CPU time plus steal, percent of all CPUs over the run, and the
	 * uncertainty of the tick counters behind it (NaN: unavailable) */
	double background_pct, background_err_pct, steal_pct;
	double freq_mhz; /* mean current frequency at the run's end; NaN: not exposed */
	int64_t throttle_events; /* during the run; -1: not exposed */
	int64_t perf_rate_before, perf_rate_after; /* -1: unreadable */
	/* a traced run, from its trace (trace_read false: none, or unreadable) */
	bool trace_read;
	bool has_recorder, has_rss, has_own, has_heap, has_faults, has_wss;
	uint64_t recorder_cpu_ns, recorder_max_rss; /* memtap record's own */
	/* its CPU time while the command ran, and that span (0: not in the trace) */
	uint64_t recorder_run_cpu_ns, command_wall_ns;
	uint64_t own_peak; /* memtap's memory inside the workload's processes, the largest */
	uint64_t peak_rss; /* the workload's process tree, memtap's own memory left out */
	uint64_t peak_heap, alloc_calls, faults_minor, faults_major, wss_peak_pages;
	uint64_t lost_events;
	/* with system calls recorded: bytes of the workload's data files read, and read more
	 * than once (analysis/rereads.h) */
	bool has_rereads;
	uint64_t data_read_bytes, reread_bytes;
	double observer_cpu_pct, observer_mem_pct; /* NaN: not traced, or not measured */
	const char *validity; /* "clean", "marginal", "contaminated"; NULL: not measured */
	char reason[512]; /* why not clean; "" when clean */
};

/* Nothing measured: every figure null, no class. */
void mt_exp_telemetry_init(struct mt_exp_telemetry *t);
/* The run's telemetry from the snapshots around it: wall_ns its wall time, tree_cpu_ns the
 * CPU time of the processes it waited for (memtap and the workload, or the workload). */
void mt_exp_telemetry_from(struct mt_exp_telemetry *t, const struct mt_exp_snap *a,
			   const struct mt_exp_snap *b, uint64_t tree_cpu_ns, double idle_pct);
/* Adds what a traced run's trace says (its path); false when it cannot be read. */
bool mt_exp_telemetry_trace(struct mt_exp_telemetry *t, const char *trace);
/* The class and its reasons, with the experiment's bounds. */
void mt_exp_classify(struct mt_exp_telemetry *t, const struct mt_exp_validity *v);
/* "telemetry": {...} and "validity": {...} into metadata.json. */
void mt_exp_telemetry_json(struct mt_json *j, const struct mt_exp_telemetry *t);

#endif
