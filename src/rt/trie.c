/* SPDX-License-Identifier: MIT */
/* The stack trie: (parent, ip) -> id, its nodes in the region's ring for the recorder. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "rt/rt-internal.h"

/*
 * (parent, ip) -> id. Ids and nodes live in the shared region, where the recorder reads
 * them; this private hash table only finds existing ids. Lookups are lock-free; insertion
 * takes a spinlock (about 2.5 new frames per event on CPython, far fewer once warm). Frames
 * come as runs, each the caller of the next: once one node of a run is new, every node
 * under it is too, so the rest of the run is made under one lock with the table slots it
 * needs fetched together (import torch: 4.9 M nodes; 2.80x -> 2.69x bare).
 *
 * Memory stays bounded however many distinct stacks a program has (a PyTorch import makes
 * over two million nodes): when the largest table is half full it is emptied in place and
 * interning starts afresh with new ids. An id is a fact ("node id is ip under parent")
 * that stays true in the trace, so ids handed out before, in the threads' caches and
 * memos, remain valid parents; the same stack may just get a second id, which the reader
 * folds back into one (format/reader.c). Readers check a generation counter around their
 * lookup (a seqlock): one that raced with the emptying looks again.
 */
struct trie_ent {
	uint64_t ip; /* published last; 0 = empty */
	uint32_t parent;
	uint32_t id;
};

struct trie_table {
	uint32_t bits;
	uint32_t used;
	struct trie_ent e[];
};

#define TRIE_BITS_MIN 14 /* at most rt_cfg.trie_bits: 21 (32 MiB), emptied at 1 Mi entries */
static struct trie_table *trie;
static int trie_lock;
static uint32_t trie_gen; /* odd while the table is being emptied */

static struct trie_table *trie_table_new(uint32_t bits)
{
	struct trie_table *t = rt_mmap_anon(sizeof(*t) + (sizeof(struct trie_ent) << bits));

	if (t)
		t->bits = bits;
	return t;
}

static inline uint32_t trie_hash(uint32_t parent, uint64_t ip)
{
	return (uint32_t)rt_hash64(ip * 31 + parent);
}

/* Looks (parent, ip) up in t; returns its slot, or the empty slot where it would go. The
 * probe ends: a table is never more than half full. */
static inline uint32_t trie_find(const struct trie_table *t, uint32_t parent, uint64_t ip,
				 bool *found)
{
	uint32_t mask = (1u << t->bits) - 1, i = trie_hash(parent, ip) & mask;

	for (uint32_t n = 0; n <= mask; n++, i = (i + 1) & mask) {
		uint64_t k = __atomic_load_n(&t->e[i].ip, __ATOMIC_ACQUIRE);

		if (!k) {
			*found = false;
			return i;
		}
		if (k == ip && t->e[i].parent == parent) {
			*found = true;
			return i;
		}
	}
	*found = false; /* only a reader racing with the emptying gets here */
	return 0;
}

static void trie_put(struct trie_table *t, uint32_t slot, uint32_t parent, uint64_t ip, uint32_t id)
{
	t->e[slot].parent = parent;
	t->e[slot].id = id;
	__atomic_store_n(&t->e[slot].ip, ip, __ATOMIC_RELEASE);
	t->used++;
}

/* Under the lock: makes the generation odd (a change begins) or even again (it is done). */
static void trie_gen_bump(void)
{
	__atomic_store_n(&trie_gen, trie_gen + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Under the lock: a table with room for need more entries (need is far below half the
 * largest table), grown or emptied. */
static struct trie_table *trie_room(uint32_t need)
{
	struct trie_table *t = trie;

	if ((t->used + need) * 2 <= (1u << t->bits))
		return t;
	if (t->bits < rt_cfg.trie_bits) {
		struct trie_table *n = trie_table_new(t->bits + 1);
		bool found;

		if (n) {
			for (uint32_t k = 0; k < (1u << t->bits); k++)
				if (t->e[k].ip)
					trie_put(n,
						 trie_find(n, t->e[k].parent, t->e[k].ip, &found),
						 t->e[k].parent, t->e[k].ip, t->e[k].id);
			__atomic_store_n(&trie, n, __ATOMIC_RELEASE);
			/* The old table's pages go back (readers still in it look again: the
			 * generation changes around it); its address range stays reserved. */
			trie_gen_bump();
			rt_arena_drop(t, sizeof(*t) + (sizeof(struct trie_ent) << t->bits));
			trie_gen_bump();
			return trie_room(need); /* twice as large may not be enough yet */
		}
	}
	/* Empty it in place (its pages stay memtap's, resident: rt-proto.h, mt_rt_own). */
	trie_gen_bump();
	memset(t->e, 0, sizeof(struct trie_ent) << t->bits);
	t->used = 0;
	trie_gen_bump();
	__atomic_add_fetch(&rt_region->trie_resets, 1, __ATOMIC_RELAXED);
	return t;
}

/*
 * Room in the shared node ring for id: the recorder must have written the node cap ids
 * before it. Waits for it (telling it so), at most a second. Caller holds the trie lock.
 */
static bool node_room(struct mt_rt_region *r, uint64_t id)
{
	uint64_t t0;

	if (RT_LIKELY(id - __atomic_load_n(&r->nodes_done, __ATOMIC_ACQUIRE) < r->nodes_cap))
		return true;
	__atomic_add_fetch(&r->node_waits, 1, __ATOMIC_RELAXED);
	t0 = rt_mono_ns();
	while (rt_mono_ns() - t0 < 1000000000ull && __atomic_load_n(&rt_live, __ATOMIC_ACQUIRE)) {
		uint32_t gen = __atomic_load_n(&r->node_gen, __ATOMIC_ACQUIRE);

		if (id - __atomic_load_n(&r->nodes_done, __ATOMIC_ACQUIRE) < r->nodes_cap)
			return true;
		rt_wait_recorder(&r->node_waiters, &r->node_gen, gen, 10000000);
	}
	return id - __atomic_load_n(&r->nodes_done, __ATOMIC_ACQUIRE) < r->nodes_cap;
}

/* The id of (parent, ip) if the table has it, without the lock; 0 if not (or while the
 * table is being emptied: the caller then takes the lock, which waits for it). */
static uint32_t lookup(uint32_t parent, uint64_t ip)
{
	for (;;) {
		uint32_t g = __atomic_load_n(&trie_gen, __ATOMIC_ACQUIRE), i, id;
		struct trie_table *t;
		bool found;

		if (g & 1)
			return 0;
		t = __atomic_load_n(&trie, __ATOMIC_ACQUIRE);
		i = trie_find(t, parent, ip, &found);
		id = found ? t->e[i].id : 0;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&trie_gen, __ATOMIC_RELAXED) == g)
			return id;
	}
}

static inline void cache_put(struct rt_memo *m, uint32_t parent, uint64_t ip, uint32_t id)
{
	struct rt_icache_ent *e = rt_icache_slot(m, parent, ip);

	e->ip = ip;
	e->parent = parent;
	e->id = id;
}

#define RUN_CHUNK 64 /* nodes made together: their table slots fetched at once */

/*
 * Under the lock, in t (with room): makes the nodes of frames f[0 .. n), which are all new,
 * f[0] under parent and each next one under the one before. Returns the last id, or 0
 * when the ring stayed full (ids from there on 0).
 */
static uint32_t make_run(struct rt_memo *m, struct trie_table *t, uint32_t parent,
			 struct rt_frame *f, unsigned n)
{
	struct mt_rt_region *r = rt_region;
	struct mt_rt_node *nodes = (struct mt_rt_node *)((char *)r + r->nodes_off);
	uint32_t mask = (1u << t->bits) - 1, home[RUN_CHUNK];

	for (unsigned k0 = 0; k0 < n; k0 += RUN_CHUNK) {
		unsigned c = n - k0 < RUN_CHUNK ? n - k0 : RUN_CHUNK;
		uint64_t first = r->nodes_next;

		if (first + c - 1 > UINT32_MAX || !node_room(r, first + c - 1)) {
			__atomic_add_fetch(&r->trie_full, 1, __ATOMIC_RELAXED);
			for (unsigned k = k0; k < n; k++)
				f[k].id = 0;
			return 0;
		}
		r->nodes_next = first + c;
		for (unsigned q = 0; q < c; q++) {
			uint32_t id = (uint32_t)(first + q), par = q ? id - 1 : parent;
			struct mt_rt_node *nd = &nodes[id % r->nodes_cap];

			if (!(id & 4095))
				rt_own_ring(id); /* the ring's next stretch becomes memtap's */
			nd->parent = par;
			nd->ip = f[k0 + q].ip;
			__atomic_store_n(&nd->id, id, __ATOMIC_RELEASE);
			home[q] = trie_hash(par, f[k0 + q].ip) & mask;
			__builtin_prefetch(&t->e[home[q]], 1);
		}
		for (unsigned q = 0; q < c; q++) {
			uint32_t id = (uint32_t)(first + q), par = q ? id - 1 : parent, i = home[q];

			while (t->e[i].ip) /* new: no entry of its own to find, only a free one */
				i = (i + 1) & mask;
			trie_put(t, i, par, f[k0 + q].ip, id);
			cache_put(m, par, f[k0 + q].ip, id);
			f[k0 + q].id = id;
		}
		parent = (uint32_t)(first + c - 1);
	}
	return parent;
}

uint32_t rt_trie_run(struct rt_memo *m, uint32_t parent, struct rt_frame *f, unsigned n)
{
	struct trie_table *t;
	unsigned k = 0;
	bool found;

	/* The nodes that exist, through the thread's cache or the table, without the lock
	 * (parent 0: f[0] is a root). */
	for (; k < n; k++) {
		struct rt_icache_ent *e = rt_icache_slot(m, parent, f[k].ip);
		uint32_t id;

		if (e->ip == f[k].ip && e->parent == parent) {
			parent = f[k].id = e->id;
			continue;
		}
		if (!(id = lookup(parent, f[k].ip)))
			break;
		cache_put(m, parent, f[k].ip, id);
		parent = f[k].id = id;
	}
	if (k == n)
		return parent;
	/* Under the lock: those another thread made meanwhile, then the rest, all new. */
	rt_lock(&trie_lock);
	t = trie_room(n - k);
	for (; k < n; k++) {
		uint32_t i = trie_find(t, parent, f[k].ip, &found);

		if (!found)
			break;
		cache_put(m, parent, f[k].ip, t->e[i].id);
		parent = f[k].id = t->e[i].id;
	}
	if (k < n)
		parent = make_run(m, t, parent, f + k, n - k);
	rt_unlock(&trie_lock);
	return parent;
}

uint32_t rt_trie_intern(struct rt_memo *m, uint32_t parent, uint64_t ip)
{
	struct rt_frame f = { .ip = ip };

	return rt_trie_run(m, parent, &f, 1);
}

bool rt_trie_init(void)
{
	trie = trie_table_new(rt_cfg.trie_bits < TRIE_BITS_MIN ? rt_cfg.trie_bits : TRIE_BITS_MIN);
	return trie != NULL;
}

bool rt_trie_fork_child(void)
{
	/* The parent's table is simply abandoned (copy-on-write pages the child never touches
	 * again). */
	trie = trie_table_new(rt_cfg.trie_bits < TRIE_BITS_MIN ? rt_cfg.trie_bits : TRIE_BITS_MIN);
	trie_lock = 0;
	trie_gen = 0;
	return trie != NULL;
}
