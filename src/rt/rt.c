/* SPDX-License-Identifier: MIT */
/* libmemtap-rt: allocation and mapping hooks that append events to shared-memory slots. */
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

#define RT_EXPORT __attribute__((visibility("default")))

/*
 * Rules of this file, because it runs inside other people's programs:
 *  - no malloc and no stdio anywhere on a hook's path: memory comes from mmap, messages
 *    from write(2) only when MEMTAP_DEBUG is set;
 *  - errno is what the real function left;
 *  - nothing blocks on a lock another thread could hold across fork;
 *  - when the recorder is gone, the hooks just forward.
 */

enum rt_state {
	RT_UNINIT,
	RT_INITIALIZING,
	RT_READY, /* recording */
	RT_PASSIVE, /* forwarding only: not under memtap, or the recorder went away */
};

struct rt_real {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*usable)(void *);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	int (*brk)(void *);
	void *(*sbrk)(intptr_t);
	int (*dlclose)(void *);
};

static struct rt_real real;
static int rt_state = RT_UNINIT;
static struct rt_thread *rt_init_thread; /* its TLS block names the initialising thread */
static pid_t rt_pid;
static int rt_sock = -1;
static int rt_uffd = -1, rt_pagemap = -1; /* page-write tracking (wp_track) */
static int rt_wp_lock;
static unsigned rt_wp_ranges; /* registered by this process */
static size_t rt_region_size;
static pthread_key_t rt_key;
static bool rt_key_ok;

bool rt_live RT_HIDDEN;
struct rt_config rt_cfg RT_HIDDEN;
struct mt_rt_region *rt_region RT_HIDDEN;
__thread struct rt_thread rt_self RT_TLS RT_HIDDEN;
__thread uint64_t mt_rt_entry_sp RT_TLS RT_HIDDEN;
__thread uint64_t mt_rt_entry_bp RT_TLS RT_HIDDEN;

/* ---- small libc-free helpers ---- */

static pid_t rt_gettid(void)
{
	return (pid_t)rt_sys0(SYS_gettid);
}

static void rt_debug(const char *msg)
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
#define RT_ARENA_SIZE (1ull << 30)

struct rt_free {
	struct rt_free *next;
	size_t size;
};

static char *rt_arena;
static uint64_t rt_arena_used;
static uint64_t rt_own_anon; /* memtap's resident bytes in the arena (rt-proto.h) */
static uint64_t rt_shm_slots, rt_shm_ring; /* the region's populated prefix, and the ring's */
static int rt_own_lock;
static uint64_t rt_arena_ns; /* CLOCK_MONOTONIC when it was reserved */
static struct rt_free *rt_freed;
static int rt_free_lock;

/* The raw syscall: calling mmap() here would enter the runtime's own mmap hook. Every int
 * argument is passed as a long, or the kernel reads the upper half of its register as
 * whatever was left there (a file offset far beyond the memfd's end, and SIGBUS on the first
 * write, with clang's code). */
static void *raw_mmap(size_t size)
{
	long p = mt_rt_sys(SYS_mmap, 0, (long)size, (long)(PROT_READ | PROT_WRITE),
			   (long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE), -1L, 0L);

	return rt_sys_failed(p) ? NULL : (void *)p;
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

static void rt_own_report(void);
static inline void commit(struct rt_thread *t, unsigned words);

static bool in_arena(const void *p)
{
	return rt_arena && (uintptr_t)p - (uintptr_t)rt_arena < RT_ARENA_SIZE;
}

/* A block given back earlier of exactly size bytes, zeroed, or NULL. */
static void *arena_reuse(size_t size)
{
	void *p = NULL;

	rt_spin_lock(&rt_free_lock);
	for (struct rt_free **f = &rt_freed; *f; f = &(*f)->next)
		if ((*f)->size == size) {
			p = *f;
			*f = (*f)->next;
			break;
		}
	rt_spin_unlock(&rt_free_lock);
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
		rt_spin_lock(&rt_free_lock);
		f->next = rt_freed;
		rt_freed = f;
		rt_spin_unlock(&rt_free_lock);
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
static uint64_t own_shmem(void)
{
	uint64_t ring_lo, lo;

	if (!rt_region)
		return 0;
	ring_lo = rt_region->nodes_off & ~4095ull;
	lo = ring_lo > rt_shm_slots ? ring_lo : rt_shm_slots;
	return rt_shm_slots + (rt_shm_ring > lo ? rt_shm_ring - lo : 0);
}

/* Populates the region's [from, to) (offsets; whole pages) and moves *mark to its end. */
static void own_grow(uint64_t *mark, uint64_t to)
{
	uint64_t from;

	to = (to + 4095) & ~4095ull;
	rt_spin_lock(&rt_own_lock);
	from = *mark;
	if (to > from) {
		populate((char *)rt_region + from, to - from);
		*mark = to;
	}
	rt_spin_unlock(&rt_own_lock);
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
		own_grow(&rt_shm_ring, at < rt_region_size ? at : rt_region_size);
}

static inline uint64_t rt_now(void)
{
	return RT_LIKELY(rt_cfg.tsc) ? __rdtsc() : rt_mono_ns();
}

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
#define RT_GAP_NS 2000u

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

static _Alignas(64) char boot_pool[64 << 10];
static size_t boot_used;

static inline bool in_boot_pool(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot_pool < sizeof(boot_pool); /* one compare */
}

static void *boot_alloc(size_t n, size_t align)
{
	uintptr_t base = (uintptr_t)boot_pool, at;
	size_t off, a = align < 16 ? 16 : align;

	/* Each block is preceded by its size, for realloc out of the pool; alignment is of the
	 * absolute address (memalign(4096) must get a page boundary). */
	if (a & (a - 1) || a > sizeof(boot_pool)) {
		errno = EINVAL;
		return NULL;
	}
	at = (base + boot_used + sizeof(size_t) + a - 1) & ~(uintptr_t)(a - 1);
	off = (size_t)(at - base);
	if (off + n > sizeof(boot_pool) || n > sizeof(boot_pool)) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(boot_pool + off - sizeof(size_t), &n, sizeof(n));
	boot_used = off + n;
	return boot_pool + off; /* zeroed: the pool is static and never reused */
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const char *)p - sizeof(size_t), sizeof(n));
	return n;
}

/* ---- configuration ---- */

#define NODES_CAP (1u << 20) /* the stack node ring: 16 MiB */

/* Reads "v=1;sock=NAME;depth=N;time=tsc;slots=N" without allocating. */
static bool parse_config(const char *s)
{
	bool have_sock = false;

	rt_cfg.depth = 128;
	rt_cfg.tsc = false;
	rt_cfg.nslots = 1024;
	rt_cfg.time_every = 1;
	rt_cfg.trie_bits = 21;
	rt_cfg.nodes_cap = NODES_CAP;
	while (s && *s) {
		const char *end = strchr(s, ';'), *eq = strchr(s, '=');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (eq && (size_t)(eq - s) < len) {
			size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
			const char *v = eq + 1;

			if (klen == 4 && !memcmp(s, "sock", 4) && vlen < sizeof(rt_cfg.sock)) {
				memcpy(rt_cfg.sock, v, vlen);
				rt_cfg.sock[vlen] = 0;
				have_sock = true;
			} else if (klen == 5 && !memcmp(s, "depth", 5)) {
				rt_cfg.depth = (unsigned)strtoul(v, NULL, 10);
				if (rt_cfg.depth > RT_MAX_DEPTH)
					rt_cfg.depth = RT_MAX_DEPTH;
			} else if (klen == 2 && !memcmp(s, "pw", 2)) {
				rt_cfg.page_writes = vlen == 1 && *v == '1';
			} else if (klen == 4 && !memcmp(s, "hide", 4)) {
				rt_cfg.hide = vlen == 1 && *v == '1';
			} else if (klen == 4 && !memcmp(s, "time", 4)) {
				rt_cfg.tsc = vlen == 3 && !memcmp(v, "tsc", 3);
			} else if (klen == 6 && !memcmp(s, "tevery", 6)) {
				rt_cfg.time_every = (unsigned)strtoul(v, NULL, 10);
				if (rt_cfg.time_every < 1)
					rt_cfg.time_every = 1;
				if (rt_cfg.time_every > 256)
					rt_cfg.time_every = 256;
			} else if (klen == 5 && !memcmp(s, "tbits", 5)) {
				/* tests: a small trie index, emptied often */
				unsigned b = (unsigned)strtoul(v, NULL, 10);

				rt_cfg.trie_bits = b < 6 ? 6 : b > 21 ? 21 : b;
			} else if (klen == 5 && !memcmp(s, "nodes", 5)) {
				/* tests: a small node ring, so that threads wait for the recorder */
				unsigned long n = strtoul(v, NULL, 10);

				if (n >= 16 && n <= NODES_CAP && !(n & (n - 1)))
					rt_cfg.nodes_cap = (unsigned)n;
			} else if (klen == 5 && !memcmp(s, "slots", 5)) {
				rt_cfg.nslots = (unsigned)strtoul(v, NULL, 10);
				if (rt_cfg.nslots < 4)
					rt_cfg.nslots = 4;
				if (rt_cfg.nslots > 65536)
					rt_cfg.nslots = 65536;
			} else if (klen == 1 && *s == 'v' &&
				   strtoul(v, NULL, 10) != MT_RT_PROTO_VERSION) {
				return false; /* a protocol this runtime does not speak */
			}
		}
		s = end ? end + 1 : NULL;
	}
	/* TSC ticks per RT_GAP_NS: a nominal 3 GHz is close enough for a density test. */
	rt_cfg.gap_ticks = rt_cfg.tsc ? RT_GAP_NS * 3 : RT_GAP_NS;
	return have_sock;
}

/* ---- the environment ---- */

extern char **environ;
static char preload_rest[4096 + 16];

/*
 * Gives the program the environment it would have had without memtap: MEMTAP_RT goes, and
 * LD_PRELOAD loses its first entry (this runtime, which the recorder put first) or goes
 * when nothing else was in it. The recorder adds both back into every exec'd image while
 * the process is stopped at its exec, before the loader runs. Done in place, without malloc.
 */
static void hide_environment(void)
{
	char **w = environ;

	for (char **e = environ; e && *e; e++) {
		const char *v = *e;

		if (!strncmp(v, MT_RT_ENV "=", sizeof(MT_RT_ENV)))
			continue;
		if (!strncmp(v, "LD_PRELOAD=", 11)) {
			const char *rest = v + 11 + strcspn(v + 11, ": ");

			rest += strspn(rest, ": ");
			if (!*rest)
				continue;
			if (strlen(rest) + 12 <= sizeof(preload_rest)) {
				memcpy(preload_rest, "LD_PRELOAD=", 11);
				memcpy(preload_rest + 11, rest, strlen(rest) + 1);
				v = preload_rest;
			}
		}
		*w++ = (char *)v;
	}
	if (w)
		*w = NULL;
}

/* ---- the region and the connection ---- */

#define SLOT_WORDS 8184u /* 64-byte header + 8184 words = 64 KiB */

static int region_create(void)
{
	size_t slot_size = sizeof(struct mt_rt_slot) + SLOT_WORDS * sizeof(uint64_t);
	/* The ready and free bitmaps, each rounded up to whole 64-byte lines, after the header. */
	size_t bitmap = ((rt_cfg.nslots + 511) / 512) * 64;
	size_t slots_off = sizeof(struct mt_rt_region) + 2 * bitmap;
	size_t size = slots_off + (size_t)rt_cfg.nslots * slot_size +
		      (size_t)rt_cfg.nodes_cap * sizeof(struct mt_rt_node);
	long fd = rt_sys2(SYS_memfd_create, "memtap-rt", MFD_CLOEXEC), rc;
	struct mt_rt_region *r;

	if (rt_sys_failed(fd))
		return (int)fd;
	rc = rt_sys2(SYS_ftruncate, fd, size);
	if (rt_sys_failed(rc)) {
		(void)rt_sys1(SYS_close, fd);
		return (int)rc;
	}
	rc = mt_rt_sys(SYS_mmap, 0, (long)size, (long)(PROT_READ | PROT_WRITE), (long)MAP_SHARED,
		       fd, 0L);
	if (rt_sys_failed(rc)) {
		(void)rt_sys1(SYS_close, fd);
		return (int)rc;
	}
	r = (struct mt_rt_region *)rc;
	r->magic = MT_RT_REGION_MAGIC;
	r->version = MT_RT_PROTO_VERSION;
	r->pid = (uint32_t)rt_pid;
	r->time_source = rt_cfg.tsc ? MT_RT_TIME_TSC : MT_RT_TIME_CLOCK;
	r->size = size;
	r->nslots = rt_cfg.nslots;
	r->slot_words = SLOT_WORDS;
	r->ready_off = sizeof(struct mt_rt_region);
	r->free_off = r->ready_off + bitmap;
	{
		uint64_t *fb = (uint64_t *)((char *)r + r->free_off);

		for (uint32_t i = 0; i < rt_cfg.nslots; i++)
			fb[i / 64] |= 1ull << (i % 64);
	}
	r->wake_at = rt_cfg.nslots / 8 ? rt_cfg.nslots / 8 : 1;
	r->slots_off = slots_off;
	r->slot_size = slot_size;
	r->nodes_off = r->slots_off + (uint64_t)rt_cfg.nslots * slot_size;
	r->nodes_cap = rt_cfg.nodes_cap;
	r->nodes_next = 1;
	r->arena_used = __atomic_load_n(&rt_arena_used, __ATOMIC_RELAXED);
	rt_region = r;
	rt_region_size = size;
	/* memtap's from now: the header and bitmaps, and the node ring's first stretch */
	rt_shm_slots = rt_shm_ring = 0;
	own_grow(&rt_shm_slots, slots_off);
	rt_shm_ring = r->nodes_off & ~4095ull;
	rt_own_ring(0);
	return (int)fd;
}

/* The runtime's own image, from its ELF header to the end of its .bss (hidden: ours, not
 * the program's symbols of the same names). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern char _end[] __attribute__((visibility("hidden")));

static int connect_recorder(int memfd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mt_rt_hello hello = { .type = MT_RT_MSG_HELLO, .version = MT_RT_PROTO_VERSION };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	size_t n = strlen(rt_cfg.sock);
	long s, rc;

	s = rt_sys3(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (rt_sys_failed(s))
		return (int)s;
	/* An abstract name: a leading NUL, no file to clean up. */
	memcpy(sa.sun_path + 1, rt_cfg.sock, n);
	rc = rt_sys3(SYS_connect, s, &sa, offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if (rt_sys_failed(rc)) {
		(void)rt_sys1(SYS_close, s);
		return (int)rc;
	}
	hello.time_ns = rt_mono_ns();
	hello.pid = (uint32_t)rt_pid;
	hello.ppid = (uint32_t)rt_sys0(SYS_getppid);
	hello.region_size = rt_region_size;
	hello.region_addr = (uint64_t)rt_region;
	hello.arena_addr = (uint64_t)rt_arena;
	hello.arena_size = rt_arena ? RT_ARENA_SIZE : 0;
	hello.own_anon = __atomic_load_n(&rt_own_anon, __ATOMIC_RELAXED);
	hello.own_shmem = own_shmem();
	hello.own_ns = rt_arena_ns ? rt_arena_ns : hello.time_ns;
	hello.image_lo = (uint64_t)__ehdr_start;
	hello.image_hi = ((uint64_t)_end + 4095) & ~4095ull;
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &memfd, sizeof(int));
	rc = rt_sys3(SYS_sendmsg, s, &mh, MSG_NOSIGNAL);
	if (rc != (long)sizeof(hello)) {
		(void)rt_sys1(SYS_close, s);
		return rt_sys_failed(rc) ? (int)rc : -EIO;
	}
	return (int)s;
}

/* Creates this process's region and connects; on failure the process goes passive. */
static void attach(void)
{
	int memfd, s;

	rt_pid = (pid_t)rt_sys0(SYS_getpid);
	memfd = region_create();
	if (memfd < 0) {
		rt_debug("cannot create the shared region; not recording");
		__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
		return;
	}
	s = connect_recorder(memfd);
	(void)rt_sys1(SYS_close, memfd); /* the recorder holds its own reference now */
	if (s < 0) {
		rt_debug("cannot reach the recorder; not recording");
		(void)rt_sys2(SYS_munmap, rt_region, rt_region_size);
		rt_region = NULL;
		__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
		return;
	}
	rt_sock = s;
	__atomic_store_n(&rt_state, RT_READY, __ATOMIC_RELEASE);
	__atomic_store_n(&rt_live, true, __ATOMIC_RELEASE);
}

/* The recorder is gone: stop recording, keep forwarding. */
static void go_passive(void)
{
	__atomic_store_n(&rt_live, false, __ATOMIC_RELEASE);
	__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
	rt_debug("lost the recorder; recording stops");
}

/* Tells the recorder memtap's resident memory now: a row in the calling thread's slot (in
 * order, timed, never lost), or a datagram when the thread has no slot at hand; a full
 * socket is waited for (at most a second, counted as stall time), then counted as lost. */
static void rt_own_report(void)
{
	struct rt_thread *t = &rt_self;
	struct mt_rt_own m = { .type = MT_RT_MSG_OWN };
	struct timespec nap = { 0, 50000 };

	if (rt_sock < 0 || !__atomic_load_n(&rt_live, __ATOMIC_ACQUIRE))
		return; /* the greeting carries the totals */
	m.anon = __atomic_load_n(&rt_own_anon, __ATOMIC_RELAXED);
	m.shmem = own_shmem();
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
	/* A full socket: the recorder is behind; wait for it like for a slot, at most a second. */
	for (int i = 0; i < 20000; i++) {
		long rc = mt_rt_sys(SYS_sendto, rt_sock, (long)&m, sizeof(m),
				    MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);

		if (rc != -EAGAIN && rc != -ENOBUFS) {
			if (!rt_sys_failed(rc))
				return;
			break;
		}
		if (!__atomic_load_n(&rt_live, __ATOMIC_ACQUIRE))
			break;
		(void)rt_sys2(SYS_nanosleep, &nap, NULL);
		if (rt_region)
			__atomic_add_fetch(&rt_region->stall_ns, 50000, __ATOMIC_RELAXED);
	}
	if (rt_region)
		__atomic_add_fetch(&rt_region->own_reports_lost, 1, __ATOMIC_RELAXED);
}

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
	/* Non-blocking: a full socket means the recorder has notifications to read anyway. */
	long rc = mt_rt_sys(SYS_sendto, rt_sock, (long)&b, 1, MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);

	if (rc == -EPIPE || rc == -ECONNRESET || rc == -ENOTCONN || rc == -EBADF)
		go_passive();
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
	t->c_walked = t->c_reused = t->c_memo_hits = t->c_truncated = t->c_depth = t->c_guard = 0;
}

/* Hands the thread's slot to the recorder, which collects it at its next round; it is
 * woken only when READY slots pile up. */
static RT_COLD void slot_finish(struct rt_thread *t)
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
		own_grow(&rt_shm_slots,
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
			s->end_time = 0;
			__atomic_store_n(&s->count, 0, __ATOMIC_RELEASE);
			t->slot = s;
			t->cnt = 0;
			t->until = 1; /* a slot's first row is stamped */
			slot_first_use(i);
			return true;
		}
	}
	return false;
}

/*
 * Gets a slot with room for need rows. When every slot is taken the thread waits for the
 * recorder (backpressure, counted); after a second without a free slot it gives up on this
 * event, which is counted as dropped, rather than risk stalling the workload forever.
 */
static RT_COLD bool slot_reserve(struct rt_thread *t, unsigned need)
{
	struct timespec nap = { 0, 50000 };
	uint64_t waited = 0;
	int saved = errno;

	if (t->slot && t->cnt + need <= SLOT_WORDS)
		return true;
	if (t->slot)
		slot_finish(t);
	if (!t->tid)
		t->tid = (uint32_t)rt_gettid();
	while (!slot_try_acquire(t)) {
		if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) != RT_READY ||
		    waited >= 1000000000ull) {
			__atomic_add_fetch(&rt_region->dropped, 1, __ATOMIC_RELAXED);
			errno = saved;
			return false;
		}
		if (!waited)
			__atomic_add_fetch(&rt_region->stalls, 1, __ATOMIC_RELAXED);
		rt_notify_recorder();
		(void)rt_sys2(SYS_nanosleep, &nap, NULL);
		waited += 50000;
		__atomic_add_fetch(&rt_region->stall_ns, 50000, __ATOMIC_RELAXED);
	}
	errno = saved;
	return true;
}

static RT_COLD void side_drain(struct rt_thread *t);

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
	return RT_LIKELY(t->slot != NULL) || slot_reserve(t, MT_RT_ROW_MAX_WORDS);
}

static RT_INLINE void commit(struct rt_thread *t, unsigned words)
{
	t->cnt += words;
	__atomic_store_n(&t->slot->count, t->cnt, __ATOMIC_RELEASE);
	if (RT_UNLIKELY(t->cnt + MT_RT_ROW_MAX_WORDS > SLOT_WORDS))
		slot_finish(t);
	if (RT_UNLIKELY(t->nside))
		side_drain(t);
}

/* Moves the rows nested hooks left in the side buffer into the slot, after the
 * interrupted hook committed its own row. */
static RT_COLD void side_drain(struct rt_thread *t)
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

static RT_INLINE uint32_t capture(struct rt_thread *t, uint64_t sp, uint64_t bp, uint8_t *flags)
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
	return rt_cfg.depth ? rt_capture(t, sp, bp, flags) : 0;
}

/*
 * malloc_usable_size() without the call, when the allocator is glibc's own: the chunk's
 * size word sits just before the block (glibc 2.26-2.40 malloc.c, musable(): the chunk
 * size minus one size word, or minus two for an mmapped chunk). Any other allocator (a
 * preloaded jemalloc, libc_malloc_debug) is asked through its malloc_usable_size().
 */
static bool glibc_heap;

static RT_INLINE size_t usable_size(void *p)
{
	if (RT_LIKELY(glibc_heap)) {
		uint64_t sz;

		memcpy(&sz, (const char *)p - 8, sizeof(sz));
		return (sz & ~(uint64_t)7) - ((sz & 2) ? 16 : 8);
	}
	return real.usable(p);
}

/* The fast path of every allocation: t->mode is TM_BUSY for the duration. */
static RT_INLINE void put_alloc(struct rt_thread *t, unsigned kind, void *p, size_t size, void *old,
				uint64_t sp, uint64_t bp)
{
	uint8_t flags;
	uint32_t stack = capture(t, sp, bp, &flags);
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
}

/* Mapping rows: addr, then size (length, or the old break), [ea, eb], the stack. */
static void put_map(struct rt_thread *t, unsigned kind, uint64_t addr, uint64_t size, bool ext,
		    uint64_t ea, uint64_t eb, uint64_t sp, uint64_t bp)
{
	uint8_t flags;
	uint32_t stack = capture(t, sp, bp, &flags);
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

/* ---- initialisation ---- */

static void thread_exit(void *arg);
static void fork_child(void);

static void *resolve(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void init(void)
{
	int expected = RT_UNINIT;
	const char *conf;

	if (!__atomic_compare_exchange_n(&rt_state, &expected, RT_INITIALIZING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Another thread initialises: wait for it (this happens at most once per process). */
		while (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) == RT_INITIALIZING &&
		       rt_init_thread != &rt_self)
			(void)rt_sys0(SYS_sched_yield);
		return;
	}
	rt_init_thread = &rt_self;
	real.malloc = resolve("malloc");
	real.free = resolve("free");
	real.calloc = resolve("calloc");
	real.realloc = resolve("realloc");
	real.posix_memalign = resolve("posix_memalign");
	real.aligned_alloc = resolve("aligned_alloc");
	real.memalign = resolve("memalign");
	real.valloc = resolve("valloc");
	real.pvalloc = resolve("pvalloc");
	real.usable = resolve("malloc_usable_size");
	{
		/* Is the next malloc glibc's? Then usable_size() may read its chunk headers. */
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

		glibc_heap = libc && real.malloc && real.usable &&
			     real.malloc == dlsym(libc, "malloc") &&
			     real.usable == dlsym(libc, "malloc_usable_size") &&
			     real.realloc == dlsym(libc, "realloc") &&
			     real.calloc == dlsym(libc, "calloc") &&
			     real.memalign == dlsym(libc, "memalign");
		/* The NOLOAD reference is kept: libc is never unloaded, and dlclose is ours. */
	}
	real.mmap = resolve("mmap");
	real.munmap = resolve("munmap");
	real.mremap = resolve("mremap");
	real.brk = resolve("brk");
	real.sbrk = resolve("sbrk");
	real.dlclose = resolve("dlclose");
	if (!real.malloc || !real.free || !real.calloc || !real.realloc || !real.usable) {
		static const char msg[] = "memtap-rt: cannot find the real malloc; aborting\n";

		(void)rt_sys3(SYS_write, 2, msg, sizeof(msg) - 1);
		abort();
	}
	conf = getenv(MT_RT_ENV);
	if (!conf || !parse_config(conf)) {
		rt_debug(conf ? "MEMTAP_RT is not for this runtime; not recording"
			      : "no MEMTAP_RT in the environment; not recording");
		__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
		return;
	}
	if (rt_cfg.hide)
		hide_environment();
	rt_self.mode = TM_OFF;
	rt_key_ok = pthread_key_create(&rt_key, thread_exit) == 0;
	pthread_atfork(NULL, NULL, fork_child);
	rt_unwind_init();
	rt_self.mode = TM_SETUP;
	attach();
}

/* Runs early for every exec'd image, so that the recorder learns which processes carry the
 * runtime even if they never allocate. */
__attribute__((constructor)) static void rt_constructor(void)
{
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) == RT_UNINIT)
		init();
}

/*
 * True while the real functions are not yet known. The first hook to run (which can be a
 * library constructor that runs before ours) initialises the runtime; calls made while
 * dlsym resolves the real functions, in init, are served from the bootstrap pool.
 */
static inline bool booting(void)
{
	if (RT_LIKELY(real.malloc != NULL))
		return false;
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) == RT_UNINIT)
		init();
	return !real.malloc;
}

/*
 * The slow path's decision for the calling thread: TM_READY (record; the thread is now
 * set up), TM_BUSY (a nested call: side buffer), or TM_OFF (forward only).
 */
static int slow_mode(struct rt_thread *t)
{
	int st = __atomic_load_n(&rt_state, __ATOMIC_ACQUIRE);

	if (st == RT_UNINIT) {
		init();
		st = __atomic_load_n(&rt_state, __ATOMIC_ACQUIRE);
	}
	if (st != RT_READY || t->mode == TM_OFF)
		return TM_OFF;
	if (t->mode == TM_BUSY)
		return TM_BUSY;
	if (RT_UNLIKELY(!rt_region)) {
		/* A fork child's first event: its own region and connection. */
		t->mode = TM_OFF;
		attach();
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
	t->mode = TM_READY;
	return __atomic_load_n(&rt_live, __ATOMIC_ACQUIRE) ? TM_READY : TM_OFF;
}

/* Is this thread recording right now? The whole test of every fast path. */
#define FAST(t) (RT_LIKELY((t)->mode == TM_READY) && RT_LIKELY(rt_live))

/* At a normal exit: hand over the thread's slot with its end time, so that the times of
 * its last untimed rows are interpolated up to now rather than copied from the last stamp.
 * Events after this (later destructors, libc's own cleanup) go to a new slot. */
__attribute__((destructor)) static void rt_destructor(void)
{
	struct rt_thread *t = &rt_self;

	if (!FAST(t) || !t->slot)
		return;
	t->mode = TM_BUSY;
	if (t->nside)
		side_drain(t);
	slot_finish(t);
	t->mode = TM_READY;
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
	m = slow_mode(t);                                                                  \
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
	ALLOC_HOOK(MT_RT_MALLOC, real.malloc(n), n, (void *)NULL);
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
	ALLOC_HOOK(MT_RT_CALLOC, real.calloc(n, nm), n * nm, (void *)NULL);
}

/* realloc is not the macro's shape: realloc(p, 0) returning NULL is a free to record. */
static inline void *realloc_common(void *old, size_t n, unsigned kind, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	void *p;
	int m;

	if (RT_UNLIKELY(old && in_boot_pool(old))) {
		/* Out of the bootstrap pool into the real heap (the pool itself is never freed). */
		size_t have = boot_size(old);

		p = booting() ? boot_alloc(n, 16) : real.malloc(n);
		if (p)
			memcpy(p, old, have < n ? have : n);
		return p;
	}
	if (!FAST(t) && booting())
		return boot_alloc(n, 16);
	m = FAST(t) ? TM_READY : slow_mode(t);
	if (m == TM_READY)
		t->mode = TM_BUSY;
	p = real.realloc(old, n);
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
	ALLOC_HOOK(MT_RT_ALIGNED_ALLOC, real.aligned_alloc(a, n), n, (void *)NULL);
}

void *mt_rt_memalign(size_t a, size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, a);
	ALLOC_HOOK(MT_RT_MEMALIGN, real.memalign(a, n), n, (void *)NULL);
}

void *mt_rt_valloc(size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, 4096);
	ALLOC_HOOK(MT_RT_VALLOC, real.valloc(n), n, (void *)NULL);
}

void *mt_rt_pvalloc(size_t n, uint64_t sp, uint64_t bp)
{
	if (!FAST(&rt_self) && booting()) /* recording implies booted */
		return boot_alloc(n, 4096);
	ALLOC_HOOK(MT_RT_PVALLOC, real.pvalloc(n), n, (void *)NULL);
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
	m = FAST(t) ? TM_READY : slow_mode(t);
	if (m == TM_READY)
		t->mode = TM_BUSY;
	r = real.posix_memalign(pp, a, n);
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
		put_free(t, p);
		real.free(p);
		t->mode = TM_READY;
		return;
	}
	if (!p || in_boot_pool(p) || booting())
		return; /* while booting, nothing outside the pool exists to be freed */
	m = slow_mode(t);
	if (m == TM_READY) {
		t->mode = TM_BUSY;
		put_free(t, p);
		real.free(p);
		t->mode = TM_READY;
		return;
	}
	if (m == TM_BUSY)
		put_nested(t, MT_RT_FREE, (uint64_t)p, 0, false, 0, 0);
	real.free(p);
}

/* ---- mapping hooks: rare, so one shape with the slow-path decision ---- */

static inline int map_enter(struct rt_thread *t)
{
	int m = FAST(t) ? TM_READY : slow_mode(t);

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

	if (RT_UNLIKELY(!real.mmap) && (booting() || !real.mmap))
		return (void *)syscall(SYS_mmap, addr, len, (long)prot, (long)flags, (long)fd,
				       (long)off);
	m = map_enter(t);
	p = real.mmap(addr, len, prot, flags, fd, off);
	map_leave(t, m, p != MAP_FAILED, MT_RT_MMAP, (uint64_t)p, len, true, (uint64_t)off,
		  (uint64_t)(unsigned)prot | (uint64_t)(unsigned)flags << 32, sp, bp);
	return p;
}

int mt_rt_munmap(void *p, size_t n, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	int m, r;

	if (RT_UNLIKELY(!real.munmap))
		return (int)syscall(SYS_munmap, p, n);
	m = map_enter(t);
	r = real.munmap(p, n);
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
	if (RT_UNLIKELY(!real.mremap))
		return (void *)syscall(SYS_mremap, old, old_len, new_len, (long)flags, naddr);
	m = map_enter(t);
	p = real.mremap(old, old_len, new_len, flags, naddr);
	map_leave(t, m, p != MAP_FAILED, MT_RT_MREMAP, (uint64_t)p, new_len, true, (uint64_t)old,
		  (uint64_t)old_len | (uint64_t)(unsigned)flags << 48, sp, bp);
	return p;
}

int mt_rt_brk(void *addr, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	void *before;
	int m, r;

	if (RT_UNLIKELY(!real.brk || !real.sbrk))
		return (int)syscall(SYS_brk, addr) == (long)addr ? 0 : -1;
	m = map_enter(t);
	before = real.sbrk(0);
	r = real.brk(addr);
	map_leave(t, m, r == 0, MT_RT_BRK, (uint64_t)addr, (uint64_t)before, false, 0, 0, sp, bp);
	return r;
}

void *mt_rt_sbrk(intptr_t inc, uint64_t sp, uint64_t bp)
{
	struct rt_thread *t = &rt_self;
	void *p;
	int m;

	if (RT_UNLIKELY(!real.sbrk)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	m = map_enter(t);
	p = real.sbrk(inc);
	map_leave(t, m, p != (void *)-1 && inc, MT_RT_BRK, (uint64_t)p + (uint64_t)inc, (uint64_t)p,
		  false, 0, 0, sp, bp);
	return p;
}

RT_EXPORT int dlclose(void *handle)
{
	int r;

	if (!real.dlclose)
		init();
	if (!real.dlclose)
		return -1;
	r = real.dlclose(handle);
	if (!r)
		rt_unwind_flush_rules();
	return r;
}

/* ---- threads and processes ---- */

static void thread_exit(void *arg)
{
	struct rt_thread *t = &rt_self;
	uint8_t mode = t->mode;

	(void)arg;
	if (!rt_live || !rt_region || mode == TM_OFF)
		return;
	t->mode = TM_BUSY;
	if (t->nside)
		side_drain(t);
	slot_finish(t);
	rt_unwind_thread_exit(t);
	rt_munmap(t->side, RT_SIDE_WORDS * sizeof(uint64_t));
	t->side = NULL;
	t->nside = 0;
	t->dead = true;
	t->mode = mode;
	/* Events after this (later destructors, the thread's own teardown) go to a new slot that
	 * the recorder drains when it sees the thread exit. */
}

static void fork_child(void)
{
	struct rt_thread *t = &rt_self;

	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) != RT_READY)
		return;
	/* The parent's region and connection are the parent's: drop our view of them. The
	 * child attaches its own region at its first event (slow_mode). */
	__atomic_store_n(&rt_live, false, __ATOMIC_RELEASE);
	/* A fork child's mappings carry no userfaultfd registration: start afresh. */
	if (rt_uffd >= 0)
		(void)rt_sys1(SYS_close, rt_uffd);
	if (rt_pagemap >= 0)
		(void)rt_sys1(SYS_close, rt_pagemap);
	rt_uffd = rt_pagemap = -1;
	rt_wp_lock = 0;
	rt_wp_ranges = 0;
	rt_free_lock = 0; /* a thread that died in fork may have held it */
	rt_own_lock = 0;
	if (rt_sock >= 0)
		(void)rt_sys1(SYS_close, rt_sock);
	rt_sock = -1;
	if (rt_region)
		(void)rt_sys2(SYS_munmap, rt_region, rt_region_size);
	rt_region = NULL;
	t->slot = NULL;
	t->cnt = 0;
	t->nside = 0;
	t->tid = 0;
	t->mode = TM_SETUP;
	t->stack_hi = 0;
	t->no_stack_bounds = false;
	t->c_walked = t->c_reused = t->c_memo_hits = t->c_truncated = t->c_depth = t->c_guard = 0;
	rt_unwind_fork_child();
}

/* ---- memtap.h: labels and phases from the workload ---- */

/* include/memtap/memtap.h declares these weak for the workload; defined here, strong. */
RT_EXPORT int memtap__label(const void *addr, size_t len, const char *region_type,
			    const char *name);
RT_EXPORT int memtap__unlabel(const void *addr);
RT_EXPORT int memtap__phase(const char *name);

/*
 * Page-write tracking (record --page-writes): a labelled range's pages are registered with a
 * userfaultfd in write-protect *async* mode, so a write to a protected page is resolved by
 * the kernel at once (no message, no thread here) and leaves the page "written"; the
 * recorder's PAGEMAP_SCAN of /proc/PID/pagemap reads and re-protects the written pages once
 * per epoch. Here we only register and arm (protect) the range. The workload never sees the
 * descriptor's effects: async mode never blocks and never signals.
 */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

struct rt_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define RT_PAGEMAP_SCAN _IOWR('f', 16, struct rt_pm_scan_arg)
/*
 * Each registration can split a mapping in up to three, and the program's own mmap calls must
 * not meet vm.max_map_count because of us: at most RT_WP_MAX_RANGES ranges (2048 mappings at
 * worst), and none while the process uses half of its allowance or more (checked at the first
 * registration and every 128th). Ranges refused are not tracked (ENOSPC).
 */
#define RT_WP_MAX_RANGES 1024
#define RT_PM_SCAN_WP_MATCHING 1ull

static long wp_open(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED };
	long fd, pm, r;

	fd = rt_sys2(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK, 0);
	if (fd == -EPERM) /* vm.unprivileged_userfaultfd=0: user-mode faults only */
		fd = rt_sys2(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY, 0);
	if (fd < 0)
		return fd;
	r = rt_sys3(SYS_ioctl, fd, UFFDIO_API, &api);
	if (r < 0) {
		(void)rt_sys1(SYS_close, fd);
		return r;
	}
	pm = mt_rt_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/pagemap", O_RDONLY | O_CLOEXEC, 0, 0,
		       0);
	if (pm < 0) {
		(void)rt_sys1(SYS_close, fd);
		return pm;
	}
	rt_uffd = (int)fd;
	rt_pagemap = (int)pm;
	return 0;
}

/* The number in a small /proc file (e.g. vm.max_map_count), or 0; lines of a file with
 * count_lines. No allocation: this runs inside the program. */
static long read_proc(const char *path, bool count_lines)
{
	char buf[4096];
	long fd = mt_rt_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0), n;
	long v = 0;

	if (fd < 0)
		return 0;
	while ((n = rt_sys3(SYS_read, fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < n; i++) {
			if (count_lines)
				v += buf[i] == '\n';
			else if (buf[i] >= '0' && buf[i] <= '9')
				v = v * 10 + (buf[i] - '0');
		}
		if (!count_lines)
			break;
	}
	(void)rt_sys1(SYS_close, fd);
	return v;
}

/* Whether the process has room for more mappings (see RT_WP_MAX_RANGES). */
static bool wp_room(void)
{
	static long max_maps;

	if (rt_wp_ranges >= RT_WP_MAX_RANGES)
		return false;
	if (rt_wp_ranges % 128)
		return true;
	if (!max_maps)
		max_maps = read_proc("/proc/sys/vm/max_map_count", false);
	return max_maps > 0 && read_proc("/proc/self/maps", true) < max_maps / 2;
}

/* 1 (MT_RT_WP_TRACKED) or -errno. */
static int wp_track(const void *addr, size_t len)
{
	uint64_t lo = (uint64_t)(uintptr_t)addr & ~4095ull;
	uint64_t hi = ((uint64_t)(uintptr_t)addr + len + 4095) & ~4095ull;
	struct uffdio_register reg = { .range = { lo, hi - lo }, .mode = UFFDIO_REGISTER_MODE_WP };
	struct rt_pm_scan_arg arm = {
		.size = sizeof(arm), .flags = RT_PM_SCAN_WP_MATCHING, .start = lo, .end = hi
	};
	long r = 0;

	if (!len || hi <= lo)
		return -EINVAL;
	while (__atomic_exchange_n(&rt_wp_lock, 1, __ATOMIC_ACQUIRE))
		;
	if (!wp_room())
		r = -ENOSPC;
	else if (rt_uffd < 0)
		r = wp_open();
	if (r == 0)
		r = rt_sys3(SYS_ioctl, rt_uffd, UFFDIO_REGISTER, &reg);
	if (r == 0)
		rt_wp_ranges++;
	if (r == 0) /* protect every page now: writes from here on are the recorder's to see */
		r = rt_sys3(SYS_ioctl, rt_pagemap, RT_PAGEMAP_SCAN, &arm);
	__atomic_store_n(&rt_wp_lock, 0, __ATOMIC_RELEASE);
	if (rt_region)
		__atomic_add_fetch(r < 0 ? &rt_region->wp_failed : &rt_region->wp_ranges, 1,
				   __ATOMIC_RELAXED);
	return r < 0 ? (int)r : MT_RT_WP_TRACKED;
}

/* One datagram to the recorder; a full socket is retried for up to 10 ms, then counted. */
static int send_label(uint32_t op, const void *addr, size_t len, const char *type, const char *name)
{
	struct rt_thread *t = &rt_self;
	struct {
		struct mt_rt_label h;
		char s[MT_RT_LABEL_TYPE_MAX + MT_RT_LABEL_NAME_MAX];
	} m;
	struct timespec nap = { 0, 100000 };
	size_t tl = type ? strnlen(type, MT_RT_LABEL_TYPE_MAX) : 0;
	size_t nl = name ? strnlen(name, MT_RT_LABEL_NAME_MAX) : 0;
	int saved = errno;
	long r = -1;

	if (!(FAST(t) || slow_mode(t) == TM_READY) || rt_sock < 0)
		return -1;
	memset(&m.h, 0, sizeof(m.h));
	m.h.type = MT_RT_MSG_LABEL;
	m.h.op = op;
	m.h.time_ns = rt_mono_ns();
	m.h.tid = t->tid;
	m.h.addr = (uint64_t)(uintptr_t)addr;
	m.h.len = len;
	m.h.type_len = (uint16_t)tl;
	m.h.name_len = (uint16_t)nl;
	if (tl)
		memcpy(m.s, type, tl);
	if (nl)
		memcpy(m.s + tl, name, nl);
	if (op == MT_RT_LABEL && rt_cfg.page_writes)
		m.h.wp = wp_track(addr, len);
	for (int tries = 0; tries < 100; tries++) {
		r = mt_rt_sys(SYS_sendto, rt_sock, (long)&m, (long)(sizeof(m.h) + tl + nl),
			      MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
		if (r != -EAGAIN)
			break;
		(void)rt_sys2(SYS_nanosleep, &nap, NULL);
	}
	if (r < 0 && rt_region)
		__atomic_add_fetch(&rt_region->labels_dropped, 1, __ATOMIC_RELAXED);
	errno = saved;
	return r < 0 ? -1 : 0;
}

RT_EXPORT int memtap__label(const void *addr, size_t len, const char *region_type, const char *name)
{
	return send_label(MT_RT_LABEL, addr, len, region_type, name);
}

RT_EXPORT int memtap__unlabel(const void *addr)
{
	return send_label(MT_RT_UNLABEL, addr, 0, NULL, NULL);
}

RT_EXPORT int memtap__phase(const char *name)
{
	return send_label(MT_RT_PHASE, NULL, 0, NULL, name);
}

/* The runtime's version, which `memtap record` checks before starting the workload. */
RT_EXPORT __attribute__((used)) const char memtap_rt_version[] = "memtap-rt " MEMTAP_VERSION
								 " proto 2";
