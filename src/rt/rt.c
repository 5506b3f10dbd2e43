/* SPDX-License-Identifier: MIT */
/* The preload runtime's boot: configuration, environment, the shared region and the
 * recorder's socket, initialisation, threads and fork; and the state every part shares. */
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

struct rt_real rt_libc RT_HIDDEN;
int rt_state RT_HIDDEN = RT_UNINIT;
struct rt_thread *rt_init_thread RT_HIDDEN; /* its TLS block names the initialising thread */
pid_t rt_pid RT_HIDDEN;
int rt_uffd RT_HIDDEN = -1;
int rt_pagemap RT_HIDDEN = -1; /* page-write tracking (wp_track) */
int rt_wp_lock RT_HIDDEN;
unsigned rt_wp_ranges RT_HIDDEN; /* registered by this process */
size_t rt_region_size RT_HIDDEN;
pthread_key_t rt_key RT_HIDDEN;
bool rt_key_ok RT_HIDDEN;

char *rt_arena RT_HIDDEN;
uint64_t rt_arena_used RT_HIDDEN;
uint64_t rt_own_anon RT_HIDDEN; /* memtap's resident bytes in the arena (rt-proto.h) */
uint64_t rt_shm_slots RT_HIDDEN;
uint64_t rt_shm_ring RT_HIDDEN; /* the region's populated prefix, and the ring's */
int rt_own_lock RT_HIDDEN;
uint64_t rt_arena_ns RT_HIDDEN; /* CLOCK_MONOTONIC when it was reserved */
struct rt_free *rt_freed RT_HIDDEN;
int rt_free_lock RT_HIDDEN;

/* ---- bootstrap pool: allocations made while dlsym resolves the real functions ---- */

_Alignas(64) char rt_boot_pool[64 << 10] RT_HIDDEN;
size_t rt_boot_used RT_HIDDEN;

/*
 * malloc_usable_size() without the call, when the allocator is glibc's own: the chunk's
 * size word sits just before the block (glibc 2.26-2.40 malloc.c, musable(): the chunk
 * size minus one size word, or minus two for an mmapped chunk). Any other allocator (a
 * preloaded jemalloc, libc_malloc_debug) is asked through its malloc_usable_size().
 */
bool rt_glibc_heap RT_HIDDEN;
bool rt_foreign_malloc RT_HIDDEN;

uint32_t rt_live RT_HIDDEN;
struct rt_config rt_cfg RT_HIDDEN;
struct mt_rt_region *rt_region RT_HIDDEN;
__thread struct rt_thread rt_self RT_TLS RT_HIDDEN;
__thread uint64_t mt_rt_entry_sp RT_TLS RT_HIDDEN;
__thread uint64_t mt_rt_entry_bp RT_TLS RT_HIDDEN;

/* ---- configuration ---- */

#define NODES_CAP (1u << 20) /* the stack node ring: 16 MiB */

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Reads "v=3;sock=NAME;key=HEX;depth=N;time=tsc;slots=N" without allocating. */
static bool parse_config(const char *s)
{
	bool have_sock = false, have_key = false;

	rt_cfg.depth = 128;
	rt_cfg.tsc = false;
	rt_cfg.nslots = 1024;
	rt_cfg.time_every = 1;
	rt_cfg.trie_bits = 21;
	rt_cfg.nodes_cap = NODES_CAP;
	rt_cfg.python = true;
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
			} else if (klen == 3 && !memcmp(s, "key", 3) &&
				   vlen == 2 * MT_RT_KEY_BYTES) {
				have_key = true;
				for (size_t i = 0; i < MT_RT_KEY_BYTES; i++) {
					int hi = hex_digit(v[2 * i]), lo = hex_digit(v[2 * i + 1]);

					if (hi < 0 || lo < 0)
						have_key = false;
					rt_cfg.key[i] = (uint8_t)(hi << 4 | (lo & 15));
				}
			} else if (klen == 5 && !memcmp(s, "depth", 5)) {
				rt_cfg.depth = (unsigned)strtoul(v, NULL, 10);
				if (rt_cfg.depth > RT_MAX_DEPTH)
					rt_cfg.depth = RT_MAX_DEPTH;
			} else if (klen == 2 && !memcmp(s, "py", 2)) {
				rt_cfg.python = !(vlen == 1 && *v == '0');
			} else if (klen == 5 && !memcmp(s, "pwmin", 5)) {
				rt_cfg.pw_min = strtoull(v, NULL, 10);
			} else if (klen == 3 && !memcmp(s, "thp", 3)) {
				rt_cfg.thp_always = vlen == 6 && !memcmp(v, "always", 6);
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
	rt_cfg.age_ticks = rt_cfg.tsc ? RT_SLOT_AGE_NS * 3 : RT_SLOT_AGE_NS;
	return have_sock && have_key;
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

/* The shared region, in a memfd sealed against shrinking (the recorder refuses any other:
 * a region that shrank under its mapping would kill it with SIGBUS). */
int rt_region_create(void)
{
	size_t slot_size = sizeof(struct mt_rt_slot) + SLOT_WORDS * sizeof(uint64_t);
	/* The ready and free bitmaps, each rounded up to whole 64-byte lines, after the header. */
	size_t bitmap = ((rt_cfg.nslots + 511) / 512) * 64;
	size_t slots_off = sizeof(struct mt_rt_region) + 2 * bitmap;
	size_t size = slots_off + (size_t)rt_cfg.nslots * slot_size +
		      (size_t)rt_cfg.nodes_cap * sizeof(struct mt_rt_node);
	long fd = rt_sys2(SYS_memfd_create, "memtap-rt", MFD_CLOEXEC | MFD_ALLOW_SEALING), rc;
	struct mt_rt_region *r;

	if (rt_sys_failed(fd))
		return (int)fd;
	rc = rt_sys2(SYS_ftruncate, fd, size);
	if (!rt_sys_failed(rc))
		rc = rt_sys3(SYS_fcntl, fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
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
	r->py_state = rt_py_state;
	r->py_version = rt_py_version;
	rt_region = r;
	rt_region_size = size;
	/* memtap's from now: the header and bitmaps, and the node ring's first stretch */
	rt_shm_slots = rt_shm_ring = 0;
	rt_own_grow(&rt_shm_slots, slots_off);
	rt_shm_ring = r->nodes_off & ~4095ull;
	rt_own_ring(0);
	return (int)fd;
}

/* ---- initialisation ---- */

static void thread_exit(void *arg);
static void fork_child(void);

/*
 * Whose malloc does the program call? An executable that defines its own comes first in
 * symbol lookup, before this preloaded runtime: its heap is invisible here, and the
 * recorder must say so rather than show an empty heap. One call through the global symbol
 * tells: it reaches this runtime's hook (which marks the thread) or it does not.
 */
static void probe_malloc(void)
{
	void *(*m)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
	void (*f)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
	void *p;

	if (!m || !f)
		return;
	rt_self.probed = false;
	p = m(1);
	rt_foreign_malloc = !rt_self.probed;
	f(p);
}

/* Preloaded, the real functions are the next definitions after this runtime. */
static void *next_of(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* The real functions, each found by find: next_of when preloaded, the program's own
 * definitions when injected into a running process (rt-inject.c, definition_of). */
void rt_resolve_real(void *(*find)(const char *name))
{
	static const char *const names[] = {
		"malloc",	 "free",     "calloc", "realloc", "posix_memalign",
		"aligned_alloc", "memalign", "valloc", "pvalloc", "malloc_usable_size",
		"mmap",		 "munmap",   "mremap", "brk",	  "sbrk",
		"dlclose",	 "madvise",
	};
	void **dst[] = {
		(void **)&rt_libc.malloc,	  (void **)&rt_libc.free,
		(void **)&rt_libc.calloc,	  (void **)&rt_libc.realloc,
		(void **)&rt_libc.posix_memalign, (void **)&rt_libc.aligned_alloc,
		(void **)&rt_libc.memalign,	  (void **)&rt_libc.valloc,
		(void **)&rt_libc.pvalloc,	  (void **)&rt_libc.usable,
		(void **)&rt_libc.mmap,		  (void **)&rt_libc.munmap,
		(void **)&rt_libc.mremap,	  (void **)&rt_libc.brk,
		(void **)&rt_libc.sbrk,		  (void **)&rt_libc.dlclose,
		(void **)&rt_libc.madvise,
	};
	void *libc;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		*dst[i] = find(names[i]);
	/* Is the real malloc glibc's? Then usable_size() may read its chunk headers. */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	rt_glibc_heap = libc && rt_libc.malloc && rt_libc.usable &&
			rt_libc.malloc == dlsym(libc, "malloc") &&
			rt_libc.usable == dlsym(libc, "malloc_usable_size") &&
			rt_libc.realloc == dlsym(libc, "realloc") &&
			rt_libc.calloc == dlsym(libc, "calloc") &&
			rt_libc.memalign == dlsym(libc, "memalign");
	/* The NOLOAD reference is kept: libc is never unloaded, and dlclose is ours. */
}

/* What every start shares once the configuration is read: threads, fork, the unwinder,
 * Python, page writes; then the region and the connection. probe: ask whose malloc the
 * program calls (a preloaded runtime; an injected one knows from its own redirection). */
void rt_start(bool probe)
{
	static bool once;

	rt_self.mode = TM_OFF;
	if (probe)
		probe_malloc();
	if (!once) { /* a process recorded again (injected anew) keeps these */
		once = true;
		rt_key_ok = pthread_key_create(&rt_key, thread_exit) == 0;
		pthread_atfork(NULL, NULL, fork_child);
		rt_unwind_init();
		rt_py_init(rt_cfg.python);
	}
	if (rt_cfg.page_writes && rt_cfg.pw_min)
		rt_wp_min = rt_cfg.pw_min < 4096 ? 4096 : rt_cfg.pw_min;
	rt_self.mode = TM_SETUP;
	rt_attach();
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) == RT_READY)
		rt_wp_existing(); /* memory that was there before the runtime */
}

/* rt-inject.c: the configuration an injecting recorder passes (false: not this runtime's). */
bool rt_config_set(const char *conf)
{
	return parse_config(conf);
}

void rt_init(void)
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
	rt_resolve_real(next_of);
	rt_exec_init();
	if (!rt_libc.malloc || !rt_libc.free || !rt_libc.calloc || !rt_libc.realloc ||
	    !rt_libc.usable) {
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
	{
		/* This runtime's entry in LD_PRELOAD (the recorder put it first), which exec'd
		 * programs the runtime cannot enter must not see (rt-exec.c). */
		const char *lp = getenv("LD_PRELOAD");
		size_t l = lp ? strcspn(lp, ": ") : 0;

		if (l && l < sizeof(rt_cfg.preload)) {
			memcpy(rt_cfg.preload, lp, l);
			rt_cfg.preload[l] = 0;
		}
	}
	if (rt_cfg.hide)
		hide_environment();
	rt_start(true);
}

/* Runs early for every exec'd image, so that the recorder learns which processes carry the
 * runtime even if they never allocate. */
__attribute__((constructor)) static void rt_constructor(void)
{
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) == RT_UNINIT)
		rt_init();
}

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
		rt_side_drain(t);
	rt_slot_finish(t);
	t->mode = TM_READY;
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
		rt_side_drain(t);
	rt_slot_finish(t);
	rt_unwind_thread_exit(t);
	rt_py_thread_exit(t);
	rt_munmap(t->side, RT_SIDE_WORDS * sizeof(uint64_t));
	t->side = NULL;
	t->nside = 0;
	if (t->spans)
		rt_munmap(t->spans, 4096);
	t->spans = NULL;
	t->span_depth = 0; /* spans left open end with the thread (the analysis says so) */
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
	__atomic_store_n(&rt_live, 0, __ATOMIC_RELEASE);
	/* A fork child's mappings carry no userfaultfd registration: start afresh. */
	if (rt_uffd >= 0)
		(void)rt_sys1(SYS_close, rt_uffd);
	if (rt_pagemap >= 0)
		(void)rt_sys1(SYS_close, rt_pagemap);
	rt_uffd = rt_pagemap = -1;
	rt_wp_lock = 0;
	rt_wp_ranges = 0;
	rt_wp_fork_child();
	rt_free_lock = 0; /* a thread that died in fork may have held it */
	rt_own_lock = 0;
	rt_chan_fork_child();
	if (rt_region)
		(void)rt_sys2(SYS_munmap, rt_region, rt_region_size);
	rt_region = NULL;
	t->slot = NULL;
	t->cnt = 0;
	t->last_seq = 0; /* the child's region is a new one */
	t->nside = 0;
	t->span_depth = 0; /* the parent's spans are the parent's: an end of one is unmatched */
	t->tid = 0;
	t->mode = TM_SETUP;
	t->stack_hi = 0;
	t->no_stack_bounds = false;
	t->c_walked = t->c_reused = t->c_memo_hits = t->c_truncated = t->c_depth = t->c_guard = 0;
	t->c_py_stacks = t->c_py_unplaced = 0;
	rt_unwind_fork_child();
	rt_py_fork_child();
}

/* The runtime's version, which `memtap record` checks before starting the workload. */
RT_EXPORT __attribute__((used)) const char memtap_rt_version[] = "memtap-rt " MEMTAP_VERSION
								 " proto " MT_RT_PROTO_STR;
