/* SPDX-License-Identifier: MIT */
/* memtap's own memory inside the workload: the arena, its accounting, raw mappings. */
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

void rt_debug(const char *msg)
{
	static int on = -1;

	if (on < 0) {
		const char *d = getenv("MEMTAP_DEBUG");

		on = d && *d && *d != '0';
	}
	if (on) {
		(void)rt_sys3(SYS_write, 2, "memtap-rt: ", 11);
		(void)rt_sys3(SYS_write, 2, msg, strlen(msg));
		(void)rt_sys3(SYS_write, 2, "\n", 1);
	}
}

/*
 * memtap's own memory in the workload: every private table of the runtime (stack tries, rule
 * caches, per-thread memos and side buffers) comes from one arena reserved at start-up, so
 * that the recorder knows exactly which addresses are memtap's (the hello names the arena
 * and the shared region) and keeps them out of the workload's figures. Reserved with
 * MAP_NORESERVE: only the pages used become resident. Blocks given back (a thread's memo at
 * its exit) return their pages to the kernel and wait, by size, for the next taker.
 */

/* The raw syscall: calling mmap() here would enter the runtime's own mmap hook. Every int
 * argument is passed as a long, or the kernel reads the upper half of its register as
 * whatever was left there (a file offset far beyond the memfd's end, and SIGBUS on the first
 * write, with clang's code). */
static void *raw_mmap(size_t size)
{
	long p = mt_rt_sys(SYS_mmap, 0, (long)size, (long)(PROT_READ | PROT_WRITE),
			   (long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE), -1L, 0L);

	if (rt_sys_failed(p))
		return NULL;
	/* never on transparent huge pages (THP always): memtap's memory grows by the page it
	 * takes, and the process's huge pages stay the program's alone */
	(void)rt_sys3(SYS_madvise, p, size, MADV_NOHUGEPAGE);
	return (void *)p;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Makes [p, p + size) resident now (the pages it takes are memtap's from this moment): one
 * madvise, or a write per page where the kernel predates MADV_POPULATE_WRITE. */
static void populate(void *p, size_t size)
{
	if (!rt_sys_failed(rt_sys3(SYS_madvise, p, size, MADV_POPULATE_WRITE)))
		return;
	for (size_t off = 0; off < size; off += 4096)
		__atomic_fetch_add((volatile char *)p + off, 0, __ATOMIC_RELAXED);
}

static bool in_arena(const void *p)
{
	return rt_arena && (uintptr_t)p - (uintptr_t)rt_arena < RT_ARENA_SIZE;
}

/* A block given back earlier of exactly size bytes, zeroed, or NULL. */
static void *arena_reuse(size_t size)
{
	void *p = NULL;

	rt_lock(&rt_free_lock);
	for (struct rt_free **f = &rt_freed; *f; f = &(*f)->next)
		if ((*f)->size == size) {
			p = *f;
			*f = (*f)->next;
			break;
		}
	rt_unlock(&rt_free_lock);
	if (p)
		memset(p, 0, sizeof(struct rt_free)); /* the rest came back zeroed */
	return p;
}

void *rt_mmap_anon(size_t size)
{
	void *p;

	size = (size + 4095) & ~(size_t)4095;
	if (!rt_arena) {
		/* the first call, at start-up: reserve the arena */
		rt_arena_ns = rt_mono_ns();
		rt_arena = raw_mmap(RT_ARENA_SIZE);
		if (!rt_arena)
			return raw_mmap(size);
	}
	if (!(p = arena_reuse(size))) {
		uint64_t off = __atomic_fetch_add(&rt_arena_used, size, __ATOMIC_RELAXED);

		if (off + size > RT_ARENA_SIZE) {
			if (rt_region)
				__atomic_add_fetch(&rt_region->own_outside, size, __ATOMIC_RELAXED);
			return raw_mmap(size);
		}
		if (rt_region)
			__atomic_store_n(&rt_region->arena_used, off + size, __ATOMIC_RELAXED);
		p = rt_arena + off;
	}
	populate(p, size);
	__atomic_add_fetch(&rt_own_anon, size, __ATOMIC_RELAXED);
	rt_own_report();
	return p;
}

void rt_munmap(void *p, size_t size)
{
	if (!p)
		return;
	size = (size + 4095) & ~(size_t)4095;
	if (in_arena(p)) {
		struct rt_free *f = p;

		(void)rt_sys3(SYS_madvise, p, size, MADV_DONTNEED);
		__atomic_sub_fetch(&rt_own_anon, size, __ATOMIC_RELAXED);
		rt_own_report();
		f->size = size;
		rt_lock(&rt_free_lock);
		f->next = rt_freed;
		rt_freed = f;
		rt_unlock(&rt_free_lock);
		return;
	}
	(void)rt_sys2(SYS_munmap, p, size);
}

void rt_arena_drop(void *p, size_t size)
{
	size = (size + 4095) & ~(size_t)4095;
	if (!in_arena(p))
		return;
	(void)rt_sys3(SYS_madvise, p, size, MADV_DONTNEED);
	__atomic_sub_fetch(&rt_own_anon, size, __ATOMIC_RELAXED);
	rt_own_report();
}

/* memtap's resident part of the shared region: the populated prefix (header, bitmaps, the
 * slots ever taken) and the populated start of the node ring, a page shared by both once. */
uint64_t rt_own_shmem(void)
{
	uint64_t ring_lo, lo;

	if (!rt_region)
		return 0;
	ring_lo = rt_region->nodes_off & ~4095ull;
	lo = ring_lo > rt_shm_slots ? ring_lo : rt_shm_slots;
	return rt_shm_slots + (rt_shm_ring > lo ? rt_shm_ring - lo : 0);
}

/* Populates the region's [from, to) (offsets; whole pages) and moves *mark to its end. */
void rt_own_grow(uint64_t *mark, uint64_t to)
{
	uint64_t from;

	to = (to + 4095) & ~4095ull;
	rt_lock(&rt_own_lock);
	from = *mark;
	if (to > from) {
		populate((char *)rt_region + from, to - from);
		*mark = to;
	}
	rt_unlock(&rt_own_lock);
	if (to > from)
		rt_own_report();
}

void rt_own_ring(uint64_t id)
{
	uint64_t at;

	if (!rt_region || id >= rt_region->nodes_cap)
		return; /* the ring went round: all of it is resident already */
	at = rt_region->nodes_off + (id + 4096) * sizeof(struct mt_rt_node);
	if (at > rt_shm_ring)
		rt_own_grow(&rt_shm_ring, at < rt_region_size ? at : rt_region_size);
}
