/* SPDX-License-Identifier: MIT */
/* The hot path: slots, rows, stack capture, and the allocation and mapping hooks. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "rt/rt-internal.h"

/*
 * Event times. By default every row carries its own clock reading (the TSC where it is
 * invariant, else CLOCK_MONOTONIC through the vDSO), taken inside the hook: after the real
 * call returned for an allocation, before the real call for a free. That order is what
 * makes joins exact by construction: a block's address can be handed out again only after
 * its free's stamp, and no access through the pointer can precede its allocation's stamp.
 * The error against the real call is the hook's own few nanoseconds plus the recorder's
 * TSC conversion (docs/metrics.md, "Event times").
 *
 * --time-every N > 1 trades that for speed (a TSC read costs ~10 ns here): a busy thread
 * reads the clock on every Nth event only and writes 0 into the rows in between, which the
 * recorder interpolates between their slot's stamps. The interval adapts (a sparse span
 * makes the next events stamped one by one), but an idle gap inside a span still moves the
 * events before it by up to the gap: that mode's times carry no bound, and say so.
 */

static RT_COLD uint64_t stamp(struct rt_thread *t)
{
	uint64_t now = rt_now(), dt = now - t->last_stamp;

	if (dt > (uint64_t)t->every * rt_cfg.gap_ticks)
		t->every = 1;
	else if (t->every < rt_cfg.time_every)
		t->every = (uint16_t)(t->every * 2 < rt_cfg.time_every ? t->every * 2
								       : rt_cfg.time_every);
	t->until = t->every;
	t->last_stamp = now;
	return now;
}

static RT_INLINE uint64_t ev_time(struct rt_thread *t)
{
	if (RT_LIKELY(rt_cfg.time_every == 1))
		return rt_now();
	if (RT_LIKELY(--t->until != 0))
		return 0;
	return stamp(t);
}

/* ---- bootstrap pool: allocations made while dlsym resolves the real functions ---- */

static inline bool in_boot_pool(const void *p)
{
	return (uintptr_t)p - (uintptr_t)rt_boot_pool < sizeof(rt_boot_pool); /* one compare */
}

static void *boot_alloc(size_t n, size_t align)
{
	uintptr_t base = (uintptr_t)rt_boot_pool, at;
	size_t off, a = align < 16 ? 16 : align;

	/* Each block is preceded by its size, for realloc out of the pool; alignment is of the
	 * absolute address (memalign(4096) must get a page boundary). */
	if (a & (a - 1) || a > sizeof(rt_boot_pool)) {
		errno = EINVAL;
		return NULL;
	}
	at = (base + rt_boot_used + sizeof(size_t) + a - 1) & ~(uintptr_t)(a - 1);
	off = (size_t)(at - base);
	if (off + n > sizeof(rt_boot_pool) || n > sizeof(rt_boot_pool)) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(rt_boot_pool + off - sizeof(size_t), &n, sizeof(n));
	rt_boot_used = off + n;
	return rt_boot_pool + off; /* zeroed: the pool is static and never reused */
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const char *)p - sizeof(size_t), sizeof(n));
	return n;
}

/* ---- recording ---- */

static RT_INLINE uint64_t w0_of(uint64_t addr, unsigned kind, unsigned flags, bool timed)
{
	return (addr & MT_RT_W0_ADDR) | (uint64_t)kind << 56 | (timed ? MT_RT_W0_TIME : 0) |
	       (uint64_t)flags << 62;
}

/*
 * Rows go to the shared slot with plain stores. Non-temporal stores looked cheaper in a
 * single-threaded benchmark, but every locked instruction the program runs next (glibc
 * takes its arena lock in every free of a multi-threaded process) must first drain the
 * write-combining buffers to memory: 5x slower frees.
 */
static RT_INLINE void wput(uint64_t *w, uint64_t v)
{
	*w = v;
}

static RT_INLINE uint64_t stack_word(uint32_t stack, uint64_t slack)
{
	return (uint64_t)stack | (slack > UINT32_MAX ? (uint64_t)UINT32_MAX : slack) << 32;
}

/*
 * Makes room for a row (any row fits) in the thread's slot. Invariant kept by commit():
 * a slot that is still the thread's always has room for the longest row.
 */
static RT_INLINE bool room(struct rt_thread *t)
{
	return RT_LIKELY(t->slot != NULL) || rt_slot_reserve(t, MT_RT_ROW_MAX_WORDS);
}

static RT_INLINE void commit(struct rt_thread *t, unsigned words)
{
	t->cnt += words;
	__atomic_store_n(&t->slot->count, t->cnt, __ATOMIC_RELEASE);
	if (RT_UNLIKELY(t->cnt + MT_RT_ROW_MAX_WORDS > SLOT_WORDS))
		rt_slot_finish(t);
	if (RT_UNLIKELY(t->nside))
		rt_side_drain(t);
}

/* Hands an old slot over (RT_SLOT_AGE_NS), at a timed row. */
static RT_INLINE void aged(struct rt_thread *t, uint64_t time)
{
	if (RT_UNLIKELY(time - t->slot_t0 > rt_cfg.age_ticks) && time && t->slot)
		rt_slot_finish(t);
}

/* Moves the rows nested hooks left in the side buffer into the slot, after the
 * interrupted hook committed its own row. */
RT_COLD void rt_side_drain(struct rt_thread *t)
{
	uint64_t w[RT_SIDE_WORDS];
	unsigned n = t->nside;

	memcpy(w, t->side, n * sizeof(w[0]));
	t->nside = 0;
	for (unsigned i = 0; i < n;) {
		unsigned k = mt_rt_row_words(w[i]);

		if (!k || i + k > n || !room(t))
			return;
		for (unsigned q = 0; q < k; q++)
			wput(&t->slot->words[t->cnt + q], w[i + q]);
		commit(t, k);
		i += k;
	}
}

/* Rows of nested hooks (a signal handler interrupting a hook) wait in the side buffer
 * until the interrupted hook has committed its own row. */
static void side_put(struct rt_thread *t, const uint64_t *w, unsigned n)
{
	if (!t->side || t->nside + n > RT_SIDE_WORDS) {
		__atomic_add_fetch(&rt_region->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	memcpy(&t->side[t->nside], w, n * sizeof(*w));
	t->nside += n;
	t->c_guard++;
}

/*
 * py: Python frames wanted. Not for rows of calls that unmapped memory (munmap, mremap):
 * CPython 3.11 frees a frame stack chunk (munmap) while the chunk's last frame is still the
 * current one (RETURN_GENERATOR pops before it unlinks), so after such a call the thread's
 * frame chain may point into memory that is gone.
 */
static RT_INLINE uint32_t capture(struct rt_thread *t, uint64_t sp, uint64_t bp, uint8_t *flags,
				  bool py)
{
	*flags = 0;
	if (rt_cfg.depth == 1) {
		/* The immediate caller, from the thread's cache when it has seen it before. */
		if (RT_LIKELY(t->cap1_ok && sp < t->stack_hi)) {
			uint64_t ip = *(const uint64_t *)sp;
			const struct rt_icache_ent *e = rt_icache_slot(t->memo, 0, ip);

			if (RT_LIKELY(e->ip == ip && e->parent == 0 && ip))
				return e->id;
		}
		return rt_capture1(t, sp);
	}
	if (!rt_cfg.depth)
		return 0;
	if (rt_py_on && py)
		return rt_py_merge(t, rt_capture(t, sp, bp, flags));
	return rt_capture(t, sp, bp, flags);
}

/*
 * malloc_usable_size() without the call, when the allocator is glibc's own: the chunk's
 * size word sits just before the block (glibc 2.26-2.40 malloc.c, musable(): the chunk
 * size minus one size word, or minus two for an mmapped chunk). Any other allocator (a
 * preloaded jemalloc, libc_malloc_debug) is asked through its malloc_usable_size().
 */

static RT_INLINE size_t usable_size(void *p)
{
	if (RT_LIKELY(rt_glibc_heap)) {
		uint64_t sz;

		memcpy(&sz, (const char *)p - 8, sizeof(sz));
		return (sz & ~(uint64_t)7) - ((sz & 2) ? 16 : 8);
	}
	return rt_libc.usable(p);
}

/* The fast path of every allocation: t->mode is TM_BUSY for the duration. */
static RT_INLINE void put_alloc(struct rt_thread *t, unsigned kind, void *p, size_t size, void *old,
				uint64_t sp, uint64_t bp)
{
	uint8_t flags;
	uint32_t stack = capture(t, sp, bp, &flags, true);
	size_t usable = p ? usable_size(p) : size;
	uint64_t time, *w;
	unsigned n = 0;

	if (!room(t))
		return;
	time = ev_time(t);
	w = &t->slot->words[t->cnt];
	wput(&w[n++], w0_of((uint64_t)p, kind, flags, time != 0));
	if (time)
		wput(&w[n++], time);
	wput(&w[n++], size);
	wput(&w[n++], stack_word(stack, usable > size ? usable - size : 0));
	if (kind == MT_RT_REALLOC || kind == MT_RT_REALLOCARRAY)
		wput(&w[n++], (uint64_t)old);
	commit(t, n);
	aged(t, time);
	if (RT_UNLIKELY(size >= rt_wp_min) && p)
		rt_wp_auto((uint64_t)p, size, false); /* a large block: its page writes, exactly */
	else if (RT_UNLIKELY(size >= RT_WP_SITE_BLOCK) && p && stack && rt_wp_min != UINT64_MAX &&
		 rt_wp_site_tally(stack, size))
		rt_wp_auto((uint64_t)p, size, false); /* a site that allocates much: the same */
}

static RT_INLINE void put_free(struct rt_thread *t, void *p)
{
	uint64_t time, *w;

	if (!room(t))
		return;
	time = ev_time(t);
	w = &t->slot->words[t->cnt];
	wput(&w[0], w0_of((uint64_t)p, MT_RT_FREE, 0, time != 0));
	if (time)
		wput(&w[1], time);
	commit(t, time ? 2 : 1);
	aged(t, time);
}

/* Mapping rows: addr, then size (length, or the old break), [ea, eb], the stack. */
static void put_map(struct rt_thread *t, unsigned kind, uint64_t addr, uint64_t size, bool ext,
		    uint64_t ea, uint64_t eb, uint64_t sp, uint64_t bp)
{
	uint8_t flags;
	uint32_t stack = capture(t, sp, bp, &flags, kind != MT_RT_MUNMAP && kind != MT_RT_MREMAP);
	uint64_t *w;
	unsigned n = 0;

	if (!room(t))
		return;
	w = &t->slot->words[t->cnt];
	wput(&w[n++], w0_of(addr, kind, flags, true));
	wput(&w[n++], stamp(t)); /* rare events: always exact */
	wput(&w[n++], size);
	if (ext) {
		wput(&w[n++], ea);
		wput(&w[n++], eb);
	}
	wput(&w[n++], stack);
	commit(t, n);
}

void rt_put_mark(struct rt_thread *t, uint64_t span)
{
	uint64_t *w;

	if (!room(t))
		return;
	w = &t->slot->words[t->cnt];
	wput(&w[0], w0_of(span, MT_RT_MARK, 0, true));
	wput(&w[1], stamp(t));
	commit(t, 2);
}

/* A nested event: no stack (the walk could race the interrupted one), into the side buffer. */
static void put_nested(struct rt_thread *t, unsigned kind, uint64_t addr, uint64_t size, bool ext,
		       uint64_t ea, uint64_t eb)
{
	uint64_t w[MT_RT_ROW_MAX_WORDS];
	unsigned n = 0;

	w[n++] = w0_of(addr, kind, MT_RT_ROW_NOSTACK_GUARD, true);
	w[n++] = rt_now();
	if (kind <= MT_RT_PVALLOC) {
		w[n++] = size;
		w[n++] = 0; /* no stack; the usable size is not asked for inside a handler */
		if (kind == MT_RT_REALLOC || kind == MT_RT_REALLOCARRAY)
			w[n++] = ea;
	} else if (kind != MT_RT_FREE) {
		w[n++] = size;
		if (ext) {
			w[n++] = ea;
			w[n++] = eb;
		}
		w[n++] = 0;
	}
	side_put(t, w, n);
}

/* The newest totals, for the recorder's next round (rt-proto.h, own_now_seq). Threads that
 * report at once may interleave their stores; each stores totals read just before, so what
 * the recorder reads is a reading of each total, from the last moment either changed. */
static void rt_own_publish(const struct mt_rt_own *m)
{
	struct mt_rt_region *r = rt_region;

	__atomic_store_n(&r->own_now_anon, m->anon, __ATOMIC_RELAXED);
	__atomic_store_n(&r->own_now_shmem, m->shmem, __ATOMIC_RELAXED);
	__atomic_store_n(&r->own_now_ns, m->time_ns, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->own_now_seq, 1, __ATOMIC_RELEASE);
}

/* Tells the recorder memtap's resident memory now: a row in the calling thread's slot (in
 * order, timed, never lost), or, when the thread has no slot at hand, the newest totals in
 * the region, which the recorder reads at its next round (never a wait: hundreds of threads
 * starting at once each report their first memory). */
void rt_own_report(void)
{
	struct rt_thread *t = &rt_self;
	struct mt_rt_own m = { .type = MT_RT_MSG_OWN };

	if (!rt_region || !__atomic_load_n(&rt_live, __ATOMIC_ACQUIRE))
		return; /* the greeting carries the totals */
	m.anon = __atomic_load_n(&rt_own_anon, __ATOMIC_RELAXED);
	m.shmem = rt_own_shmem();
	if (t->slot && t->cnt + MT_RT_ROW_MAX_WORDS <= SLOT_WORDS) {
		uint64_t *w = &t->slot->words[t->cnt];

		w[0] = (uint64_t)MT_RT_OWN << 56 | MT_RT_W0_TIME;
		w[1] = rt_now();
		w[2] = m.anon;
		w[3] = m.shmem;
		commit(t, 4);
		return;
	}
	m.time_ns = rt_mono_ns();
	rt_own_publish(&m);
}

/*
 * True while the real functions are not yet known. The first hook to run (which can be a
 * library constructor that runs before ours) initialises the runtime; calls made while
 * dlsym resolves the real functions, in init, are served from the bootstrap pool.
 */
static inline bool booting(void)
{
	if (RT_LIKELY(rt_libc.malloc != NULL))
		return false;
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) == RT_UNINIT)
		rt_init();
	return !rt_libc.malloc;
}

/*
 * The slow path's decision for the calling thread: TM_READY (record; the thread is now
 * set up), TM_BUSY (a nested call: side buffer), or TM_OFF (forward only).
 */
int rt_slow_mode(struct rt_thread *t)
{
	int st = __atomic_load_n(&rt_state, __ATOMIC_ACQUIRE);
	uint32_t live;

	t->probed = true;
	if (st == RT_UNINIT) {
		rt_init();
		st = __atomic_load_n(&rt_state, __ATOMIC_ACQUIRE);
	}
	if (st != RT_READY || t->mode == TM_OFF)
		return TM_OFF;
	if (t->mode == TM_BUSY)
		return TM_BUSY;
	if (RT_UNLIKELY(!rt_region)) {
		/* A fork child's first event: its own region and connection. */
		t->mode = TM_OFF;
		rt_attach();
		t->mode = TM_SETUP;
		if (!__atomic_load_n(&rt_live, __ATOMIC_ACQUIRE))
			return TM_OFF;
	}
	if (!t->tid) {
		t->tid = (uint32_t)rt_gettid();
		if (rt_key_ok) {
			t->mode = TM_OFF;
			pthread_setspecific(rt_key, t);
		}
	}
	if (!t->side && !t->dead)
		t->side =
			rt_mmap_anon(RT_SIDE_WORDS * sizeof(uint64_t)); /* none: nested rows drop */
	live = __atomic_load_n(&rt_live, __ATOMIC_ACQUIRE);
	if (t->epoch != live && t->epoch > 2 && live) {
		/* Set up in an earlier connection (the process is recorded again after a
		 * detach): that slot is the old region's, whose recorder is gone. */
		t->slot = NULL;
		t->cnt = 0;
		t->last_seq = 0;
		t->nside = 0;
	}
	t->epoch = live ? live : 2;
	t->mode = TM_READY;
	return live ? TM_READY : TM_OFF;
}

/* ---- allocation hooks (entered from the stubs) ---- */

RT_HIDDEN void *mt_rt_malloc(size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_calloc(size_t n, size_t m, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_realloc(void *p, size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_reallocarray(void *p, size_t n, size_t m, uint64_t sp, uint64_t bp);
RT_HIDDEN int mt_rt_posix_memalign(void **pp, size_t a, size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_aligned_alloc(size_t a, size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_memalign(size_t a, size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_valloc(size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_pvalloc(size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN int mt_rt_munmap(void *p, size_t n, uint64_t sp, uint64_t bp);
RT_HIDDEN int mt_rt_brk(void *addr, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_sbrk(intptr_t inc, uint64_t sp, uint64_t bp);
RT_HIDDEN void *mt_rt_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
RT_HIDDEN void *mt_rt_mremap(void *old, size_t old_len, size_t new_len, int flags, ...);

/*
 * Every allocation function has the same shape: the fast path when the thread records;
 * otherwise the slow path, which boots, sets the thread up, forwards, or (nested in another
 * hook) records into the side buffer. The call itself is made by the macro's body.
 */
#define ALLOC_HOOK(kind, call, size, old)                                                  \
	struct rt_thread *t = &rt_self;                                                    \
	void *p;                                                                           \
	int m;                                                                             \
                                                                                           \
	if (FAST(t)) {                                                                     \
		t->mode = TM_BUSY;                                                         \
		p = call;                                                                  \
		if (RT_LIKELY(p != NULL))                                                  \
			put_alloc(t, kind, p, size, old, sp, bp);                          \
		t->mode = TM_READY;                                                        \
		return p;                                                                  \
	}                                                                                  \
	m = rt_slow_mode(t);                                                               \
	if (m == TM_READY)                                                                 \
		t->mode = TM_BUSY;                                                         \
	p = call;                                                                          \
	if (m == TM_READY) {                                                               \
		if (p)                                                                     \
			put_alloc(t, kind, p, size, old, sp, bp);                          \
		t->mode = TM_READY;                                                        \
	} else if (m == TM_BUSY && p) {                                                    \
		put_nested(t, kind, (uint64_t)p, size, (old) != NULL, (uint64_t)(old), 0); \
	}                                                                                  \
	return p

void *mt_rt_malloc(size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, 16);
	ALLOC_HOOK(MT_RT_MALLOC, rt_libc.malloc(n), n, (void *)NULL);
}

void *mt_rt_calloc(size_t n, size_t nm, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */ {
		if (nm && n > SIZE_MAX / nm) {
			errno = ENOMEM;
			return NULL;
		}
		return boot_alloc(n * nm, 16);
	}
	ALLOC_HOOK(MT_RT_CALLOC, rt_libc.calloc(n, nm), n * nm, (void *)NULL);
}

/* realloc is not the macro's shape: realloc(p, 0) returning NULL is a free to record. */
static inline void *realloc_common(void *old, size_t n, unsigned kind, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	bool tracked;
	void *p;
	int m;

	if (RT_UNLIKELY(old && in_boot_pool(old))) {
		/* Out of the bootstrap pool into the real heap (the pool itself is never freed). */
		size_t have = boot_size(old);

		p = booting() ? boot_alloc(n, 16) : rt_libc.malloc(n);
		if (p)
			memcpy(p, old, have < n ? have : n);
		return p;
	}
	if (!FAST(t) && booting())
		return boot_alloc(n, 16);
	m = FAST(t) ? TM_READY : rt_slow_mode(t);
	if (m == TM_READY)
		t->mode = TM_BUSY;
	/* realloc may move or free the block: a tracked one's writes are taken first */
	tracked = RT_UNLIKELY(rt_wp_live) && m == TM_READY && old && rt_wp_release((uint64_t)old);
	p = rt_libc.realloc(old, n);
	if (RT_UNLIKELY(tracked) && !p && n)
		rt_wp_auto((uint64_t)old, usable_size(old), false); /* it failed: tracked again */
	/* A failed realloc changes nothing; realloc(p, 0) returning NULL freed p. */
	if (m == TM_READY) {
		if (p || (old && n == 0))
			put_alloc(t, kind, p, n, old, sp, bp);
		t->mode = TM_READY;
	} else if (m == TM_BUSY && (p || (old && n == 0))) {
		put_nested(t, kind, (uint64_t)p, n, true, (uint64_t)old, 0);
	}
	return p;
}

void *mt_rt_realloc(void *old, size_t n, uint64_t sp, uint64_t bp)
{
	return realloc_common(old, n, MT_RT_REALLOC, sp, bp);
}

/* What glibc's reallocarray does, done here: calling it would enter our realloc hook from
 * inside this one and record the call twice. */
void *mt_rt_reallocarray(void *old, size_t n, size_t nm, uint64_t sp, uint64_t bp)
{
	if (nm && n > SIZE_MAX / nm) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_common(old, n * nm, MT_RT_REALLOCARRAY, sp, bp);
}

void *mt_rt_aligned_alloc(size_t a, size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, a);
	ALLOC_HOOK(MT_RT_ALIGNED_ALLOC, rt_libc.aligned_alloc(a, n), n, (void *)NULL);
}

void *mt_rt_memalign(size_t a, size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, a);
	ALLOC_HOOK(MT_RT_MEMALIGN, rt_libc.memalign(a, n), n, (void *)NULL);
}

void *mt_rt_valloc(size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, 4096);
	ALLOC_HOOK(MT_RT_VALLOC, rt_libc.valloc(n), n, (void *)NULL);
}

void *mt_rt_pvalloc(size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, 4096);
	ALLOC_HOOK(MT_RT_PVALLOC, rt_libc.pvalloc(n), n, (void *)NULL);
}

int mt_rt_posix_memalign(void **pp, size_t a, size_t n, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	int m, r;

	if (booting()) {
		void *p = boot_alloc(n, a);

		if (!p)
			return ENOMEM;
		*pp = p;
		return 0;
	}
	m = FAST(t) ? TM_READY : rt_slow_mode(t);
	if (m == TM_READY)
		t->mode = TM_BUSY;
	r = rt_libc.posix_memalign(pp, a, n);
	if (m == TM_READY) {
		if (!r)
			put_alloc(t, MT_RT_POSIX_MEMALIGN, *pp, n, NULL, sp, bp);
		t->mode = TM_READY;
	} else if (m == TM_BUSY && !r) {
		put_nested(t, MT_RT_POSIX_MEMALIGN, (uint64_t)*pp, n, false, 0, 0);
	}
	return r;
}

RT_EXPORT void free(void *p)
{
	struct rt_thread *t = &rt_self;
	int m;

	if (FAST(t) && RT_LIKELY(p != NULL) && !in_boot_pool(p)) {
		/* Recorded before the real free: the block cannot be reused before its free shows. */
		t->mode = TM_BUSY;
		if (RT_UNLIKELY(rt_wp_live))
			rt_wp_release((uint64_t)p);
		put_free(t, p);
		rt_libc.free(p);
		t->mode = TM_READY;
		return;
	}
	if (!p || in_boot_pool(p) || booting())
		return; /* while booting, nothing outside the pool exists to be freed */
	m = rt_slow_mode(t);
	if (m == TM_READY) {
		t->mode = TM_BUSY;
		if (rt_wp_live)
			rt_wp_release((uint64_t)p);
		put_free(t, p);
		rt_libc.free(p);
		t->mode = TM_READY;
		return;
	}
	if (m == TM_BUSY)
		put_nested(t, MT_RT_FREE, (uint64_t)p, 0, false, 0, 0);
	rt_libc.free(p);
}

/* ---- mapping hooks: rare, so one shape with the slow-path decision ---- */

static inline int map_enter(struct rt_thread *t)
{
	int m = FAST(t) ? TM_READY : rt_slow_mode(t);

	if (m == TM_READY)
		t->mode = TM_BUSY;
	return m;
}

static void map_leave(struct rt_thread *t, int m, bool ok, unsigned kind, uint64_t addr,
		      uint64_t size, bool ext, uint64_t ea, uint64_t eb, uint64_t sp, uint64_t bp)
{
	int saved = errno;

	if (m == TM_READY) {
		if (ok)
			put_map(t, kind, addr, size, ext, ea, eb, sp, bp);
		t->mode = TM_READY;
	} else if (m == TM_BUSY && ok) {
		put_nested(t, kind, addr, size, ext, ea, eb);
	}
	errno = saved;
}

void *mt_rt_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	uint64_t sp = mt_rt_entry_sp, bp = mt_rt_entry_bp;
	struct rt_thread *t = &rt_self;
	int m;
	void *p;

	if (RT_UNLIKELY(!rt_libc.mmap) && (booting() || !rt_libc.mmap))
		return (void *)syscall(SYS_mmap, addr, len, (long)prot, (long)flags, (long)fd,
				       (long)off);
	m = map_enter(t);
	if (RT_UNLIKELY(rt_wp_live) && m == TM_READY && (flags & MAP_FIXED))
		rt_wp_release_range((uint64_t)addr, len); /* replaced: tracked ranges end */
	p = rt_libc.mmap(addr, len, prot, flags, fd, off);
	map_leave(t, m, p != MAP_FAILED, MT_RT_MMAP, (uint64_t)p, len, true, (uint64_t)off,
		  (uint64_t)(unsigned)prot | (uint64_t)(unsigned)flags << 32, sp, bp);
	/* a large writable anonymous mapping: its page writes, exactly (not a MAP_NORESERVE
	 * reservation, sparse by intent) */
	if (RT_UNLIKELY(len >= rt_wp_min) && m == TM_READY && p != MAP_FAILED &&
	    (flags & MAP_ANONYMOUS) && (prot & PROT_WRITE) &&
	    !(flags & (MAP_STACK | MAP_NORESERVE))) {
		int saved = errno;

		t->mode = TM_BUSY;
		rt_wp_auto((uint64_t)p, len, true);
		t->mode = TM_READY;
		errno = saved;
	}
	return p;
}

int mt_rt_munmap(void *p, size_t n, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	int m, r;

	if (RT_UNLIKELY(!rt_libc.munmap))
		return (int)syscall(SYS_munmap, p, n);
	m = map_enter(t);
	if (RT_UNLIKELY(rt_wp_live) && m == TM_READY)
		rt_wp_release_range((uint64_t)p, n);
	r = rt_libc.munmap(p, n);
	map_leave(t, m, r == 0, MT_RT_MUNMAP, (uint64_t)p, n, false, 0, 0, sp, bp);
	return r;
}

void *mt_rt_mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	uint64_t sp = mt_rt_entry_sp, bp = mt_rt_entry_bp;
	struct rt_thread *t = &rt_self;
	void *naddr = NULL, *p;
	va_list ap;
	int m;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		naddr = va_arg(ap, void *);
		va_end(ap);
	}
	if (RT_UNLIKELY(!rt_libc.mremap))
		return (void *)syscall(SYS_mremap, old, old_len, new_len, (long)flags, naddr);
	m = map_enter(t);
	if (RT_UNLIKELY(rt_wp_live) && m == TM_READY)
		rt_wp_release_range((uint64_t)old,
				    old_len); /* a moved range loses its registration */
	p = rt_libc.mremap(old, old_len, new_len, flags, naddr);
	map_leave(t, m, p != MAP_FAILED, MT_RT_MREMAP, (uint64_t)p, new_len, true, (uint64_t)old,
		  (uint64_t)old_len | (uint64_t)(unsigned)flags << 48, sp, bp);
	return p;
}

int mt_rt_brk(void *addr, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	void *before;
	int m, r;

	if (RT_UNLIKELY(!rt_libc.brk || !rt_libc.sbrk))
		return (int)syscall(SYS_brk, addr) == (long)addr ? 0 : -1;
	m = map_enter(t);
	before = rt_libc.sbrk(0);
	r = rt_libc.brk(addr);
	map_leave(t, m, r == 0, MT_RT_BRK, (uint64_t)addr, (uint64_t)before, false, 0, 0, sp, bp);
	return r;
}

void *mt_rt_sbrk(intptr_t inc, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	void *p;
	int m;

	if (RT_UNLIKELY(!rt_libc.sbrk)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	m = map_enter(t);
	p = rt_libc.sbrk(inc);
	map_leave(t, m, p != (void *)-1 && inc, MT_RT_BRK, (uint64_t)p + (uint64_t)inc, (uint64_t)p,
		  false, 0, 0, sp, bp);
	return p;
}

/* Records nothing of its own: a discard of tracked pages, or huge pages asked for over them,
 * changes their tracking (rt_wp_madvise) before the real call. */
RT_EXPORT int madvise(void *addr, size_t len, int advice)
{
	struct rt_thread *t = &rt_self;

	if (RT_UNLIKELY(!rt_libc.madvise))
		return (int)syscall(SYS_madvise, addr, len, (long)advice);
	if (RT_UNLIKELY(rt_wp_live)) {
		int m = map_enter(t), saved = errno;

		if (m == TM_READY) {
			rt_wp_madvise((uint64_t)addr, len, advice);
			t->mode = TM_READY;
		}
		errno = saved;
	}
	return rt_libc.madvise(addr, len, advice);
}

RT_EXPORT int dlclose(void *handle)
{
	int r;

	if (!rt_libc.dlclose)
		rt_init();
	if (!rt_libc.dlclose)
		return -1;
	r = rt_libc.dlclose(handle);
	if (!r)
		rt_unwind_flush_rules();
	return r;
}
