/* SPDX-License-Identifier: MIT */
/* In-process stack capture: cached CFA rules from .eh_frame, a verified memo, a stack trie. */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt/cfi.h"
#include "rt/rt-internal.h"
#include "rt/unwind-path.h"

/*
 * The stubs hand us the user's return address; each frame costs one lookup in a
 * per-return-address cache of CFA rules (built from .eh_frame on a miss) and two loads; and
 * a per-thread memo of the previous stack lets the walk stop as soon as it reaches a frame
 * whose whole outer part is provably unchanged. "Provably": the memo re-reads every stack
 * word the full walk would read from there (return-address slots, saved-rbp slots), so it
 * can never return a stale stack; it only saves the rule lookups and the trie interning.
 * The frames below the join, when the same entry was walked before, come the same way
 * from the thread's inner paths (unwind-path.h): on CPython 3.1 M allocations walked 8.1 M
 * frames without them, 0.22 M with them.
 *
 * Every load stays inside the current thread's stack, between the hook's entry sp and the
 * thread's stack top: bad unwind information yields a short or wrong stack, never a fault.
 */

extern void *__libc_stack_end;

/* ---- rules ---- */

/* The rules and their packing: rt/cfi.h. */

#define EXACT_BIT (1ull << 63) /* key for a pc after a signal frame: look up pc, not pc - 1 */

struct rule_ent {
	uint64_t key;
	uint64_t rule;
};

/*
 * A table of 2^bits entries. Both hash tables below start small, so that they stay in the
 * caches and touch few pages, and grow by rehashing into a table twice as large that is
 * then published with one pointer store. Entries are immutable once published, so a reader
 * still holding the old table gets right answers (and at worst a miss that it resolves
 * under the lock in the new table). Old tables are never unmapped.
 */
struct rule_table {
	uint32_t bits;
	uint32_t used;
	struct rule_ent e[];
};

#define RULE_BITS_MIN 12
#define RULE_BITS_MAX 20
static struct rule_table *rules;
static int rules_lock;

static struct rule_table *rule_table_new(uint32_t bits)
{
	struct rule_table *t = rt_mmap_anon(sizeof(*t) + (sizeof(struct rule_ent) << bits));

	if (t)
		t->bits = bits;
	return t;
}

/* ---- DWARF CFI (rt/cfi.c) ---- */

/* Computes the rule for a pc (the call site, or the exact pc after a signal frame). */
static uint64_t compute_rule(uint64_t pc)
{
	struct dl_find_object dlfo;

	if (_dl_find_object((void *)pc, &dlfo) != 0)
		return UNSUPPORTED(MT_RT_TRUNC_NOT_IN_OBJECT);
	if (!dlfo.dlfo_eh_frame)
		return UNSUPPORTED(MT_RT_TRUNC_NO_CFI);
	return rt_unwind_file_rule(&dlfo, pc); /* from the object's file (unwind-file.c) */
}

#define hash64 rt_hash64

/* Places key in t (linear probing); caller holds the lock and t has room. */
static void rule_put(struct rule_table *t, uint64_t key, uint64_t rule)
{
	uint32_t mask = (1u << t->bits) - 1, i = (uint32_t)hash64(key) & mask;

	for (;; i = (i + 1) & mask) {
		uint64_t k = __atomic_load_n(&t->e[i].key, __ATOMIC_RELAXED);

		if (k == key)
			return;
		if (!k) {
			t->e[i].rule = rule;
			__atomic_store_n(&t->e[i].key, key, __ATOMIC_RELEASE);
			t->used++;
			return;
		}
	}
}

/* Readers are lock-free: the rule is stored before its key is published with release. */
static uint64_t rule_of(uint64_t key, struct mt_rt_region *reg)
{
	struct rule_table *t = __atomic_load_n(&rules, __ATOMIC_ACQUIRE);
	uint32_t mask = (1u << t->bits) - 1, i = (uint32_t)hash64(key) & mask;
	uint64_t rule;

	for (;; i = (i + 1) & mask) {
		uint64_t k = __atomic_load_n(&t->e[i].key, __ATOMIC_ACQUIRE);

		if (k == key)
			return t->e[i].rule;
		if (!k)
			break;
	}
	rule = compute_rule(key & EXACT_BIT ? key & ~EXACT_BIT : key - 1);
	__atomic_add_fetch(&reg->rule_misses, 1, __ATOMIC_RELAXED);
	if (R_KIND(rule) == RULE_UNSUPPORTED)
		__atomic_add_fetch(&reg->unsupported, 1, __ATOMIC_RELAXED);
	rt_lock(&rules_lock);
	t = rules;
	if ((t->used + 1) * 2 > (1u << t->bits) && t->bits < RULE_BITS_MAX) {
		struct rule_table *n = rule_table_new(t->bits + 1);

		if (n) {
			for (uint32_t k = 0; k < (1u << t->bits); k++)
				if (t->e[k].key)
					rule_put(n, t->e[k].key, t->e[k].rule);
			__atomic_store_n(&rules, n, __ATOMIC_RELEASE);
			t = n;
		}
	}
	if ((t->used + 1) * 2 <= (1u << t->bits))
		rule_put(t, key, rule); /* a full table of the largest size: rules are recomputed */
	rt_unlock(&rules_lock);
	return rule;
}

/* Bumped when the rules are flushed or the trie starts afresh in a fork child: every
 * thread's inner paths stored before are stale. */
static uint32_t path_gen;

void rt_unwind_flush_rules(void)
{
	struct rule_table *n;

	__atomic_add_fetch(&path_gen, 1, __ATOMIC_RELEASE);
	rt_unwind_file_flush();
	if (!rules)
		return;
	n = rule_table_new(RULE_BITS_MIN);
	if (!n)
		return;
	rt_lock(&rules_lock);
	__atomic_store_n(&rules, n, __ATOMIC_RELEASE);
	rt_unlock(&rules_lock);
}

void rt_unwind_init(void)
{
	rules = rule_table_new(RULE_BITS_MIN);
	if (!rules || !rt_trie_init())
		rt_cfg.depth = 0; /* no memory for stacks: record without them */
}

void rt_unwind_fork_child(void)
{
	/* The parent's trie ids mean nothing in the child's new stream. */
	rules_lock = 0; /* a thread that died in fork may have held it; the rules stay valid */
	rt_unwind_file_fork_child();
	if (!rt_trie_fork_child())
		rt_cfg.depth = 0;
	rt_self.cap1_ok = false;
	path_gen++;
	if (rt_self.memo) {
		rt_self.memo->n = 0;
		rt_self.memo->valid = false;
		memset(rt_self.memo->icache, 0, sizeof(rt_self.memo->icache));
	}
}

void rt_unwind_thread_exit(struct rt_thread *t)
{
	t->cap1_ok = false;
	if (t->memo) {
		rt_munmap(t->memo, sizeof(struct rt_memo));
		t->memo = NULL;
	}
}

/* ---- the walk ---- */

#define END_NONE RT_END_NONE
#define END_ZERO RT_END_ZERO
#define END_RULE RT_END_RULE
#define END_BAD RT_END_BAD
#define END_DEPTH RT_END_DEPTH

static void stack_bounds(struct rt_thread *t, uint64_t entry_sp)
{
	uint64_t fs;

	if (t->tid && (pid_t)t->tid == (pid_t)rt_sys0(SYS_getpid)) {
		t->stack_hi = (uint64_t)__libc_stack_end;
	} else {
		/* glibc keeps a thread's TCB at the top of its stack block: every frame of the
		 * thread lies below %fs:0, and everything between is mapped. */
		__asm__("mov %%fs:0, %0" : "=r"(fs));
		t->stack_hi = fs;
	}
	if (entry_sp >= t->stack_hi || t->stack_hi - entry_sp > (512ull << 20))
		t->no_stack_bounds = true;
}

static inline uint64_t load64(uint64_t addr)
{
	uint64_t v;

	memcpy(&v, (const void *)addr, 8);
	return v;
}

/* The trie id for (parent, ip), through the thread's cache. */
static inline uint32_t intern_cached(struct rt_memo *m, uint32_t parent, uint64_t ip)
{
	struct rt_icache_ent *e = rt_icache_slot(m, parent, ip);

	if (e->ip == ip && e->parent == parent)
		return e->id;
	return rt_trie_intern(m, parent, ip);
}

static inline void no_ids(struct rt_frame *f, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		f[k].id = 0;
}

uint32_t rt_intern_cached(struct rt_memo *m, uint32_t parent, uint64_t ip)
{
	return intern_cached(m, parent, ip);
}

/* The ids of memo frames f[0 .. n), each under the one before, f[0] under parent (0: f[0]
 * is a root); the last one's, 0 when the trie had no room (the rest 0 too). Cached ones
 * inline; from the first miss on, the trie makes the rest as one run. */
static inline uint32_t intern_frames(struct rt_memo *m, uint32_t parent, struct rt_frame *f,
				     unsigned n)
{
	unsigned k = 0;

	for (; k < n; k++) {
		const struct rt_icache_ent *e = rt_icache_slot(m, parent, f[k].ip);

		if (e->ip != f[k].ip || e->parent != parent)
			break;
		parent = f[k].id = e->id;
	}
	if (k == n)
		return parent;
	return rt_trie_run(m, parent, f + k, n - k);
}

/*
 * Verifies memo frames 0..q: every stack word their steps read still holds what it held.
 * Checks are stored outermost first; they are scanned from the candidate outward, so the
 * cheap-to-fail inner words come first. Returns -1 when all hold, else the index of the
 * frame whose check failed.
 */
static int verify(const struct rt_memo *m, int q)
{
	for (int i = (int)m->cstart[q + 1] - 1; i >= 0; i--) {
		if (load64(m->checks[i].addr) != m->checks[i].val) {
			int k = q;

			while (k > 0 && m->cstart[k] > (uint32_t)i)
				k--;
			return k;
		}
	}
	return -1;
}

static inline uint8_t rule_flags(uint64_t rule)
{
	return (uint8_t)((R_CFA_RBP(rule) ? RF_CFA_RBP : 0) |
			 (R_SAVES_RBP(rule) ? RF_SAVES_RBP : 0));
}

/*
 * Appends memo frame k's checks (the words its step to frame k - 1 read) and computes
 * whether its rbp matters, given frame k - 1 is already in place.
 */
static inline void memo_link(struct rt_memo *m, unsigned k, uint32_t *nc)
{
	struct rt_frame *f = &m->f[k], *outer = &m->f[k - 1];

	m->cstart[k] = *nc;
	m->checks[(*nc)++] = (struct rt_check){ outer->sp - 8, outer->ip };
	if (f->bp_slot)
		m->checks[(*nc)++] = (struct rt_check){ f->bp_slot, outer->bp };
	if ((f->flags & RF_CFA_RBP) ||
	    (!(f->flags & RF_SAVES_RBP) && (outer->flags & RF_BP_MATTERS)))
		f->flags |= RF_BP_MATTERS;
	else
		f->flags &= (uint8_t)~RF_BP_MATTERS;
}

/*
 * Copies a frame the walk has just written, field by field with the width each was
 * stored with: a wider load (a compiler-vectorised 16-byte copy, or 8 bytes around the
 * 1-byte flags) cannot be served by store forwarding and stalls until the stores retire,
 * which made this copy the hottest instruction of the capture. The empty asm keeps the
 * values in scalar registers. id is not copied: the caller computes it.
 */
static inline void frame_copy(struct rt_frame *d, const struct rt_frame *s)
{
	uint64_t ip = s->ip, sp = s->sp, bp = s->bp, slot = s->bp_slot;
	uint8_t fl = s->flags;

	__asm__("" : "+r"(ip), "+r"(sp), "+r"(bp), "+r"(slot), "+r"(fl));
	d->ip = ip;
	d->sp = sp;
	d->bp = bp;
	d->bp_slot = slot;
	d->flags = fl;
}

/* --stack-depth 1: the return address at the entry sp is the immediate caller. A small
 * function of its own, so that it saves few registers. */
uint32_t rt_capture1(struct rt_thread *t, uint64_t entry_sp)
{
	struct rt_memo *m = t->memo;
	uint64_t ip;

	if (RT_UNLIKELY(!m || !t->stack_hi || t->no_stack_bounds || t->dead ||
			entry_sp >= t->stack_hi)) {
		uint8_t flags = 0;

		return rt_capture(t, entry_sp, 0, &flags); /* sets things up, or gives up safely */
	}
	ip = load64(entry_sp);
	if (!ip)
		return 0;
	t->cap1_ok = true;
	t->c_walked++;
	t->c_depth++;
	return intern_cached(m, 0, ip);
}

/* A walk that stopped early: flagged on the row, counted by reason. */
static RT_COLD void truncated(struct rt_thread *t, uint8_t *flags, unsigned why)
{
	*flags |= MT_RT_ROW_TRUNCATED;
	t->c_truncated++;
	__atomic_add_fetch(
		&rt_region->trunc[why < MT_RT_TRUNC_MAX ? why : MT_RT_TRUNC_CFI_UNSUPPORTED], 1,
		__ATOMIC_RELAXED);
}

/* Steps over a signal frame: sp is the interrupted context's ucontext_t, with rip, rsp and
 * rbp at these offsets. False when it does not lie on the stack. */
static RT_INLINE bool step_signal(uint64_t hi, uint64_t *ip, uint64_t *sp, uint64_t *bp)
{
	uint64_t nsp;

	if (*sp + 176 > hi)
		return false;
	*ip = load64(*sp + 168);
	nsp = load64(*sp + 160);
	*bp = load64(*sp + 120);
	if (nsp <= *sp || nsp >= hi)
		return false;
	*sp = nsp;
	return true;
}

/* The walk reached a frame whose outer part the memo holds, verified: reuse it; only the n
 * new inner frames are linked and interned. */
static RT_INLINE uint32_t memo_join(struct rt_thread *t, struct rt_memo *m,
				    const struct rt_frame *scratch, unsigned n, unsigned join,
				    bool crossed, uint8_t *flags, const struct rt_path *path)
{
	unsigned base = join + 1, pk = path ? path->k : 0, outer = n - pk;
	uint32_t parent = m->f[join].id, nc = m->cstart[base];

	t->c_memo_hits++;
	t->c_reused += base;
	for (unsigned k = 0; k < n; k++) {
		frame_copy(&m->f[base + k], &scratch[n - 1 - k]);
		memo_link(m, base + k, &nc);
	}
	/* The new frames outside the replayed path, then the path's own: their ids hold under
	 * the parent they were interned under. */
	if (parent)
		parent = intern_frames(m, parent, &m->f[base], outer);
	else
		no_ids(&m->f[base], outer);
	if (pk && parent && parent == path->parent) {
		for (unsigned q = 0; q < pk; q++)
			m->f[base + outer + q].id = path->f[pk - 1 - q].id;
		parent = path->f[0].id;
	} else if (pk && parent) {
		parent = intern_frames(m, parent, &m->f[base + outer], pk);
	} else {
		no_ids(&m->f[base + outer], pk); /* under a frame without one: none either */
	}
	m->n = base + n;
	m->cstart[m->n] = nc;
	/* A signal frame among the new frames cannot be re-verified by word checks. */
	if (crossed)
		m->valid = false;
	if (!parent)
		truncated(t, flags, MT_RT_TRUNC_TABLE_FULL);
	return parent;
}

/* A full walk: the whole stack of n frames is new to the memo. */
static RT_INLINE uint32_t memo_full(struct rt_thread *t, struct rt_memo *m,
				    const struct rt_frame *scratch, unsigned n,
				    enum rt_walk_end end, unsigned why, uint64_t zero_slot,
				    bool crossed, uint8_t *flags)
{
	uint32_t parent = 0, nc = 0;

	m->cstart[0] = 0;
	for (unsigned k = 0; k < n; k++) {
		struct rt_frame *f = &m->f[k];

		frame_copy(f, &scratch[n - 1 - k]);
		if (k) {
			memo_link(m, k, &nc);
		} else {
			if (end == END_ZERO)
				m->checks[nc++] = (struct rt_check){ zero_slot, 0 };
			if (f->flags & RF_CFA_RBP)
				f->flags |= RF_BP_MATTERS;
			else
				f->flags &= (uint8_t)~RF_BP_MATTERS;
		}
	}
	parent = intern_frames(m, 0, m->f, n);
	m->n = n;
	m->cstart[n] = nc;
	m->end = (uint8_t)end;
	/* Memoize only complete, signal-free walks whose outer words can be re-verified. */
	m->valid = n && parent && !crossed && (end == END_ZERO || end == END_RULE);
	/* A stack cut at --stack-depth is what was asked for: counted, not flagged. */
	if (end == END_DEPTH && parent) {
		t->c_depth++;
	} else if (!parent) {
		truncated(t, flags, MT_RT_TRUNC_TABLE_FULL);
	} else if (end == END_BAD) {
		truncated(t, flags, why);
	}
	return parent;
}

uint32_t rt_capture(struct rt_thread *t, uint64_t entry_sp, uint64_t bp, uint8_t *flags)
{
	struct rt_memo *m = t->memo;
	struct rt_frame *scratch;
	struct rt_path *path, *replayed = NULL;
	uint64_t ip, sp, hi, zero_slot = 0;
	uint32_t gen, id;
	unsigned n = 0, depth = rt_cfg.depth;
	int p, limit, join = -1;
	bool exact = false, crossed = false;
	enum rt_walk_end end = END_NONE;
	unsigned why = MT_RT_TRUNC_MAX; /* enum mt_rt_trunc, when END_BAD */

	if (RT_UNLIKELY(!m)) {
		m = rt_mmap_anon(sizeof(struct rt_memo));
		if (!m)
			return 0;
		t->memo = m;
	}
	if (RT_UNLIKELY(!t->stack_hi))
		stack_bounds(t, entry_sp);
	scratch = m->scratch;
	hi = t->stack_hi;
	ip = load64(entry_sp);
	if (RT_UNLIKELY(t->no_stack_bounds || entry_sp >= hi || t->dead)) {
		/* Not on the thread's own stack (a fiber, an alternate signal stack): keep only the
		 * immediate caller, which is safe to read. */
		scratch[0] = (struct rt_frame){ .ip = ip, .sp = entry_sp + 8 };
		n = 1;
		end = END_BAD;
		why = MT_RT_TRUNC_OFF_STACK;
		goto full;
	}
	sp = entry_sp + 8;
	p = m->valid ? (int)m->n - 1 : -1;
	limit = p + 1;
	gen = __atomic_load_n(&path_gen, __ATOMIC_ACQUIRE);
	path = path_slot(m, entry_sp, ip);
	if (path_replay(path, ip, entry_sp, bp, gen, depth, scratch)) {
		n = path->k;
		ip = path->end_ip;
		sp = entry_sp + path->end_spoff;
		if (path->saver < n)
			bp = path->end_bp;
		zero_slot = sp - 8;
		replayed = path;
		t->c_reused += n;
	}
	while (n < depth) {
		uint64_t rule, cfa;
		struct rt_frame *f;

		if (!ip) {
			end = END_ZERO;
			break;
		}
		/* The memo holds the previous stack outermost first, so sp decreases towards
		 * f[n - 1]: move p outward until its sp is no longer below ours. */
		if (p >= 0 && !exact) {
			while (p >= 0 && m->f[p].sp < sp)
				p--;
			if (p >= 0 && p < limit && m->f[p].sp == sp && m->f[p].ip == ip &&
			    (m->f[p].bp == bp || !(m->f[p].flags & RF_BP_MATTERS)) &&
			    n + (unsigned)p + 1 <= depth) {
				int bad = verify(m, p);

				if (bad < 0) {
					join = p;
					break;
				}
				limit = bad; /* candidates at or inside the mismatch are dead too */
			}
		}
		rule = rule_of(exact ? ip | EXACT_BIT : ip, rt_region);
		f = &scratch[n++];
		f->ip = ip;
		f->sp = sp;
		f->bp = bp;
		f->bp_slot = 0;
		f->flags = rule_flags(rule);
		t->c_walked++;
		switch (R_KIND(rule)) {
		case RULE_END:
			end = END_RULE;
			goto walked;
		case RULE_UNSUPPORTED:
			end = END_BAD;
			why = R_WHY(rule);
			goto walked;
		case RULE_SIGNAL:
			if (!step_signal(hi, &ip, &sp, &bp)) {
				end = END_BAD;
				why = MT_RT_TRUNC_SIGNAL_FRAME;
				goto walked;
			}
			exact = true;
			crossed = true;
			continue;
		default:
			break;
		}
		cfa = (R_CFA_RBP(rule) ? bp : sp) + (uint64_t)(int64_t)R_CFA_OFF(rule);
		if (cfa <= sp || cfa > hi || cfa - sp > (64ull << 20)) {
			end = END_BAD;
			why = MT_RT_TRUNC_BAD_CFA;
			goto walked;
		}
		if (R_SAVES_RBP(rule)) {
			uint64_t slot = cfa + (uint64_t)(int64_t)R_RBP_OFF(rule);

			if (slot < sp || slot + 8 > hi) {
				end = END_BAD;
				why = MT_RT_TRUNC_BAD_CFA;
				goto walked;
			}
			f->bp_slot = slot;
			bp = load64(slot);
		}
		zero_slot = cfa - 8;
		ip = load64(zero_slot);
		sp = cfa;
		exact = false;
	}
	if (end == END_NONE && join < 0)
		end = END_DEPTH;
walked:
	if (join >= 0) {
		unsigned k = n < RT_PATH_MAX ? n : RT_PATH_MAX, top = (unsigned)join + n;
		struct rt_frame at = { .ip = ip, .sp = sp, .bp = bp }; /* the join's state */

		id = memo_join(t, m, scratch, n, (unsigned)join, crossed, flags, replayed);
		/* The path from this entry, kept or refreshed: the frame at its end may have
		 * another id now (its ids are refreshed), or the walk may have gone past it. */
		if (replayed)
			k = replayed->k;
		if (!crossed && id && k && (!replayed || replayed->parent != m->f[top - k].id))
			path_store(path, m, top, scratch, k, k < n ? &scratch[k] : &at, entry_sp,
				   gen);
		return id;
	}
full:
	return memo_full(t, m, scratch, n, end, why, zero_slot, crossed, flags);
}
