/* SPDX-License-Identifier: MIT */
/* Time-ordered iteration: a k-way merge over the event blocks whose time ranges overlap. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "format/block.h"
#include "format/pwfault.h"
#include "format/reader-internal.h"
#include "format/schema.h"

/*
 * Every block is sorted by time, and every chunk header carries its block's time range.
 * Chunks are opened in order of t_min, and a chunk is opened only once the merge frontier
 * reaches its t_min, so memory holds just the blocks whose ranges overlap the frontier:
 * about one per producer, whatever the length of the trace.
 */
struct open_block {
	struct mt_block b;
	size_t chunk; /* index in file order: the tie-break that keeps ordering stable */
	uint32_t row;
	uint32_t stream;
};

/*
 * Events are handed out in batches. With opts.ahead a second thread decodes and merges into
 * a ring of NBATCH batches while the caller works on the previous ones; the decoded blocks
 * are larger than the caches, so reading their columns is what the merge waits on, and the
 * caller then reads the events from a batch just written, still in a nearby cache.
 */
#define BATCH 512
#define NBATCH 16

struct batch {
	uint32_t n;
	int rc; /* after the events: 0 more to come, 1 the end, < 0 an error */
	struct mt_event ev[BATCH];
};

struct mt_cursor {
	struct mt_reader *r;
	struct mt_cursor_opts o;
	size_t *order;
	size_t norder;
	size_t next;
	struct open_block **heap;
	size_t nheap;
	struct open_block **spare;
	size_t nspare;

	struct batch *batches; /* one, or NBATCH with the thread */
	struct batch *cur; /* being consumed; NULL: none yet */
	uint32_t pos; /* next event of cur */
	bool done; /* cur was the last */
	int err; /* after the last: 0 or -errno */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_uint filled; /* batches ready for the caller */
	unsigned head; /* the caller's next batch; the thread fills (head + filled) % NBATCH */
	atomic_bool stop; /* the caller is done: the thread ends */
	atomic_uint sleepers; /* threads waiting on cond */
	/* Faults get MT_F_FAULT_TRACKING from the page-write events, which the merge then reads
	 * too (pwfault.h); out_mask: the types the caller asked for. */
	struct mt_pwf *pwf;
	uint64_t out_mask;
};

/*
 * The caller spins a while before it sleeps when no batch is ready: a wake-up costs a trip
 * through the scheduler (in a VM, an interrupt to another CPU through the hypervisor), more
 * than a batch's worth of waiting. The thread, ahead when the ring is full, spins only
 * briefly: its spinning would take the CPU from the caller or from other threads (an
 * export's compressor). The sleeper counts itself in sleepers under the lock before it
 * checks again, and the other side changes the state before it reads sleepers (all
 * sequentially consistent), so no wake-up is missed.
 */
#define SPINS_CALLER 20000
#define SPINS_AHEAD 500

static bool can_fill(struct mt_cursor *c)
{
	return atomic_load(&c->filled) < NBATCH || atomic_load(&c->stop);
}

/* Once asleep, the thread waits for half the ring: one wake-up per NBATCH / 2 batches. */
static bool half_empty(struct mt_cursor *c)
{
	return atomic_load(&c->filled) <= NBATCH / 2 || atomic_load(&c->stop);
}

static bool can_take(struct mt_cursor *c)
{
	return atomic_load(&c->filled) > 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static void wait_until(struct mt_cursor *c, bool (*ready)(struct mt_cursor *), unsigned spins,
		       bool (*wake_when)(struct mt_cursor *))
{
	for (unsigned i = 0; i < spins; i++) {
		if (ready(c))
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&c->lock);
	atomic_fetch_add(&c->sleepers, 1);
	while (!wake_when(c))
		pthread_cond_wait(&c->cond, &c->lock);
	atomic_fetch_sub(&c->sleepers, 1);
	pthread_mutex_unlock(&c->lock);
}

static void wake(struct mt_cursor *c)
{
	if (atomic_load(&c->sleepers)) {
		pthread_mutex_lock(&c->lock);
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
	}
}

static int merge_next(struct mt_cursor *c, struct mt_event *ev);
static int copy_run(struct mt_cursor *c, struct batch *b);

/* The machine of pwfault.h over events in merge order: faults get their tracking bits. */
static void classify(struct mt_cursor *c, struct mt_event *ev, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		unsigned t = mt_pwf_event(c->pwf, ev[i].type, ev[i].v);

		if (ev[i].type == MT_EV_FAULT)
			ev[i].v[MT_F_FAULT_TRACKING] = t;
	}
}

enum mt_fault_tracking_basis mt_reader_fault_tracking(const struct mt_reader *r)
{
	if (!r->counts[MT_EV_PAGE_WRITE] && !r->counts[MT_EV_PW_RANGE] &&
	    !r->counts[MT_EV_PAGE_TRACK])
		return MT_FTB_NONE;
	return r->file.minor >= 4 ? MT_FTB_DERIVED : MT_FTB_UNKNOWN;
}

/* The machine runs when the caller wants faults of a trace whose tracking it can follow. */
static int setup_pwf(struct mt_cursor *c)
{
	uint64_t m = c->o.type_mask;

	if ((m && !(m & (1ull << MT_EV_FAULT))) || !c->r->counts[MT_EV_FAULT] ||
	    mt_reader_fault_tracking(c->r) != MT_FTB_DERIVED)
		return 0;
	c->pwf = mt_pwf_new();
	if (!c->pwf)
		return -ENOMEM;
	c->out_mask = m ? m : ~0ull;
	if (m)
		c->o.type_mask = m | MT_PWF_TYPES;
	return 0;
}

/* Fills a batch from the merge. */
static void fill(struct mt_cursor *c, struct batch *b)
{
	int rc = 1;

	b->n = 0;
	while (b->n < BATCH) {
		rc = copy_run(c, b);
		if (rc > 0) {
			rc = 1;
			continue;
		}
		if (rc == 0)
			rc = merge_next(c, &b->ev[b->n]);
		if (rc != 1)
			break;
		b->n++;
	}
	b->rc = rc == 1 ? 0 : rc == 0 ? 1 : rc;
}

static void *ahead(void *arg)
{
	struct mt_cursor *c = arg;
	unsigned tail = 0;

	for (;;) {
		struct batch *b;

		wait_until(c, can_fill, SPINS_AHEAD, half_empty);
		if (atomic_load(&c->stop))
			return NULL;
		b = &c->batches[tail];
		fill(c, b);
		tail = (tail + 1) % NBATCH;
		atomic_fetch_add(&c->filled, 1);
		wake(c);
		if (b->rc)
			return NULL;
	}
}

static int chunk_selected(const struct mt_cursor *c, const struct mt_chunk_ref *ch)
{
	if (ch->bad || !ch->h.count || !mt_type_desc(ch->h.subtype))
		return 0;
	if (!c->o.type_mask)
		return 1;
	return ch->h.subtype < 64 && (c->o.type_mask & (1ull << ch->h.subtype));
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct mt_chunk_ref *chunks = arg;
	const struct mt_chunk_ref *x = &chunks[*(const size_t *)a];
	const struct mt_chunk_ref *y = &chunks[*(const size_t *)b];

	if (x->h.t_min != y->h.t_min)
		return x->h.t_min < y->h.t_min ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

int mt_cursor_new(struct mt_reader *r, const struct mt_cursor_opts *opts, struct mt_cursor **ret)
{
	struct mt_cursor *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->r = r;
	if (opts)
		c->o = *opts;
	if (setup_pwf(c) < 0) {
		mt_cursor_free(c);
		return -ENOMEM;
	}
	c->order = malloc((r->nchunks + 1) * sizeof(*c->order));
	c->heap = malloc((r->nchunks + 1) * sizeof(*c->heap));
	c->spare = malloc((r->nchunks + 1) * sizeof(*c->spare));
	if (!c->order || !c->heap || !c->spare) {
		mt_cursor_free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nchunks; i++)
		if (chunk_selected(c, &r->chunks[i]))
			c->order[c->norder++] = i;
	qsort_r(c->order, c->norder, sizeof(*c->order), cmp_order, r->chunks);
	c->threaded = c->o.ahead && c->norder > 1;
	c->batches = malloc((c->threaded ? NBATCH : 1) * sizeof(*c->batches));
	if (!c->batches) {
		mt_cursor_free(c);
		return -ENOMEM;
	}
	if (c->threaded) {
		pthread_mutex_init(&c->lock, NULL);
		pthread_cond_init(&c->cond, NULL);
		if (pthread_create(&c->thread, NULL, ahead, c) != 0) {
			pthread_mutex_destroy(&c->lock);
			pthread_cond_destroy(&c->cond);
			c->threaded = false; /* the same events, one thread */
		}
	}
	*ret = c;
	return 0;
}

void mt_cursor_free(struct mt_cursor *c)
{
	if (!c)
		return;
	if (c->threaded) {
		atomic_store(&c->stop, true);
		wake(c);
		pthread_join(c->thread, NULL);
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->cond);
	}
	free(c->batches);
	for (size_t i = 0; c->heap && i < c->nheap; i++) {
		mt_block_release(&c->heap[i]->b);
		free(c->heap[i]);
	}
	for (size_t i = 0; c->spare && i < c->nspare; i++) {
		mt_block_release(&c->spare[i]->b);
		free(c->spare[i]);
	}
	free(c->order);
	free(c->heap);
	free(c->spare);
	mt_pwf_free(c->pwf);
	free(c);
}

static int before(const struct open_block *a, const struct open_block *b)
{
	uint64_t ta = a->b.col[MT_F_TIME][a->row], tb = b->b.col[MT_F_TIME][b->row];

	if (ta != tb)
		return ta < tb;
	if (a->chunk != b->chunk)
		return a->chunk < b->chunk;
	return a->row < b->row;
}

static void sift_down(struct mt_cursor *c, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct open_block *t;

		if (l < c->nheap && before(c->heap[l], c->heap[m]))
			m = l;
		if (l + 1 < c->nheap && before(c->heap[l + 1], c->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

static void sift_up(struct mt_cursor *c, size_t i)
{
	while (i && before(c->heap[i], c->heap[(i - 1) / 2])) {
		struct open_block *t = c->heap[i];

		c->heap[i] = c->heap[(i - 1) / 2];
		c->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Opens the next chunk in t_min order; returns 0 when it was corrupt and skipped. */
static int open_next(struct mt_cursor *c)
{
	size_t ci = c->order[c->next++];
	struct mt_chunk_ref *ch = &c->r->chunks[ci];
	struct open_block *ob;
	int rc;

	if (c->nspare) {
		ob = c->spare[--c->nspare];
	} else {
		ob = calloc(1, sizeof(*ob));
		if (!ob)
			return -ENOMEM;
	}
	rc = mt_reader_decode_chunk(c->r, ch, &ob->b);
	if (rc < 0) {
		c->spare[c->nspare++] = ob;
		if (rc == -MT_ERR_CORRUPT || rc == -MT_ERR_TRUNCATED || rc == -MT_ERR_LIMIT)
			return 0;
		return rc;
	}
	ob->chunk = ci;
	ob->row = 0;
	ob->stream = ch->h.stream;
	c->heap[c->nheap++] = ob;
	sift_up(c, c->nheap - 1);
	return 0;
}

/* Opens the chunks the merge frontier has reached. */
static int open_due(struct mt_cursor *c)
{
	while (c->next < c->norder &&
	       (!c->nheap || c->r->chunks[c->order[c->next]].h.t_min <=
				     c->heap[0]->b.col[MT_F_TIME][c->heap[0]->row])) {
		int rc = open_next(c);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * The common case, one block whose next events all come before any other open block's and
 * before the next chunk to open: copies that run into b column by column, without the heap.
 * Returns the events copied (0: take one event the slow way), or -errno.
 */
static int copy_run(struct mt_cursor *c, struct batch *b)
{
	struct open_block *top, *second = NULL;
	const struct mt_type_desc *d;
	const uint64_t *time;
	struct mt_event *ev;
	uint64_t bound = UINT64_MAX;
	bool ties = true; /* a row at time bound still comes first */
	uint32_t row, max, n;
	unsigned nf;
	int rc = open_due(c);

	if (rc < 0)
		return rc;
	if (c->o.by_pid || !c->nheap)
		return 0;
	top = c->heap[0];
	if (c->nheap > 1)
		second = c->heap[1];
	if (c->nheap > 2 && before(c->heap[2], c->heap[1]))
		second = c->heap[2];
	if (second) {
		bound = second->b.col[MT_F_TIME][second->row];
		ties = top->chunk < second->chunk;
	}
	if (c->next < c->norder && c->r->chunks[c->order[c->next]].h.t_min <= bound) {
		bound = c->r->chunks[c->order[c->next]].h.t_min; /* opened before a row at it */
		ties = false;
	}
	time = top->b.col[MT_F_TIME];
	row = top->row;
	max = top->b.count - row;
	if (max > BATCH - b->n)
		max = BATCH - b->n;
	for (n = 0; n < max && (time[row + n] < bound || (ties && time[row + n] == bound)); n++)
		;
	if (n < 2)
		return 0;
	d = mt_type_desc(top->b.type);
	nf = d ? d->nfields : MT_MAX_FIELDS;
	ev = &b->ev[b->n];
	for (uint32_t i = 0; i < n; i++) {
		ev[i].type = top->b.type;
		ev[i].stream = top->stream;
		ev[i].desc = d;
	}
	for (unsigned f = 0; f < top->b.nfields; f++) {
		const uint64_t *col = top->b.col[f] + row;

		for (uint32_t i = 0; i < n; i++)
			ev[i].v[f] = col[i];
	}
	for (unsigned f = top->b.nfields; f < nf; f++) /* fields the block lacks read as 0 */
		for (uint32_t i = 0; i < n; i++)
			ev[i].v[f] = 0;
	if (c->pwf)
		classify(c, ev, n);
	if (!c->pwf || ((c->out_mask >> top->b.type) & 1))
		b->n += n;
	top->row += n;
	if (top->row == top->b.count) {
		c->spare[c->nspare++] = top;
		c->heap[0] = c->heap[--c->nheap];
	}
	if (c->nheap)
		sift_down(c, 0);
	return (int)n;
}

static int merge_next(struct mt_cursor *c, struct mt_event *ev)
{
	for (;;) {
		struct open_block *top;
		int rc = open_due(c);

		if (rc < 0)
			return rc;
		if (!c->nheap)
			return 0;
		top = c->heap[0];
		if (c->pwf || !c->o.by_pid || top->b.col[MT_F_PID][top->row] == c->o.pid) {
			ev->type = top->b.type;
			ev->stream = top->stream;
			ev->desc = mt_type_desc(top->b.type);
			for (unsigned f = 0; f < top->b.nfields; f++)
				ev->v[f] = top->b.col[f][top->row];
			/* Fields the block lacks read as 0; those the type does not have, never. */
			for (unsigned f = top->b.nfields;
			     f < (ev->desc ? ev->desc->nfields : MT_MAX_FIELDS); f++)
				ev->v[f] = 0;
			if (c->r->str_aliases) /* one id per text (writer.c: strtab) */
				mt_reader_canon_strs(c->r, ev);
			rc = 1;
			if (c->pwf) { /* seen by the machine, handed out only when asked for */
				classify(c, ev, 1);
				rc = ((c->out_mask >> ev->type) & 1) &&
				     (!c->o.by_pid || ev->v[MT_F_PID] == c->o.pid);
			}
		} else {
			rc = 0;
		}
		if (++top->row == top->b.count) {
			c->spare[c->nspare++] = top;
			c->heap[0] = c->heap[--c->nheap];
		}
		if (c->nheap)
			sift_down(c, 0);
		if (rc)
			return 1;
	}
}

int mt_cursor_next_batch(struct mt_cursor *c, const struct mt_event **evs)
{
	struct batch *b;

	if (c->done)
		return c->err;
	if (!c->threaded) {
		b = c->batches;
		fill(c, b);
	} else {
		if (c->cur) { /* hand the last one back */
			c->head = (c->head + 1) % NBATCH;
			if (atomic_fetch_sub(&c->filled, 1) - 1 <= NBATCH / 2)
				wake(c); /* the thread sleeps until half the ring is free */
		}
		wait_until(c, can_take, SPINS_CALLER, can_take);
		b = &c->batches[c->head];
	}
	c->cur = b;
	c->pos = b->n;
	if (b->rc) {
		c->done = true;
		c->err = b->rc < 0 ? b->rc : 0;
		if (!b->n)
			return c->err;
	}
	*evs = b->ev;
	return (int)b->n;
}

int mt_cursor_next(struct mt_cursor *c, struct mt_event *ev)
{
	const struct mt_event *src, *evs;
	int n;

	/* one thread: straight from the merge, no batch in between */
	if (!c->threaded && (!c->cur || c->pos == c->cur->n))
		return merge_next(c, ev);
	while (!c->cur || c->pos == c->cur->n) {
		n = mt_cursor_next_batch(c, &evs);
		if (n <= 0)
			return n;
		c->pos = 0;
	}
	src = &c->cur->ev[c->pos++];
	ev->type = src->type;
	ev->stream = src->stream;
	ev->desc = src->desc;
	memcpy(ev->v, src->v, (src->desc ? src->desc->nfields : MT_MAX_FIELDS) * sizeof(ev->v[0]));
	return 1;
}
