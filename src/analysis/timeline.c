/* SPDX-License-Identifier: MIT */
/* Bucketed time series of resident memory, live heap and faults, and the phases. */
#include "analysis/timeline.h"
#include "analysis/own.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "format/reader.h"

#define ADDR_MASK ((1ull << 47) - 1)

void mt_heap_init(struct mt_heap_tracker *h)
{
	memset(h, 0, sizeof(*h));
	mt_map64_init(&h->blocks);
	mt_map64_init(&h->live);
}

void mt_heap_release(struct mt_heap_tracker *h)
{
	mt_map64_release(&h->blocks);
	mt_map64_release(&h->live);
}

uint64_t mt_heap_event(struct mt_heap_tracker *h, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t kind = ev->v[MT_F_ALLOC_KIND], addr = ev->v[MT_F_ALLOC_ADDR];
	uint64_t usable = ev->v[MT_F_ALLOC_USABLE] ? ev->v[MT_F_ALLOC_USABLE]
						   : ev->v[MT_F_ALLOC_SIZE];
	uint64_t key_pid = (uint64_t)(pid & 0x1ffff) << 47, *live, *v;
	uint64_t old = kind == MT_ALLOC_FREE ? addr
		       : kind == MT_ALLOC_REALLOC || kind == MT_ALLOC_REALLOCARRAY
			       ? ev->v[MT_F_ALLOC_OLD]
			       : 0;

	if (mt_map64_put(&h->live, pid, &live) < 0)
		return 0;
	/* the block released: free's, or realloc's old one */
	if (old) {
		v = mt_map64_get(&h->blocks, key_pid | (old & ADDR_MASK));
		if (v) {
			uint64_t n = *v < *live ? *v : *live;

			*live -= n;
			h->total -= n < h->total ? n : h->total;
			mt_map64_del(&h->blocks, key_pid | (old & ADDR_MASK));
		} else if (kind == MT_ALLOC_FREE) {
			h->unknown_frees++;
		}
	}
	if (kind != MT_ALLOC_FREE && addr && usable) {
		/* the live map may move in the insert: look the process up again after it */
		if (mt_map64_put(&h->blocks, key_pid | (addr & ADDR_MASK), &v) == 0) {
			uint64_t before = *v; /* a block seen again without its free: replaced */

			*v = usable;
			live = mt_map64_get(&h->live, pid);
			if (live) {
				*live = *live - (before < *live ? before : *live) + usable;
				h->total =
					h->total - (before < h->total ? before : h->total) + usable;
			}
		}
	}
	live = mt_map64_get(&h->live, pid);
	return live ? *live : 0;
}

struct rss_proc {
	uint64_t v[4]; /* its latest record */
};

static struct mt_tl_bucket *bucket(struct mt_timeline *tl, uint64_t t)
{
	uint64_t i = t > tl->t0 ? (t - tl->t0) / tl->bucket_ns : 0;

	return &tl->b[i < MT_TL_BUCKETS ? i : MT_TL_BUCKETS - 1];
}

static int add_phase(struct mt_timeline *tl, size_t *cap, uint32_t pid, const char *name,
		     uint64_t start, uint64_t end)
{
	if (tl->nphases == MT_TL_MAX_PHASES) {
		tl->phases_dropped++;
		return 0;
	}
	if (tl->nphases == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct mt_tl_phase *p = realloc(tl->phases, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		tl->phases = p;
		*cap = c;
	}
	tl->phases[tl->nphases] = (struct mt_tl_phase){ pid, strdup(name), start, end };
	if (!tl->phases[tl->nphases].name)
		return -ENOMEM;
	tl->nphases++;
	return 0;
}

/* A process's open phase: pid -> (stream << 32 | name id) + 1, and since when. */
struct open_phases {
	struct mt_map64 name, since;
};

static int close_phase(struct mt_timeline *tl, struct mt_reader *r, struct open_phases *op,
		       size_t *cap, uint32_t pid, uint64_t t)
{
	uint64_t *n = mt_map64_get(&op->name, pid), *s = mt_map64_get(&op->since, pid);
	const char *name;
	int rc = 0;

	if (!n || !*n || !s)
		return 0;
	name = mt_reader_str(r, (uint32_t)((*n - 1) >> 32), (*n - 1) & 0xffffffffu, NULL);
	if (name && name[0])
		rc = add_phase(tl, cap, pid, name, *s, t > *s ? t : *s);
	*n = 0;
	return rc;
}

int mt_timeline_build(struct mt_reader *r, struct mt_timeline *tl)
{
	struct mt_cursor_opts co = {
		.type_mask = 1ull << MT_EV_RSS | 1ull << MT_EV_ALLOC | 1ull << MT_EV_FAULT |
			     1ull << MT_EV_PHASE | 1ull << MT_EV_TASK_EXIT | MT_OWN_EVENTS,
		.ahead = true,
	};
	struct mt_own own; /* memtap's own memory: out of every series */
	struct mt_heap_tracker heap;
	struct open_phases op;
	struct mt_map64 rss_ix; /* pid -> index + 1 into rss */
	struct rss_proc *rss = NULL;
	size_t nrss = 0, rss_cap = 0, phase_cap = 0;
	uint64_t rss_sum[4] = { 0 }, last = 0;
	struct mt_cursor *c;
	struct mt_event ev;
	int rc;

	memset(tl, 0, sizeof(*tl));
	if (!mt_reader_time_range(r, &tl->t0, &tl->t1))
		tl->t0 = tl->t1 = 0;
	tl->bucket_ns = (tl->t1 - tl->t0) / MT_TL_BUCKETS ? (tl->t1 - tl->t0) / MT_TL_BUCKETS : 1;
	rc = mt_cursor_new(r, &co, &c);
	if (rc < 0)
		return rc;
	mt_heap_init(&heap);
	mt_own_init(&own, r);
	mt_map64_init(&rss_ix);
	mt_map64_init(&op.name);
	mt_map64_init(&op.since);
	while ((rc = mt_cursor_next(c, &ev)) == 1) {
		uint32_t pid = (uint32_t)ev.v[MT_F_PID];
		uint64_t t = ev.v[MT_F_TIME];
		struct mt_tl_bucket *b = bucket(tl, t);

		last = t;
		mt_own_event(&own, &ev);
		switch (ev.type) {
		case MT_EV_RSS: {
			uint64_t *ix, total, v[4];

			if (!mt_own_rss(&own, &ev, v))
				break; /* memtap's own part, taken out of what follows */
			if (mt_map64_put(&rss_ix, pid, &ix) < 0) {
				rc = -ENOMEM;
				break;
			}
			if (!*ix) {
				if (nrss == rss_cap) {
					size_t cap = rss_cap ? rss_cap * 2 : 16;
					struct rss_proc *p = realloc(rss, cap * sizeof(*p));

					if (!p) {
						rc = -ENOMEM;
						break;
					}
					rss = p;
					rss_cap = cap;
				}
				rss[nrss] = (struct rss_proc){ { 0 } };
				*ix = ++nrss;
			}
			for (int k = 0; k < 4; k++) {
				rss_sum[k] += v[k] - rss[*ix - 1].v[k];
				rss[*ix - 1].v[k] = v[k];
			}
			total = rss_sum[0] + rss_sum[1] + rss_sum[2];
			memcpy(b->rss, rss_sum, sizeof(rss_sum));
			b->rss_seen = true;
			if (total > b->rss_max)
				b->rss_max = total;
			if (total > tl->rss_peak)
				tl->rss_peak = total;
			tl->has_rss = true;
			break;
		}
		case MT_EV_ALLOC:
			mt_heap_event(&heap, &ev);
			b->heap = heap.total;
			b->heap_seen = true;
			if (heap.total > b->heap_max)
				b->heap_max = heap.total;
			if (heap.total > tl->heap_peak)
				tl->heap_peak = heap.total;
			tl->has_heap = true;
			break;
		case MT_EV_FAULT:
			if (mt_own_has(&own, pid, ev.v[MT_F_FAULT_ADDR]))
				break;
			if (ev.v[MT_F_FAULT_KIND] == MT_FAULT_MAJOR)
				b->faults_major++;
			else
				b->faults_minor++;
			tl->has_faults = true;
			break;
		case MT_EV_PHASE: {
			uint64_t *n, *s;

			rc = close_phase(tl, r, &op, &phase_cap, pid, t);
			if (rc < 0)
				break;
			if (ev.v[MT_F_PHASE_NAME] && mt_map64_put(&op.name, pid, &n) == 0 &&
			    mt_map64_put(&op.since, pid, &s) == 0) {
				*n = ((uint64_t)ev.stream << 32 |
				      (ev.v[MT_F_PHASE_NAME] & 0xffffffffu)) +
				     1;
				*s = t;
			}
			break;
		}
		case MT_EV_TASK_EXIT:
			if (ev.v[MT_F_EXIT_KIND] == MT_TASK_PROCESS) {
				uint64_t *ix = mt_map64_get(&rss_ix, pid);

				rc = close_phase(tl, r, &op, &phase_cap, pid, t);
				if (ix) { /* a process gone holds no memory */
					for (int k = 0; k < 4; k++) {
						rss_sum[k] -= rss[*ix - 1].v[k];
						rss[*ix - 1].v[k] = 0;
					}
					memcpy(b->rss, rss_sum, sizeof(rss_sum));
					b->rss_seen = true;
				}
			}
			break;
		default:
			break;
		}
		if (rc < 0)
			break;
	}
	mt_cursor_free(c);
	if (rc == 0) { /* phases still open at the end */
		for (size_t i = 0; i < op.name.cap && rc == 0; i++)
			if (op.name.keys[i] != MT_MAP64_EMPTY && op.name.vals[i])
				rc = close_phase(tl, r, &op, &phase_cap, (uint32_t)op.name.keys[i],
						 last);
	}
	/* gauges carry over buckets without records */
	for (size_t i = 1; i < MT_TL_BUCKETS; i++) {
		struct mt_tl_bucket *b = &tl->b[i], *p = &tl->b[i - 1];

		if (!b->rss_seen && p->rss_seen) {
			memcpy(b->rss, p->rss, sizeof(b->rss));
			b->rss_seen = true;
		}
		if (!b->rss_max && b->rss_seen)
			b->rss_max = b->rss[0] + b->rss[1] + b->rss[2];
		if (!b->heap_seen) {
			b->heap = p->heap;
			b->heap_max = p->heap;
			b->heap_seen = p->heap_seen;
		}
	}
	tl->unknown_frees = heap.unknown_frees;
	mt_heap_release(&heap);
	mt_map64_release(&rss_ix);
	mt_own_release(&own);
	mt_map64_release(&op.name);
	mt_map64_release(&op.since);
	free(rss);
	if (rc < 0)
		mt_timeline_release(tl);
	return rc;
}

void mt_timeline_release(struct mt_timeline *tl)
{
	for (size_t i = 0; i < tl->nphases; i++)
		free(tl->phases[i].name);
	free(tl->phases);
	tl->phases = NULL;
	tl->nphases = 0;
}
