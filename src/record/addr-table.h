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

/* addr's slot, or SIZE_MAX when absent (addr must not be 0). */
size_t mt_addr_find(const struct mt_addr_table *t, uint64_t addr);
/* Empties slot i (backward-shift deletion). */
void mt_addr_del_at(struct mt_addr_table *t, size_t i);
/* addr's value, made (0) when new (*fresh); NULL when out of memory. Grows at 3/4 full. */
uint64_t *mt_addr_put(struct mt_addr_table *t, uint64_t addr, bool *fresh);
void mt_addr_release(struct mt_addr_table *t);

#endif
