/* SPDX-License-Identifier: MIT */
/* The allocation pass: replays every allocation and free in time order. */
#include "common/array.h"
#include "alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/hash.h"
#include "analysis/pass.h"
#include "format/reader.h"

/* Buckets the sites' lifetime sketches may hold together: 32 MiB (analysis/sketch.h). */
#define LIFE_BUDGET_PAIRS (4u << 20)

struct block {
	uint64_t t;
	uint64_t size; /* when free: the next free block index */
	uint32_t site;
	uint32_t slack;
	uint64_t displaced_t; /* when another allocation took its address (see allocate) */
};

/* How late a displaced block's free may come and still be matched to it. */
#define DISPLACED_WINDOW_NS 50000000ull

struct stream_state {
	bool used, ended;
	uint32_t pid;
	size_t proc;
	struct mt_map64 live; /* addr -> block index */
	struct mt_map64 last; /* tid -> the thread's last allocated address (0: a free since) */
	/* heaptrack 1.4's test: the process's last allocation's (site, size), 0: a free since */
	uint64_t ht_site, ht_size;
	struct mt_map64 inherited; /* a fork child: the parent's live blocks at the fork */
	struct mt_map64 displaced; /* addr -> block index + 1 of a block awaiting its free */
	uint64_t rows_live; /* its share of the pass's live (rows; --max-size's fold apart) */
};

/* A forked process's copy of its parent's heap, until its first allocation event. */
struct pending_fork {
	uint32_t pid;
	struct mt_map64 blocks; /* address -> 1 */
};

struct pass {
	const struct mt_reader *r;
	struct mt_alloc_stats *st;
	struct stream_state *ss; /* compact: the trace's stream ids are any u32 */
	size_t nss, ss_cap;
	struct mt_map64 stream_ix; /* stream id -> index into ss */
	struct block *blocks;
	size_t nblocks, blocks_cap;
	uint64_t free_head; /* 0: none; else index + 1 */
	struct mt_map64 site_of; /* stream << 40 | stack -> site index */
	size_t sites_cap, procs_cap;
	uint64_t live, live_usable, live_blocks; /* over the streams still running */
	uint64_t gen; /* bumped at each new overall peak */
	struct pending_fork *forks;
	size_t nforks, forks_cap;
	struct mt_map64 by_pid; /* pid -> its running stream + 1 (lookups stay O(1) per event) */
	struct mt_map64 fork_of; /* pid -> index + 1 in forks */
	uint64_t inherited_budget; /* addresses left to copy at forks (memory bound) */
	bool peak_in_window; /* --max-size: the overall peak is a window's (no blocks then) */
	uint64_t first_window; /* --max-size: the earliest window's start */
};

static struct stream_state *stream_get(struct pass *p, uint32_t stream, uint32_t pid)
{
	struct mt_alloc_stats *st = p->st;
	struct stream_state *s;
	uint64_t *pv, *ix = mt_map64_get(&p->stream_ix, stream);
	size_t i;

	if (ix) {
		i = *ix;
	} else {
		if (mt_grow_array(&p->ss, &p->ss_cap, p->nss + 1, sizeof(*p->ss)) < 0 ||
		    mt_map64_put(&p->stream_ix, stream, &ix) < 0)
			return NULL;
		memset(&p->ss[p->nss], 0, sizeof(*p->ss));
		*ix = p->nss;
		i = p->nss++;
	}
	s = &p->ss[i];
	if (s->used)
		return s;
	if (mt_grow_array(&st->procs, &p->procs_cap, st->nprocs + 1, sizeof(*st->procs)) < 0)
		return NULL;
	memset(&st->procs[st->nprocs], 0, sizeof(st->procs[0]));
	st->procs[st->nprocs].stream = stream;
	st->procs[st->nprocs].pid = pid;
	s->proc = st->nprocs++;
	s->pid = pid;
	s->used = true;
	mt_map64_init(&s->live);
	mt_map64_init(&s->last);
	mt_map64_init(&s->inherited);
	mt_map64_init(&s->displaced);
	if (mt_map64_put(&p->by_pid, pid, &pv) < 0)
		return NULL;
	*pv = (uint64_t)i + 1;
	if ((pv = mt_map64_get(&p->fork_of, pid)) != NULL) {
		size_t f = *pv - 1;

		mt_map64_del(&p->fork_of, pid);
		s->inherited = p->forks[f].blocks;
		p->forks[f] = p->forks[--p->nforks];
		if (f < p->nforks && (pv = mt_map64_get(&p->fork_of, p->forks[f].pid)) != NULL)
			*pv = f + 1;
	}
	return s;
}

static struct mt_alloc_site *site_get(struct pass *p, uint32_t stream, uint32_t pid, uint64_t stack,
				      uint64_t t, uint32_t *idx)
{
	struct mt_alloc_stats *st = p->st;
	uint64_t *v, *cv, canon;

	if (stack >= (1ull << 40))
		stack = 0; /* not a stack id this format can hold: treat as none */
	if (mt_map64_put(&p->site_of, (uint64_t)stream << 40 | stack, &v) < 0)
		return NULL;
	if (*v) {
		*idx = (uint32_t)(*v - 1);
		return &st->sites[*idx];
	}
	if (mt_grow_array(&st->sites, &p->sites_cap, st->nsites + 1, sizeof(*st->sites)) < 0)
		return NULL;
	/* A stack seen before under another id (interned again by the runtime) is the same
	 * site: both ids name it. Only on the first sight of an id: the hot path is above. */
	canon = mt_reader_stack_canon(p->r, stream, stack);
	if (canon != stack && canon < (1ull << 40)) {
		if (mt_map64_put(&p->site_of, (uint64_t)stream << 40 | canon, &cv) < 0)
			return NULL;
		v = mt_map64_get(&p->site_of, (uint64_t)stream << 40 | stack); /* may have moved */
		if (*cv) {
			*v = *cv;
			*idx = (uint32_t)(*cv - 1);
			return &st->sites[*idx];
		}
		*cv = st->nsites + 1;
		stack = canon;
	}
	*idx = (uint32_t)st->nsites;
	*v = st->nsites + 1;
	memset(&st->sites[*idx], 0, sizeof(st->sites[0]));
	st->sites[*idx].stream = stream;
	st->sites[*idx].pid = pid;
	st->sites[*idx].stack = stack;
	st->sites[*idx].first_ns = t;
	st->nsites++;
	return &st->sites[*idx];
}

/* Before a site's live bytes change: keep their value at the last overall peak. */
static inline void site_touch(struct pass *p, struct mt_alloc_site *s)
{
	if (s->saved_epoch != p->gen) {
		s->saved_live = s->live_bytes;
		s->saved_epoch = p->gen;
	}
}

static int block_new(struct pass *p, uint64_t *idx)
{
	if (p->free_head) {
		*idx = p->free_head - 1;
		p->free_head = p->blocks[*idx].size;
		return 0;
	}
	if (mt_grow_array(&p->blocks, &p->blocks_cap, p->nblocks + 1, sizeof(*p->blocks)) < 0)
		return -ENOMEM;
	*idx = p->nblocks++;
	return 0;
}

static void block_put(struct pass *p, uint64_t idx)
{
	p->blocks[idx].size = p->free_head;
	p->free_head = idx + 1;
}

/* A block leaves the heap: off its site's, its process's and the running totals. */
static void unlive(struct pass *p, struct stream_state *s, const struct block *b)
{
	struct mt_alloc_site *site = &p->st->sites[b->site];
	struct mt_alloc_proc *pr = &p->st->procs[s->proc];

	if (s->ended) {
		/* An event after its process's end (clock skew between collectors): the
		 * block was counted as leaked. */
		site->leaked_bytes -= b->size;
		site->leaked_blocks--;
	} else {
		site_touch(p, site);
		site->live_bytes -= b->size;
		site->live_blocks--;
		p->live -= b->size;
		p->live_usable -= b->size + b->slack;
		p->live_blocks--;
		s->rows_live -= b->size;
	}
	pr->live_bytes -= b->size;
	pr->live_blocks--;
}

/* A freed block's lifetime, into its site's sketch and the overall one. Every free counts:
 * when the sites' sketches outgrow their budget, all of them lose resolution together. */
static void lifetime(struct pass *p, struct mt_alloc_site *site, uint64_t from, uint64_t to)
{
	struct mt_alloc_stats *st = p->st;

	if (to < from)
		return;
	if (mt_sketch_add(&st->life_family, &site->life, to - from) < 0)
		st->life_lost++;
	if (mt_sketch_over(&st->life_family)) {
		for (size_t i = 0; i < st->nsites; i++)
			mt_sketch_collapse(&st->life_family, &st->sites[i].life);
		mt_sketch_collapsed(&st->life_family);
	}
	if (mt_sketch_add(&st->life_overall, &st->life, to - from) < 0)
		st->life_lost++;
}

/* Releases addr in stream s at time t (a free, or the old block of a realloc). */
static void release(struct pass *p, struct stream_state *s, uint64_t addr, uint64_t tid, uint64_t t)
{
	struct mt_alloc_stats *st = p->st;
	struct mt_alloc_proc *pr = &st->procs[s->proc];
	uint64_t *v = mt_map64_get(&s->live, addr), *last, *dv, idx;
	struct block *b;
	struct mt_alloc_site *site;
	bool temporary;

	last = mt_map64_get(&s->last, tid);
	temporary = last && *last == addr;
	if (last)
		*last = 0;
	if ((dv = mt_map64_get(&s->displaced, addr)) != NULL) {
		/* The free of a block whose address was allocated again before this free shows
		 * in time order: it did happen first (an allocator cannot hand out a live
		 * block), its time is an estimate that came out late. */
		idx = *dv - 1;
		b = &p->blocks[idx];
		mt_map64_del(&s->displaced, addr);
		if (t - b->displaced_t <= DISPLACED_WINDOW_NS || t < b->displaced_t) {
			site = &st->sites[b->site];
			site->frees++;
			st->reordered_frees++;
			lifetime(p, site, b->t, t);
			block_put(p, idx);
			return;
		}
		block_put(p, idx);
	}
	if (!v) {
		if (mt_map64_del(&s->inherited, addr)) {
			/* A block of the parent's heap that the fork copied. */
			pr->inherited_frees++;
			st->inherited_frees++;
			return;
		}
		pr->untracked_frees++;
		st->untracked_frees++;
		return;
	}
	idx = *v - 1;
	mt_map64_del(&s->live, addr);
	b = &p->blocks[idx];
	if (s->ht_site == (uint64_t)b->site + 1 && s->ht_size == b->size)
		st->temporary_heaptrack++;
	s->ht_site = 0;
	site = &st->sites[b->site];
	unlive(p, s, b);
	site->frees++;
	if (temporary) {
		site->temporary++;
		pr->temporary++;
		st->temporary++;
	}
	lifetime(p, site, b->t, t);
	block_put(p, idx);
}

static int allocate(struct pass *p, struct stream_state *s, const struct mt_event *ev)
{
	struct mt_alloc_stats *st = p->st;
	struct mt_alloc_proc *pr = &st->procs[s->proc];
	uint64_t addr = ev->v[MT_F_ALLOC_ADDR], size = ev->v[MT_F_ALLOC_SIZE];
	uint64_t usable = ev->v[MT_F_ALLOC_USABLE], t = ev->v[MT_F_TIME], *v, idx;
	uint64_t slack = usable > size ? usable - size : 0;
	struct mt_alloc_site *site;
	uint32_t si;
	unsigned kind = (unsigned)ev->v[MT_F_ALLOC_KIND];

	site = site_get(p, ev->stream, s->pid, ev->v[MT_F_ALLOC_STACK], t, &si);
	if (!site)
		return -ENOMEM;
	st->calls++;
	st->by_kind[kind]++;
	st->bytes += size;
	st->slack += slack;
	st->size_hist[size ? 64 - __builtin_clzll(size) : 0]++;
	pr->calls++;
	pr->bytes += size;
	pr->slack += slack;
	site->calls++;
	site->bytes += size;
	site->slack += slack;
	if (mt_map64_put(&s->live, addr, &v) < 0)
		return -ENOMEM;
	if (*v) {
		/*
		 * Allocated again while live. Either the free of the old block comes later in
		 * time order (another thread freed it; event times of busy threads are
		 * interpolated, so two threads' events can swap), or it went through a path
		 * the runtime does not see. The old block is gone either way: off the live
		 * totals now; its free, if it comes soon, is matched to it (release()).
		 */
		uint64_t *dv, oidx = *v - 1;
		struct block *ob = &p->blocks[oidx];

		unlive(p, s, ob);
		ob->displaced_t = t;
		if (mt_map64_put(&s->displaced, addr, &dv) < 0)
			return -ENOMEM;
		if (*dv)
			block_put(p, *dv - 1); /* an older one never got its free */
		*dv = oidx + 1;
	}
	if (block_new(p, &idx) < 0)
		return -ENOMEM;
	*v = idx + 1; /* no insertion since the put: v is still the slot */
	p->blocks[idx] =
		(struct block){ .t = t,
				.size = size,
				.site = si,
				.slack = slack > UINT32_MAX ? UINT32_MAX : (uint32_t)slack };
	site = &st->sites[si];
	if (s->ended) {
		site->leaked_bytes += size;
		site->leaked_blocks++;
	} else {
		site_touch(p, site);
		site->live_bytes += size;
		site->live_blocks++;
	}
	if (site->live_bytes > site->max_live_bytes)
		site->max_live_bytes = site->live_bytes;
	pr->live_bytes += size;
	pr->live_blocks++;
	if (!pr->folded && pr->live_bytes > pr->peak_bytes) { /* folded: the windows' peaks */
		pr->peak_bytes = pr->live_bytes;
		pr->peak_ns = t;
	}
	if (mt_map64_put(&s->last, ev->v[MT_F_TID], &v) < 0)
		return -ENOMEM;
	*v = addr;
	s->ht_site = (uint64_t)si + 1;
	s->ht_size = size;
	if (s->ended)
		return 0;
	p->live += size;
	p->live_usable += size + slack;
	p->live_blocks++;
	s->rows_live += size;
	if (st->folded && t >= st->folded_from_ns)
		return 0; /* from the fold on, the rows are not the whole heap (on_heap_window) */
	if (p->live > st->peak_bytes) {
		st->peak_bytes = p->live;
		st->peak_ns = t;
		st->peak_usable = p->live_usable;
		st->peak_blocks = p->live_blocks;
		p->gen++;
		p->peak_in_window = false;
	}
	return 0;
}

/* Live maps store block index + 1 (0 is a new, unset value). */
static int on_alloc(struct pass *p, const struct mt_event *ev)
{
	struct mt_alloc_stats *st = p->st;
	struct stream_state *s = stream_get(p, ev->stream, (uint32_t)ev->v[MT_F_PID]);
	unsigned kind = (unsigned)ev->v[MT_F_ALLOC_KIND];
	uint64_t addr = ev->v[MT_F_ALLOC_ADDR], old = ev->v[MT_F_ALLOC_OLD];
	uint64_t t = ev->v[MT_F_TIME], tid = ev->v[MT_F_TID], flags = ev->v[MT_F_ALLOC_FLAGS];
	struct mt_alloc_proc *pr;

	if (!s)
		return -ENOMEM;
	pr = &st->procs[s->proc];
	if (!pr->first_ns)
		pr->first_ns = t;
	pr->last_row_ns = t;
	st->events++;
	st->time_estimated += (flags & MT_ALLOC_F_TIME_EST) != 0;
	st->nested += (flags & MT_ALLOC_F_NESTED) != 0;
	st->truncated += (flags & MT_ALLOC_F_TRUNCATED) != 0;
	if (kind > MT_ALLOC_FREE)
		return 0; /* a kind from a newer format: not understood, not guessed at */
	if (kind != MT_ALLOC_FREE && addr && !ev->v[MT_F_ALLOC_STACK])
		st->no_frames++;
	if (kind == MT_ALLOC_FREE) {
		if (!addr)
			return 0; /* free(NULL): the runtime does not record it; a no-op anyway */
		st->frees++;
		st->by_kind[MT_ALLOC_FREE]++;
		pr->frees++;
		release(p, s, addr, tid, t);
		return 0;
	}
	if ((kind == MT_ALLOC_REALLOC || kind == MT_ALLOC_REALLOCARRAY) && old) {
		release(p, s, old, tid, t);
		if (!addr) {
			/* realloc(p, 0) freed p and returned NULL. */
			st->frees++;
			pr->frees++;
			return 0;
		}
	}
	if (!addr)
		return 0;
	return allocate(p, s, ev);
}

/* A process forked: its heap starts as a copy of the parent's current image. */
static int on_fork(struct pass *p, uint32_t pid, uint32_t ppid)
{
	struct stream_state *parent = NULL;
	struct pending_fork *f;

	uint64_t *pv = mt_map64_get(&p->by_pid, ppid);

	if (pv && *pv - 1 < p->nss && !p->ss[*pv - 1].ended)
		parent = &p->ss[*pv - 1];
	if (!parent || !parent->live.len || parent->live.len > p->inherited_budget)
		return 0;
	if (mt_map64_get(&p->fork_of, pid))
		return 0; /* the same pid forked twice before allocating: keep the first copy */
	if (mt_grow_array(&p->forks, &p->forks_cap, p->nforks + 1, sizeof(*p->forks)) < 0)
		return -ENOMEM;
	f = &p->forks[p->nforks];
	f->pid = pid;
	mt_map64_init(&f->blocks);
	for (size_t k = 0; k < parent->live.cap; k++) {
		uint64_t *v;

		if (parent->live.keys[k] == MT_MAP64_EMPTY)
			continue;
		if (mt_map64_put(&f->blocks, parent->live.keys[k], &v) < 0) {
			mt_map64_release(&f->blocks);
			return -ENOMEM;
		}
		*v = 1;
	}
	p->inherited_budget -= parent->live.len;
	if (mt_map64_put(&p->fork_of, pid, &pv) < 0) {
		mt_map64_release(&f->blocks);
		return -ENOMEM;
	}
	*pv = ++p->nforks;
	return 0;
}

/* What a stream still holds leaked: off the running totals, onto its sites' leaks. */
static void leak_stream(struct pass *p, struct stream_state *s)
{
	struct mt_alloc_stats *st = p->st;

	if (st->sites_mode)
		return; /* no blocks: every site's live counts leak at the finish, in one loop */

	for (size_t k = 0; k < s->live.cap; k++) {
		struct block *b;
		struct mt_alloc_site *site;

		if (s->live.keys[k] == MT_MAP64_EMPTY)
			continue;
		b = &p->blocks[s->live.vals[k] - 1];
		site = &st->sites[b->site];
		site_touch(p, site);
		site->live_bytes -= b->size;
		site->live_blocks--;
		site->leaked_bytes += b->size;
		site->leaked_blocks++;
		p->live -= b->size;
		p->live_usable -= b->size + b->slack;
		p->live_blocks--;
	}
	s->rows_live = 0;
}

/* A process exited or exec'd: its heap is gone; what is still live leaked. */
static void end_streams(struct pass *p, uint32_t pid)
{
	uint64_t *v = mt_map64_get(&p->by_pid, pid);
	struct stream_state *s;
	struct mt_alloc_proc *pr;

	if (!v || *v - 1 >= p->nss)
		return;
	s = &p->ss[*v - 1];
	mt_map64_del(&p->by_pid, pid);
	if (!s->used || s->ended)
		return;
	pr = &p->st->procs[s->proc];
	s->ended = true;
	pr->ended = true;
	leak_stream(p, s);
}

/* --alloc=sites: one site key's window onto its site and the totals. */
static int on_alloc_site(struct pass *p, const struct mt_event *ev)
{
	struct mt_alloc_stats *st = p->st;
	const uint64_t *v = ev->v;
	struct stream_state *s = stream_get(p, ev->stream, (uint32_t)v[MT_F_PID]);
	unsigned kind = (unsigned)v[MT_F_ASITE_KIND], cls = (unsigned)v[MT_F_ASITE_SIZE_CLASS];
	uint64_t calls = v[MT_F_ASITE_CALLS], bytes = v[MT_F_ASITE_BYTES];
	uint64_t frees = v[MT_F_ASITE_FREES], freed = v[MT_F_ASITE_FREED_BYTES];
	struct mt_alloc_proc *pr;
	struct mt_alloc_site *site;
	uint32_t si;

	if (!s)
		return -ENOMEM;
	if (kind >= MT_ALLOC_FREE || cls > 64)
		return 0; /* from a newer format: not understood, not guessed at */
	pr = &st->procs[s->proc];
	if (!pr->first_ns || v[MT_F_ASITE_SINCE] < pr->first_ns)
		pr->first_ns = v[MT_F_ASITE_SINCE];
	site = site_get(p, ev->stream, s->pid, v[MT_F_ASITE_STACK], v[MT_F_ASITE_SINCE], &si);
	if (!site)
		return -ENOMEM;
	if (st->folded) {
		site_touch(p, site);
		site->folded_calls += calls;
		st->folded_calls += calls;
	}
	site->calls += calls;
	site->bytes += bytes;
	site->slack += v[MT_F_ASITE_SLACK];
	site->frees += frees;
	/* calls - frees of a key is what is live: an order of windows that puts frees first
	 * wraps and comes back (unsigned) */
	if (s->ended) {
		site->leaked_bytes += bytes - freed;
		site->leaked_blocks += calls - frees;
	} else {
		site->live_bytes += bytes - freed;
		site->live_blocks += calls - frees;
	}
	st->calls += calls;
	st->by_kind[kind] += calls;
	st->bytes += bytes;
	st->slack += v[MT_F_ASITE_SLACK];
	st->size_hist[cls] += calls;
	if (!v[MT_F_ASITE_STACK])
		st->no_frames += calls;
	pr->bytes += bytes;
	pr->slack += v[MT_F_ASITE_SLACK];
	return 0;
}

/* --alloc=sites: one process's heap over a window. */
static int on_heap_window(struct pass *p, const struct mt_event *ev)
{
	struct mt_alloc_stats *st = p->st;
	const uint64_t *v = ev->v;
	struct stream_state *s = stream_get(p, ev->stream, (uint32_t)v[MT_F_PID]);
	struct mt_alloc_proc *pr;

	if (!s)
		return -ENOMEM;
	pr = &st->procs[s->proc];
	if (!pr->first_ns || v[MT_F_HWIN_SINCE] < pr->first_ns)
		pr->first_ns = v[MT_F_HWIN_SINCE];
	pr->calls += v[MT_F_HWIN_CALLS];
	pr->frees += v[MT_F_HWIN_FREES];
	pr->untracked_frees += v[MT_F_HWIN_UNTRACKED];
	st->frees += v[MT_F_HWIN_FREES];
	st->untracked_frees += v[MT_F_HWIN_UNTRACKED];
	st->reordered_frees += v[MT_F_HWIN_REORDERED];
	st->events += v[MT_F_HWIN_EVENTS];
	if (v[MT_F_HWIN_PEAK_BYTES] > pr->peak_bytes) {
		pr->peak_bytes = v[MT_F_HWIN_PEAK_BYTES];
		pr->peak_ns = v[MT_F_HWIN_PEAK_NS];
	}
	if (st->folded && (!p->first_window || v[MT_F_HWIN_SINCE] < p->first_window))
		p->first_window = v[MT_F_HWIN_SINCE];
	if (st->folded && !s->ended) {
		/* the window's heap is the whole process's; the others' are their rows' (known
		 * only when none of them allocates from the fold on: alloc_finish) */
		uint64_t at = v[MT_F_HWIN_PEAK_BYTES] + (p->live - s->rows_live);

		pr->folded = true;
		if (at > st->peak_bytes) {
			st->peak_bytes = at;
			st->peak_ns = v[MT_F_HWIN_PEAK_NS];
			p->peak_in_window = true;
		}
	}
	if (!s->ended) { /* after the end (clock skew): the end's figures stand */
		pr->live_bytes = v[MT_F_HWIN_LIVE_BYTES];
		pr->live_blocks = v[MT_F_HWIN_LIVE_BLOCKS];
	}
	return 0;
}

static int alloc_event(void *ctx, const struct mt_event *ev)
{
	struct pass *p = ctx;

	if (ev->type == MT_EV_ALLOC)
		return on_alloc(p, ev);
	if (ev->type == MT_EV_ALLOC_SITE)
		return on_alloc_site(p, ev);
	if (ev->type == MT_EV_HEAP_WINDOW)
		return on_heap_window(p, ev);
	if (ev->type == MT_EV_TASK_NEW) {
		if (ev->v[MT_F_NEW_KIND] == MT_TASK_PROCESS)
			return on_fork(p, (uint32_t)ev->v[MT_F_PID],
				       (uint32_t)ev->v[MT_F_NEW_PPID]);
	} else if (ev->type == MT_EV_TASK_EXEC ||
		   (ev->type == MT_EV_TASK_EXIT && ev->v[MT_F_EXIT_KIND] == MT_TASK_PROCESS)) {
		end_streams(p, (uint32_t)ev->v[MT_F_PID]);
	}
	return 0;
}

static void sites_leak_live(struct mt_alloc_stats *st) /* at the end: what is live leaked */
{
	for (size_t i = 0; i < st->nsites; i++) {
		st->sites[i].leaked_bytes += st->sites[i].live_bytes;
		st->sites[i].leaked_blocks += st->sites[i].live_blocks;
		st->sites[i].live_bytes = st->sites[i].live_blocks = 0;
	}
}

/* --alloc=sites at the end: what the sites still hold leaked (every image ended, or leaks
 * at the recording's end; a window after its image's end counted as leaked already). One
 * image's peak is the peak; several images' heaps add up at moments the windows do not pin
 * down. */
static void sites_finish(struct mt_alloc_stats *st)
{
	size_t n = 0;

	sites_leak_live(st);
	for (size_t i = 0; i < st->nprocs; i++) {
		if (!st->procs[i].calls)
			continue;
		n++;
		st->peak_bytes = st->procs[i].peak_bytes;
		st->peak_ns = st->procs[i].peak_ns;
	}
	st->peak_known = n <= 1;
	if (!st->peak_known)
		st->peak_bytes = st->peak_ns = 0;
}

/* --max-size at the end: the sites' folded calls still live leaked (the rows' in leak_stream);
 * the peak known when one image was folded and no other allocated from the fold on. */
static void folded_finish(struct mt_alloc_stats *st, const struct pass *p)
{
	size_t nfolded = 0, others_after = 0;

	if (st->folded_from_ns == UINT64_MAX)
		st->folded_from_ns = p->first_window;
	sites_leak_live(st);
	for (size_t i = 0; i < st->nprocs; i++) {
		if (st->procs[i].folded)
			nfolded++;
		else if (st->procs[i].last_row_ns >= st->folded_from_ns)
			others_after++;
	}
	st->peak_known = nfolded <= 1 && !others_after;
	st->site_peaks_known = st->peak_known && !p->peak_in_window;
	if (!st->peak_known)
		st->peak_bytes = st->peak_ns = 0;
	if (!st->site_peaks_known)
		st->peak_usable = st->peak_blocks = 0;
}

static int alloc_finish(void *ctx, int rc)
{
	struct pass *pp = ctx, p = *pp;
	struct mt_alloc_stats *st = p.st;

	free(pp);
	/* What is live at the end of the recording leaked too. */
	for (size_t i = 0; i < p.nss; i++)
		if (p.ss[i].used && !p.ss[i].ended)
			leak_stream(&p, &p.ss[i]);
	/* Sites' values at the overall peak. */
	for (size_t i = 0; i < st->nsites && !st->sites_mode; i++) {
		struct mt_alloc_site *s = &st->sites[i];

		s->peak_bytes = s->saved_epoch == p.gen ? s->saved_live : s->live_bytes;
	}
	if (st->sites_mode)
		sites_finish(st);
	else if (st->folded)
		folded_finish(st, &p);
	else
		st->peak_known = true;
	for (size_t i = 0; i < st->nprocs; i++) {
		st->leaked_bytes += st->procs[i].live_bytes;
		st->leaked_blocks += st->procs[i].live_blocks;
	}
	for (size_t i = 0; i < p.nss; i++) {
		if (!p.ss[i].used)
			continue;
		mt_map64_release(&p.ss[i].live);
		mt_map64_release(&p.ss[i].last);
		mt_map64_release(&p.ss[i].inherited);
		mt_map64_release(&p.ss[i].displaced);
	}
	for (size_t i = 0; i < p.nforks; i++)
		mt_map64_release(&p.forks[i].blocks);
	free(p.forks);
	mt_map64_release(&p.by_pid);
	mt_map64_release(&p.stream_ix);
	mt_map64_release(&p.fork_of);
	free(p.ss);
	free(p.blocks);
	mt_map64_release(&p.site_of);
	if (rc < 0) {
		mt_alloc_release(st);
		return rc;
	}
	return 0;
}

int mt_alloc_pass(struct mt_reader *r, struct mt_alloc_stats *st, struct mt_pass *pass)
{
	struct pass *p;
	bool windows, rows;

	memset(st, 0, sizeof(*st));
	mt_sketch_family_init(&st->life_overall, SIZE_MAX);
	mt_sketch_family_init(&st->life_family, LIFE_BUDGET_PAIRS);
	*pass = (struct mt_pass){ .name = "alloc" };
	windows = mt_reader_event_count(r, MT_EV_HEAP_WINDOW) > 0;
	rows = mt_reader_event_count(r, MT_EV_ALLOC) > 0;
	/* --alloc=sites: windows only; --max-size once folded: rows, then windows too */
	st->sites_mode = windows && !rows;
	st->folded = windows && rows;
	st->present = rows || windows;
	if (st->folded) {
		const struct mt_kvlist *kv = mt_reader_collector_named(r, "alloc");
		const char *from = kv ? mt_kvlist_get(kv, "fold_from_ns") : NULL;

		/* without it (a trace cut short: 0 at the start), the first window's start */
		st->folded_from_ns = from ? strtoull(from, NULL, 10) : 0;
		if (!st->folded_from_ns)
			st->folded_from_ns = UINT64_MAX;
	}
	if (!st->present)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct pass){ .r = r, .st = st, .inherited_budget = 16u << 20 };
	mt_map64_init(&p->site_of);
	mt_map64_init(&p->by_pid);
	mt_map64_init(&p->stream_ix);
	mt_map64_init(&p->fork_of);
	*pass = (struct mt_pass){ .name = "alloc",
				  .types = 1ull << MT_EV_ALLOC | 1ull << MT_EV_ALLOC_SITE |
					   1ull << MT_EV_HEAP_WINDOW | 1ull << MT_EV_TASK_EXIT |
					   1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_TASK_NEW,
				  .ctx = p,
				  .event = alloc_event,
				  .finish = alloc_finish };
	return 0;
}

int mt_alloc_analyze(struct mt_reader *r, struct mt_alloc_stats *st)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_alloc_pass(r, st, &p), &p);
}

void mt_alloc_release(struct mt_alloc_stats *st)
{
	for (size_t i = 0; i < st->nsites; i++)
		mt_sketch_release(&st->sites[i].life);
	free(st->sites);
	free(st->procs);
	mt_sketch_release(&st->life);
	memset(st, 0, sizeof(*st));
}
