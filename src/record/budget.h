/* SPDX-License-Identifier: MIT */
/*
 * record --max-size: the trace kept within a size (record/budget.c). Half of it written,
 * allocations below MT_BUDGET_KEEP_MIN are counted by site from then on (record/alloc-sites.c,
 * mt_ac_sites_budget); near the size, the recording ends: --pid and -a detach, a launched
 * command runs on to its exit unrecorded. The writer never lets data cross the size
 * (mt_writer_limit). Each step and what it left out go into the END chunk.
 */
#ifndef MEMTAP_RECORD_BUDGET_H
#define MEMTAP_RECORD_BUDGET_H

#include <stdint.h>

#define MT_BUDGET_MIN (4ull << 20) /* the smallest --max-size */
#define MT_BUDGET_KEEP_MIN (64u << 10) /* blocks this large keep their rows after the fold */
#define MT_BUDGET_KV_ROOM (256u << 10) /* below the size: the collectors' and END chunks */

struct mt_budget {
	uint64_t max; /* --max-size; 0: no budget */
	uint64_t fold_ns, fold_bytes; /* when (and at what size) the fold began; 0: never */
	uint64_t end_ns, end_bytes; /* when the recording ended for the budget; 0: never */
};

struct mt_session;
struct mt_kv;
struct mt_record_opts;

/* The size from which a block keeps its rows after the fold: MT_BUDGET_KEEP_MIN, or
 * --page-writes-min when smaller (every page-write-tracked block keeps its rows). */
uint64_t mt_budget_keep_min(const struct mt_record_opts *o);
/* The writer's limit, at the start of the recording. */
void mt_budget_open(struct mt_session *s);
/* The steps due at the file's present size (the recording loop, after its drains). */
void mt_budget_tick(struct mt_session *s);
/* What the budget did, into the END chunk's keys. */
void mt_budget_keys(struct mt_session *s, struct mt_kv *end);

#endif
