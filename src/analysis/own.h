/* SPDX-License-Identifier: MIT */
/* memtap's own memory in each traced process (its runtime's image, region and arena),
 * followed through the event stream, so that passes counting raw faults can leave it out.
 * The same definition as the region model's `memtap` type (access-regions.c): mappings of
 * origin MEMTAP or of the runtime's files, and the loader's anonymous mappings inside them
 * (the runtime's bss), until unmapped or mapped over. */
#ifndef MEMTAP_ANALYSIS_OWN_H
#define MEMTAP_ANALYSIS_OWN_H

#include <stdbool.h>
#include <stdint.h>

#include <memtap/trace-format.h>

#include "analysis/rangeset.h"
#include "common/hash.h"

struct mt_event;
struct mt_reader;

struct mt_own {
	const struct mt_reader *r;
	struct mt_map64 by_pid; /* pid -> index + 1 into v */
	struct mt_own_proc {
		uint32_t ranges; /* the rangeset of memtap's memory in the process */
		uint64_t anon, shmem; /* its resident part, as last measured */
	} * v;
	size_t nv, cap;
	struct mt_rs_pool pool;
};

/* Is a mapping of this path memtap's own (its runtime's library, its shared memory)? */
bool mt_own_path(const char *path);

/* The event types mt_own_event follows. */
#define MT_OWN_EVENTS                                                       \
	(1ull << MT_EV_MMAP | 1ull << MT_EV_MUNMAP | 1ull << MT_EV_MREMAP | \
	 1ull << MT_EV_TASK_NEW | 1ull << MT_EV_TASK_EXEC)

void mt_own_init(struct mt_own *o, const struct mt_reader *r);
void mt_own_release(struct mt_own *o);
/* Follows one event of any type (others are ignored). */
void mt_own_event(struct mt_own *o, const struct mt_event *ev);
/* Is addr memtap's own memory in pid now? */
bool mt_own_has(const struct mt_own *o, uint32_t pid, uint64_t addr);

/* Whose a fault event is: the workload's, memtap's own (on its memory, or taken by its
 * runtime's code: the instruction is in the runtime's image), or its page-write tracking's
 * (MT_F_FAULT_TRACKING). Every pass that counts faults asks this one question. */
enum mt_fault_whose { MT_FW_WORKLOAD, MT_FW_OWN, MT_FW_TRACKING };
enum mt_fault_whose mt_own_fault(const struct mt_own *o, const struct mt_event *ev);
/*
 * An RSS event: false for a measurement of memtap's own part (kept, to be taken out of what
 * follows); else true with v the workload's file, anon, shmem and swap bytes.
 */
bool mt_own_rss(struct mt_own *o, const struct mt_event *ev, uint64_t v[4]);

#endif
