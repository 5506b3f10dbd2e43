/* SPDX-License-Identifier: MIT */
/* The reader's stack tables: STACKS and STACKS2 chunks loaded per stream, canonical ids,
 * references expanded, lookups. */
#include <errno.h>
#include <stdlib.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/varint.h"
#include "format/chunk.h"
#include "format/reader-internal.h"
#include "format/reader.h"

#define MAX_STACK_NODES (1u << 28)

int mt_reader_load_stacks(struct mt_reader *r, const struct mt_chunk_hdr *h, const uint8_t *p,
			  size_t n)
{
	const uint8_t *end = p + n;
	struct mt_stream *s = mt_stream_get(r, h->stream, true);
	uint64_t first, cnt, ip = 0, prev[3] = { 0, 0, 0 };
	bool dense, kinds = h->type == MT_CHUNK_STACKS2;

	if (!s)
		return -ENOMEM;
	if (mt_varint_get(&p, end, &first) < 0 || mt_varint_get(&p, end, &cnt) < 0 || cnt > n ||
	    first == 0 || first > UINT64_MAX - cnt)
		return -MT_ERR_CORRUPT;
	if (s->nstk + cnt > MAX_STACK_NODES)
		return -MT_ERR_LIMIT;
	if (mt_grow_array(&s->stk_parent, &s->stk_cap, s->nstk + cnt, sizeof(uint64_t)) < 0)
		return -ENOMEM;
	if (mt_grow_array(&s->stk_ip, &s->stk_ip_cap, s->nstk + cnt, sizeof(uint64_t)) < 0 ||
	    mt_grow_array(&s->stk_id, &s->stk_id_cap, s->nstk + cnt, sizeof(uint64_t)) < 0)
		return -ENOMEM;
	/* Ids 1..n in order (what a recorder writes) need no map: index = id - 1. */
	dense = s->dense == s->nstk && first == s->nstk + 1;
	/* Column 1: parent as (id - parent), 0 for a root; column 2: ip as zigzag deltas. */
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t d;

		if (mt_varint_get(&p, end, &d) < 0 || d > first + i)
			return -MT_ERR_CORRUPT;
		s->stk_parent[s->nstk + i] = d ? first + i - d : 0;
	}
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t d, *slot;

		if (mt_varint_get(&p, end, &d) < 0)
			return -MT_ERR_CORRUPT;
		if (kinds) { /* zigzag(difference from the previous of its kind) << 2 | kind */
			unsigned k = (unsigned)(d & 3);
			uint64_t v;

			if (k == 3) { /* the value itself, of the kind it has */
				if (mt_varint_get(&p, end, &v) < 0)
					return -MT_ERR_CORRUPT;
				k = mt_stacks2_kind(v);
			} else {
				v = prev[k] + (uint64_t)mt_unzigzag(d >> 2);
			}
			prev[k] = v;
			ip = mt_stacks2_ip(first + i, v);
		} else {
			ip += (uint64_t)mt_unzigzag(d);
		}
		s->stk_ip[s->nstk + i] = ip;
		s->stk_id[s->nstk + i] = first + i;
		if (dense)
			continue;
		if (mt_map64_put(&s->stk_ix, first + i, &slot) < 0)
			return -ENOMEM;
		*slot = s->nstk + i;
	}
	s->nstk += cnt;
	if (dense)
		s->dense = s->nstk;
	return p == end ? 0 : -MT_ERR_CORRUPT;
}

/* The index of stack node id, or SIZE_MAX. */
static size_t stk_index(const struct mt_stream *s, uint64_t id)
{
	uint64_t *ix;

	if (id && id <= s->dense)
		return (size_t)(id - 1);
	ix = id ? mt_map64_get(&s->stk_ix, id) : NULL;
	return ix ? (size_t)*ix : SIZE_MAX;
}

/*
 * The same stack can have several ids: the runtime empties its trie index when it is full
 * and then interns stacks afresh (rt/unwind.c). Every node gets the first id with the same
 * (canonical parent, ip), so that a stack's id is one value per distinct chain of frames.
 * Parents come before their children (smaller ids, loaded in file order).
 */
/* A node's ip for comparing chains: a reference names its stack by canonical id. Only
 * nodes before k have one. */
static uint64_t canon_ip(const struct mt_stream *s, size_t k, uint64_t ip)
{
	size_t ni;

	if (!mt_stack_is_ref(ip))
		return ip;
	ni = stk_index(s, MT_STACK_REF_NODE(ip));
	if (ni >= k)
		return ip;
	return MT_STACK_REF(s->stk_canon[ni], MT_STACK_REF_COUNT(ip));
}

int mt_reader_canon_stacks(struct mt_stream *s)
{
	size_t cap = 16, mask;
	uint32_t *tab;

	while (cap < 2 * s->nstk)
		cap *= 2;
	mask = cap - 1;
	tab = calloc(cap, sizeof(*tab)); /* index + 1 of the first node with a key */
	s->stk_canon = malloc((s->nstk ? s->nstk : 1) * sizeof(*s->stk_canon));
	if (!tab || !s->stk_canon) {
		free(tab);
		free(s->stk_canon);
		s->stk_canon = NULL;
		return -ENOMEM;
	}
	for (size_t k = 0; k < s->nstk; k++) {
		uint64_t p = s->stk_parent[k], ip = canon_ip(s, k, s->stk_ip[k]), id = 0;
		size_t pi = stk_index(s, p), i;
		/* a parent not loaded (a lost chunk) stands for itself */
		uint64_t cp = pi < k ? s->stk_canon[pi] : p;

		for (i = (size_t)mt_hash_u64(ip * 31 + cp) & mask; tab[i]; i = (i + 1) & mask) {
			size_t j = tab[i] - 1, pj = stk_index(s, s->stk_parent[j]);
			uint64_t cpj = pj < j ? s->stk_canon[pj] : s->stk_parent[j];

			if (canon_ip(s, j, s->stk_ip[j]) == ip && cpj == cp) {
				id = s->stk_canon[j];
				break;
			}
		}
		if (!id) {
			tab[i] = (uint32_t)(k + 1);
			id = s->stk_id[k];
		}
		s->stk_canon[k] = id;
	}
	free(tab);
	return 0;
}

uint64_t mt_reader_stack_canon(const struct mt_reader *r, uint32_t stream, uint64_t id)
{
	struct mt_stream *s = mt_stream_get((struct mt_reader *)r, stream, false);
	size_t k = s && s->stk_canon ? stk_index(s, id) : SIZE_MAX;

	return k != SIZE_MAX && k < s->nstk ? s->stk_canon[k] : id;
}

int mt_reader_stack(const struct mt_reader *r, uint32_t stream, uint64_t id, uint64_t *ips,
		    unsigned max)
{
	struct mt_stream *s = mt_stream_get((struct mt_reader *)r, stream, false);
	unsigned depth = 0;

	if (!s)
		return id ? -1 : 0;
	/* Parents have smaller ids (checked on load), so this terminates; it also stops at max,
	 * so that a file with one very long chain costs each lookup max steps, not the chain. */
	while (id && depth < max) {
		size_t ix = stk_index(s, id);
		uint64_t ip;

		if (ix == SIZE_MAX)
			return depth ? (int)depth : -1;
		ip = s->stk_ip[ix];
		id = s->stk_parent[ix];
		if (!mt_stack_is_ref(ip)) {
			ips[depth++] = ip;
			continue;
		}
		/* The innermost frames of another stack, at most count of them: an older node
		 * (a smaller id), whose frames are frames, never references again. */
		for (uint64_t n = MT_STACK_REF_NODE(ip), c = MT_STACK_REF_COUNT(ip);
		     c && n && n < s->stk_id[ix] && depth < max; c--) {
			size_t nx = stk_index(s, n);

			if (nx == SIZE_MAX || mt_stack_is_ref(s->stk_ip[nx]))
				break;
			ips[depth++] = s->stk_ip[nx];
			n = s->stk_parent[nx];
		}
	}
	return (int)depth;
}
