/* SPDX-License-Identifier: MIT */
/* The RSS pass over RSS events in time order. */
#include "analysis/rss.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/hash.h"
#include "analysis/pass.h"
#include "format/reader.h"

struct rss_pass {
	struct mt_rss_stats *st;
	struct mt_map64 ix; /* pid -> index into st->procs */
	size_t cap;
	uint64_t tree;
};

static int rss_event(void *ctx, const struct mt_event *ev)
{
	struct rss_pass *rp = ctx;
	struct mt_rss_stats *st = rp->st;
	static const unsigned fields[4] = { MT_F_RSS_FILE, MT_F_RSS_ANON, MT_F_RSS_SHMEM,
					    MT_F_RSS_SWAP };
	uint64_t *i = mt_map64_get(&rp->ix, ev->v[MT_F_PID]), t = ev->v[MT_F_TIME], total;
	struct mt_rss_proc *p;

	if (ev->type != MT_EV_RSS) {
		/* A process that exits or replaces its image no longer holds its memory (the
		 * kernel's teardown changes are made with no current mm and are not
		 * attributed), so it leaves the tree's sum. */
		if (i &&
		    (ev->type == MT_EV_TASK_EXEC || ev->v[MT_F_EXIT_KIND] == MT_TASK_PROCESS)) {
			rp->tree -= st->procs[*i].last;
			st->procs[*i].last = 0;
		}
		return 0;
	}
	if (!i) {
		if (mt_grow_array(&st->procs, &rp->cap, st->nprocs + 1, sizeof(*st->procs)) < 0 ||
		    mt_map64_put(&rp->ix, ev->v[MT_F_PID], &i) < 0)
			return -ENOMEM;
		*i = st->nprocs;
		memset(&st->procs[st->nprocs], 0, sizeof(st->procs[0]));
		st->procs[st->nprocs++].pid = (uint32_t)ev->v[MT_F_PID];
	}
	p = &st->procs[*i];
	if (ev->v[MT_F_RSS_SOURCE] == MT_RSS_MEMTAP) {
		/* memtap's own part from now on: out of the workload's figures */
		p->own[0] = ev->v[MT_F_RSS_ANON];
		p->own[1] = ev->v[MT_F_RSS_SHMEM];
		p->own_events++;
		st->own_measured = true;
		if (p->own[0] + p->own[1] > p->own_peak) {
			p->own_peak = p->own[0] + p->own[1];
			p->own_peak_ns = t;
		}
		if (p->own_peak > st->own_peak)
			st->own_peak = p->own_peak;
		return 0;
	}
	st->present = true;
	st->events++;
	p->events++;
	{
		uint64_t v[4], own = p->own[0] + p->own[1], peak;

		for (unsigned k = 0; k < 4; k++)
			v[k] = ev->v[fields[k]];
		v[1] = v[1] > p->own[0] ? v[1] - p->own[0] : 0;
		v[2] = v[2] > p->own[1] ? v[2] - p->own[1] : 0;
		peak = ev->v[MT_F_RSS_PEAK] > own ? ev->v[MT_F_RSS_PEAK] - own : 0;
		if (ev->v[MT_F_RSS_SOURCE] == MT_RSS_HWM) {
			/* the kernel's high-water mark at the exit: the peak, at a time not known
			 * (records were lost); it says nothing of the processes together */
			if (peak > p->peak) {
				p->peak = peak;
				p->peak_ns = 0;
			}
			peak = 0;
		} else if (peak > p->peak) {
			p->peak = peak;
			p->peak_ns = t;
		}
		for (unsigned k = 0; k < 4; k++)
			if (v[k] > p->max[k]) {
				p->max[k] = v[k];
				p->max_ns[k] = t;
			}
		total = v[0] + v[1] + v[2];
		/* The processes together: the others' latest, with this one at its largest
		 * since its previous record (so never below one process's own peak). */
		if (rp->tree - p->last + (peak > total ? peak : total) > st->tree_peak) {
			st->tree_peak = rp->tree - p->last + (peak > total ? peak : total);
			st->tree_peak_ns = t;
		}
		rp->tree = rp->tree - p->last + total;
		p->last = total;
	}
	return 0;
}

static int rss_finish(void *ctx, int status)
{
	struct rss_pass *rp = ctx;
	struct mt_rss_stats *st = rp->st;

	mt_map64_release(&rp->ix);
	free(rp);
	for (size_t k = 0; k < st->nprocs; k++)
		if (st->procs[k].peak > st->procs[st->peak_proc].peak)
			st->peak_proc = k;
	if (status < 0)
		mt_rss_release(st);
	return status;
}

int mt_rss_pass(struct mt_reader *r, struct mt_rss_stats *st, struct mt_pass *pass)
{
	struct rss_pass *rp;

	memset(st, 0, sizeof(*st));
	*pass = (struct mt_pass){ .name = "rss" };
	if (!mt_reader_event_count(r, MT_EV_RSS))
		return 0;
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->st = st;
	mt_map64_init(&rp->ix);
	*pass = (struct mt_pass){ .name = "rss",
				  .types = 1ull << MT_EV_RSS | 1ull << MT_EV_TASK_EXIT |
					   1ull << MT_EV_TASK_EXEC,
				  .ctx = rp,
				  .event = rss_event,
				  .finish = rss_finish };
	return 0;
}

int mt_rss_analyze(struct mt_reader *r, struct mt_rss_stats *st)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_rss_pass(r, st, &p), &p);
}

void mt_rss_release(struct mt_rss_stats *st)
{
	free(st->procs);
	memset(st, 0, sizeof(*st));
}
