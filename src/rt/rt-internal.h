/* SPDX-License-Identifier: MIT */
/* libmemtap-rt internals: runtime state, per-thread state, and the unwinder's interface. */
#ifndef MEMTAP_RT_RT_INTERNAL_H
#define MEMTAP_RT_RT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>

#include "format/rt-proto.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RT_TLS __attribute__((tls_model("initial-exec")))
/* The hot path is inlined into each hook; what runs once per slot or rarer stays out.
 * Out, not cold: gcc took every path that can reach a cold function's call (each row's
 * commit can finish its slot) for unlikely and moved the whole recording of a row into the
 * hook's .cold part, the clock read called rather than inlined (on py_alloc.py the
 * difference is within the noise of wall time here). The rare branches keep their
 * RT_UNLIKELY. */
#define RT_INLINE inline __attribute__((always_inline))
#define RT_COLD __attribute__((noinline))

#define RT_MAX_DEPTH 256
#define RT_SIDE_WORDS (64 * MT_RT_ROW_MAX_WORDS) /* signal handlers nested in one hook */

/* One frame of a thread's previous stack, kept for the verified memo (unwind.c). */
struct rt_frame {
	uint64_t ip;
	uint64_t sp; /* this frame's stack pointer (the CFA of its callee) */
	uint64_t bp;
	uint64_t bp_slot; /* where this frame's step read its caller's rbp, or 0 */
	uint32_t id; /* trie id of the stack from here outward */
	uint8_t flags; /* RF_* */
	uint8_t pad[3];
};

enum {
	RF_BP_MATTERS = 1, /* this frame's rbp value affects the walk from here outward */
	RF_CFA_RBP = 2, /* its CFA is computed from rbp */
	RF_SAVES_RBP = 4, /* its step reloads rbp from the stack */
};

/* A stack word the walk read, and the value it had: the memo's proof obligations. */
struct rt_check {
	uint64_t addr;
	uint64_t val;
};

#define RT_ICACHE 4096 /* per-thread cache of trie lookups, direct-mapped */

struct rt_icache_ent {
	uint64_t ip;
	uint32_t parent;
	uint32_t id;
};

/* How a stack walk ended. */
enum rt_walk_end {
	RT_END_NONE, /* still walking */
	RT_END_ZERO, /* a zero return address: the end of the stack */
	RT_END_RULE, /* the CFI says so (_start, clone3) */
	RT_END_BAD, /* unsupported CFI or a CFA outside the stack: truncated */
	RT_END_DEPTH, /* --stack-depth reached */
};

/*
 * The inner paths (unwind-path.h): the frames a walk stepped over from a hook's entry
 * until it joined the memo, kept per entry (return address, sp), so that the next call
 * from the same place re-verifies them instead of looking up their rules and trie ids. A
 * frame's sp and saved-rbp slot are offsets from the entry sp.
 */
#define RT_PATH_MAX 6
#define RT_PATHS 256 /* direct-mapped */

struct rt_path_frame {
	uint64_t ip;
	uint64_t bp; /* rbp in this frame (past the first frame that saves it) */
	uint32_t spoff;
	uint32_t slotoff; /* where its step read its caller's rbp; 0: it does not */
	uint32_t id; /* trie id of the stack from here outward, under parent */
	uint8_t flags; /* RF_CFA_RBP, RF_SAVES_RBP */
	uint8_t pad[3];
};

struct rt_path {
	uint64_t sp0; /* the entry sp; 0: empty */
	uint64_t end_ip; /* the state the last step reached: the frame the walk joined at */
	uint64_t end_bp;
	uint32_t end_spoff;
	uint32_t parent; /* the trie id of that frame when the ids were interned; 0: none */
	uint32_t gen; /* rt_path_gen when stored: CFI rules flushed since make it stale */
	uint8_t k; /* frames, innermost first */
	uint8_t saver; /* the first frame that saves rbp, or k */
	bool bp0; /* the entry rbp matters (a frame up to the saver finds its CFA from rbp) */
	struct rt_path_frame f[RT_PATH_MAX];
};

struct rt_memo {
	unsigned n; /* frames, outermost first: f[0] is the outermost */
	bool valid; /* a complete, signal-free stack that can be re-verified */
	uint8_t end; /* how the walk that captured f[0] ended (enum rt_walk_end) */
	struct rt_frame f[RT_MAX_DEPTH];
	/* checks[cstart[k] .. cstart[k + 1]) are the words frame k's step read (for frame 0,
	 * the zero return address that ended the walk); verifying frames 0..q is checking
	 * checks[0 .. cstart[q + 1]). */
	uint32_t cstart[RT_MAX_DEPTH + 1];
	struct rt_check checks[2 * RT_MAX_DEPTH + 2];
	struct rt_frame scratch[RT_MAX_DEPTH];
	struct rt_icache_ent icache[RT_ICACHE];
	struct rt_path paths[RT_PATHS];
};

/* What a hook does for the calling thread, decided by one TLS byte on the fast path. */
enum rt_thread_mode {
	TM_SETUP = 0, /* not set up yet (new thread, fork child): take the slow path */
	TM_READY = 1, /* record */
	TM_BUSY = 2, /* inside a hook: a nested call (signal handler) goes to the side buffer */
	TM_OFF = 3, /* the runtime's own libc calls: forward, never record */
};

/* Per-thread state, in initial-exec TLS: hooks reach it with one %fs-relative load. */
struct rt_thread {
	struct mt_rt_slot *slot; /* current slot, or NULL */
	uint32_t cnt; /* words committed to the slot */
	uint32_t tid;
	uint8_t mode; /* enum rt_thread_mode */
	bool dead; /* the thread-exit destructor ran */
	bool no_stack_bounds;
	bool cap1_ok; /* memo and stack bounds set up: the inline depth-1 path may run */
	bool probed; /* a hook's slow path ran (rt.c: probe_malloc) */
	uint64_t stack_hi; /* highest valid stack address (0: not yet known) */
	uint64_t last_stamp; /* the last time read (rt.c: stamp) */
	uint16_t every; /* events per time stamp now */
	uint16_t until; /* events until the next stamp */
	struct rt_memo *memo;
	struct rt_py *py; /* Python frames (rt-python.c), or NULL */
	unsigned nside; /* words */
	/* Rows of nested hooks, moved to the slot later: RT_SIDE_WORDS, mapped when the thread
	 * starts recording. Outside TLS: a large static TLS block makes the loader map one more
	 * page in every program, a system call the workload would not make. */
	uint64_t *side;
	/* counters, added to the region header when the slot changes */
	uint64_t c_walked, c_reused, c_memo_hits, c_truncated, c_depth, c_guard;
	uint64_t c_py_stacks, c_py_unplaced;
	/* memtap_span_*: the thread's open spans, innermost last (a page mapped at the first) */
	uint64_t *spans;
	uint32_t span_depth;
	uint32_t span_over; /* begins refused beyond MT_RT_SPAN_DEPTH, their ends to come */
	uint32_t epoch; /* the connection (rt_live) its slot belongs to; 2: none */
	uint64_t slot_t0; /* when the slot was taken (rt_now()) */
	uint64_t last_seq; /* the seq of the thread's last slot in this region (0: none) */
};

struct rt_config {
	unsigned depth; /* frames to capture; 0: no stacks */
	bool tsc;
	bool hide; /* remove memtap's variables from environ (the recorder re-adds them at exec) */
	unsigned nslots;
	unsigned time_every; /* read the clock on every Nth event at most */
	bool page_writes; /* track writes to labelled ranges (userfaultfd WP async) */
	bool python; /* Python frames in the stacks (rt-python.c) */
	uint64_t pw_min; /* blocks and writable mappings this large are page-write tracked */
	bool thp_always; /* transparent huge pages are always on (the recorder read its setting) */
	uint64_t gap_ticks; /* RT_GAP_NS in clock ticks */
	uint64_t age_ticks; /* RT_SLOT_AGE_NS in clock ticks */
	unsigned trie_bits; /* the trie index's largest size, 2^bits (tests shrink it) */
	unsigned nodes_cap; /* the shared node ring's size, a power of two */
	char sock[108];
	uint8_t key[MT_RT_KEY_BYTES]; /* the recording's secret, sent in the greeting */
	char preload[4096]; /* this runtime's entry in LD_PRELOAD (rt-exec.c) */
};

/* The runtime's global state (rt.c). rt_live is true while recording: the fast paths check
 * it and the thread's mode, nothing else. */
extern uint32_t rt_live RT_HIDDEN; /* 0, or the connection's epoch: odd, new at each */
extern struct rt_config rt_cfg RT_HIDDEN;
extern struct mt_rt_region *rt_region RT_HIDDEN;
extern __thread struct rt_thread rt_self RT_TLS RT_HIDDEN;

/* The hash of the stack tries and caches: murmur3's finaliser cut to one multiply (the
 * runtime links nothing of mt_common, and this sits on every allocation's path). */
static inline uint64_t rt_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 29;
	return x;
}

/*
 * The runtime's locks: short critical sections, never held across a call into the program,
 * though some hold a system call (populating memtap's pages). A few spins, then the waiter
 * sleeps on a private futex (0 free, 1 taken, 2 taken with sleepers): hundreds of threads
 * spinning on a lock whose holder was preempted would take every CPU from the holder and
 * from the recorder.
 */
RT_HIDDEN long mt_rt_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

static inline void rt_lock(int *l)
{
	int c = 0;

	if (RT_LIKELY(__atomic_compare_exchange_n(l, &c, 1, false, __ATOMIC_ACQUIRE,
						  __ATOMIC_RELAXED)))
		return;
	for (int i = 0; i < 64; i++) {
		__builtin_ia32_pause();
		c = 0;
		if (!__atomic_load_n(l, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(l, &c, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
	}
	while (__atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE))
		(void)mt_rt_sys(SYS_futex, (long)l, FUTEX_WAIT_PRIVATE, 2, 0, 0, 0);
}

static inline void rt_unlock(int *l)
{
	if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
		(void)mt_rt_sys(SYS_futex, (long)l, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* CLOCK_MONOTONIC in ns, through the vDSO (no system call). */
static inline uint64_t rt_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline struct rt_icache_ent *rt_icache_slot(struct rt_memo *m, uint32_t parent, uint64_t ip)
{
	return &m->icache[(uint32_t)rt_hash64(ip ^ ((uint64_t)parent << 40)) & (RT_ICACHE - 1)];
}

/* unwind.c */
RT_HIDDEN void rt_unwind_init(void);
/* Walks the stack from a hook's entry (sp points at the return address; bp is the caller's
 * rbp) and returns the trie id of the stack, 0 when none; sets *flags (MT_RT_ROW_*). */
RT_HIDDEN uint32_t rt_capture(struct rt_thread *t, uint64_t sp, uint64_t bp, uint8_t *flags);
/* The same for --stack-depth 1: the immediate caller only. */
RT_HIDDEN uint32_t rt_capture1(struct rt_thread *t, uint64_t sp);
/* After fork, in the child: a new, empty trie (the child is a new stream). */
RT_HIDDEN void rt_unwind_fork_child(void);
/* After dlclose: forget cached rules (code may be unmapped and replaced). */
RT_HIDDEN void rt_unwind_flush_rules(void);
RT_HIDDEN void rt_unwind_thread_exit(struct rt_thread *t);
/* The trie id of (parent, ip), through the thread's cache; 0 when the trie had no room. */
RT_HIDDEN uint32_t rt_intern_cached(struct rt_memo *m, uint32_t parent, uint64_t ip);
/* trie.c: the stack trie. The ids of a run of frames into f[k].id, f[0] under parent (0:
 * a root) and each next one under the one before, made if new (together: one wait for
 * memory for the run); returns the last id, 0 when the node ring stayed full (the ids
 * from there on 0). Each id found or made goes into the thread's cache. */
RT_HIDDEN uint32_t rt_trie_run(struct rt_memo *m, uint32_t parent, struct rt_frame *f, unsigned n);
RT_HIDDEN uint32_t rt_trie_intern(struct rt_memo *m, uint32_t parent, uint64_t ip);
RT_HIDDEN bool rt_trie_init(void); /* false: no memory for the table */
RT_HIDDEN bool rt_trie_fork_child(void); /* a new, empty trie; false: no memory */

/* unwind-file.c: the rule at pc from the unwind tables of the object f found, read from its
 * file (or in place, where the file cannot be read); the tables read so far forgotten
 * (dlclose), or kept in a fork child. */
struct dl_find_object;
RT_HIDDEN uint64_t rt_unwind_file_rule(const struct dl_find_object *f, uint64_t pc);
RT_HIDDEN void rt_unwind_file_flush(void);
RT_HIDDEN void rt_unwind_file_fork_child(void);

/* rt-wp.c: page-write tracking. rt_wp_min: blocks and anonymous writable mappings of at
 * least this many bytes are tracked (UINT64_MAX: none); rt_wp_live: ranges tracked so. */
extern uint64_t rt_wp_min RT_HIDDEN;
extern unsigned rt_wp_live RT_HIDDEN;
/* 1 (MT_RT_WP_TRACKED) or -errno: [addr, addr + len)'s pages registered and protected. */
RT_HIDDEN int rt_wp_track(const void *addr, size_t len);
/* A block (mapping: false) or a writable anonymous mapping of its own (true). */
RT_HIDDEN void rt_wp_auto(uint64_t addr, uint64_t len, bool mapping);
/* Blocks of this size or more count for their allocation stack's tally (rt_wp_site_tally). */
#define RT_WP_SITE_BLOCK (64u << 10)
/* Adds a block to its stack's tally: true once the stack's blocks reach rt_wp_min. */
RT_HIDDEN bool rt_wp_site_tally(uint32_t stack, uint64_t size);
/* The writable segments (.data, .bss) of the objects loaded before the runtime started. */
RT_HIDDEN void rt_wp_existing(void);
/* Before a block at addr goes (free, realloc): its last writes reported, unregistered. */
RT_HIDDEN bool rt_wp_release(uint64_t addr); /* false: it was not tracked */
/* The same for every tracked range overlapping [start, start + len) (munmap, MAP_FIXED). */
RT_HIDDEN void rt_wp_release_range(uint64_t start, uint64_t len);
/* Before madvise(start, len, advice): a discard (MADV_DONTNEED, MADV_REMOVE) of tracked pages
 * reports their last writes and says so; MADV_HUGEPAGE or MADV_COLLAPSE ends the tracking of
 * the ranges it touches. */
RT_HIDDEN void rt_wp_madvise(uint64_t start, uint64_t len, int advice);
RT_HIDDEN void rt_wp_fork_child(void);

/* rt-python.c: CPython's frames in the stacks. rt_py_on: this process runs a CPython whose
 * frames the runtime reads. */
extern bool rt_py_on RT_HIDDEN;
extern uint32_t rt_py_state RT_HIDDEN, rt_py_version RT_HIDDEN;
RT_HIDDEN void rt_py_init(bool wanted);
/* The stack id with the thread's Python frames in place of their eval calls' native frames
 * (native: the id rt_capture returned, its frames still in the thread's memo). */
RT_HIDDEN uint32_t rt_py_merge(struct rt_thread *t, uint32_t native);
RT_HIDDEN void rt_py_fork_child(void);
RT_HIDDEN void rt_py_thread_exit(struct rt_thread *t);

/* rt.c, for unwind.c: memory that never comes from malloc. */
/* The runtime's own system calls, marked for the recorder (stubs.S, format/rt-mark.h): the
 * raw result, -4095..-1 for -errno; errno is never touched. */
RT_HIDDEN long mt_rt_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
#define rt_sys0(nr) mt_rt_sys((nr), 0, 0, 0, 0, 0, 0)
#define rt_sys1(nr, a) mt_rt_sys((nr), (long)(a), 0, 0, 0, 0, 0)
#define rt_sys2(nr, a, b) mt_rt_sys((nr), (long)(a), (long)(b), 0, 0, 0, 0)
#define rt_sys3(nr, a, b, c) mt_rt_sys((nr), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define rt_sys_failed(r) ((unsigned long)(r) > -4096ul)

RT_HIDDEN void *rt_mmap_anon(size_t size);
/* Wakes the recorder (one datagram, never blocking). */
RT_HIDDEN void rt_notify_recorder(void);
RT_HIDDEN void rt_munmap(void *p, size_t size);
/* An arena block never used again (an outgrown table): its pages go back to the kernel. */
RT_HIDDEN void rt_arena_drop(void *p, size_t size);
/* The node ring is about to hold id: its pages ahead become memtap's (populated). */
RT_HIDDEN void rt_own_ring(uint64_t id);

/* ---- shared by rt.c (boot), rt-mem.c (memtap's own memory), rt-hooks.c (the hot path and
 * the hooks), rt-labels.c (memtap.h: labels, phases, page writes) ---- */

#include <pthread.h>
#include <sys/syscall.h>
#include <x86intrin.h>

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
	int (*madvise)(void *, size_t, int);
};

/* ---- small libc-free helpers ---- */

static inline pid_t rt_gettid(void)
{
	return (pid_t)rt_sys0(SYS_gettid);
}

struct rt_free {
	struct rt_free *next;
	size_t size;
};

/* Is this thread recording right now? The whole test of every fast path. */
/* A thread set up in an earlier connection (a process recorded again) takes the slow path:
 * its epoch is never 0, so never equal to rt_live while not recording. */
#define FAST(t) (RT_LIKELY((t)->mode == TM_READY) && RT_LIKELY((t)->epoch == rt_live))

/* The arena's reservation (rt-mem.c), and the gap after which a busy thread's clock reads
 * go back to every event (rt-hooks.c, "Event times"). */
#define RT_GAP_NS 2000u
/* A slot older than this is handed over at the thread's next timed event, however empty:
 * a thread that allocates now and then reaches the trace, and memtap top, within about
 * this long, not once 64 KiB of rows have piled up. */
#define RT_SLOT_AGE_NS 200000000ull
#define RT_ARENA_SIZE (1ull << 30)

#define SLOT_WORDS 8184u /* 64-byte header + 8184 words = 64 KiB */

/* Their state: defined in rt.c. */
extern __thread uint64_t mt_rt_entry_sp RT_TLS RT_HIDDEN;
extern __thread uint64_t mt_rt_entry_bp RT_TLS RT_HIDDEN;
extern struct rt_real rt_libc RT_HIDDEN;
extern int rt_state RT_HIDDEN;
extern struct rt_thread *rt_init_thread RT_HIDDEN;
extern pid_t rt_pid RT_HIDDEN;
extern int rt_sock RT_HIDDEN;
extern int rt_uffd RT_HIDDEN;
extern int rt_pagemap RT_HIDDEN;
extern int rt_wp_lock RT_HIDDEN;
extern unsigned rt_wp_ranges RT_HIDDEN;
extern size_t rt_region_size RT_HIDDEN;
extern pthread_key_t rt_key RT_HIDDEN;
extern bool rt_key_ok RT_HIDDEN;
extern char *rt_arena RT_HIDDEN;
extern uint64_t rt_arena_used RT_HIDDEN;
extern uint64_t rt_own_anon RT_HIDDEN;
extern uint64_t rt_shm_slots RT_HIDDEN;
extern uint64_t rt_shm_ring RT_HIDDEN;
extern int rt_own_lock RT_HIDDEN;
extern uint64_t rt_arena_ns RT_HIDDEN;
extern struct rt_free *rt_freed RT_HIDDEN;
extern int rt_free_lock RT_HIDDEN;
extern char rt_boot_pool[64 << 10] RT_HIDDEN;
extern size_t rt_boot_used RT_HIDDEN;
extern bool rt_glibc_heap RT_HIDDEN;
extern bool rt_foreign_malloc RT_HIDDEN; /* the program's malloc is not ours (rt.c) */

/* The clock of event times: the TSC where it is invariant, else CLOCK_MONOTONIC. */
static inline uint64_t rt_now(void)
{
	return RT_LIKELY(rt_cfg.tsc) ? __rdtsc() : rt_mono_ns();
}

/* rt.c */
void rt_init(void);
void rt_resolve_real(void *(*find)(const char *name));
void rt_start(bool probe); /* after the configuration: threads, fork, region, connection */
bool rt_config_set(const char *conf);
/* rt-inject.c: set once the runtime was injected into a running process and redirected its
 * calls; rt_inject_rescan redirects the objects loaded since */
extern bool rt_injected RT_HIDDEN;
void rt_inject_rescan(void);
int rt_region_create(void); /* the sealed memfd, mapped as rt_region; or -errno */
/* rt-exec.c: the exec family's real functions */
void rt_exec_init(void);
/* rt-chan.c: the connection */
void rt_attach(void);
void rt_go_passive(void);
/* rt-slots.c: sleeps until the recorder bumps *gen past seen, at most timeout_ns */
void rt_wait_recorder(uint32_t *waiters, uint32_t *gen, uint32_t seen, long timeout_ns);
/* One datagram, a full socket retried for up to wait_us: bytes sent or -errno. */
long rt_send(const void *m, size_t n, unsigned wait_us);
void rt_chan_fork_child(void);
/* rt-mem.c */
void rt_debug(const char *msg);
uint64_t rt_own_shmem(void);
void rt_own_grow(uint64_t *mark, uint64_t to);
/* rt-slots.c */
RT_COLD bool rt_slot_reserve(struct rt_thread *t, unsigned need);
/* rt-hooks.c */
RT_COLD void rt_slot_finish(struct rt_thread *t);
RT_COLD void rt_side_drain(struct rt_thread *t);
void rt_own_report(void);
int rt_slow_mode(struct rt_thread *t);
/* A MARK row: from here on the thread's allocations are in span `span` (0: none). The
 * caller holds the thread busy. */
void rt_put_mark(struct rt_thread *t, uint64_t span);

#endif
