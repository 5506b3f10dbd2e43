/* SPDX-License-Identifier: MIT */
/*
 * Heap block addresses to a 64-bit value: open addressing with linear probing, laid out
 * for heaps. A block's home slot: its 4 KiB page picks a window of 256 slots (Fibonacci
 * hashing), its offset in 16-byte units the slot in it. The blocks of one page share the
 * table's cache lines as they share the heap's, so a run of allocations and frees close
 * together in the heap (most of them) touches a few lines, not one random line of a large
 * table each. Used by memtap top's live heap and --alloc=sites's fold.
 */
#ifndef MEMTAP_RECORD_ADDR_TABLE_H
#define MEMTAP_RECORD_ADDR_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_addr_ent {
	uint64_t addr, val; /* addr 0: empty */
};

struct mt_addr_table {
	struct mt_addr_ent *v; /* 2^bits entries */
	unsigned bits;
	size_t len;
};

static inline size_t mt_addr_home(const struct mt_addr_table *t, uint64_t addr)
{
	uint64_t window = ((addr >> 12) * 0x9e3779b97f4a7c15ull) >> (64 - (t->bits - 8));

	return (size_t)(window << 8 | ((addr >> 4) & 255));
}

/* Fetches addr's home line ahead of its lookup. */
static inline void mt_addr_prefetch(const struct mt_addr_table *t, uint64_t addr)
{
	if (t->v)
		__builtin_prefetch(&t->v[mt_addr_home(t, addr)]);
}

/* Doubles the table (12 bits at first); -1 when out of memory. */
int mt_addr_grow(struct mt_addr_table *t);

/* addr's slot, or SIZE_MAX when absent (addr must not be 0). Inline: on every event. */
static inline size_t mt_addr_find(const struct mt_addr_table *t, uint64_t addr)
{
	size_t mask, i;

	if (!t->v)
		return SIZE_MAX;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = mt_addr_home(t, addr); t->v[i].addr; i = (i + 1) & mask)
		if (t->v[i].addr == addr)
			return i;
	return SIZE_MAX;
}

/* Empties slot i: later members of the probe run move into the hole (backward shift). */
static inline void mt_addr_del_at(struct mt_addr_table *t, size_t i)
{
	size_t mask = ((size_t)1 << t->bits) - 1;

	for (size_t j = (i + 1) & mask; t->v[j].addr; j = (j + 1) & mask) {
		size_t k = mt_addr_home(t, t->v[j].addr);

		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			t->v[i] = t->v[j];
			i = j;
		}
	}
	t->v[i].addr = 0;
	t->len--;
}

/* addr's value, made (0) when new (*fresh); NULL when out of memory. Grows at 3/4 full. */
static inline uint64_t *mt_addr_put(struct mt_addr_table *t, uint64_t addr, bool *fresh)
{
	size_t mask, i;

	if ((!t->v || (t->len + 1) * 4 > ((size_t)3 << t->bits)) && mt_addr_grow(t) < 0)
		return NULL;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = mt_addr_home(t, addr); t->v[i].addr; i = (i + 1) & mask)
		if (t->v[i].addr == addr) {
			*fresh = false;
			return &t->v[i].val;
		}
	t->v[i] = (struct mt_addr_ent){ addr, 0 };
	t->len++;
	*fresh = true;
	return &t->v[i].val;
}

void mt_addr_release(struct mt_addr_table *t);

#endif
