/* SPDX-License-Identifier: MIT */
/* record --max-size: the steps that keep the trace within its size (record/budget.h). */
#include "record/budget.h"

#include <stdio.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"
#include "format/chunk.h"
#include "format/schema.h"
#include "format/writer.h"
#include "record/alloc-internal.h"
#include "record/alloc.h"
#include "record/collectors.h"
#include "record/record.h"
#include "record/session.h"

/* Room kept at the end for what is buffered when it comes (rows in the runtime's blocks and
 * the perf rings, the fold's last windows): an eighth of the size. */
static uint64_t end_at(uint64_t max)
{
	return max - max / 8;
}

uint64_t mt_budget_keep_min(const struct mt_record_opts *o)
{
	return o->page_writes_min && o->page_writes_min < MT_BUDGET_KEEP_MIN ? o->page_writes_min
									     : MT_BUDGET_KEEP_MIN;
}

void mt_budget_open(struct mt_session *s)
{
	s->budget.max = s->o->max_size;
	if (s->budget.max)
		mt_writer_limit(s->w, s->budget.max - MT_BUDGET_KV_ROOM);
}

static const char *since_start(struct mt_session *s, uint64_t t, char *buf, size_t n)
{
	return mt_fmt_duration(t - s->t_start, buf, n);
}

/* Half the size written: allocations below the kept size counted by site from now on. */
static void fold(struct mt_session *s, uint64_t now, uint64_t bytes)
{
	char t[32], m[32], k[32];

	s->budget.fold_ns = now;
	s->budget.fold_bytes = bytes;
	if (s->alloc && s->alloc->budget)
		s->alloc->fold_from = now;
	if (!s->o->quiet)
		mt_info("--max-size %s: half of it written at +%s; allocations below %s are "
			"counted by site from now on",
			mt_fmt_bytes(s->budget.max, m, sizeof(m)),
			since_start(s, now, t, sizeof(t)),
			mt_fmt_bytes(mt_budget_keep_min(s->o), k, sizeof(k)));
}

/* Near the size: the recording ends. Attached, memtap detaches; a launched command's rows
 * buffered until now are written, then nothing more (the writer is sealed). */
static void end(struct mt_session *s, uint64_t now, uint64_t bytes)
{
	char t[32], m[32];

	s->budget.end_ns = now;
	s->budget.end_bytes = bytes;
	if (s->attached) {
		s->deadline = now;
	} else {
		mt_alloc_flush(s);
		mt_alloc_drain_folds(s); /* the rows waiting to be put in order, too */
		for (size_t i = 0; i < MT_NCOLLECTORS; i++)
			if (mt_collectors[i].drain)
				mt_collectors[i].drain(s);
		mt_writer_flush(s->w);
		mt_writer_seal(s->w);
	}
	if (!s->o->quiet)
		mt_info("--max-size %s reached at +%s: the recording ends here%s",
			mt_fmt_bytes(s->budget.max, m, sizeof(m)),
			since_start(s, now, t, sizeof(t)),
			s->attached ? " (detaching)"
				    : "; the command runs on to its exit, unrecorded");
}

void mt_budget_tick(struct mt_session *s)
{
	uint64_t bytes, now;

	if (!s->budget.max || s->budget.end_ns)
		return;
	bytes = mt_writer_stats(s->w)->bytes;
	if (bytes < s->budget.max / 2)
		return;
	now = mt_now_ns();
	if (!s->budget.fold_ns)
		fold(s, now, bytes);
	if (bytes >= end_at(s->budget.max))
		end(s, now, bytes);
}

void mt_budget_keys(struct mt_session *s, struct mt_kv *kv)
{
	const struct mt_writer_stats *w = mt_writer_stats(s->w);
	uint64_t left = 0;

	if (!s->budget.max)
		return;
	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		left += w->left_out_events[t];
	mt_kv_add_u64(kv, "max_size", s->budget.max);
	mt_kv_add_u64(kv, "budget_fold_ns", s->budget.fold_ns);
	mt_kv_add_u64(kv, "budget_fold_bytes", s->budget.fold_bytes);
	mt_kv_add_u64(kv, "budget_end_ns", s->budget.end_ns);
	mt_kv_add_u64(kv, "budget_end_bytes", s->budget.end_bytes);
	/* events the writer left out: after the end, or at the limit itself */
	mt_kv_add_u64(kv, "budget_left_out_events", left);
	mt_kv_add_u64(kv, "budget_left_out_chunks", w->left_out_chunks);
	mt_kv_add_u64(kv, "budget_left_out_from_ns", w->left_out_from);
	if (left) { /* "type:count,...": which collectors' events */
		char by[1024];
		size_t n = 0;

		by[0] = 0;
		for (unsigned t = 0; t < _MT_EV_MAX && n < sizeof(by); t++)
			if (w->left_out_events[t] && mt_type_desc(t))
				n += (size_t)snprintf(by + n, sizeof(by) - n, "%s%s:%llu",
						      n ? "," : "", mt_type_desc(t)->name,
						      (unsigned long long)w->left_out_events[t]);
		mt_kv_add(kv, "budget_left_out_by_type", by);
		mt_debug("--max-size: left out %s", by);
	}
}
