/* SPDX-License-Identifier: MIT */
/*
 * The inner-path cache of the walk (unwind.c only; inlined into rt_capture).
 *
 * The memo holds one stack, the previous one. A program that allocates from several places
 * under the same frame in turn (CPython's eval loop: a string, then a list, then a dict
 * entry) joins the memo only at that common frame, so every event walked the few frames
 * below it again: a rule lookup and a trie lookup each, two cache misses in a program
 * whose own data keeps the caches busy. A path remembers, per entry (the hook's return
 * address and sp), the frames the last walk from there stepped over before it joined, the
 * words each step read, and the trie ids it got. The next call from there re-reads those
 * words; if every one still holds, the walk from (ip, sp, rbp) would step over exactly
 * these frames again (each step is a function of its rule, which depends on the ip alone,
 * and of the words it reads), so they are taken as they are and the walk goes on from the
 * path's end, where it tries the memo as always. Their ids are taken too when the frame
 * at the path's end got the same id as when they were interned. A path that does not hold
 * costs its loads and nothing else: the walk starts from the entry as before.
 */
#ifndef MT_RT_UNWIND_PATH_H
#define MT_RT_UNWIND_PATH_H

#include "rt/rt-internal.h"

static inline struct rt_path *path_slot(struct rt_memo *m, uint64_t sp0, uint64_t ip0)
{
	return &m->paths[(uint32_t)rt_hash64(ip0 + sp0 * 0x9e3779b97f4a7c15ull) & (RT_PATHS - 1)];
}

static inline uint64_t path_load(uint64_t addr)
{
	uint64_t v;

	memcpy(&v, (const void *)addr, 8);
	return v;
}

/*
 * True when e is the path from (ip0 at sp0, rbp bp) and every word its steps read still
 * holds; scratch[0 .. e->k) are then its frames. Every load lies between sp0 and the
 * stack top: the path's own steps checked that when it was walked.
 */
static inline bool path_replay(const struct rt_path *e, uint64_t ip0, uint64_t sp0, uint64_t bp,
			       uint32_t gen, unsigned depth, struct rt_frame *scratch)
{
	unsigned k = e->k;

	if (e->sp0 != sp0 || e->f[0].ip != ip0 || e->gen != gen || !k || k >= depth ||
	    (e->bp0 && e->f[0].bp != bp))
		return false;
	for (unsigned i = 0; i < k; i++) {
		const struct rt_path_frame *f = &e->f[i];
		bool last = i + 1 == k;

		if (path_load(sp0 + (last ? e->end_spoff : f[1].spoff) - 8) !=
		    (last ? e->end_ip : f[1].ip))
			return false;
		if (f->slotoff && path_load(sp0 + f->slotoff) != (last ? e->end_bp : f[1].bp))
			return false;
	}
	for (unsigned i = 0; i < k; i++) {
		const struct rt_path_frame *f = &e->f[i];

		scratch[i] = (struct rt_frame){ .ip = f->ip,
						.sp = sp0 + f->spoff,
						.bp = i <= e->saver ? bp : f->bp,
						.bp_slot = f->slotoff ? sp0 + f->slotoff : 0,
						.flags = f->flags };
	}
	return true;
}

/*
 * Keeps the first k frames of a walk that joined the memo: scratch[i] is at m->f[top - i];
 * end is the state the k-th step reached (ip, sp, rbp as the walk had them), the frame at
 * m->f[top - k].
 */
static inline void path_store(struct rt_path *e, const struct rt_memo *m, unsigned top,
			      const struct rt_frame *scratch, unsigned k,
			      const struct rt_frame *end, uint64_t sp0, uint32_t gen)
{
	unsigned saver = k;
	bool bp0 = false;

	if (end->sp - sp0 > UINT32_MAX)
		return;
	for (unsigned i = 0; i < k; i++) {
		const struct rt_frame *s = &scratch[i];

		if (i <= saver && (s->flags & RF_CFA_RBP))
			bp0 = true;
		if (saver == k && (s->flags & RF_SAVES_RBP))
			saver = i;
		e->f[i] = (struct rt_path_frame){ .ip = s->ip,
						  .bp = s->bp,
						  .spoff = (uint32_t)(s->sp - sp0),
						  .slotoff = s->bp_slot
								     ? (uint32_t)(s->bp_slot - sp0)
								     : 0,
						  .id = m->f[top - i].id,
						  .flags = s->flags & (RF_CFA_RBP | RF_SAVES_RBP) };
	}
	e->sp0 = sp0;
	e->end_ip = end->ip;
	e->end_bp = end->bp;
	e->end_spoff = (uint32_t)(end->sp - sp0);
	e->parent = m->f[top - k].id;
	e->gen = gen;
	e->k = (uint8_t)k;
	e->saver = (uint8_t)saver;
	e->bp0 = bp0;
}

#endif
