/* SPDX-License-Identifier: MIT */
/*
 * --alloc=sites: a process's allocation rows folded into windows of per-site counts
 * (MT_EV_ALLOC_SITE) and heap figures (MT_EV_HEAP_WINDOW) instead of written one by one.
 *
 * The fold keeps what the rows say and the trace then lacks: each live block's key (stack,
 * function, size class) and size, so that a free counts under the allocation it releases,
 * and the process's live heap after every row, so that its peak is exact in the fold's
 * order. Threads hand their rows over in buffers, up to a few seconds late: the rows wait in
 * a reorder stage (record/alloc-reorder.c) until REORDER_NS of event time has passed, then
 * are folded in time order; a row later than that is folded as it comes (counted).
 *
 * Under --max-size (mt_ac_sites_budget) every row is written and the fold only follows the
 * heap (its blocks marked KEY_ROW) until the budget's fold time; from then on it folds the
 * rows of blocks below the size kept exact, while the larger blocks' rows, and every row of
 * a block allocated before (its free, its realloc), are still written: their lifetimes stay
 * exact, and the windows' heap figures cover the whole heap.
 */
#include "record/alloc-sites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "format/block.h"
#include "format/writer.h"
#include "record/addr-table.h"
#include "record/alloc-reorder.h"
#include "record/alloc-internal.h"
#include "record/alloc.h"
#include "record/session.h"

struct site_key {
	uint64_t stack;
	uint32_t kind, cls;
	/* this window's counts */
	uint64_t calls, bytes, slack, frees, freed;
	bool touched;
};

/* A live block's value: key << 40 | requested size; a size of SIZE_BIG or more is in big. */
#define SIZE_BITS 40
#define SIZE_BIG ((1ull << SIZE_BITS) - 1)
#define KEYS_MAX ((1u << 24) - 1)
#define KEY_ROW KEYS_MAX /* a live block whose rows are written (--max-size): no key */
#define KEY_CACHE_MAX (1u << 22) /* stack ids with a direct slot (ids are dense from 1) */
#define PREFETCH_AHEAD 8

struct mt_ac_sites {
	struct site_key *keys;
	size_t nkeys, keys_cap;
	struct mt_map64 key_of; /* (stack, kind, class) hashed -> key index + 1 */
	uint32_t *key_by_stack; /* stack id -> the last key index + 1 it had (a cache) */
	size_t kbs_cap;
	uint32_t *touched; /* keys counted in this window */
	size_t ntouched, touched_cap;
	struct mt_addr_table live; /* address -> key << 40 | size */
	struct mt_map64 big; /* address -> size of live blocks of SIZE_BIG bytes or more */
	struct mt_map64 displaced; /* address -> value of a block allocated over (live's) */
	/* address -> when the live block there was allocated, while a displaced one's free is
	 * pending: a free before that time is the displaced block's, one after it the live's */
	struct mt_map64 taken_at;
	struct mt_map64 dbig; /* address -> size of such a block of SIZE_BIG bytes or more */
	uint64_t live_bytes, live_blocks;
	/* the window */
	bool open;
	uint64_t since, last, peak, peak_ns, calls, frees, untracked, reordered, events;
	uint64_t written; /* the time of the last window written */
	struct mt_reorder ro; /* rows waiting to be folded in time order */
	/* --max-size: the rows to write (mt_ac_sites_budget), the fold time and kept size */
	bool budget;
	struct mt_block out_rows;
	struct mt_block out_site, out_heap;
};

static unsigned size_class(uint64_t size)
{
	return size ? 64u - (unsigned)__builtin_clzll(size) : 0;
}

static struct site_key *touch(struct mt_ac_sites *f, uint32_t k)
{
	struct site_key *sk = &f->keys[k];

	if (!sk->touched) {
		if (mt_grow_array(&f->touched, &f->touched_cap, f->ntouched + 1,
				  sizeof(*f->touched)) < 0)
			return NULL;
		f->touched[f->ntouched++] = k;
		sk->touched = true;
	}
	return sk;
}

struct key_want {
	const struct mt_ac_sites *f;
	uint64_t stack;
	unsigned kind, cls;
};

static bool key_same(const void *ctx, uint64_t v)
{
	const struct key_want *w = ctx;
	const struct site_key *k = &w->f->keys[v - 1];

	return k->stack == w->stack && k->kind == w->kind && k->cls == w->cls;
}

static int key_find(struct mt_ac_sites *f, uint64_t stack, unsigned kind, unsigned cls, uint32_t *k)
{
	/* stack ids are below 2^40 (MT_F_ALLOC_STACK's range the reader accepts), kind below 16,
	 * class below 65: one 64-bit hash key, the entry's own fields telling collisions */
	struct key_want w = { f, stack, kind, cls };
	uint64_t *v, h;

	if (mt_map64_put_by(&f->key_of, stack << 12 | (uint64_t)kind << 7 | cls, key_same, &w, &v,
			    &h) < 0)
		return -ENOMEM;
	if (*v) {
		*k = (uint32_t)(*v - 1);
		return 0;
	}
	if (f->nkeys >= KEYS_MAX ||
	    mt_grow_array(&f->keys, &f->keys_cap, f->nkeys + 1, sizeof(*f->keys)) < 0) {
		mt_map64_del(&f->key_of, h);
		return -ENOMEM;
	}
	f->keys[f->nkeys] = (struct site_key){ .stack = stack, .kind = kind, .cls = cls };
	*v = f->nkeys + 1;
	*k = (uint32_t)f->nkeys++;
	return 0;
}

/* The key of (stack, kind, class): most calls repeat their stack's last one. */
static int key_get(struct mt_ac_sites *f, uint64_t stack, unsigned kind, unsigned cls, uint32_t *k)
{
	uint32_t *slot = NULL;

	if (stack < KEY_CACHE_MAX) {
		size_t had = f->kbs_cap;

		if (stack >= f->kbs_cap) {
			if (mt_grow_array(&f->key_by_stack, &f->kbs_cap, (size_t)stack + 1,
					  sizeof(*f->key_by_stack)) < 0)
				return -ENOMEM;
			memset(f->key_by_stack + had, 0,
			       (f->kbs_cap - had) * sizeof(*f->key_by_stack));
		}
		slot = &f->key_by_stack[stack];
		if (*slot && f->keys[*slot - 1].kind == kind && f->keys[*slot - 1].cls == cls) {
			*k = *slot - 1;
			return 0;
		}
	}
	if (key_find(f, stack, kind, cls, k) < 0)
		return -ENOMEM;
	if (slot)
		*slot = *k + 1;
	return 0;
}

static void out_row(struct mt_session *s, struct conn *c, struct mt_block *b, unsigned type,
		    const uint64_t *row)
{
	if (!b->cap && mt_block_init(b, type, 4096) < 0)
		return;
	if (b->count == b->cap)
		mt_writer_block(s->w, c->stream, b);
	if (b->count < b->cap)
		mt_block_add(b, row);
}

/* The window's rows into the trace's blocks; the next window starts empty. */
static void window_close(struct mt_session *s, struct conn *c)
{
	struct mt_ac_sites *f = c->sites;
	uint64_t row[MT_MAX_FIELDS];

	if (!f->open)
		return;
	memset(row, 0, sizeof(row));
	/* The windows' times never step back: a window holds rows of a thread drained late,
	 * earlier than the last window's, and its live heap is the fold's newest all the same
	 * (the analysis takes the last window's by time). */
	row[MT_F_TIME] = f->last > f->written ? f->last : f->written;
	f->written = row[MT_F_TIME];
	row[MT_F_PID] = (uint64_t)c->pid;
	row[MT_F_ASITE_SINCE] = f->since;
	for (size_t i = 0; i < f->ntouched; i++) {
		struct site_key *sk = &f->keys[f->touched[i]];

		row[MT_F_ASITE_STACK] = sk->stack;
		row[MT_F_ASITE_KIND] = sk->kind;
		row[MT_F_ASITE_SIZE_CLASS] = sk->cls;
		row[MT_F_ASITE_CALLS] = sk->calls;
		row[MT_F_ASITE_BYTES] = sk->bytes;
		row[MT_F_ASITE_SLACK] = sk->slack;
		row[MT_F_ASITE_FREES] = sk->frees;
		row[MT_F_ASITE_FREED_BYTES] = sk->freed;
		out_row(s, c, &f->out_site, MT_EV_ALLOC_SITE, row);
		sk->calls = sk->bytes = sk->slack = sk->frees = sk->freed = 0;
		sk->touched = false;
	}
	f->ntouched = 0;
	memset(row + MT_F_COMMON_MAX, 0, sizeof(row) - MT_F_COMMON_MAX * sizeof(row[0]));
	row[MT_F_HWIN_SINCE] = f->since;
	row[MT_F_HWIN_LIVE_BYTES] = f->live_bytes;
	row[MT_F_HWIN_LIVE_BLOCKS] = f->live_blocks;
	row[MT_F_HWIN_PEAK_BYTES] = f->peak;
	row[MT_F_HWIN_PEAK_NS] = f->peak_ns;
	row[MT_F_HWIN_CALLS] = f->calls;
	row[MT_F_HWIN_FREES] = f->frees;
	row[MT_F_HWIN_UNTRACKED] = f->untracked;
	row[MT_F_HWIN_REORDERED] = f->reordered;
	row[MT_F_HWIN_EVENTS] = f->events;
	out_row(s, c, &f->out_heap, MT_EV_HEAP_WINDOW, row);
	f->open = false;
}

/* A block's value (its size's big entry in big) onto its key's frees. */
static void count_free(struct mt_ac_sites *f, struct mt_map64 *big, uint64_t addr, uint64_t val)
{
	uint64_t size = val & SIZE_BIG;
	struct site_key *sk;

	if (size == SIZE_BIG) {
		uint64_t *b = mt_map64_get(big, addr);

		size = b ? *b : SIZE_BIG;
		mt_map64_del(big, addr);
	}
	if ((val >> SIZE_BITS) == KEY_ROW)
		return;
	sk = touch(f, (uint32_t)(val >> SIZE_BITS));
	if (sk) {
		sk->frees++;
		sk->freed += size;
	}
}

static uint64_t val_size(struct mt_ac_sites *f, uint64_t addr, uint64_t val)
{
	uint64_t *b;

	if ((val & SIZE_BIG) != SIZE_BIG)
		return val & SIZE_BIG;
	b = mt_map64_get(&f->big, addr);
	return b ? *b : SIZE_BIG;
}

enum released { REL_NONE, REL_FOLDED, REL_ROW };

static enum released rel_of(uint64_t val)
{
	return (val >> SIZE_BITS) == KEY_ROW ? REL_ROW : REL_FOLDED;
}

/* Releases the block at addr, freed at time t: REL_NONE when the recorder never saw it
 * allocated, else whether its rows were folded or written. */
/* The block a release of addr at time t is: the displaced one (*dv set) or the live one at
 * slot *i (SIZE_MAX: none). A release after another allocation took the address (another
 * thread's, folded first) that happened before that allocation is the old block's, already
 * off the live heap; one after it is the live block's. */
static void locate(struct mt_ac_sites *f, uint64_t addr, uint64_t t, size_t *i, uint64_t **dv)
{
	uint64_t *at;

	*i = mt_addr_find(&f->live, addr);
	*dv = f->displaced.len ? mt_map64_get(&f->displaced, addr) : NULL;
	if (*dv && *i != SIZE_MAX && (at = mt_map64_get(&f->taken_at, addr)) && t >= *at)
		*dv = NULL;
}

static enum released release(struct mt_ac_sites *f, uint64_t addr, uint64_t t)
{
	uint64_t *dv;
	enum released rel;
	size_t i;

	locate(f, addr, t, &i, &dv);
	if (dv) {
		uint64_t val = *dv;

		mt_map64_del(&f->displaced, addr);
		mt_map64_del(&f->taken_at, addr);
		if (rel_of(val) == REL_FOLDED)
			f->reordered++;
		count_free(f, &f->dbig, addr, val);
		return rel_of(val);
	}
	if (i == SIZE_MAX)
		return REL_NONE;
	f->live_bytes -= val_size(f, addr, f->live.v[i].val);
	f->live_blocks--;
	rel = rel_of(f->live.v[i].val);
	count_free(f, &f->big, addr, f->live.v[i].val);
	mt_addr_del_at(&f->live, i);
	return rel;
}

/* A block onto the live heap; counted under its key, or, for a block whose rows are written
 * (row), only followed. */
static int allocate(struct mt_ac_sites *f, uint64_t addr, uint64_t size, uint64_t usable,
		    uint64_t stack, unsigned kind, uint64_t t, bool row)
{
	uint32_t k = KEY_ROW;
	uint64_t *v, *bv;
	struct site_key *sk;
	bool fresh;

	if (!row) {
		if (key_get(f, stack, kind, size_class(size), &k) < 0 || !(sk = touch(f, k)))
			return -ENOMEM;
		sk->calls++;
		sk->bytes += size;
		sk->slack += usable > size ? usable - size : 0;
		f->calls++;
	}
	if (!(v = mt_addr_put(&f->live, addr, &fresh)))
		return -ENOMEM;
	if (!fresh) {
		/* Allocated again while live: its free is in a buffer not folded yet. The
		 * old block leaves the heap now; its free is matched to it (release), a big
		 * one's size kept in dbig until then. A third allocation there before that
		 * free replaces it: the oldest then counts as live under its key (its free
		 * was lost; the full mode drops it from its site's live bytes instead). */
		uint64_t *dv, old = val_size(f, addr, *v);

		f->live_bytes -= old;
		f->live_blocks--;
		if (mt_map64_put(&f->displaced, addr, &dv) < 0)
			return -ENOMEM;
		*dv = *v; /* an older one that never got its free is replaced */
		if (old >= SIZE_BIG) {
			if (mt_map64_put(&f->dbig, addr, &dv) < 0)
				return -ENOMEM;
			*dv = old;
			mt_map64_del(&f->big, addr);
		}
	}
	if (f->displaced.len && mt_map64_get(&f->displaced, addr)) {
		uint64_t *at;

		if (mt_map64_put(&f->taken_at, addr, &at) < 0)
			return -ENOMEM;
		*at = t;
	}
	if (size >= SIZE_BIG) {
		if (mt_map64_put(&f->big, addr, &bv) < 0)
			return -ENOMEM;
		*bv = size;
		*v = (uint64_t)k << SIZE_BITS | SIZE_BIG;
	} else {
		*v = (uint64_t)k << SIZE_BITS | size;
	}
	f->live_bytes += size;
	f->live_blocks++;
	return 0;
}

/* The window that a row at time t goes into: the open one, or a new one. */
static void window_at(struct mt_session *s, struct conn *c, uint64_t t)
{
	struct mt_ac_sites *f = c->sites;

	if (f->open && t >= f->since + MT_SITES_WINDOW_NS)
		window_close(s, c);
	if (!f->open) {
		f->open = true;
		f->since = f->last = t;
		f->peak = f->live_bytes;
		f->peak_ns = t;
		f->calls = f->frees = f->untracked = f->reordered = f->events = 0;
	}
	if (t > f->last)
		f->last = t;
	if (t < f->since)
		f->since = t;
}

static void peak_at(struct mt_ac_sites *f, uint64_t t)
{
	if (f->live_bytes > f->peak) {
		f->peak = f->live_bytes;
		f->peak_ns = t;
	}
}

/* One allocation row (the columns of MT_EV_ALLOC) into the open window. */
static void fold_row(struct mt_session *s, struct conn *c, const struct mt_block *b, uint32_t i)
{
	struct mt_ac_sites *f = c->sites;
	uint64_t t = b->col[MT_F_TIME][i], addr = b->col[MT_F_ALLOC_ADDR][i];
	uint64_t old = b->col[MT_F_ALLOC_OLD][i];
	unsigned kind = (unsigned)b->col[MT_F_ALLOC_KIND][i];

	window_at(s, c, t);
	f->events++;
	if (kind == MT_ALLOC_FREE) {
		f->frees++;
		if (release(f, addr, t) == REL_NONE)
			f->untracked++;
		return;
	}
	if ((kind == MT_ALLOC_REALLOC || kind == MT_ALLOC_REALLOCARRAY) && old) {
		if (release(f, old, t) == REL_NONE)
			f->untracked++;
		if (!addr)
			f->frees++; /* realloc(p, 0) freed p */
	}
	if (addr && allocate(f, addr, b->col[MT_F_ALLOC_SIZE][i], b->col[MT_F_ALLOC_USABLE][i],
			     b->col[MT_F_ALLOC_STACK][i], kind, t, false) < 0)
		c->sites_lost++;
	peak_at(f, t);
}

/* How long rows wait for other threads' earlier ones: two flushes and a second (rows come
 * up to about two flush intervals late, measured on llama.cpp serving). */
static uint64_t reorder_ns(const struct mt_session *s)
{
	return 2 * s->o->flush_ns + 1000000000ull;
}

static int fold_init(struct mt_session *s, struct conn *c)
{
	if (c->sites)
		return 0;
	c->sites = calloc(1, sizeof(*c->sites));
	if (!c->sites)
		return -ENOMEM;
	mt_map64_init(&c->sites->key_of);
	mt_map64_init(&c->sites->big);
	mt_map64_init(&c->sites->dbig);
	mt_map64_init(&c->sites->displaced);
	mt_map64_init(&c->sites->taken_at);
	c->sites->budget = s->alloc->budget;
	return 0;
}

/* The release that a free or realloc of addr at time t would make (release(), unchanged). */
static enum released fate(struct mt_ac_sites *f, uint64_t addr, uint64_t t)
{
	uint64_t *dv;
	size_t i;

	locate(f, addr, t, &i, &dv);
	if (dv)
		return rel_of(*dv);
	return i == SIZE_MAX ? REL_NONE : rel_of(f->live.v[i].val);
}

/* --max-size: row i folded (false) or written (true). A free or realloc follows the block it
 * releases; a new block is folded, once the fold is on, when below the kept size. */
static bool budget_row(struct mt_session *s, struct conn *c, const struct mt_block *b, uint32_t i)
{
	struct mt_ac_sites *f = c->sites;
	uint64_t t = b->col[MT_F_TIME][i], addr = b->col[MT_F_ALLOC_ADDR][i];
	uint64_t old = b->col[MT_F_ALLOC_OLD][i], size = b->col[MT_F_ALLOC_SIZE][i];
	unsigned kind = (unsigned)b->col[MT_F_ALLOC_KIND][i];
	/* once the fold is on, every row that comes out of the reorder stage: a recorder that
	 * lags behind its rows does not write them all for having drained them late */
	bool after = s->alloc->fold_from != 0, fold;
	bool moves = (kind == MT_ALLOC_REALLOC || kind == MT_ALLOC_REALLOCARRAY) && old;

	if (kind == MT_ALLOC_FREE || moves)
		fold = fate(f, kind == MT_ALLOC_FREE ? addr : old, t) == REL_FOLDED;
	else
		fold = after && addr && size < s->alloc->keep_min;
	if (fold) {
		if (!s->alloc->fold_first || t < s->alloc->fold_first)
			s->alloc->fold_first = t;
		fold_row(s, c, b, i);
		return false;
	}
	if (after)
		window_at(s, c, t);
	if (kind == MT_ALLOC_FREE || moves)
		release(f, kind == MT_ALLOC_FREE ? addr : old, t);
	if (kind != MT_ALLOC_FREE && addr)
		(void)allocate(f, addr, size, b->col[MT_F_ALLOC_USABLE][i],
			       b->col[MT_F_ALLOC_STACK][i], kind, t,
			       true); /* no memory: untracked */
	if (after)
		peak_at(f, t);
	return true;
}

struct fold_ctx {
	struct mt_session *s;
	struct conn *c;
};

/* One row out of the reorder stage: folded, or (--max-size) kept to be written. */
static void fold_one(void *ctx, const struct mt_block *b, uint32_t i)
{
	struct fold_ctx *x = ctx;
	struct mt_ac_sites *f = x->c->sites;
	uint64_t row[MT_MAX_FIELDS];

	if (!f->budget) {
		fold_row(x->s, x->c, b, i);
		return;
	}
	if (!budget_row(x->s, x->c, b, i))
		return;
	for (unsigned k = 0; k < b->nfields; k++)
		row[k] = b->col[k][i];
	out_row(x->s, x->c, &f->out_rows, MT_EV_ALLOC, row);
}

/* The rows whose time has come, out of the reorder stage (all of them: until UINT64_MAX). */
static void fold_until(struct mt_session *s, struct conn *c, uint64_t until)
{
	struct fold_ctx x = { s, c };

	mt_reorder_release(&c->sites->ro, until, fold_one, &x);
}

int mt_ac_sites_fold(struct mt_session *s, struct conn *c, struct mt_block *b)
{
	struct mt_ac_sites *f;

	if (fold_init(s, c) < 0)
		return -ENOMEM;
	f = c->sites;
	if (mt_reorder_add(&f->ro, b) < 0) {
		/* no memory to hold them: folded as they are, after the rows held */
		struct fold_ctx x = { s, c };

		fold_until(s, c, UINT64_MAX);
		for (uint32_t i = 0; i < b->count; i++)
			fold_one(&x, b, i);
		f->ro.late += b->count;
	} else if (f->ro.newest > reorder_ns(s)) {
		fold_until(s, c, f->ro.newest - reorder_ns(s));
	}
	b->count = 0;
	return 0;
}

void mt_ac_sites_flush(struct mt_session *s, struct conn *c)
{
	struct mt_ac_sites *f = c->sites;

	if (!f)
		return;
	if (f->out_rows.count)
		mt_writer_block(s->w, c->stream, &f->out_rows);
	if (f->out_site.count)
		mt_writer_block(s->w, c->stream, &f->out_site);
	if (f->out_heap.count)
		mt_writer_block(s->w, c->stream, &f->out_heap);
}

void mt_ac_sites_drain(struct mt_session *s, struct conn *c)
{
	if (!c->sites)
		return;
	fold_until(s, c, UINT64_MAX);
	mt_ac_sites_flush(s, c);
}

void mt_ac_sites_close(struct mt_session *s, struct conn *c)
{
	struct mt_ac_sites *f = c->sites;

	if (!f)
		return;
	fold_until(s, c, UINT64_MAX);
	c->sites_late += f->ro.late;
	window_close(s, c);
	mt_ac_sites_flush(s, c);
	mt_block_release(&f->out_site);
	mt_block_release(&f->out_heap);
	mt_block_release(&f->out_rows);
	mt_reorder_free(&f->ro);
	mt_map64_release(&f->key_of);
	mt_addr_release(&f->live);
	mt_map64_release(&f->big);
	mt_map64_release(&f->displaced);
	mt_map64_release(&f->taken_at);
	mt_map64_release(&f->dbig);
	free(f->keys);
	free(f->key_by_stack);
	free(f->touched);
	free(f);
	c->sites = NULL;
}

void mt_alloc_drain_folds(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = 0; a && i < a->nconns; i++)
		mt_ac_sites_drain(s, &a->conns[i]);
}
