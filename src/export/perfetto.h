/* SPDX-License-Identifier: MIT */
/* memtap export --to perfetto: a Perfetto timeline, protobuf (Perfetto's own trace format)
 * or Chrome's Trace Event JSON. */
#ifndef MEMTAP_EXPORT_PERFETTO_H
#define MEMTAP_EXPORT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>

struct mt_reader;
struct mt_access_opts;

struct mt_perfetto_opts {
	uint64_t min_alloc; /* allocations of at least this many bytes become instant events */
	uint64_t min_syscall_ns; /* system calls at least this long become slices */
	bool force; /* replace an existing file */
	bool json; /* the Trace Event JSON form; else Perfetto's protobuf trace */
	const struct mt_access_opts *ao; /* working-set window, rules (region types) */
};

struct mt_perfetto_stats {
	uint64_t events; /* trace events written */
	uint64_t counters, instants, slices;
	uint64_t instants_dropped; /* past the cap on instant events (said in the metadata) */
};

/*
 * Writes the timeline of trace r (path: its name) to out ("-": standard output; a file
 * appears only when complete, and an existing one is kept unless force):
 *   process_name / thread_name metadata for every process and named thread;
 *   counter tracks per process: "rss" (file, anon, shmem, swap bytes, from the RSS
 *     collector), "heap" (live bytes from the allocation tracer, at most one point per
 *     1/20000 of the run), "faults" (minor and major per working-set window); one
 *     "working set" track (distinct pages touched per window, all processes);
 *   instants: allocations of at least min_alloc bytes, major faults (at most 100000);
 *   slices: phases (on a "phases" track of their process) and system calls of at least
 *     min_syscall_ns (on their thread).
 * JSON: timestamps are microseconds since the first event (3 decimals: ns exact).
 * Protobuf (a perfetto.protos.Trace): a track per process, thread, "phases" track and
 *   counter series ("rss anon", "heap live_bytes", ...: one per JSON argument), TrackEvents
 *   with their CLOCK_MONOTONIC ns times, instants' and slices' arguments as debug
 *   annotations. 0 or -errno.
 */
int mt_export_perfetto(struct mt_reader *r, const char *path, const char *out,
		       const struct mt_perfetto_opts *o, struct mt_perfetto_stats *st);

#endif
