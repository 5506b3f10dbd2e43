/* SPDX-License-Identifier: MIT */
/* memtap's own memory in each traced process (its runtime's region and arena), followed
 * through the event stream, so that passes counting raw faults can leave it out. */
#ifndef MEMTAP_ANALYSIS_OWN_H
#define MEMTAP_ANALYSIS_OWN_H

#include <stdbool.h>
#include <stdint.h>

#include <memtap/trace-format.h>

#include "common/hash.h"

struct mt_event;
struct mt_reader;

struct mt_own {
	const struct mt_reader *r;
	struct mt_map64 by_pid; /* pid -> index + 1 into v */
	struct mt_own_proc {
		uint64_t lo[4], hi[4];
		unsigned n;
		uint64_t anon, shmem; /* its resident part, as last measured */
	} * v;
	size_t nv, cap;
};

/* Is a mapping of this path memtap's own (its runtime's library, its shared memory)? */
bool mt_own_path(const char *path);

/* The event types mt_own_event follows (MMAP, TASK_NEW, TASK_EXEC). */
#define MT_OWN_EVENTS (1ull << MT_EV_MMAP | 1ull << MT_EV_TASK_NEW | 1ull << MT_EV_TASK_EXEC)

void mt_own_init(struct mt_own *o, const struct mt_reader *r);
void mt_own_release(struct mt_own *o);
/* Follows one event of any type (others are ignored). */
void mt_own_event(struct mt_own *o, const struct mt_event *ev);
/* Is addr memtap's own memory in pid now? */
bool mt_own_has(const struct mt_own *o, uint32_t pid, uint64_t addr);
/*
 * An RSS event: false for a measurement of memtap's own part (kept, to be taken out of what
 * follows); else true with v the workload's file, anon, shmem and swap bytes.
 */
bool mt_own_rss(struct mt_own *o, const struct mt_event *ev, uint64_t v[4]);

#endif
