/* SPDX-License-Identifier: MIT */
/* Rows of the runtime's shared slots into trace events, their TSC times into CLOCK_MONOTONIC. */
#include "record/alloc-internal.h"
#include "record/alloc-sites.h"

#include "common/array.h"
#include "alloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/strutil.h"
#include "format/block.h"
#include "format/chunk.h"
#include "format/rt-proto.h"
#include "format/writer.h"
#include "record/inject.h"
#include "record/procfs.h"
#include "record/pagewrites.h"
#include "record/live.h"
#include "record/session.h"

static const unsigned block_type[NBLOCKS] = { MT_EV_ALLOC, MT_EV_MMAP, MT_EV_MUNMAP, MT_EV_MREMAP,
					      MT_EV_BRK };

static inline uint64_t tsc_to_ns(struct mt_alloc_state *a, uint64_t t)
{
	/* Rows come in time order per thread: the last segment almost always fits. */
	if (RT_SEG_OK(a, t))
		return a->seg_ns +
		       (uint64_t)(int64_t)((double)(int64_t)(t - a->seg_tsc) * a->seg_rate);
	return mt_ac_tsc_to_ns_slow(a, t);
}

/* ---- draining ---- */

struct mt_rt_slot *mt_ac_slot_at(struct conn *c, uint32_t i)
{
	return (struct mt_rt_slot *)((char *)c->region + c->slots_off + (uint64_t)i * c->slot_size);
}

/* memtap top's heap figures see the allocation rows not shown to them yet: at the end of
 * each drain round, and before the block goes into the trace. */
void mt_ac_live_feed(struct mt_session *s, struct conn *c)
{
	mt_live_allocs(s, c->pid, c->stream, &c->blocks[B_ALLOC], c->live_seen);
	c->live_seen = c->blocks[B_ALLOC].count;
}

/* A full or final block of the connection goes into the trace. */
void mt_ac_write_block(struct mt_session *s, struct conn *c, int b)
{
	if (b == B_ALLOC)
		mt_ac_live_feed(s, c);
	if (b == B_ALLOC && (s->alloc->sites || (s->alloc->budget && !c->fold_off))) {
		uint32_t n = c->blocks[b].count;

		if (mt_ac_sites_fold(s, c, &c->blocks[b]) == 0) {
			c->live_seen = 0;
			return;
		}
		if (s->alloc->sites) {
			c->sites_lost += n;
			c->blocks[b].count = 0;
			c->live_seen = 0;
			return;
		}
		c->fold_off = true; /* --max-size: every row of the process written, exact */
		s->alloc->fold_off++;
	}
	mt_writer_block(s->w, c->stream, &c->blocks[b]);
	if (b == B_ALLOC)
		c->live_seen = c->blocks[B_ALLOC].count; /* 0, unless the writer failed */
}

static void emit(struct mt_session *s, struct conn *c, int b, const uint64_t *row)
{
	struct mt_block *blk = &c->blocks[b];

	if (!blk->cap && mt_block_init(blk, block_type[b], 16384) < 0)
		return;
	if (blk->count == blk->cap)
		mt_ac_write_block(s, c, b);
	mt_block_add(blk, row);
	c->events++;
	s->alloc_coll.events++;
}

/* Makes room for one row in the connection's alloc block; true when it cannot. */
static bool alloc_block_full(struct mt_session *s, struct conn *c, struct mt_block *blk)
{
	if (!blk->cap && mt_block_init(blk, MT_EV_ALLOC, 16384) < 0)
		return true;
	if (blk->count == blk->cap)
		mt_ac_write_block(s, c, B_ALLOC);
	return blk->count == blk->cap;
}

#define RT_UNLIKELY_BLK(blk) \
	(__builtin_expect((blk)->count >= (blk)->cap, 0) && alloc_block_full(s, c, (blk)))

/*
 * Fills in the times of rows the runtime did not time (it reads the clock on every Nth
 * event of a busy thread): linearly between the timed rows around them, the slot's end
 * time closing the last span. Returns how many were interpolated.
 */
static uint32_t slot_times(struct row_ref *ev, uint32_t n, uint64_t end)
{
	uint32_t a = 0, est = 0; /* a: the last timed row */

	if (!n)
		return 0;
	if (!ev[0].t) {
		/* Cannot happen with a well-behaved runtime: take the first time seen. */
		for (uint32_t i = 1; i < n && !ev[0].t; i++)
			ev[0].t = ev[i].t;
		if (!ev[0].t)
			ev[0].t = end;
	}
	for (uint32_t i = 1; i <= n; i++) {
		uint64_t tb = i < n ? ev[i].t : end;

		if (!tb)
			continue;
		if (i - a > 1) {
			uint64_t ta = ev[a].t, span = tb > ta ? tb - ta : 0;

			for (uint32_t k = a + 1; k < i; k++)
				ev[k].t = ta + (uint64_t)((double)span * (k - a) / (double)(i - a));
			est += i - a - 1;
		}
		if (i < n)
			a = i;
	}
	/* Trailing rows of a slot never handed over (the process was killed): the last time. */
	for (uint32_t k = a + 1; k < n; k++) {
		if (ev[k].t)
			continue;
		ev[k].t = ev[a].t;
		est++;
	}
	return est;
}

void mt_ac_drain_slot(struct mt_session *s, struct conn *c, struct mt_rt_slot *sl)
{
	struct mt_alloc_state *a = s->alloc;
	uint32_t count = __atomic_load_n(&sl->count, __ATOMIC_ACQUIRE), tid = sl->tid, n = 0;
	const uint64_t *w = sl->words;
	uint64_t *last, *span;

	if (count > c->slot_words) {
		c->bad_rows += count - c->slot_words;
		count = c->slot_words;
	}
	/* The rows: where each starts, and its time if the runtime read the clock. */
	for (uint32_t pos = 0; pos < count;) {
		uint64_t w0 = w[pos];
		unsigned len = mt_rt_row_words(w0);

		/* The slot was written on another core: its lines come over one by one unless
		 * asked for ahead (a row is 1-6 words, a line 8). */
		__builtin_prefetch(&w[pos + 64]);
		if (!len || pos + len > count) {
			c->bad_rows++; /* a row we cannot delimit: the rest of the slot is lost */
			break;
		}
		c->evs[n].pos = pos;
		c->evs[n++].t = (w0 & MT_RT_W0_TIME) ? w[pos + 1] : 0;
		pos += len;
	}
	a->time_est += slot_times(c->evs, n, sl->end_time);
	if (mt_map64_put(&c->last_ns, tid, &last) < 0 ||
	    mt_map64_put(&c->span_cur, tid, &span) < 0) {
		c->bad_rows += n;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = c->evs[i].pos;
		uint64_t w0 = w[pos], addr = w0 & MT_RT_W0_ADDR, row[MT_MAX_FIELDS];
		unsigned kind = mt_rt_w0_kind(w0), flags = mt_rt_w0_flags(w0);
		const uint64_t *x = &w[pos + 1 + ((w0 & MT_RT_W0_TIME) ? 1 : 0)]; /* the rest */
		uint64_t t = a->tsc ? tsc_to_ns(a, c->evs[i].t) : c->evs[i].t;
		unsigned est = (w0 & MT_RT_W0_TIME) ? 0 : MT_ALLOC_F_TIME_EST;

		if (t < *last) {
			/* conversion jitter steps back by nanoseconds; more is a row out of its
			 * thread's order, which would misplace it: counted */
			if (*last - t > 1000)
				c->raised++;
			t = *last;
		}
		*last = t;
		if (kind <= MT_RT_FREE) {
			/* The hot case, millions per second: straight into the block's columns. */
			struct mt_block *blk = &c->blocks[B_ALLOC];
			uint32_t k;
			bool re = kind == MT_RT_REALLOC || kind == MT_RT_REALLOCARRAY;

			if (RT_UNLIKELY_BLK(blk))
				continue;
			k = blk->count++;
			blk->col[MT_F_TIME][k] = t;
			blk->col[MT_F_PID][k] = (uint64_t)c->pid;
			blk->col[MT_F_TID][k] = tid;
			blk->col[MT_F_ALLOC_KIND][k] = kind;
			blk->col[MT_F_ALLOC_ADDR][k] = addr;
			if (kind == MT_RT_FREE) {
				blk->col[MT_F_ALLOC_SIZE][k] = 0;
				blk->col[MT_F_ALLOC_USABLE][k] = 0;
				blk->col[MT_F_ALLOC_STACK][k] = 0;
			} else {
				blk->col[MT_F_ALLOC_SIZE][k] = x[0];
				blk->col[MT_F_ALLOC_USABLE][k] = addr ? x[0] + (x[1] >> 32) : 0;
				blk->col[MT_F_ALLOC_STACK][k] = x[1] & 0xffffffffu;
			}
			blk->col[MT_F_ALLOC_OLD][k] = re ? x[2] : 0;
			blk->col[MT_F_ALLOC_FLAGS][k] = flags | est;
			blk->col[MT_F_ALLOC_SPAN][k] = *span;
			c->events++;
			s->alloc_coll.events++;
			continue;
		}
		memset(row, 0, sizeof(row));
		row[MT_F_TIME] = t;
		row[MT_F_PID] = (uint64_t)c->pid;
		row[MT_F_TID] = tid;
		switch (kind) {
		case MT_RT_MMAP:
			row[MT_F_MMAP_ADDR] = addr;
			row[MT_F_MMAP_LEN] = x[0];
			row[MT_F_MMAP_PGOFF] = (x[2] >> 32) & 0x20 /* MAP_ANONYMOUS */ ? 0 : x[1];
			row[MT_F_MMAP_PROT] = x[2] & 0xffffffffu;
			row[MT_F_MMAP_FLAGS] = x[2] >> 32;
			row[MT_F_MMAP_ORIGIN] = MT_MMAP_RT;
			row[MT_F_MMAP_STACK] = x[3] & 0xffffffffu;
			emit(s, c, B_MMAP, row);
			break;
		case MT_RT_MUNMAP:
			row[MT_F_MUNMAP_ADDR] = addr;
			row[MT_F_MUNMAP_LEN] = x[0];
			row[MT_F_MUNMAP_STACK] = x[1] & 0xffffffffu;
			emit(s, c, B_MUNMAP, row);
			break;
		case MT_RT_MREMAP:
			row[MT_F_MREMAP_ADDR] = addr;
			row[MT_F_MREMAP_LEN] = x[0];
			row[MT_F_MREMAP_OLD_ADDR] = x[1];
			row[MT_F_MREMAP_OLD_LEN] = x[2] & ((1ull << 48) - 1);
			row[MT_F_MREMAP_FLAGS] = x[2] >> 48;
			row[MT_F_MREMAP_STACK] = x[3] & 0xffffffffu;
			emit(s, c, B_MREMAP, row);
			break;
		case MT_RT_BRK:
			row[MT_F_BRK_NEW] = addr;
			row[MT_F_BRK_OLD] = x[0];
			row[MT_F_BRK_STACK] = x[1] & 0xffffffffu;
			emit(s, c, B_BRK, row);
			break;
		case MT_RT_OWN:
			/* memtap's own resident memory from t: the runtime's exact totals */
			mt_ac_own_rss(s, c, t, x[0], x[1]);
			break;
		case MT_RT_MARK: /* the thread's allocations from here on are in this span */
			*span = addr;
			break;
		default:
			c->bad_rows++;
			break;
		}
	}
}

/* New stack nodes, in id order up to the first one not yet written. */
void mt_ac_send_nodes(struct mt_session *s, struct conn *c)
{
	const struct mt_rt_node *nodes = (const void *)((char *)c->region + c->nodes_off);
	uint64_t first = c->nodes_sent, id = first, start = first;
	uint64_t parents[4096], ips[4096];
	size_t n = 0;

	/* A ring: id's node is at id % cap once its id field says so (stored last). */
	for (;;) {
		const struct mt_rt_node *nd = &nodes[id % c->nodes_cap];
		uint32_t parent;

		if (id > UINT32_MAX || __atomic_load_n(&nd->id, __ATOMIC_ACQUIRE) != (uint32_t)id)
			break;
		parent = nd->parent;
		if (parent >= id)
			parent =
				0; /* corrupt: make it a root rather than break the format's rule */
		parents[n] = parent;
		ips[n++] = nd->ip;
		id++;
		if (n == 4096) {
			mt_writer_stacks(s->w, c->stream, first, n, parents, ips);
			mt_live_nodes(s, c->pid, c->stream, first, n, parents, ips);
			s->alloc->nodes += n;
			first = id;
			n = 0;
			/* The writer holds its copy: the runtime may reuse these places. */
			__atomic_store_n(&c->region->nodes_done, id, __ATOMIC_RELEASE);
		}
	}
	if (n) {
		mt_writer_stacks(s->w, c->stream, first, n, parents, ips);
		mt_live_nodes(s, c->pid, c->stream, first, n, parents, ips);
		s->alloc->nodes += n;
	}
	c->nodes_sent = id;
	__atomic_store_n(&c->region->nodes_done, id, __ATOMIC_RELEASE);
	if (id != start) /* a thread may wait for room in the ring */
		mt_ac_wake_waiters(&c->region->node_waiters, &c->region->node_gen, INT_MAX);
}

void mt_ac_slot_release(struct conn *c, struct mt_rt_slot *sl)
{
	uint64_t *fb = (uint64_t *)((char *)c->region + c->free_off);
	uint32_t i = (uint32_t)(((char *)sl - ((char *)c->region + c->slots_off)) / c->slot_size);

	__atomic_store_n(&sl->count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sl->state, MT_RT_SLOT_FREE, __ATOMIC_RELEASE);
	__atomic_or_fetch(&fb[i / 64], 1ull << (i % 64), __ATOMIC_RELEASE);
}
