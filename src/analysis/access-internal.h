/* SPDX-License-Identifier: MIT */
/* The access pass's state, shared by its files: access.c (the pass), access-regions.c (the
 * region model), access-behavior.c (behaviour metrics as events come), access-settle.c
 * (figures settled at the end). Not for use outside them. */
#ifndef MEMTAP_ANALYSIS_ACCESS_INTERNAL_H
#define MEMTAP_ANALYSIS_ACCESS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/access.h"
#include "analysis/rangeset.h"
#include "common/hash.h"
#include "format/reader.h"

#define NONE UINT32_MAX

struct proc {
	uint32_t maps, blocks, labels; /* treap roots */
	uint32_t unknown; /* its UNKNOWN region, or NONE */
	uint32_t phase; /* index into st->phases (0: none) */
	uint64_t phase_since;
	bool pw_lost; /* the pagewrites collector missed an epoch of this process */
	uint64_t end_ns; /* its exit (0: alive at the end) */
};

/*
 * The exact-address table of inter-access intervals: open addressing over 16-byte slots (key
 * and value in one cache line), at most half full; it doubles up to IAI_MAX_SLOTS (32 MiB,
 * 1 Mi addresses). Key: pid << 47 | address (0: empty); value: (t - t0) << 12 | type index.
 * When it is full, it follows half as many addresses from then on (SHARDS-style spatial
 * sampling, Waldspurger et al., FAST '15): an address is followed while the top k bits of its
 * hash are 0; the others are dropped, and each interval found later stands for 2^k. The sets
 * are nested, so an address followed now was followed all along. Until the table fills
 * (k = 0) every address is followed and the intervals are exact.
 */
#define IAI_MAX_SLOTS (1u << 21)
#define PIPE 64 /* events in flight in the pass (prefetch distance) */

/*
 * Reuse distance with SHARDS (Waldspurger et al., FAST '15): of the sampled accesses, only
 * those to the 1/RD_RATE of 64-byte lines whose hash falls below the threshold are followed;
 * the distinct followed lines between two samples of a line, times RD_RATE, estimate the
 * distinct lines in between. A Fenwick tree over the last RD_WINDOW followed samples marks
 * each line's latest sample; reuses further apart are counted as "far".
 */
#define RD_RATE 16
#define RD_WINDOW (1u << 20)
#define RD_MAX_LINES (4u << 20)

struct reuse {
	uint32_t *bit; /* Fenwick tree over sample index mod RD_WINDOW, 1-based */
	uint8_t *mark; /* the markers themselves */
	struct mt_map64 last; /* pid << 41 | line -> followed-sample index */
	uint64_t n; /* followed samples so far */
};

struct iai_slot {
	uint64_t key, val;
};

struct iai_table {
	struct iai_slot *v;
	size_t cap, len;
	unsigned k; /* followed: addresses whose hash has its top k bits 0 */
};

/*
 * The pages touched, in one open-addressing table whose slots hold the page entries
 * themselves (key and counters in two cache lines): one memory access per sample, fetched
 * ahead. At most half full; compacted into st->pages at the end.
 */
struct page_slot {
	uint64_t key; /* pid << 36 | page number, + 1 (0: empty) */
	uint64_t seq; /* order of first touch: st->pages keeps it */
	struct mt_access_page p;
} __attribute__((aligned(64)));

struct page_table {
	struct page_slot *v;
	size_t cap, len;
};

/* A thread's latest resolved load: the run of samples at one instruction and line. */
struct spin_thread {
	uint64_t line, ip;
	uint32_t run, region;
};

struct pass {
	struct mt_reader *r;
	struct mt_access_stats *st;
	struct mt_rs_pool pool;
	struct mt_map64 proc_ix; /* pid -> index into procs */
	struct proc *procs;
	size_t nprocs, procs_cap;
	uint32_t last_pid; /* proc_of's last answer */
	size_t last_proc;
	struct mt_map64 site_ix; /* stream << 40 | stack -> index into sites */
	struct page_table pages;
	size_t regions_cap, sites_cap, fault_procs_cap;
	struct mt_map64 fault_proc_ix; /* pid -> index into st->fault_procs */
	struct iai_table iai;
	struct reuse rd;
	struct mt_map64 ip_phase; /* pid << 47 | ip -> phase index + 1, or 1 << 63: none */
	size_t types_cap, phases_cap, wss_cap;
	uint64_t window; /* current working-set window + 1 (0: none yet) */
	uint64_t phase_windows; /* phases' windows opened so far (their ids) */
	uint64_t cur_pages;
	struct mt_map64 spin_tid; /* tid -> index into spin_threads + 1 */
	uint32_t spin_cache_tid[64]; /* a direct-mapped cache of it, by tid mod 64 (+1: valid) */
	uint32_t spin_cache_ix[64];
	struct spin_thread *spin_threads;
	size_t nspin_threads, spin_threads_cap;
	struct mt_access_opts o;
};

static inline bool iai_followed(const struct iai_table *t, uint64_t h)
{
	return !t->k || h >> (64 - t->k) == 0;
}

static inline uint64_t iai_key(uint32_t pid, uint64_t addr)
{
	return (uint64_t)(pid & 0x1ffff) << 47 | (addr & ((1ull << 47) - 1));
}

static inline uint64_t page_key(uint32_t pid, uint64_t addr)
{
	return ((uint64_t)pid << 36 | (addr >> 12 & ((1ull << 36) - 1))) + 1;
}

/* access-regions.c */
bool mt_acc_memtap_code(struct pass *ps, uint32_t pid, uint64_t ip);
void mt_acc_on_alloc(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_brk(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_label(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_pw_range(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_page_track(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_mmap(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_mremap(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_task_new(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_unmap(struct pass *ps, uint32_t pid, uint64_t start, uint64_t len, uint64_t t);
/*
 * The process's image is gone (its exit, or an exec): its open regions end at t, censored
 * (the program never ended them). maps: its mappings too — not at an exec, whose new
 * image's first mappings (the kernel's, as it loads the program) come before the exec event.
 */
void mt_acc_on_image_end(struct pass *ps, uint32_t pid, uint64_t t, bool maps);
struct proc *mt_acc_proc_of(struct pass *ps, uint32_t pid);
uint32_t mt_acc_region_at(struct pass *ps, uint32_t pid, uint64_t addr, int64_t *site_out);
void mt_acc_settle_stride(struct mt_region_behavior *b);
/* access-spin.c: the rare paths; the per-sample one is mt_acc_spin() below */
struct spin_thread *mt_acc_spin_thread(struct pass *ps, uint64_t tid);
void mt_acc_spin_run(struct pass *ps, const struct mt_event *ev, uint32_t reg,
		     struct mt_access_page *pg, struct spin_thread *t);
void mt_acc_spin_release(struct pass *ps);

/*
 * A resolved sample of the workload in region reg and page pg (NULL: none), its counts
 * already taken: per thread, the run of loads at one instruction (within 16 bytes) and one
 * line (access-spin.c). Inline: it runs for every sample, and most end a run at once.
 */
static inline void mt_acc_spin(struct pass *ps, const struct mt_event *ev, uint32_t reg,
			       struct mt_access_page *pg)
{
	uint64_t tid = ev->v[MT_F_TID], line = ev->v[MT_F_ACCESS_ADDR] >> 6;
	uint64_t ip = ev->v[MT_F_ACCESS_IP];
	unsigned c = (unsigned)tid & 63;
	struct spin_thread *t = ps->spin_cache_tid[c] == (uint32_t)tid + 1
					? &ps->spin_threads[ps->spin_cache_ix[c]]
					: mt_acc_spin_thread(ps, tid);

	if (!t)
		return;
	if (ev->v[MT_F_ACCESS_KIND] != MT_ACCESS_LOAD || ev->v[MT_F_ACCESS_PART] != 0) {
		t->run = 0; /* a store (or an instruction's second part) breaks a run */
		return;
	}
	if (!t->run || t->line != line || t->region != reg ||
	    (ip > t->ip ? ip - t->ip : t->ip - ip) >= 16) {
		*t = (struct spin_thread){ .line = line, .ip = ip, .run = 1, .region = reg };
		return;
	}
	if (++t->run >= MT_SPIN_RUN)
		mt_acc_spin_run(ps, ev, reg, pg, t);
}
/* access-behavior.c */
void mt_acc_behave_access(struct pass *ps, uint32_t reg, struct mt_access_page *pg, int64_t site,
			  const struct mt_event *ev);
void mt_acc_emit_row(struct pass *ps, const struct mt_event *ev, const char *op, uint64_t addr,
		     uint64_t ip, uint64_t weight, uint32_t reg, int32_t tix, int64_t site,
		     uint32_t phase);
void mt_acc_flush_window(struct pass *ps);
void mt_acc_fold_wss(uint64_t *cur, uint64_t *peak, double *sum, uint64_t *windows);
void mt_acc_iai_free(struct iai_table *t);
void mt_acc_on_page_write(struct pass *ps, const struct mt_event *ev);
void mt_acc_on_phase(struct pass *ps, const struct mt_event *ev);
struct mt_access_page *mt_acc_page_of(struct pass *ps, uint32_t pid, uint64_t addr, uint32_t reg,
				      int64_t site);
uint32_t mt_acc_phase_index(struct pass *ps, const char *name);
bool mt_acc_pw_lost(struct pass *ps, uint32_t pid);
/* now: the time it ends at unless its region ended before */
void mt_acc_pw_settle(struct mt_access_stats *st, struct mt_access_page *pg, uint64_t now);
void mt_acc_touch(struct pass *ps, struct mt_access_page *pg, uint32_t reg, uint32_t phase,
		  uint64_t t);
int32_t mt_acc_type_of(struct pass *ps, uint32_t reg);
/* The index of the region type called name (added when new), or -1 when memory is short. */
int32_t mt_acc_type_named(struct pass *ps, const char *name);
void mt_acc_window_to(struct pass *ps, uint64_t t);
/* access-settle.c */
void mt_acc_finish(struct pass *ps);
/* access.c */
void mt_acc_count(struct mt_access_counts *c, const struct mt_event *ev);

#endif
