/* SPDX-License-Identifier: MIT */
/*
 * Allocation profiles in the formats other tools open: pprof (Go's heap profile layout:
 * `go tool pprof`, pprof's web UI, Google's profilers) and speedscope's JSON.
 */
#ifndef MEMTAP_EXPORT_PROFILE_H
#define MEMTAP_EXPORT_PROFILE_H

#include <stdint.h>
#include <stdio.h>

struct mt_reader;

enum mt_profile_format { MT_PROFILE_PPROF, MT_PROFILE_SPEEDSCOPE };

struct mt_profile_stats {
	uint64_t sites; /* samples (pprof) or stacks (speedscope) written */
	uint64_t locations; /* distinct (process, code address) pairs */
	uint64_t functions;
	uint64_t calls, bytes; /* totals written: equal to memtap report's alloc.calls, bytes */
};

/*
 * pprof: a gzipped profile.proto message. One sample per allocation site, its locations
 * innermost first (a location's lines: inlined callees first), values alloc_objects,
 * alloc_space, inuse_objects, inuse_space (in use: live when the recording ended, i.e.
 * leaked), labels pid and comm; every call recorded (period 1, not sampled).
 * speedscope: one "sampled" profile per weight (allocated bytes, calls, leaked bytes, and
 * with every call recorded the heap at the peak), stacks outermost first under a root frame
 * naming the process. -errno on failure; -ENODATA when the trace has no allocations.
 */
int mt_export_profile(struct mt_reader *r, enum mt_profile_format fmt, FILE *out,
		      struct mt_profile_stats *stats);

#endif
