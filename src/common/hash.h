/* SPDX-License-Identifier: MIT */
/* A fast non-cryptographic 64-bit hash and an open-addressing map from u64 keys to u64 values. */
#ifndef MEMTAP_COMMON_HASH_H
#define MEMTAP_COMMON_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t mt_hash64(const void *data, size_t len, uint64_t seed);

static inline uint64_t mt_hash_u64(uint64_t x)
{
	/* murmur3's finaliser: every input bit affects every output bit. */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/*
 * struct mt_map64: key -> value, both u64, linear probing, grows at 50% load. Key
 * UINT64_MAX is reserved (the empty slot). Lookups return a pointer to the stored value,
 * valid until the next insertion.
 */
struct mt_map64 {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap; /* a power of two, or 0 */
	size_t len;
};

#define MT_MAP64_EMPTY UINT64_MAX

void mt_map64_init(struct mt_map64 *m);
void mt_map64_release(struct mt_map64 *m);
uint64_t *mt_map64_get(const struct mt_map64 *m, uint64_t key);
/* Inserts or finds key; *ret points at its value (new values start at 0). -ENOMEM on failure. */
int mt_map64_put(struct mt_map64 *m, uint64_t key, uint64_t **ret);
/* Removes key; returns true if it was present. */
bool mt_map64_del(struct mt_map64 *m, uint64_t key);
/*
 * Entries whose identity is more than 64 bits (a string, a tuple), kept by their hash h:
 * finds the value slot of the entry for which same(ctx, value) holds, trying h, then its
 * rehashes, or makes one (value 0, its key in *key for a removal) at the first free. The
 * value must say which entry it is (an index + 1). -ENOMEM on failure.
 */
int mt_map64_put_by(struct mt_map64 *m, uint64_t h, bool (*same)(const void *ctx, uint64_t value),
		    const void *ctx, uint64_t **ret, uint64_t *key);

/* splitmix64 (Steele, Lea, Flood 2014): a fixed, portable stream of pseudo-random numbers
 * (experiment plans and bootstrap resampling are reproducible across machines). */
static inline uint64_t mt_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
