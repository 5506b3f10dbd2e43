/* SPDX-License-Identifier: MIT */
/* Hashing and the u64 -> u64 map. */
#include "hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

uint64_t mt_hash64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	uint64_t h = seed ^ (len * K1);

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h ^= rotl(w * K2, 31) * K1;
		h = rotl(h, 27) * 5 + 0x52dce729;
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;

		memcpy(&w, p, len);
		h ^= rotl(w * K2, 31) * K1;
	}
	return mt_hash_u64(h);
}

void mt_map64_init(struct mt_map64 *m)
{
	memset(m, 0, sizeof(*m));
}

void mt_map64_release(struct mt_map64 *m)
{
	free(m->keys);
	free(m->vals);
	mt_map64_init(m);
}

static size_t slot_of(const struct mt_map64 *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = mt_hash_u64(key) & mask;

	while (m->keys[i] != key && m->keys[i] != MT_MAP64_EMPTY)
		i = (i + 1) & mask;
	return i;
}

uint64_t *mt_map64_get(const struct mt_map64 *m, uint64_t key)
{
	size_t i;

	if (!m->cap || key == MT_MAP64_EMPTY)
		return NULL;
	i = slot_of(m, key);
	return m->keys[i] == key ? &m->vals[i] : NULL;
}

static int grow(struct mt_map64 *m)
{
	struct mt_map64 n = { 0 };

	n.cap = m->cap ? m->cap * 2 : 16;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = malloc(n.cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	memset(n.keys, 0xff, n.cap * sizeof(*n.keys));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] != MT_MAP64_EMPTY) {
			size_t j = slot_of(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
		}
	}
	n.len = m->len;
	mt_map64_release(m);
	*m = n;
	return 0;
}

int mt_map64_put(struct mt_map64 *m, uint64_t key, uint64_t **ret)
{
	size_t i;

	if (key == MT_MAP64_EMPTY)
		return -EINVAL;
	if ((m->len + 1) * 2 > m->cap) {
		int r = grow(m);

		if (r < 0)
			return r;
	}
	i = slot_of(m, key);
	if (m->keys[i] != key) {
		m->keys[i] = key;
		m->vals[i] = 0;
		m->len++;
	}
	*ret = &m->vals[i];
	return 0;
}

int mt_map64_put_by(struct mt_map64 *m, uint64_t h, bool (*same)(const void *ctx, uint64_t value),
		    const void *ctx, uint64_t **ret, uint64_t *key)
{
	for (;; h = mt_hash_u64(h)) {
		if (h == MT_MAP64_EMPTY)
			h--;
		if (mt_map64_put(m, h, ret) < 0)
			return -ENOMEM;
		if (!**ret || same(ctx, **ret)) {
			*key = h;
			return 0;
		}
	}
}

bool mt_map64_del(struct mt_map64 *m, uint64_t key)
{
	size_t mask, i, j;

	if (!m->cap || key == MT_MAP64_EMPTY)
		return false;
	mask = m->cap - 1;
	i = slot_of(m, key);
	if (m->keys[i] != key)
		return false;
	/* Backward-shift deletion: pull later members of the probe run into the hole. */
	for (j = (i + 1) & mask; m->keys[j] != MT_MAP64_EMPTY; j = (j + 1) & mask) {
		size_t home = mt_hash_u64(m->keys[j]) & mask;

		/* Move j to i unless its home lies cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = MT_MAP64_EMPTY;
	m->len--;
	return true;
}
