/* SPDX-License-Identifier: MIT */
/* The workload's events and spans, joined with memory (spans.h). */
#include "analysis/spans.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/appev.h"
#include "analysis/own.h"
#include "analysis/pass.h"
#include "analysis/rangeset.h"
#include "common/array.h"
#include "common/hash.h"
#include "format/reader.h"

/*
 * An allocation's time is its TSC reading converted within 10 us (docs/metrics.md), a span's
 * time the workload's clock reading: an allocation the span made may come in the stream a
 * little after the span's end. Its span id still names the span, so an ended span waits this
 * long in stream time before it is summed.
 */
#define GRACE_NS 50000000ull
#define ID_BITS 40

struct span {
	uint32_t pid, tid;
	uint64_t id, t_begin, t_end, ordinal;
	uint32_t name_stream, fields_stream;
	uint64_t name, fields; /* string ids */
	struct mt_appev_mem mem;
	int64_t rss_begin;
	uint64_t parent;
	uint64_t alloc_events; /* allocation events naming it */
	uint32_t up; /* the enclosing open span of the thread, index + 1 */
	bool used, begun, ended, rss_begin_known, by_exit;
};

/* A range the workload labelled (memtap_label): samples there count under its type. */
struct label {
	uint64_t addr, end;
	unsigned stype;
};

struct proc {
	uint32_t pid;
	uint32_t *open; /* its spans begun and not ended (indices into ctx.v) */
	size_t nopen, ocap;
	struct label *labels;
	size_t nlabels, lcap;
	uint32_t blocks; /* live heap blocks: a tree of ctx.pool */
	uint64_t live; /* heap bytes live */
	int64_t rss; /* the workload's resident memory, as last measured (memtap's taken out) */
	bool rss_known;
};

struct ctx {
	struct mt_reader *r;
	struct mt_appev *a;
	struct mt_spans_stats *st;
	struct span *v;
	size_t n, cap;
	uint32_t *freed; /* free places of v */
	size_t nfreed, freed_cap;
	struct mt_map64 ix; /* pid << ID_BITS | id -> index + 1 */
	struct mt_map64 top; /* tid -> its innermost open span, index + 1 */
	uint32_t *queue; /* ended spans in the order they ended, waiting GRACE_NS */
	size_t qhead, qn, qcap;
	struct proc *procs;
	size_t nprocs, pcap;
	struct mt_map64 pix; /* pid -> index + 1 */
	struct mt_own own; /* memtap's own memory: faults there are not the workload's */
	struct mt_rs_pool pool; /* the processes' live heap blocks */
	char *scratch;
	size_t scratch_cap;
	uint64_t ordinal;
	int64_t realtime_off; /* realtime - monotonic, ns */
	struct mt_span_rows *rows; /* NULL: spans are summed only */
};

/* A monotonic time as seconds of the wall clock: off is realtime - monotonic. The sum wraps
 * rather than overflows on a damaged trace's times. */
static double wall_s(uint64_t t, int64_t off)
{
	return (double)(int64_t)(t + (uint64_t)off) / 1e9;
}

static uint64_t key_of(uint64_t pid, uint64_t id)
{
	return pid << ID_BITS | id;
}

static struct proc *proc_of(struct ctx *c, uint32_t pid)
{
	uint64_t *ix;

	if ((ix = mt_map64_get(&c->pix, pid)))
		return &c->procs[*ix - 1];
	if (mt_grow_array(&c->procs, &c->pcap, c->nprocs + 1, sizeof(*c->procs)) < 0 ||
	    mt_map64_put(&c->pix, pid, &ix) < 0)
		return NULL;
	memset(&c->procs[c->nprocs], 0, sizeof(*c->procs));
	c->procs[c->nprocs].pid = pid;
	*ix = ++c->nprocs;
	return &c->procs[*ix - 1];
}

static struct span *find(struct ctx *c, uint64_t pid, uint64_t id)
{
	uint64_t *ix = id && id >> ID_BITS == 0 ? mt_map64_get(&c->ix, key_of(pid, id)) : NULL;

	return ix ? &c->v[*ix - 1] : NULL;
}

/* The span (pid, id), made when first met (an allocation may come before its begin). */
static struct span *get(struct ctx *c, uint32_t pid, uint64_t id)
{
	struct span *s = find(c, pid, id);
	uint64_t *ix;
	size_t i;

	if (s || !id || id >> ID_BITS)
		return s;
	if (c->nfreed)
		i = c->freed[--c->nfreed];
	else if (mt_grow_array(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
		return NULL;
	else
		i = c->n++;
	if (mt_map64_put(&c->ix, key_of(pid, id), &ix) < 0)
		return NULL;
	*ix = i + 1;
	s = &c->v[i];
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->pid = pid;
	s->id = id;
	return s;
}

static void drop(struct ctx *c, struct span *s)
{
	uint32_t i = (uint32_t)(s - c->v);

	mt_map64_del(&c->ix, key_of(s->pid, s->id));
	s->used = false;
	if (mt_grow_array(&c->freed, &c->freed_cap, c->nfreed + 1, sizeof(*c->freed)) == 0)
		c->freed[c->nfreed++] = i;
}

/* The sample kind of a labelled region type, by its name (interned in the summary). */
static unsigned stype_of(struct ctx *c, const char *name)
{
	struct mt_appev *a = c->a;

	for (unsigned i = 3; i < a->nstypes; i++)
		if (a->stype_names[i] && !strcmp(a->stype_names[i], name))
			return i;
	if (a->nstypes == MT_AE_STYPES - 1) {
		a->stype_names[a->nstypes++] = strdup("labelled-other");
		return MT_AE_STYPES - 1;
	}
	if (a->nstypes == MT_AE_STYPES)
		return MT_AE_STYPES - 1;
	a->stype_names[a->nstypes] = strdup(name); /* NULL (no memory): not shown */
	return a->nstypes++;
}

/* memtap_label and memtap_unlabel: the process's labelled ranges. */
static int on_label(struct ctx *c, const struct mt_event *ev, struct proc *p)
{
	uint64_t addr = ev->v[MT_F_LABEL_ADDR];
	const char *type;
	size_t len;

	for (size_t i = 0; i < p->nlabels; i++)
		if (p->labels[i].addr == addr) { /* relabelled, or unlabelled */
			p->labels[i] = p->labels[--p->nlabels];
			break;
		}
	if (ev->v[MT_F_LABEL_OP] != MT_LABEL_SET || !ev->v[MT_F_LABEL_LEN])
		return 0;
	type = mt_reader_str(c->r, ev->stream, ev->v[MT_F_LABEL_TYPE], &len);
	if (!type || !len || strlen(type) != len)
		return 0;
	if (mt_grow_array(&p->labels, &p->lcap, p->nlabels + 1, sizeof(*p->labels)) < 0)
		return -ENOMEM;
	p->labels[p->nlabels++] =
		(struct label){ addr, addr + ev->v[MT_F_LABEL_LEN], stype_of(c, type) };
	return 0;
}

/* Where a sample's address lay: a labelled range's type, a live heap block, or other. */
static unsigned sample_kind(const struct mt_rs_pool *pool, const struct proc *p, uint64_t addr)
{
	if (!addr)
		return 2;
	for (size_t i = 0; i < p->nlabels; i++)
		if (addr >= p->labels[i].addr && addr < p->labels[i].end)
			return p->labels[i].stype;
	return mt_rs_find(pool, p->blocks, addr) ? 0 : 1;
}

static const char *str(struct ctx *c, uint32_t stream, uint64_t id, size_t *len)
{
	const char *s = id ? mt_reader_str(c->r, stream, id, len) : NULL;

	if (!s)
		*len = 0;
	return s ? s : "";
}

/* A span or an event to the summary: its fields as a JSON-lines object. */
static int summarise(struct ctx *c, uint32_t fstream, uint64_t fields, uint32_t nstream,
		     uint64_t name, uint64_t ordinal, struct mt_appev_span *sp)
{
	size_t fl, nl;
	const char *f = str(c, fstream, fields, &fl), *nm = str(c, nstream, name, &nl);

	if (fl + 2 > c->scratch_cap) {
		char *p = realloc(c->scratch, fl + 2);

		if (!p)
			return -ENOMEM;
		c->scratch = p;
		c->scratch_cap = fl + 2;
	}
	sp->name = nm;
	sp->name_len = nl;
	return mt_appev_span(c->a, f, fl, ordinal, c->scratch, sp);
}

static int keep_row(struct ctx *c, const struct span *s)
{
	struct mt_span_row *w;
	const char *nm, *f;
	size_t nl, fl;

	if (mt_grow_array(&c->rows->v, &c->rows->cap, c->rows->n + 1, sizeof(*c->rows->v)) < 0)
		return -ENOMEM;
	nm = str(c, s->name_stream, s->name, &nl);
	f = str(c, s->fields_stream, s->fields, &fl);
	w = &c->rows->v[c->rows->n];
	*w = (struct mt_span_row){ .pid = s->pid,
				   .tid = s->tid,
				   .id = s->id,
				   .parent = s->parent,
				   .begin_ns = s->t_begin,
				   .end_ns = s->t_end,
				   .name = strndup(nm, nl),
				   .fields = strndup(f, fl),
				   .mem = s->mem,
				   .ended_by_exit = s->by_exit };
	if (!w->name || !w->fields) {
		free(w->name);
		free(w->fields);
		return -ENOMEM;
	}
	c->rows->n++;
	return 0;
}

static int finalize(struct ctx *c, struct span *s)
{
	struct mt_appev_span sp = {
		.wall_ms = (double)(s->t_end - s->t_begin) / 1e6,
		.ts = wall_s(s->t_begin, c->realtime_off),
		.mem = &s->mem,
		.pid = s->pid,
		.tid = s->tid,
	};
	int rc =
		summarise(c, s->fields_stream, s->fields, s->name_stream, s->name, s->ordinal, &sp);

	if (rc == 0 && c->rows)
		rc = keep_row(c, s);
	c->st->spans++;
	c->st->allocs_attributed += s->alloc_events;
	drop(c, s);
	return rc;
}

/* Sums the spans that ended GRACE_NS or more before t (all of them: t = UINT64_MAX). */
static int pump(struct ctx *c, uint64_t t)
{
	while (c->qn) {
		struct span *s = &c->v[c->queue[c->qhead]];

		if (t != UINT64_MAX && s->t_end + GRACE_NS > t)
			break;
		c->qhead = (c->qhead + 1) % c->qcap;
		c->qn--;
		if (s->used && s->ended) {
			int rc = finalize(c, s);

			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int enqueue(struct ctx *c, struct span *s)
{
	if (c->qn == c->qcap) { /* grow the ring, unrolled into the new array */
		size_t cap = c->qcap ? c->qcap * 2 : 64;
		uint32_t *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t i = 0; i < c->qn; i++)
			q[i] = c->queue[(c->qhead + i) % c->qcap];
		free(c->queue);
		c->queue = q;
		c->qcap = cap;
		c->qhead = 0;
	}
	c->queue[(c->qhead + c->qn++) % c->qcap] = (uint32_t)(s - c->v);
	return 0;
}

/* Ends s at t: off its thread's stack (wherever it is there), into the queue. */
static int end_span(struct ctx *c, struct span *s, uint64_t t)
{
	uint64_t *top = mt_map64_get(&c->top, s->tid), want = (uint64_t)(s - c->v) + 1;
	struct proc *p = proc_of(c, s->pid);

	if (top && *top == want) {
		*top = s->up;
	} else if (top) {
		for (struct span *x = *top ? &c->v[*top - 1] : NULL; x && x->up;
		     x = &c->v[x->up - 1]) {
			if (x->up == want) {
				x->up = s->up;
				break;
			}
		}
	}
	s->ended = true;
	s->t_end = t >= s->t_begin ? t : s->t_begin;
	if (p) {
		for (size_t i = 0; i < p->nopen; i++)
			if (p->open[i] == (uint32_t)(s - c->v)) {
				p->open[i] = p->open[--p->nopen];
				break;
			}
		if (p->rss_known && s->rss_begin_known) {
			/* wrapping, never overflowing, on a damaged trace's figures */
			s->mem.rss_change = (int64_t)((uint64_t)p->rss - (uint64_t)s->rss_begin);
			s->mem.rss_known = true;
		}
	}
	return enqueue(c, s);
}

static int on_begin(struct ctx *c, const struct mt_event *ev, uint32_t pid, uint32_t tid)
{
	struct span *s = get(c, pid, ev->v[MT_F_APP_ID]);
	struct proc *p = proc_of(c, pid);
	uint64_t *top;

	if (!s || !p)
		return -ENOMEM;
	if (s->begun) { /* an id begun twice: a new image after exec reuses ids; keep the first */
		c->st->unmatched_ends++;
		return 0;
	}
	s->begun = true;
	s->tid = tid;
	s->t_begin = ev->v[MT_F_TIME];
	s->ordinal = ++c->ordinal;
	s->name_stream = s->fields_stream = ev->stream;
	s->name = ev->v[MT_F_APP_NAME];
	s->fields = ev->v[MT_F_APP_FIELDS];
	s->parent = ev->v[MT_F_APP_PARENT];
	s->rss_begin = p->rss;
	s->rss_begin_known = p->rss_known;
	if (p->live > s->mem.heap_peak)
		s->mem.heap_peak = p->live;
	if (mt_map64_put(&c->top, tid, &top) < 0)
		return -ENOMEM;
	s->up = (uint32_t)*top;
	*top = (uint64_t)(s - c->v) + 1;
	if (mt_grow_array(&p->open, &p->ocap, p->nopen + 1, sizeof(*p->open)) < 0)
		return -ENOMEM;
	p->open[p->nopen++] = (uint32_t)(s - c->v);
	return 0;
}

static int on_app(struct ctx *c, const struct mt_event *ev, uint32_t pid, uint32_t tid)
{
	struct span *s;

	switch (ev->v[MT_F_APP_OP]) {
	case MT_APP_BEGIN:
		return on_begin(c, ev, pid, tid);
	case MT_APP_END:
		s = find(c, pid, ev->v[MT_F_APP_ID]);
		if (!s || !s->begun || s->ended) {
			c->st->unmatched_ends++;
			return 0;
		}
		return end_span(c, s, ev->v[MT_F_TIME]);
	default: {
		struct mt_appev_span sp = {
			.ts = wall_s(ev->v[MT_F_TIME], c->realtime_off),
			.pid = pid,
			.tid = tid,
		};

		c->st->events++;
		return summarise(c, ev->stream, ev->v[MT_F_APP_FIELDS], ev->stream,
				 ev->v[MT_F_APP_NAME], ++c->ordinal, &sp);
	}
	}
}

/* The live heap after an allocation event, and the span's own part of it. */
static int on_alloc(struct ctx *c, const struct mt_event *ev, uint32_t pid)
{
	struct proc *p = proc_of(c, pid);
	uint64_t kind = ev->v[MT_F_ALLOC_KIND], addr = ev->v[MT_F_ALLOC_ADDR];
	uint64_t old = kind == MT_ALLOC_FREE ? addr : ev->v[MT_F_ALLOC_OLD], freed = 0;
	uint32_t n;
	uint64_t sid = ev->v[MT_F_ALLOC_SPAN];
	bool known = !old;
	struct span *s = NULL;

	if (!p)
		return -ENOMEM;
	if (old && (n = mt_rs_find_le(&c->pool, p->blocks, old)) && c->pool.v[n].start == old) {
		freed = c->pool.v[n].a ? 0
				       : c->pool.v[n].end - c->pool.v[n].start; /* a: malloc(0) */
		known = true;
		p->live -= freed <= p->live ? freed : p->live;
		mt_rs_erase(&c->pool, &p->blocks, old, old + 1);
	}
	if (kind != MT_ALLOC_FREE && addr) {
		uint64_t size = ev->v[MT_F_ALLOC_SIZE];

		/* a block seen again without its free: replaced (its bytes leave the count) */
		if ((n = mt_rs_find_le(&c->pool, p->blocks, addr)) && c->pool.v[n].start == addr) {
			uint64_t was = c->pool.v[n].a ? 0 : c->pool.v[n].end - c->pool.v[n].start;

			p->live -= was <= p->live ? was : p->live;
		}
		if (!(n = mt_rs_new(&c->pool, addr, addr + (size ? size : 1), !size, 0)))
			return -ENOMEM;
		mt_rs_insert(&c->pool, &p->blocks, n);
		p->live += size;
	}
	/* by its id, ended or not: an ended span waits GRACE_NS for its allocations */
	if (sid && (s = get(c, pid, sid))) {
		s->alloc_events++; /* attributed once the span is summed (it may never begin) */
		if (kind == MT_ALLOC_FREE) {
			s->mem.free_calls++;
		} else if (addr) {
			s->mem.alloc_calls++;
			s->mem.alloc_bytes += ev->v[MT_F_ALLOC_SIZE];
		}
		s->mem.freed_bytes += freed;
		if (!known)
			c->st->frees_unknown_size++;
	} else if (sid) {
		c->st->allocs_unattributed++;
	}
	for (size_t i = 0; i < p->nopen; i++) /* the heap's peak over each open span's window */
		if (p->live > c->v[p->open[i]].mem.heap_peak)
			c->v[p->open[i]].mem.heap_peak = p->live;
	return 0;
}

/* The thread's open spans end with it (the runtime forgets them there). */
static int thread_gone(struct ctx *c, uint32_t tid, uint64_t t)
{
	uint64_t *top;

	while ((top = mt_map64_get(&c->top, tid)) && *top) {
		int rc;

		c->v[*top - 1].by_exit = true;
		rc = end_span(c, &c->v[*top - 1], t);
		c->st->ended_by_exit++;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A process that ends or replaces its image: every open span of it ends, and the ended ones
 * are summed now (a new image numbers its spans from 1 again). */
static int process_gone(struct ctx *c, uint32_t pid, uint64_t t)
{
	for (size_t i = 0; i < c->n; i++) {
		struct span *s = &c->v[i];
		int rc = 0;

		if (!s->used || s->pid != pid)
			continue;
		if (s->begun && !s->ended) {
			c->st->ended_by_exit++;
			s->by_exit = true;
			rc = end_span(c, s, t);
		}
		if (rc == 0 && s->ended)
			rc = finalize(c, s);
		else if (rc == 0 && !s->begun) {
			c->st->allocs_unattributed += s->alloc_events;
			drop(c, s);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int on_event(void *ctx, const struct mt_event *ev)
{
	struct ctx *c = ctx;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], tid = (uint32_t)ev->v[MT_F_TID];
	uint64_t *top;
	struct proc *p;
	uint64_t v[4];
	int rc = pump(c, ev->v[MT_F_TIME]);

	if (rc < 0)
		return rc;
	mt_own_event(&c->own, ev);
	switch (ev->type) {
	case MT_EV_APP:
		return on_app(c, ev, pid, tid);
	case MT_EV_ALLOC:
		return on_alloc(c, ev, pid);
	case MT_EV_FAULT:
	case MT_EV_ACCESS:
		if (ev->type == MT_EV_ACCESS && ev->v[MT_F_ACCESS_PART])
			return 0;
		if (!(top = mt_map64_get(&c->top, tid)) || !*top)
			return 0;
		if (ev->type == MT_EV_FAULT && mt_own_fault(&c->own, ev) != MT_FW_WORKLOAD) {
			/* the runtime's own pages or page-write tracking's, taken in the span */
			c->st->faults_memtap++;
			return 0;
		}
		if (ev->type == MT_EV_FAULT) {
			c->v[*top - 1].mem.faults++;
			c->st->faults_in_spans++;
		} else {
			if (!(p = proc_of(c, pid)))
				return -ENOMEM;
			c->v[*top - 1].mem.samples++;
			c->v[*top - 1].mem.samples_by[sample_kind(&c->pool, p,
								  ev->v[MT_F_ACCESS_ADDR])]++;
			c->st->samples_in_spans++;
		}
		return 0;
	case MT_EV_LABEL:
		return (p = proc_of(c, pid)) ? on_label(c, ev, p) : -ENOMEM;
	case MT_EV_RSS:
		if (!(p = proc_of(c, pid)))
			return -ENOMEM;
		if (mt_own_rss(&c->own, ev, v)) {
			c->st->rss_records++;
			p->rss = (int64_t)(v[0] + v[1] + v[2]);
			p->rss_known = true;
		}
		return 0;
	case MT_EV_TASK_EXIT:
		rc = thread_gone(c, tid, ev->v[MT_F_TIME]);
		if (rc == 0 && ev->v[MT_F_EXIT_KIND] == MT_TASK_PROCESS)
			rc = process_gone(c, pid, ev->v[MT_F_TIME]);
		return rc;
	case MT_EV_TASK_EXEC:
		return process_gone(c, pid, ev->v[MT_F_TIME]);
	default:
		return 0;
	}
}

static int on_finish(void *ctx, int status)
{
	struct ctx *c = ctx;
	int rc = status < 0 ? status : pump(c, UINT64_MAX);

	for (size_t i = 0; i < c->n; i++) {
		const struct span *s = &c->v[i];

		if (!s->used)
			continue;
		if (s->begun)
			c->st->open_at_end++; /* not summed: its allocation events neither */
		c->st->allocs_unattributed += s->alloc_events;
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		free(c->procs[i].labels);
		free(c->procs[i].open);
	}
	free(c->pool.v);
	free(c->procs);
	mt_map64_release(&c->pix);
	mt_map64_release(&c->ix);
	mt_map64_release(&c->top);
	mt_own_release(&c->own);
	free(c->v);
	free(c->freed);
	free(c->queue);
	free(c->scratch);
	free(c);
	return rc;
}

int mt_spans_pass(struct mt_reader *r, struct mt_appev *a, struct mt_span_rows *rows,
		  struct mt_pass *pass)
{
	const struct mt_file_info *fi = mt_reader_file(r);
	struct ctx *c = calloc(1, sizeof(*c));

	*pass = (struct mt_pass){ .name = "spans" };
	if (!c)
		return -ENOMEM;
	*c = (struct ctx){ .r = r, .a = a, .st = &a->trace, .rows = rows };
	memset(&a->trace, 0, sizeof(a->trace));
	a->from_trace = true;
	for (unsigned i = 0; i < a->nstypes; i++)
		free(a->stype_names[i]);
	a->stype_names[0] = strdup("heap");
	a->stype_names[1] = strdup("other");
	a->stype_names[2] = strdup("unresolved");
	a->nstypes = 3;
	c->realtime_off = (int64_t)(fi->realtime_ns - fi->monotonic_ns);
	mt_map64_init(&c->ix);
	mt_map64_init(&c->top);
	mt_map64_init(&c->pix);
	mt_own_init(&c->own, r);
	*pass = (struct mt_pass){
		.name = "spans",
		.types = 1ull << MT_EV_APP | 1ull << MT_EV_ALLOC | 1ull << MT_EV_FAULT |
			 1ull << MT_EV_ACCESS | 1ull << MT_EV_RSS | 1ull << MT_EV_TASK_EXIT |
			 1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_LABEL | MT_OWN_EVENTS,
		.ctx = c,
		.event = on_event,
		.finish = on_finish,
	};
	return 0;
}

int mt_spans_run(struct mt_reader *r, struct mt_appev *a)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_spans_pass(r, a, NULL, &p), &p);
}

void mt_span_rows_release(struct mt_span_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++) {
		free(rows->v[i].name);
		free(rows->v[i].fields);
	}
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
