/* SPDX-License-Identifier: MIT */
/* Bucketed time series of resident memory, live heap and faults, and the phases. */
#include "analysis/timeline.h"
#include "analysis/own.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "common/array.h"
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

struct tl_pass {
	struct mt_reader *r;
	struct mt_timeline *tl;
	struct mt_own own; /* memtap's own memory: out of every series */
	struct mt_heap_tracker heap;
	struct open_phases op;
	struct mt_map64 rss_ix; /* pid -> index + 1 into rss */
	struct rss_proc *rss;
	size_t nrss, rss_cap, phase_cap;
	uint64_t rss_sum[4], last;
	struct mt_map64 open_spans; /* pid << 40 | span id -> index + 1 into tl->spans */
};

/* A span begins (its name from the trace) or ends; beyond MT_TL_MAX_SPANS only counted. */
static int on_app(struct tl_pass *q, const struct mt_event *ev, uint32_t pid, uint64_t t)
{
	struct mt_timeline *tl = q->tl;
	uint64_t id = ev->v[MT_F_APP_ID], key = (uint64_t)pid << 40 | id, *ix, *up;
	const char *name;
	size_t len;

	if (!id || id >> 40)
		return 0;
	if (ev->v[MT_F_APP_OP] == MT_APP_END) {
		if ((ix = mt_map64_get(&q->open_spans, key))) {
			tl->spans[*ix - 1].end_ns = t;
			tl->spans[*ix - 1].open = false;
			mt_map64_del(&q->open_spans, key);
		}
		return 0;
	}
	if (ev->v[MT_F_APP_OP] != MT_APP_BEGIN)
		return 0;
	if (tl->nspans == MT_TL_MAX_SPANS) {
		tl->spans_dropped++;
		return 0;
	}
	if (mt_grow_array(&tl->spans, &tl->spans_cap, tl->nspans + 1, sizeof(*tl->spans)) < 0)
		return -ENOMEM;
	name = mt_reader_str(q->r, ev->stream, ev->v[MT_F_APP_NAME], &len);
	up = ev->v[MT_F_APP_PARENT]
		     ? mt_map64_get(&q->open_spans, (uint64_t)pid << 40 | ev->v[MT_F_APP_PARENT])
		     : NULL;
	tl->spans[tl->nspans] = (struct mt_tl_span){
		.pid = pid,
		.tid = (uint32_t)ev->v[MT_F_TID],
		.depth = up ? tl->spans[*up - 1].depth + 1 : 0,
		.name = strndup(name ? name : "", name ? len : 0),
		.start_ns = t,
		.end_ns = t,
		.open = true,
	};
	if (!tl->spans[tl->nspans].name || mt_map64_put(&q->open_spans, key, &ix) < 0)
		return -ENOMEM;
	*ix = ++tl->nspans;
	return 0;
}

static int tl_event(void *ctx, const struct mt_event *ev)
{
	struct tl_pass *q = ctx;
	struct mt_timeline *tl = q->tl;
	struct mt_reader *r = q->r;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t t = ev->v[MT_F_TIME];
	struct mt_tl_bucket *b = bucket(tl, t);
	int rc = 0;

	q->last = t;
	mt_own_event(&q->own, ev);
	switch (ev->type) {
	case MT_EV_RSS: {
		uint64_t *ix, total, v[4];

		if (!mt_own_rss(&q->own, ev, v))
			break; /* memtap's own part, taken out of what follows */
		if (mt_map64_put(&q->rss_ix, pid, &ix) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (!*ix) {
			if (q->nrss == q->rss_cap) {
				size_t cap = q->rss_cap ? q->rss_cap * 2 : 16;
				struct rss_proc *p = realloc(q->rss, cap * sizeof(*p));

				if (!p) {
					rc = -ENOMEM;
					break;
				}
				q->rss = p;
				q->rss_cap = cap;
			}
			q->rss[q->nrss] = (struct rss_proc){ { 0 } };
			*ix = ++q->nrss;
		}
		for (int k = 0; k < 4; k++) {
			q->rss_sum[k] += v[k] - q->rss[*ix - 1].v[k];
			q->rss[*ix - 1].v[k] = v[k];
		}
		total = q->rss_sum[0] + q->rss_sum[1] + q->rss_sum[2];
		memcpy(b->rss, q->rss_sum, sizeof(q->rss_sum));
		b->rss_seen = true;
		if (total > b->rss_max)
			b->rss_max = total;
		if (total > tl->rss_peak)
			tl->rss_peak = total;
		tl->has_rss = true;
		break;
	}
	case MT_EV_ALLOC:
		mt_heap_event(&q->heap, ev);
		b->heap = q->heap.total;
		b->heap_seen = true;
		if (q->heap.total > b->heap_max)
			b->heap_max = q->heap.total;
		if (q->heap.total > tl->heap_peak)
			tl->heap_peak = q->heap.total;
		tl->has_heap = true;
		break;
	case MT_EV_FAULT: { /* the workload's, page-write tracking's apart, memtap's own not */
		enum mt_fault_whose w = mt_own_fault(&q->own, ev);

		if (w == MT_FW_TRACKING)
			b->faults_tracking++;
		else if (w == MT_FW_WORKLOAD && ev->v[MT_F_FAULT_KIND] == MT_FAULT_MAJOR)
			b->faults_major++;
		else if (w == MT_FW_WORKLOAD)
			b->faults_minor++;
		tl->has_faults = tl->has_faults || w != MT_FW_OWN;
		break;
	}
	case MT_EV_APP:
		rc = on_app(q, ev, pid, t);
		break;
	case MT_EV_PHASE: {
		uint64_t *n, *s;

		rc = close_phase(tl, r, &q->op, &q->phase_cap, pid, t);
		if (rc < 0)
			break;
		if (ev->v[MT_F_PHASE_NAME] && mt_map64_put(&q->op.name, pid, &n) == 0 &&
		    mt_map64_put(&q->op.since, pid, &s) == 0) {
			*n = ((uint64_t)ev->stream << 32 | (ev->v[MT_F_PHASE_NAME] & 0xffffffffu)) +
			     1;
			*s = t;
		}
		break;
	}
	case MT_EV_TASK_EXIT:
		if (ev->v[MT_F_EXIT_KIND] == MT_TASK_PROCESS) {
			uint64_t *ix = mt_map64_get(&q->rss_ix, pid);

			rc = close_phase(tl, r, &q->op, &q->phase_cap, pid, t);
			if (ix) { /* a process gone holds no memory */
				for (int k = 0; k < 4; k++) {
					q->rss_sum[k] -= q->rss[*ix - 1].v[k];
					q->rss[*ix - 1].v[k] = 0;
				}
				memcpy(b->rss, q->rss_sum, sizeof(q->rss_sum));
				b->rss_seen = true;
			}
		}
		break;
	default:
		break;
	}
	return rc;
}

static int tl_finish(void *ctx, int rc)
{
	struct tl_pass *q = ctx;
	struct mt_timeline *tl = q->tl;
	struct mt_reader *r = q->r;

	if (rc == 0) { /* phases still open at the end */
		for (size_t i = 0; i < q->op.name.cap && rc == 0; i++)
			if (q->op.name.keys[i] != MT_MAP64_EMPTY && q->op.name.vals[i])
				rc = close_phase(tl, r, &q->op, &q->phase_cap,
						 (uint32_t)q->op.name.keys[i], q->last);
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
	for (size_t i = 0; i < tl->nspans; i++) /* never ended: drawn to the end */
		if (tl->spans[i].open)
			tl->spans[i].end_ns =
				q->last > tl->spans[i].start_ns ? q->last : tl->spans[i].start_ns;
	mt_map64_release(&q->open_spans);
	tl->unknown_frees = q->heap.unknown_frees;
	mt_heap_release(&q->heap);
	mt_map64_release(&q->rss_ix);
	mt_own_release(&q->own);
	mt_map64_release(&q->op.name);
	mt_map64_release(&q->op.since);
	free(q->rss);
	if (rc < 0)
		mt_timeline_release(tl);
	free(q);
	return rc;
}

int mt_timeline_pass(struct mt_reader *r, struct mt_timeline *tl, struct mt_pass *pass)
{
	struct tl_pass *q;

	memset(tl, 0, sizeof(*tl));
	if (!mt_reader_time_range(r, &tl->t0, &tl->t1))
		tl->t0 = tl->t1 = 0;
	tl->bucket_ns = (tl->t1 - tl->t0) / MT_TL_BUCKETS ? (tl->t1 - tl->t0) / MT_TL_BUCKETS : 1;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->r = r;
	q->tl = tl;
	mt_heap_init(&q->heap);
	mt_own_init(&q->own, r);
	mt_map64_init(&q->rss_ix);
	mt_map64_init(&q->op.name);
	mt_map64_init(&q->op.since);
	mt_map64_init(&q->open_spans);
	*pass = (struct mt_pass){ .name = "timeline",
				  .types = 1ull << MT_EV_RSS | 1ull << MT_EV_ALLOC |
					   1ull << MT_EV_FAULT | 1ull << MT_EV_PHASE |
					   1ull << MT_EV_APP | 1ull << MT_EV_TASK_EXIT |
					   MT_OWN_EVENTS,
				  .ctx = q,
				  .event = tl_event,
				  .finish = tl_finish };
	return 0;
}

int mt_timeline_build(struct mt_reader *r, struct mt_timeline *tl)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_timeline_pass(r, tl, &p), &p);
}

void mt_timeline_release(struct mt_timeline *tl)
{
	for (size_t i = 0; i < tl->nphases; i++)
		free(tl->phases[i].name);
	free(tl->phases);
	tl->phases = NULL;
	tl->nphases = 0;
	for (size_t i = 0; i < tl->nspans; i++)
		free(tl->spans[i].name);
	free(tl->spans);
	tl->spans = NULL;
	tl->nspans = tl->spans_cap = 0;
}
