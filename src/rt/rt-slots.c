/* SPDX-License-Identifier: MIT */
/* The runtime's slots in the shared region: acquiring, reserving, finishing, telling the
 * recorder. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
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

/* ---- slots ---- */

static struct mt_rt_slot *slot_at(uint32_t i)
{
	return (struct mt_rt_slot *)((char *)rt_region + rt_region->slots_off +
				     (uint64_t)i * rt_region->slot_size);
}

void rt_notify_recorder(void)
{
	char b = MT_RT_MSG_NOTIFY;

	__atomic_add_fetch(&rt_region->notifies, 1, __ATOMIC_RELAXED);
	/* Never waits: a full socket means the recorder has notifications to read anyway, and
	 * without a socket it still collects the slots on its own schedule. */
	(void)rt_send(&b, 1, 0);
}

static void flush_counters(struct rt_thread *t)
{
	struct mt_rt_region *r = rt_region;

	__atomic_add_fetch(&r->frames_walked, t->c_walked, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->frames_reused, t->c_reused, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->memo_hits, t->c_memo_hits, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->truncated, t->c_truncated, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->depth_limited, t->c_depth, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->guard_events, t->c_guard, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->py_stacks, t->c_py_stacks, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->py_unplaced, t->c_py_unplaced, __ATOMIC_RELAXED);
	t->c_walked = t->c_reused = t->c_memo_hits = t->c_truncated = t->c_depth = t->c_guard = 0;
	t->c_py_stacks = t->c_py_unplaced = 0;
}

/* Hands the thread's slot to the recorder, which collects it at its next round; it is
 * woken only when READY slots pile up. */
RT_COLD void rt_slot_finish(struct rt_thread *t)
{
	struct mt_rt_region *r = rt_region;
	struct mt_rt_slot *s = t->slot;
	uint64_t *bits = (uint64_t *)((char *)r + r->ready_off);
	uint32_t i;

	if (!s)
		return;
	i = (uint32_t)(((char *)s - ((char *)r + r->slots_off)) / r->slot_size);
	s->end_time = rt_now();
	__atomic_add_fetch(&r->events, t->cnt, __ATOMIC_RELAXED);
	flush_counters(t);
	__atomic_store_n(&s->state, MT_RT_SLOT_READY, __ATOMIC_RELEASE);
	__atomic_or_fetch(&bits[i / 64], 1ull << (i % 64), __ATOMIC_RELEASE);
	t->slot = NULL;
	t->cnt = 0;
	if (__atomic_add_fetch(&r->ready_pending, 1, __ATOMIC_ACQ_REL) == r->wake_at)
		rt_notify_recorder();
}

/* Slot i is taken: if it never was before, its pages become memtap's now (populated, and
 * said in the taker's first row). */
static void slot_first_use(uint32_t i)
{
	uint64_t h = __atomic_load_n(&rt_region->slots_hwm, __ATOMIC_RELAXED);

	while (i + 1 > h && !__atomic_compare_exchange_n(&rt_region->slots_hwm, &h, i + 1, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (i + 1 > h)
		rt_own_grow(&rt_shm_slots,
			    rt_region->slots_off + (uint64_t)(i + 1) * rt_region->slot_size);
}

static bool slot_try_acquire(struct rt_thread *t)
{
	uint64_t *fb = (uint64_t *)((char *)rt_region + rt_region->free_off);
	uint32_t n = rt_region->nslots;

	/* The lowest free slot: reusing hot slots keeps the region's resident size small. One
	 * CAS on the free bitmap, not a scan of the slot headers (which the recorder writes). */
	for (uint32_t w = 0; w < (n + 63) / 64; w++) {
		uint64_t x = __atomic_load_n(&fb[w], __ATOMIC_ACQUIRE);

		while (x) {
			uint64_t bit = x & -x;
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(x);
			struct mt_rt_slot *s;

			if (!__atomic_compare_exchange_n(&fb[w], &x, x & ~bit, false,
							 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
				continue; /* x now holds the word's current value */
			if (i >= n)
				return false;
			s = slot_at(i);
			__atomic_store_n(&s->state, MT_RT_SLOT_FILLING, __ATOMIC_RELAXED);
			s->tid = t->tid;
			s->seq = __atomic_add_fetch(&rt_region->slot_seq, 1, __ATOMIC_RELAXED);
			s->prev_seq = t->last_seq;
			t->last_seq = s->seq;
			s->end_time = 0;
			__atomic_store_n(&s->count, 0, __ATOMIC_RELEASE);
			t->slot = s;
			t->cnt = 0;
			t->until = 1; /* a slot's first row is stamped */
			t->slot_t0 = rt_now();
			slot_first_use(i);
			return true;
		}
	}
	return false;
}

/* Set when a thread waited a whole second for a free slot (the recorder is stuck or gone):
 * from then on no thread waits, events without a free slot are dropped at once (counted),
 * until a slot is free again. The program is never held up for long. */
static bool starved;

/*
 * Sleeps until the recorder bumps *gen past seen (it frees slots, writes nodes) or timeout_ns
 * passes, counted in *waiters meanwhile so that it knows to wake someone. A shared futex
 * (the region is the recorder's mapping too), never a nap-and-poll: hundreds of threads
 * polling every few microseconds leave the recorder, the one that could free them, no CPU.
 */
RT_HIDDEN void rt_wait_recorder(uint32_t *waiters, uint32_t *gen, uint32_t seen, long timeout_ns)
{
	struct timespec ts = { 0, timeout_ns };

	__atomic_add_fetch(waiters, 1, __ATOMIC_SEQ_CST);
	rt_notify_recorder();
	if (__atomic_load_n(gen, __ATOMIC_SEQ_CST) == seen)
		(void)mt_rt_sys(SYS_futex, (long)gen, FUTEX_WAIT, (long)seen, (long)&ts, 0, 0);
	__atomic_sub_fetch(waiters, 1, __ATOMIC_SEQ_CST);
}

/*
 * Gets a slot with room for need rows. When every slot is taken the thread sleeps until the
 * recorder frees some (backpressure, counted with the time it took); after a second without
 * a free slot it gives up on this event, which is counted as dropped, rather than risk
 * stalling the workload forever.
 */
RT_COLD bool rt_slot_reserve(struct rt_thread *t, unsigned need)
{
	struct mt_rt_region *r = rt_region;
	uint64_t t0 = 0, waited = 0;
	int saved = errno;

	if (t->slot && t->cnt + need <= SLOT_WORDS)
		return true;
	if (t->slot)
		rt_slot_finish(t);
	if (RT_UNLIKELY(rt_injected))
		rt_inject_rescan();
	if (!t->tid)
		t->tid = (uint32_t)rt_gettid();
	for (;;) {
		/* the generation before the attempt: a slot freed after it wakes this thread */
		uint32_t gen = __atomic_load_n(&r->slot_gen, __ATOMIC_ACQUIRE);
		bool give_up;

		if (slot_try_acquire(t))
			break;
		give_up = __atomic_load_n(&starved, __ATOMIC_RELAXED);
		if (!t0) {
			t0 = rt_mono_ns();
			__atomic_add_fetch(&r->stalls, 1, __ATOMIC_RELAXED);
		}
		waited = rt_mono_ns() - t0;
		if (!give_up && waited >= 1000000000ull) {
			__atomic_store_n(&starved, true, __ATOMIC_RELAXED);
			rt_debug("no free slot for a second: events are dropped until one frees");
			give_up = true;
		}
		if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) != RT_READY || give_up) {
			__atomic_add_fetch(&r->dropped, 1, __ATOMIC_RELAXED);
			if (waited < 1000000000ull)
				__atomic_add_fetch(&r->starved_drops, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&r->stall_ns, waited, __ATOMIC_RELAXED);
			errno = saved;
			return false;
		}
		/* at most 10 ms at a time: a recorder that never wakes anyone (it died, or is
		 * older than the futex) is still noticed within the second */
		rt_wait_recorder(&r->slot_waiters, &r->slot_gen, gen, 10000000);
	}
	if (t0)
		__atomic_add_fetch(&r->stall_ns, rt_mono_ns() - t0, __ATOMIC_RELAXED);
	if (__atomic_load_n(&starved, __ATOMIC_RELAXED))
		__atomic_store_n(&starved, false, __ATOMIC_RELAXED);
	errno = saved;
	return true;
}
