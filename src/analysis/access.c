/* SPDX-License-Identifier: MIT */
/* The access pass: each sampled access attributed to the region holding it at that time. */
#include "analysis/access.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/array.h"
#include "common/hash.h"
#include "analysis/own.h"
#include "analysis/rules.h"
#include "analysis/symbols.h"
#include "analysis/pass.h"
#include "format/reader.h"
#include "format/schema.h"

/*
 * Per process, two ordered sets of address ranges are replayed in time order: the
 * mappings (MMAP, MUNMAP, MREMAP, BRK events; a fork child starts with a copy of its
 * parent's) and the live heap blocks (ALLOC events; cleared at exec). Both are treaps
 * keyed by start address, so each access costs two O(log n) predecessor searches.
 */

static const char *const region_names[MT_NREGION_TYPES] = {
	[MT_REGION_UNKNOWN] = "unknown",
	[MT_REGION_HEAP] = "heap",
	[MT_REGION_ALLOCATION] = "allocation",
	[MT_REGION_HEAP_OBJECTS] = "heap_objects",
	[MT_REGION_STACK] = "stack",
	[MT_REGION_CODE] = "code",
	[MT_REGION_FILE] = "file",
	[MT_REGION_ANON] = "anon",
	[MT_REGION_SPECIAL] = "special",
	[MT_REGION_LABEL] = "labeled",
	[MT_REGION_MEMTAP] = "memtap",
};

const char *mt_region_type_name(unsigned type)
{
	return type < MT_NREGION_TYPES ? region_names[type] : "?";
}

#define NONE UINT32_MAX

struct node {
	uint64_t start, end;
	uint32_t prio, l, r;
	uint32_t a, b; /* mappings: region; blocks: site, region (NONE until sampled) */
};

struct pool {
	struct node *v; /* v[0] is the null node */
	size_t n, cap;
	uint32_t free;
	uint32_t seed;
};

static uint32_t new_node(struct pool *p, uint64_t start, uint64_t end, uint32_t a, uint32_t b)
{
	uint32_t i;

	if (p->free) {
		i = p->free;
		p->free = p->v[i].l;
	} else {
		if (mt_grow_array(&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0)
			return 0;
		if (!p->n)
			p->n = 1; /* the null node */
		if (mt_grow_array(&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0)
			return 0;
		i = (uint32_t)p->n++;
	}
	p->seed = p->seed * 1103515245u + 12345u;
	p->v[i] = (struct node){ start, end, p->seed, 0, 0, a, b };
	return i;
}

static void free_tree(struct pool *p, uint32_t t)
{
	while (t) {
		uint32_t r = p->v[t].r;

		free_tree(p, p->v[t].l);
		p->v[t].l = p->free;
		p->free = t;
		t = r;
	}
}

/* Splits t into keys < key (*l) and keys >= key (*r). */
static void split(struct pool *p, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
		return;
	}
	if (p->v[t].start < key) {
		split(p, p->v[t].r, key, &p->v[t].r, r);
		*l = t;
	} else {
		split(p, p->v[t].l, key, l, &p->v[t].l);
		*r = t;
	}
}

static uint32_t merge(struct pool *p, uint32_t a, uint32_t b)
{
	if (!a || !b)
		return a ? a : b;
	if (p->v[a].prio > p->v[b].prio) {
		p->v[a].r = merge(p, p->v[a].r, b);
		return a;
	}
	p->v[b].l = merge(p, a, p->v[b].l);
	return b;
}

/* Removes every range starting in [lo, hi). */
static void erase_starts(struct pool *p, uint32_t *root, uint64_t lo, uint64_t hi)
{
	uint32_t l, m, r;

	split(p, *root, lo, &l, &r);
	split(p, r, hi, &m, &r);
	free_tree(p, m);
	*root = merge(p, l, r);
}

static void insert(struct pool *p, uint32_t *root, uint32_t n)
{
	uint32_t l, r;

	erase_starts(p, root, p->v[n].start, p->v[n].start + 1);
	split(p, *root, p->v[n].start, &l, &r);
	*root = merge(p, merge(p, l, n), r);
}

/* The range with the largest start <= addr, or 0. */
static uint32_t find_le(const struct pool *p, uint32_t t, uint64_t addr)
{
	uint32_t best = 0;

	while (t) {
		if (p->v[t].start <= addr) {
			best = t;
			t = p->v[t].r;
		} else {
			t = p->v[t].l;
		}
	}
	return best;
}

static uint32_t find(const struct pool *p, uint32_t t, uint64_t addr)
{
	uint32_t n = find_le(p, t, addr);

	return n && addr < p->v[n].end ? n : 0;
}

/*
 * Cuts [lo, hi) out of the ranges, as the kernel splits its vmas (munmap, mprotect, a new
 * mapping over part of an old one): a range reaching past either end keeps what lies
 * outside, under its own region.
 */
static void punch(struct pool *p, uint32_t *root, uint64_t lo, uint64_t hi)
{
	uint32_t prev, last;

	if (hi <= lo)
		return;
	/* The last range starting inside [lo, hi) may reach past hi: keep its tail. */
	last = find_le(p, *root, hi - 1);
	if (last && p->v[last].start >= lo && p->v[last].end > hi) {
		uint32_t tail = new_node(p, hi, p->v[last].end, p->v[last].a, p->v[last].b);

		erase_starts(p, root, lo, hi);
		if (tail)
			insert(p, root, tail);
	} else {
		erase_starts(p, root, lo, hi);
	}
	/* A range starting before lo: cut at lo, and keep its part past hi. */
	prev = find_le(p, *root, lo);
	if (prev && p->v[prev].start < lo && p->v[prev].end > lo) {
		uint64_t end = p->v[prev].end;

		p->v[prev].end = lo;
		if (end > hi) {
			uint32_t tail = new_node(p, hi, end, p->v[prev].a, p->v[prev].b);

			if (tail)
				insert(p, root, tail);
		}
	}
}

static void copy_tree(struct pool *p, uint32_t t, uint32_t *to)
{
	while (t) {
		struct node n = p->v[t];
		uint32_t c;

		copy_tree(p, n.l, to);
		c = new_node(p, n.start, n.end, n.a, n.b);
		if (c)
			insert(p, to, c);
		t = p->v[t].r; /* p->v may have moved: re-read through the index */
	}
}

struct proc {
	uint32_t maps, blocks, labels; /* treap roots */
	uint32_t unknown; /* its UNKNOWN region, or NONE */
	uint32_t phase; /* index into st->phases (0: none) */
	uint64_t phase_since;
	bool pw_lost; /* the pagewrites collector missed an epoch of this process */
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

static void iai_free(struct iai_table *t)
{
	if (t->v)
		munmap(t->v, t->cap * sizeof(*t->v));
	memset(t, 0, sizeof(*t));
}

static int iai_alloc(struct iai_table *t, size_t cap)
{
	void *p = mmap(NULL, cap * sizeof(*t->v), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	if (cap * sizeof(*t->v) >= (2u << 20))
		(void)madvise(p, cap * sizeof(*t->v), MADV_HUGEPAGE); /* fewer TLB misses */
	t->v = p;
	t->cap = cap;
	t->len = 0;
	return 0;
}

static struct iai_slot *iai_find(const struct iai_table *t, uint64_t key, uint64_t h)
{
	size_t mask = t->cap - 1, i = h & mask;

	while (t->v[i].key != key && t->v[i].key)
		i = (i + 1) & mask;
	return &t->v[i];
}

static inline bool iai_followed(const struct iai_table *t, uint64_t h)
{
	return !t->k || h >> (64 - t->k) == 0;
}

static uint64_t iai_key(uint32_t pid, uint64_t addr)
{
	return (uint64_t)(pid & 0x1ffff) << 47 | (addr & ((1ull << 47) - 1));
}

/* Into n, the slots of t still followed. */
static void iai_move(struct iai_table *n, const struct iai_table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t h;

		if (!t->v[i].key)
			continue;
		h = mt_hash_u64(t->v[i].key);
		if (!iai_followed(n, h))
			continue;
		*iai_find(n, t->v[i].key, h) = t->v[i];
		n->len++;
	}
}

/* The slot of key (hash h), made (key set, val 0) when absent; NULL when the address is not
 * followed or memory is short. */
static struct iai_slot *iai_get(struct iai_table *t, uint64_t key, uint64_t h, bool *fresh)
{
	struct iai_slot *s;

	if (!t->v && iai_alloc(t, 1u << 16) < 0)
		return NULL;
	if (!iai_followed(t, h))
		return NULL;
	while ((t->len + 1) * 2 > t->cap) {
		struct iai_table n = { 0 };

		if (iai_alloc(&n, t->cap < IAI_MAX_SLOTS ? t->cap * 2 : t->cap) < 0)
			return NULL;
		n.k = t->k + (t->cap >= IAI_MAX_SLOTS); /* full: follow half as many */
		iai_move(&n, t);
		iai_free(t);
		*t = n;
		if (!iai_followed(t, h))
			return NULL;
	}
	s = iai_find(t, key, h);
	*fresh = !s->key;
	if (*fresh) {
		s->key = key;
		s->val = 0;
		t->len++;
	}
	return s;
}

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

static struct page_slot *pt_find(const struct page_table *t, uint64_t key)
{
	size_t mask = t->cap - 1, i = mt_hash_u64(key) & mask;

	while (t->v[i].key != key && t->v[i].key)
		i = (i + 1) & mask;
	return &t->v[i];
}

static int pt_grow(struct page_table *t)
{
	struct page_table n = { .cap = t->cap ? t->cap * 2 : 1024 };

	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].key)
			*pt_find(&n, t->v[i].key) = t->v[i];
	n.len = t->len;
	free(t->v);
	*t = n;
	return 0;
}

struct pass {
	struct mt_reader *r;
	struct mt_access_stats *st;
	struct pool pool;
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
	struct mt_access_opts o;
};

static struct proc *proc_of(struct pass *ps, uint32_t pid)
{
	uint64_t *ix;

	if (ps->nprocs && pid == ps->last_pid) /* samples come in runs of one process */
		return &ps->procs[ps->last_proc];
	ix = mt_map64_get(&ps->proc_ix, pid);
	if (ix) {
		ps->last_pid = pid;
		ps->last_proc = *ix;
		return &ps->procs[*ix];
	}
	if (mt_grow_array(&ps->procs, &ps->procs_cap, ps->nprocs + 1, sizeof(*ps->procs)) < 0 ||
	    mt_map64_put(&ps->proc_ix, pid, &ix) < 0)
		return NULL;
	*ix = ps->nprocs;
	ps->procs[ps->nprocs] = (struct proc){ 0, 0, 0, NONE, 0, 0, false };
	ps->last_pid = pid; /* the cache always names a real entry */
	ps->last_proc = ps->nprocs;
	return &ps->procs[ps->nprocs++];
}

static uint32_t new_region(struct pass *ps, uint32_t pid, unsigned type, uint32_t stream,
			   uint64_t start, uint64_t end, uint64_t label, int64_t site, uint64_t t)
{
	struct mt_access_stats *st = ps->st;

	if (mt_grow_array(&st->regions, &ps->regions_cap, st->nregions + 1, sizeof(*st->regions)) <
	    0)
		return NONE;
	st->regions[st->nregions] = (struct mt_access_region){
		.pid = pid,
		.type = (uint8_t)type,
		.stream = stream,
		.start = start,
		.end = end,
		.label = label,
		.site = site,
		.t_start = t,
		.b.type_ix = -1,
	};
	return (uint32_t)st->nregions++;
}

/* Settles a region's stride figures and frees their store: memory stays with live regions. */
static void settle_stride(struct mt_region_behavior *b)
{
	if (b->stride_settled)
		return;
	b->stride_mean = mt_qs_mean(&b->stride);
	b->stride_median = mt_qs_quantile(&b->stride, 0.5);
	mt_qs_release(&b->stride);
	b->stride_settled = true;
}

static void end_region(struct mt_access_stats *st, uint32_t reg, uint64_t t)
{
	st->regions[reg].b.end_ns = t;
	settle_stride(&st->regions[reg].b);
}

static unsigned mapping_type(const char *path, uint64_t prot, uint64_t origin)
{
	if (origin == MT_MMAP_MEMTAP || mt_own_path(path))
		return MT_REGION_MEMTAP;
	if (!path || !path[0])
		return MT_REGION_ANON;
	if (!strcmp(path, "[heap]"))
		return MT_REGION_HEAP;
	if (!strncmp(path, "[stack", 6))
		return MT_REGION_STACK;
	if (path[0] == '[')
		return MT_REGION_SPECIAL;
	return prot & PROT_EXEC ? MT_REGION_CODE : MT_REGION_FILE;
}

static void on_mmap(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	uint64_t start = ev->v[MT_F_MMAP_ADDR], end = start + ev->v[MT_F_MMAP_LEN];
	const char *path = mt_reader_str(ps->r, ev->stream, ev->v[MT_F_MMAP_PATH], NULL);
	uint32_t reg, n;
	unsigned type;

	if (!pr || end <= start)
		return;
	/* The runtime's record of an mmap call knows no path; the kernel's record of the same
	 * mapping (perf MMAP2, either order) does: keep that one. */
	if (ev->v[MT_F_MMAP_ORIGIN] == MT_MMAP_RT && (n = find(&ps->pool, pr->maps, start)) &&
	    ps->pool.v[n].start == start && ps->pool.v[n].end == end)
		return;
	type = mapping_type(path, ev->v[MT_F_MMAP_PROT], ev->v[MT_F_MMAP_ORIGIN]);
	/* A stack that grew down (the kernel reports the whole grown mapping): the same region. */
	if (type == MT_REGION_STACK && (n = find(&ps->pool, pr->maps, end - 1)) &&
	    ps->pool.v[n].end == end && ps->pool.v[n].start >= start &&
	    ps->st->regions[ps->pool.v[n].a].type == MT_REGION_STACK) {
		reg = ps->pool.v[n].a;
		ps->st->regions[reg].start = start;
	} else {
		reg = new_region(ps, (uint32_t)ev->v[MT_F_PID], type, ev->stream, start, end,
				 ev->v[MT_F_MMAP_PATH], -1, ev->v[MT_F_TIME]);
		if (reg == NONE)
			return;
	}
	ps->st->regions[reg].b.readonly = !(ev->v[MT_F_MMAP_PROT] & PROT_WRITE);
	punch(&ps->pool, &pr->maps, start, end);
	n = new_node(&ps->pool, start, end, reg, 0);
	if (n)
		insert(&ps->pool, &pr->maps, n);
}

static void on_unmap(struct pass *ps, uint32_t pid, uint64_t start, uint64_t len, uint64_t t)
{
	struct proc *pr = proc_of(ps, pid);

	if (pr && len) {
		uint32_t n = find(&ps->pool, pr->maps, start);

		if (n && ps->pool.v[n].start == start && ps->pool.v[n].end <= start + len)
			end_region(ps->st, ps->pool.v[n].a, t);
		punch(&ps->pool, &pr->maps, start, start + len);
		punch(&ps->pool, &pr->labels, start, start + len); /* a name dies with its memory */
	}
}

/*
 * memtap_label: the range becomes a region of the workload's type, in front of the mapping
 * or heap block it lies in, until memtap_unlabel, an unmap of it, or the process's exec.
 * A range not inside one mapping of the process at that time is counted and ignored.
 */
static void on_label(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct proc *pr = proc_of(ps, pid);
	uint64_t start = ev->v[MT_F_LABEL_ADDR], end = start + ev->v[MT_F_LABEL_LEN];
	uint32_t m, reg, n;

	if (!pr)
		return;
	if (ev->v[MT_F_LABEL_OP] == MT_LABEL_UNSET) {
		n = find(&ps->pool, pr->labels, start);
		if (!n || ps->pool.v[n].start != start) {
			ps->st->unlabels_unmatched++;
			return;
		}
		end_region(ps->st, ps->pool.v[n].a, ev->v[MT_F_TIME]);
		erase_starts(&ps->pool, &pr->labels, start, start + 1);
		return;
	}
	m = find(&ps->pool, pr->maps, start);
	if (end <= start || !m || ps->pool.v[m].end < end) {
		ps->st->labels_invalid++;
		return;
	}
	reg = new_region(ps, pid, MT_REGION_LABEL, ev->stream, start, end, ev->v[MT_F_LABEL_NAME],
			 -1, ev->v[MT_F_TIME]);
	if (reg == NONE)
		return;
	{
		struct mt_access_region *g = &ps->st->regions[reg];

		g->user_type = ev->v[MT_F_LABEL_TYPE];
		g->b.readonly = ps->st->regions[ps->pool.v[m].a].b.readonly;
		g->b.wp = (uint8_t)ev->v[MT_F_LABEL_WP];
		if (g->b.wp == MT_LABEL_WP_TRACKED) {
			uint64_t lo = (start + 4095) & ~4095ull, hi = end & ~4095ull;

			g->b.wp_pages = hi > lo ? (hi - lo) / 4096 : 0;
		}
	}
	ps->st->labels++;
	pr = proc_of(ps, pid);
	punch(&ps->pool, &pr->labels, start, end);
	n = new_node(&ps->pool, start, end, reg, 0);
	if (n)
		insert(&ps->pool, &pr->labels, n);
}

static void on_mremap(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	uint64_t old = ev->v[MT_F_MREMAP_OLD_ADDR], len = ev->v[MT_F_MREMAP_LEN];
	uint64_t addr = ev->v[MT_F_MREMAP_ADDR];
	uint32_t m, reg, n;

	if (!pr || !(m = find(&ps->pool, pr->maps, old)))
		return;
	reg = ps->pool.v[m].a;
	punch(&ps->pool, &pr->maps, old, old + ev->v[MT_F_MREMAP_OLD_LEN]);
	punch(&ps->pool, &pr->maps, addr, addr + len);
	n = new_node(&ps->pool, addr, addr + len, reg, 0);
	if (n)
		insert(&ps->pool, &pr->maps, n);
}

static void on_brk(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct proc *pr = proc_of(ps, pid);
	uint64_t lo = ev->v[MT_F_BRK_OLD], hi = ev->v[MT_F_BRK_NEW];
	uint32_t m, n, reg;

	if (!pr || hi <= lo)
		return; /* shrinking: the heap mapping keeps its range; harmless */
	m = lo ? find(&ps->pool, pr->maps, lo - 1) : 0;
	if (m && ps->st->regions[ps->pool.v[m].a].type == MT_REGION_HEAP) {
		if (ps->pool.v[m].end < hi)
			ps->pool.v[m].end = hi;
		return;
	}
	reg = new_region(ps, pid, MT_REGION_HEAP, ev->stream, lo, hi, 0, -1, ev->v[MT_F_TIME]);
	if (reg == NONE)
		return;
	punch(&ps->pool, &pr->maps, lo, hi);
	n = new_node(&ps->pool, lo, hi, reg, 0);
	if (n)
		insert(&ps->pool, &pr->maps, n);
}

static int64_t site_of(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint64_t stack = ev->v[MT_F_ALLOC_STACK] & ((1ull << 40) - 1);
	uint64_t key = (uint64_t)ev->stream << 40 | stack, canon;
	uint64_t *ix = mt_map64_get(&ps->site_ix, key);

	if (ix)
		return (int64_t)*ix;
	/* A stack interned again under a new id is the same site (format/reader.c). */
	canon = mt_reader_stack_canon(ps->r, ev->stream, stack) & ((1ull << 40) - 1);
	if (canon != stack &&
	    (ix = mt_map64_get(&ps->site_ix, (uint64_t)ev->stream << 40 | canon))) {
		int64_t site = (int64_t)*ix;

		if (mt_map64_put(&ps->site_ix, key, &ix) < 0)
			return -1;
		*ix = (uint64_t)site;
		return site;
	}
	if (mt_grow_array(&st->sites, &ps->sites_cap, st->nsites + 1, sizeof(*st->sites)) < 0 ||
	    mt_map64_put(&ps->site_ix, key, &ix) < 0)
		return -1;
	*ix = st->nsites;
	st->sites[st->nsites] = (struct mt_access_site){
		.stream = ev->stream,
		.pid = (uint32_t)ev->v[MT_F_PID],
		.stack = canon,
		.first_ns = ev->v[MT_F_TIME],
		.objects_region = -1,
	};
	/* the canonical id names it too (without memory: a later id may make a second site) */
	if (canon != stack &&
	    mt_map64_put(&ps->site_ix, (uint64_t)ev->stream << 40 | canon, &ix) == 0)
		*ix = st->nsites;
	return (int64_t)st->nsites++;
}

/* A block's end: its ALLOCATION region (if it had one) ends with it. */
static void end_block(struct pass *ps, struct proc *pr, uint64_t addr, uint64_t t)
{
	uint32_t n = find(&ps->pool, pr->blocks, addr);

	if (n && ps->pool.v[n].start == addr && ps->pool.v[n].b != NONE)
		end_region(ps->st, ps->pool.v[n].b, t);
}

/* An allocation call as a row of the trace table: its site (for a free, the block's). */
static void alloc_row(struct pass *ps, struct proc *pr, const struct mt_event *ev, uint64_t addr,
		      uint64_t size)
{
	const struct mt_type_desc *d = mt_type_desc(MT_EV_ALLOC);
	uint64_t kind = ev->v[MT_F_ALLOC_KIND];
	struct mt_access_row r = {
		.time_ns = ev->v[MT_F_TIME],
		.addr = addr,
		.weight = 1,
		.pid = (uint32_t)ev->v[MT_F_PID],
		.tid = (uint32_t)ev->v[MT_F_TID],
		.op = d ? mt_field_enum_name(&d->fields[MT_F_ALLOC_KIND], kind) : "?",
		.site = -1,
		.phase = pr->phase < ps->st->nphases ? ps->st->phases[pr->phase].name : "",
	};

	if (kind == MT_ALLOC_FREE) {
		uint32_t n = find(&ps->pool, pr->blocks, addr);

		if (n && ps->pool.v[n].start == addr) {
			r.site = ps->pool.v[n].a;
			r.size = ps->pool.v[n].end - ps->pool.v[n].start;
		}
	} else if (addr && size) {
		r.site = site_of(ps, ev);
		r.size = size;
	}
	ps->o.row(ps->o.row_ctx, &r);
}

static void on_alloc(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	uint64_t addr = ev->v[MT_F_ALLOC_ADDR], old = ev->v[MT_F_ALLOC_OLD];
	uint64_t size = ev->v[MT_F_ALLOC_USABLE] ? ev->v[MT_F_ALLOC_USABLE]
						 : ev->v[MT_F_ALLOC_SIZE];
	int64_t site;
	uint32_t n;

	if (!pr)
		return;
	if (ps->o.row)
		alloc_row(ps, pr, ev, addr, size);
	if (ev->v[MT_F_ALLOC_KIND] == MT_ALLOC_FREE) {
		end_block(ps, pr, addr, ev->v[MT_F_TIME]);
		erase_starts(&ps->pool, &pr->blocks, addr, addr + 1);
		return;
	}
	if (old) {
		end_block(ps, pr, old, ev->v[MT_F_TIME]);
		erase_starts(&ps->pool, &pr->blocks, old, old + 1);
	}
	if (!addr || !size)
		return;
	site = site_of(ps, ev);
	if (site < 0)
		return;
	n = new_node(&ps->pool, addr, addr + size, (uint32_t)site, NONE);
	if (n)
		insert(&ps->pool, &pr->blocks, n);
}

static void on_task_new(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], ppid = (uint32_t)ev->v[MT_F_NEW_PPID];
	struct proc *parent, *child;
	uint32_t maps, blocks, labels;

	if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD || pid == ppid)
		return;
	parent = proc_of(ps, ppid);
	if (!parent)
		return;
	maps = parent->maps;
	blocks = parent->blocks;
	labels = parent->labels;
	child = proc_of(ps, pid); /* may move procs: parent is stale from here */
	if (!child)
		return;
	free_tree(&ps->pool, child->maps);
	free_tree(&ps->pool, child->blocks);
	free_tree(&ps->pool, child->labels);
	child->maps = child->blocks = child->labels = 0;
	{
		uint32_t m = 0, b = 0, l = 0;

		copy_tree(&ps->pool, maps, &m);
		copy_tree(&ps->pool, blocks, &b);
		copy_tree(&ps->pool, labels,
			  &l); /* the child's copy of the memory keeps its names */
		child = proc_of(ps, pid);
		child->maps = m;
		child->blocks = b;
		child->labels = l;
	}
}

static void count(struct mt_access_counts *c, const struct mt_event *ev)
{
	uint64_t t = ev->v[MT_F_TIME];

	c->samples++;
	if (ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD) {
		c->read_samples++;
		c->reads += ev->v[MT_F_ACCESS_WEIGHT];
	} else {
		c->write_samples++;
		c->writes += ev->v[MT_F_ACCESS_WEIGHT];
	}
	if (!c->first_ns || t < c->first_ns)
		c->first_ns = t;
	if (t > c->last_ns)
		c->last_ns = t;
}

/* The region holding addr in pid now, or NONE; *site gets the heap block's site or -1. */
static uint32_t region_at(struct pass *ps, uint32_t pid, uint64_t addr, int64_t *site_out)
{
	struct mt_access_stats *st = ps->st;
	struct proc *pr = proc_of(ps, pid);
	uint32_t n;
	int64_t site;

	*site_out = -1;
	if (!pr)
		return NONE;
	if ((n = find(&ps->pool, pr->labels, addr))) {
		/* a named heap block still counts for its allocation site */
		uint32_t blk = find(&ps->pool, pr->blocks, addr);

		if (blk)
			*site_out = ps->pool.v[blk].a;
		return ps->pool.v[n].a;
	}
	if ((n = find(&ps->pool, pr->blocks, addr))) {
		struct node *b = &ps->pool.v[n];
		struct mt_access_site *s = &st->sites[b->a];

		site = b->a;
		*site_out = site;
		if (b->end - b->start >= MT_ACCESS_BIG_BLOCK) {
			if (b->b == NONE)
				b->b = new_region(ps, pid, MT_REGION_ALLOCATION, s->stream,
						  b->start, b->end, 0, site, s->first_ns);
			return ps->pool.v[n].b;
		}
		if (s->objects_region < 0) {
			uint32_t r = new_region(ps, pid, MT_REGION_HEAP_OBJECTS, s->stream, 0, 0, 0,
						site, s->first_ns);

			if (r != NONE)
				st->sites[site].objects_region = r;
		}
		return st->sites[site].objects_region < 0
			       ? NONE
			       : (uint32_t)st->sites[site].objects_region;
	}
	if ((n = find(&ps->pool, pr->maps, addr)))
		return ps->pool.v[n].a;
	if (pr->unknown == NONE) {
		uint32_t r = new_region(ps, pid, MT_REGION_UNKNOWN, 0, 0, 0, 0, -1, 0);

		pr = proc_of(ps, pid);
		pr->unknown = r;
	}
	return pr->unknown;
}

/* Was the instruction at ip memtap's own (the preload runtime's code, at work in a hook)? */
static bool memtap_code(struct pass *ps, uint32_t pid, uint64_t ip)
{
	struct proc *pr = proc_of(ps, pid);
	uint32_t n = pr && ip ? find(&ps->pool, pr->maps, ip) : 0;

	return n && ps->pool.v[n].a != NONE &&
	       ps->st->regions[ps->pool.v[n].a].type == MT_REGION_MEMTAP;
}

/* ---- memory behaviour: types, windows, phases, page writes (docs/metrics.md) ---- */

const char *mt_wo_basis_name(unsigned b)
{
	static const char *const n[] = { "unknown", "read-only", "page-writes" };

	return b < 3 ? n[b] : "?";
}

/* The region type a --rules rule gives g, or NULL: a glob on a mapping's path, or a regex on
 * any function of its allocation site's stack (symbolized once per site). */
static const char *rule_type(struct pass *ps, const struct mt_access_region *g)
{
	const struct mt_rule *rule = NULL;

	if (g->site >= 0) {
		struct mt_access_site *s = &ps->st->sites[g->site];
		uint64_t ips[64];
		const char *names[256];
		size_t nn = 0;
		int n;

		if (s->rule_checked)
			return s->rule_type;
		s->rule_checked = true;
		if (!ps->o.sym || !s->stack)
			return NULL;
		n = mt_reader_stack(ps->r, s->stream, s->stack, ips, 64);
		for (int i = 0; i < n && nn < 256; i++) {
			const struct mt_frame *fr;
			int k = mt_sym_resolve(ps->o.sym, s->pid, s->first_ns, ips[i], true, &fr);

			for (int f = 0; f < k && nn < 256; f++)
				if (fr[f].function)
					names[nn++] = fr[f].function;
		}
		rule = mt_rules_match_symbols(ps->o.rules, names, nn);
		s->rule_type = rule ? rule->region_type : NULL;
		return s->rule_type;
	}
	if (g->label)
		rule = mt_rules_match_path(ps->o.rules,
					   mt_reader_str(ps->r, g->stream, g->label, NULL));
	return rule ? rule->region_type : NULL;
}

/* The region's type index: its label's region type, or its built-in type's name. */
static int32_t type_of(struct pass *ps, uint32_t reg)
{
	struct mt_access_stats *st = ps->st;
	struct mt_access_region *g = &st->regions[reg];
	const char *name = NULL;
	size_t i;

	if (g->b.type_ix >= 0)
		return g->b.type_ix;
	if (g->type == MT_REGION_LABEL)
		name = mt_reader_str(ps->r, g->stream, g->user_type, NULL);
	else if (ps->o.rules)
		name = rule_type(ps, g);
	if (name && name[0] && g->type != MT_REGION_LABEL)
		st->rule_regions++;
	if (!name || !name[0])
		name = mt_region_type_name(g->type);
	for (i = 0; i < st->ntypes; i++)
		if (!strcmp(st->types[i].name, name))
			break;
	if (i == st->ntypes) {
		char *dup = strdup(name);

		if (!dup || mt_grow_array(&st->types, &ps->types_cap, st->ntypes + 1,
					  sizeof(*st->types)) < 0) {
			free(dup);
			return -1;
		}
		st->types[i] = (struct mt_type_metrics){ .name = dup, .write_once = -1 };
		st->ntypes++;
	}
	g->b.type_ix = (int32_t)i;
	return (int32_t)i;
}

static uint32_t phase_index(struct pass *ps, const char *name)
{
	struct mt_access_stats *st = ps->st;
	size_t i;

	for (i = 0; i < st->nphases; i++)
		if (!strcmp(st->phases[i].name, name))
			return (uint32_t)i;
	{
		char *dup = strdup(name);

		if (!dup || mt_grow_array(&st->phases, &ps->phases_cap, st->nphases + 1,
					  sizeof(*st->phases)) < 0) {
			free(dup);
			return 0;
		}
		st->phases[i] = (struct mt_phase_stats){ .name = dup };
		st->nphases++;
	}
	return (uint32_t)i;
}

static void fold_wss(uint64_t *cur, uint64_t *peak, double *sum, uint64_t *windows)
{
	if (!*cur)
		return;
	if (*cur > *peak)
		*peak = *cur;
	*sum += (double)*cur;
	(*windows)++;
	*cur = 0;
}

/* Closes the current working-set window. */
static void flush_window(struct pass *ps)
{
	struct mt_access_stats *st = ps->st;

	if (ps->cur_pages &&
	    mt_grow_array(&st->wss, &ps->wss_cap, st->nwss + 1, sizeof(*st->wss)) == 0) {
		st->wss[st->nwss++] =
			(struct mt_wss_point){ (ps->window - 1) * ps->o.window_ns, ps->cur_pages };
		if (ps->cur_pages > st->wss_peak_pages)
			st->wss_peak_pages = ps->cur_pages;
	}
	ps->cur_pages = 0;
	for (size_t i = 0; i < st->ntypes; i++) {
		struct mt_type_metrics *m = &st->types[i];

		fold_wss(&m->cur_pages, &m->wss_peak_pages, &m->wss_sum, &m->wss_windows);
	}
}

/* The id of phase ph's window at time t, closing the open one if t is past it: windows
 * follow each other from the phase's entry; after a gap of a window or more the next one
 * starts at t. */
static uint64_t phase_window(struct pass *ps, uint32_t ph, uint64_t t)
{
	struct mt_phase_stats *p = &ps->st->phases[ph];
	uint64_t w = ps->o.window_ns;

	/* events of neighbouring chunks may come a little out of order: t before the start
	 * counts in the open window */
	if (p->win_id && (t < p->win_start || t - p->win_start < w))
		return p->win_id;
	fold_wss(&p->cur_pages, &p->wss_peak_pages, &p->wss_sum, &p->wss_windows);
	p->win_start = p->win_id && t - p->win_start < 2 * w ? p->win_start + w : t;
	p->win_id = ++ps->phase_windows;
	return p->win_id;
}

static void window_to(struct pass *ps, uint64_t t)
{
	uint64_t w;

	if (t < ps->st->t0)
		t = ps->st->t0; /* blocks of different chunks may overlap a little */
	w = (t - ps->st->t0) / ps->o.window_ns + 1;
	if (w == ps->window)
		return;
	if (ps->window)
		flush_window(ps);
	ps->window = w;
}

static uint64_t page_key(uint32_t pid, uint64_t addr)
{
	return ((uint64_t)pid << 36 | (addr >> 12 & ((1ull << 36) - 1))) + 1;
}

/* The page's entry (made on first use), valid until the next page_of; NULL without memory. */
static struct mt_access_page *page_of(struct pass *ps, uint32_t pid, uint64_t addr, uint32_t reg,
				      int64_t site)
{
	struct page_table *t = &ps->pages;
	uint64_t key = page_key(pid, addr);
	struct page_slot *sl;

	if ((t->len + 1) * 2 > t->cap && pt_grow(t) < 0)
		return NULL;
	sl = pt_find(t, key);
	if (!sl->key) {
		sl->key = key;
		sl->seq = t->len;
		sl->p = (struct mt_access_page){
			.pid = pid, .page = addr & ~0xfffull, .region = reg, .site = (int32_t)site
		};
		t->len++;
	}
	return &sl->p;
}

/* A page was touched at t in the current window (an access, a fault, a written epoch). */
static void touch(struct pass *ps, struct mt_access_page *pg, uint32_t reg, uint32_t phase,
		  uint64_t t)
{
	struct mt_access_stats *st = ps->st;
	struct mt_region_behavior *b;
	uint64_t pw = phase_window(ps, phase, t);
	int32_t tix;

	/* The common case, a page already counted in this window (and phase): nothing to do. */
	if (pg->last_window == ps->window && pg->last_phase_window == pw && pg->last_phase == phase)
		return;
	tix = type_of(ps, reg);
	b = &st->regions[reg].b;
	if (b->cur_window != ps->window) {
		if (b->cur_pages > b->wss_peak_pages)
			b->wss_peak_pages = b->cur_pages;
		b->cur_pages = 0;
		b->cur_window = ps->window;
	}
	if (pg->last_window != ps->window) {
		pg->last_window = ps->window;
		ps->cur_pages++;
		b->cur_pages++;
		if (tix >= 0)
			st->types[tix].cur_pages++;
	}
	if (pg->last_phase_window != pw || pg->last_phase != phase) {
		pg->last_phase_window = pw;
		pg->last_phase = phase;
		st->phases[phase].cur_pages++;
	}
}

static void iai(struct pass *ps, uint32_t pid, uint64_t addr, uint64_t t, int32_t tix)
{
	struct mt_access_stats *st = ps->st;
	uint64_t key = iai_key(pid, addr), h = mt_hash_u64(key);
	uint64_t rel = t - st->t0;
	struct iai_slot *s;
	bool fresh;

	if (tix < 0 || tix > 0xfff || !key)
		return;
	s = iai_get(&ps->iai, key, h, &fresh);
	if (!s)
		return;
	if (!fresh && (s->val & 0xfff) == (uint64_t)tix && rel > s->val >> 12)
		mt_qs_add_w(&st->types[tix].iai, rel - (s->val >> 12), 1ull << ps->iai.k);
	s->val = rel << 12 | (uint64_t)tix;
}

/* pi: the page's entry, or SIZE_MAX. */
static void bit_add(uint32_t *bit, size_t i, int d)
{
	for (i++; i <= RD_WINDOW; i += i & -i)
		bit[i] = (uint32_t)((int64_t)bit[i] + d);
}

/* Markers at positions 0..i (mod-window positions). */
static uint64_t bit_sum(const uint32_t *bit, size_t i)
{
	uint64_t s = 0;

	for (i++; i; i -= i & -i)
		s += bit[i];
	return s;
}

/* Markers at window positions of the samples after j and before n. */
static uint64_t marks_between(const struct reuse *rd, uint64_t j, uint64_t n)
{
	size_t a, b;

	if (n - j < 2)
		return 0;
	a = (size_t)((j + 1) % RD_WINDOW);
	b = (size_t)((n - 1) % RD_WINDOW);
	if (a <= b)
		return bit_sum(rd->bit, b) - (a ? bit_sum(rd->bit, a - 1) : 0);
	return bit_sum(rd->bit, RD_WINDOW - 1) - bit_sum(rd->bit, a - 1) + bit_sum(rd->bit, b);
}

static void reuse(struct pass *ps, uint32_t pid, uint64_t addr, int32_t tix)
{
	struct reuse *rd = &ps->rd;
	struct mt_type_metrics *m = &ps->st->types[tix];
	uint64_t key = (uint64_t)(pid & 0x7fffff) << 41 | (addr >> 6 & ((1ull << 41) - 1)), *v;
	size_t before, slot;

	if (mt_hash_u64(key ^ 0x9e3779b97f4a7c15ull) % RD_RATE)
		return; /* not a followed line */
	if (!rd->bit) {
		rd->bit = calloc(RD_WINDOW + 1, sizeof(*rd->bit));
		rd->mark = calloc(RD_WINDOW, 1);
		if (!rd->bit || !rd->mark) {
			free(rd->bit);
			free(rd->mark);
			rd->bit = NULL;
			rd->mark = NULL;
			return;
		}
	}
	if (rd->last.len >= RD_MAX_LINES) {
		mt_map64_release(&rd->last);
		mt_map64_init(&rd->last);
		ps->st->reuse_resets++;
	}
	slot = (size_t)(rd->n % RD_WINDOW);
	if (rd->mark[slot]) { /* the sample RD_WINDOW ago leaves the window */
		rd->mark[slot] = 0;
		bit_add(rd->bit, slot, -1);
	}
	before = rd->last.len;
	if (mt_map64_put(&rd->last, key, &v) < 0)
		return;
	if (rd->last.len == before) {
		uint64_t j = *v;

		if (rd->n - j < RD_WINDOW) {
			mt_qs_add(&m->reuse, marks_between(rd, j, rd->n) * RD_RATE);
			if (rd->mark[j % RD_WINDOW]) {
				rd->mark[j % RD_WINDOW] = 0;
				bit_add(rd->bit, (size_t)(j % RD_WINDOW), -1);
			}
		} else {
			m->reuse_far++;
		}
	} else {
		m->reuse_cold++;
	}
	rd->mark[slot] = 1;
	bit_add(rd->bit, slot, 1);
	*v = rd->n++;
}

/* The phase a --rules phase rule gives the code at ip (its function or an inlined one),
 * or 0; resolved once per (process, address). */
static uint32_t rule_phase(struct pass *ps, uint32_t pid, uint64_t ip, uint64_t t)
{
	const uint64_t nomatch = 1ull << 63;
	uint64_t key = (uint64_t)(pid & 0x1ffff) << 47 | (ip & ((1ull << 47) - 1)), *v;
	const struct mt_phase_rule *rule;
	const struct mt_frame *fr;
	const char *names[32];
	size_t nn = 0;
	int k;

	if (!ip || mt_map64_put(&ps->ip_phase, key, &v) < 0)
		return 0;
	if (*v)
		return *v == nomatch ? 0 : (uint32_t)(*v - 1);
	k = mt_sym_resolve(ps->o.sym, pid, t, ip, false, &fr);
	for (int f = 0; f < k && nn < 32; f++)
		if (fr[f].function)
			names[nn++] = fr[f].function;
	rule = mt_rules_match_phase(ps->o.rules, names, nn);
	if (!rule) {
		*v = nomatch;
		return 0;
	}
	{
		uint32_t ph = phase_index(ps, rule->phase);

		ps->st->phases[ph].by_rule = true;
		*v = (uint64_t)ph + 1;
		return ph;
	}
}

static void emit_row(struct pass *ps, const struct mt_event *ev, const char *op, uint64_t addr,
		     uint64_t ip, uint64_t weight, uint32_t reg, int32_t tix, int64_t site,
		     uint32_t phase)
{
	struct mt_access_stats *st = ps->st;
	struct mt_access_row r = {
		.time_ns = ev->v[MT_F_TIME],
		.addr = addr,
		.ip = ip,
		.weight = weight,
		.pid = (uint32_t)ev->v[MT_F_PID],
		.tid = (uint32_t)ev->v[MT_F_TID],
		.op = op,
		.has_region = true,
		.region_id = reg,
		.region_type = tix >= 0 ? st->types[tix].name
					: mt_region_type_name(st->regions[reg].type),
		.site = site,
		.phase = phase < st->nphases ? st->phases[phase].name : "",
	};

	ps->o.row(ps->o.row_ctx, &r);
}

static void behave_access(struct pass *ps, uint32_t reg, struct mt_access_page *pg, int64_t site,
			  const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	struct mt_access_region *g = &st->regions[reg];
	struct mt_region_behavior *b = &g->b;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t addr = ev->v[MT_F_ACCESS_ADDR], t = ev->v[MT_F_TIME];
	struct proc *pr = proc_of(ps, pid);
	int32_t tix = type_of(ps, reg);
	uint32_t phase;

	b = &st->regions[reg].b;
	if (ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD) {
		if (!b->first_read_ns)
			b->first_read_ns = t;
		b->last_read_ns = t;
	} else {
		if (!b->first_write_ns)
			b->first_write_ns = t;
		b->last_write_ns = t;
	}
	/* Locality within one mapping or block: the catch-all of unmapped addresses has none. */
	if (g->c.samples > 1 && g->type != MT_REGION_UNKNOWN) { /* count() counted this one */
		uint64_t stride = addr > b->last_addr ? addr - b->last_addr : b->last_addr - addr;

		b->strides++;
		b->same_page += addr >> 12 == b->last_addr >> 12;
		if (!b->stride_settled) /* samples after its end (a stale label) go uncounted */
			mt_qs_add(&b->stride, stride);
	}
	b->last_addr = addr;
	iai(ps, pid, addr, t, tix);
	if (tix >= 0)
		reuse(ps, pid, addr, tix);
	phase = pr ? pr->phase : 0;
	if (ps->o.rules && ps->o.rules->nph && ps->o.sym) {
		uint32_t rp = rule_phase(ps, pid, ev->v[MT_F_ACCESS_IP], t);

		if (rp)
			phase = rp;
	}
	{
		struct mt_phase_stats *p = &st->phases[phase];

		p->samples++;
		if (ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD)
			p->reads += ev->v[MT_F_ACCESS_WEIGHT];
		else
			p->writes += ev->v[MT_F_ACCESS_WEIGHT];
	}
	if (pg)
		touch(ps, pg, reg, phase, t);
	if (ps->o.row)
		emit_row(ps, ev, ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD ? "load" : "store", addr,
			 ev->v[MT_F_ACCESS_IP], ev->v[MT_F_ACCESS_WEIGHT], reg, tix, site, phase);
}

/* Ends a page's run of written epochs in one region. */
static void pw_settle(struct mt_access_stats *st, struct mt_access_page *pg)
{
	if (pg->pw_region && pg->pw_epochs) {
		struct mt_region_behavior *b = &st->regions[pg->pw_region - 1].b;

		b->pages_written++;
		if (pg->pw_epochs > 1)
			b->pages_rewritten++;
	}
	pg->pw_epochs = 0;
}

static void on_page_write(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t addr = ev->v[MT_F_PW_ADDR] & ~4095ull, end = addr + ev->v[MT_F_PW_LEN];
	uint64_t t = ev->v[MT_F_TIME], since = ev->v[MT_F_PW_SINCE];
	int64_t site;

	st->page_writes_present = true;
	st->page_write_events++;
	if (ev->v[MT_F_PW_LEN] > (1ull << 47))
		return;
	for (uint64_t p = addr; p < end; p += 4096) {
		uint32_t reg = region_at(ps, pid, p, &site);
		struct mt_access_region *g;
		struct mt_region_behavior *b;
		struct proc *pr;
		struct mt_access_page *pg;

		if (reg == NONE) {
			st->page_writes_unattributed++;
			continue;
		}
		g = &st->regions[reg];
		b = &g->b;
		if (g->type != MT_REGION_LABEL || b->wp != MT_LABEL_WP_TRACKED || p < g->start ||
		    p + 4096 > g->end) {
			st->page_writes_unattributed++; /* not wholly inside one tracked label */
			continue;
		}
		st->page_write_pages++;
		if (!b->first_write_ns || b->first_write_ns > since)
			b->first_write_ns = since > g->t_start ? since : g->t_start;
		if (t > b->last_write_ns)
			b->last_write_ns = t;
		pg = page_of(ps, pid, p, reg, site);
		if (!pg)
			continue;
		if (pg->pw_region != reg + 1) {
			pw_settle(st, pg);
			pg->pw_region = reg + 1;
		}
		pg->pw_epochs++;
		pr = proc_of(ps, pid);
		if (pr)
			st->phases[pr->phase].pages_written++;
		touch(ps, pg, reg, pr ? pr->phase : 0, t);
	}
}

static void on_phase(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	const char *name = mt_reader_str(ps->r, ev->stream, ev->v[MT_F_PHASE_NAME], NULL);
	uint64_t t = ev->v[MT_F_TIME];
	uint32_t ph;

	if (!pr)
		return;
	ph = name && name[0] ? phase_index(ps, name) : 0;
	pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	if (pr->phase && t > pr->phase_since)
		ps->st->phases[pr->phase].ns += t - pr->phase_since;
	pr->phase = ph;
	pr->phase_since = t;
	if (ph) {
		ps->st->phases[ph].visits++;
		phase_window(ps, ph, t); /* its windows count from its entry */
	}
}

static bool pw_lost(struct pass *ps, uint32_t pid)
{
	uint64_t *ix = mt_map64_get(&ps->proc_ix, pid);

	return ix && ps->procs[*ix].pw_lost;
}

/* A quantile of a non-empty set, NaN for an empty one. */
static double qs_q(struct mt_qs *q, double p, double scale)
{
	return q->n ? mt_qs_quantile(q, p) / scale : NAN;
}

/*
 * An upper bound of the type's retention quantile p, in s: nothing is read after it is gone,
 * so no retention exceeds the longest lifetime, and the quantile over the regions with a read
 * does not exceed the same quantile of their lifetimes.
 */
static double life_bound(struct mt_type_metrics *m, double p)
{
	double all = (double)m->life_max_ns / 1e9, q = qs_q(&m->life_read, p, 1e9);

	return isnan(q) || q > all ? all : q;
}

/* A type's figures from its sums and distributions, and its MRM label. */
static void settle_type(struct mt_type_metrics *m, const struct mt_mrm_rule *rule)
{
	static const double q[3] = { 0.5, 0.9, 0.99 };
	uint64_t n = m->read_samples + m->write_samples;
	double lr = (double)m->locality_regions;
	struct mt_mrm_verdict v;

	/* Known only when every region of the type has a basis; else partial, shown apart. */
	if (m->wo_pages)
		m->write_once = (double)m->wo_once_pages / (double)m->wo_pages;
	m->read_fraction = n ? (double)m->read_samples / (double)n : NAN;
	/* mrm-trace's reads_per_write: 0 when nothing was written */
	m->reads_per_write = !n			? NAN
			     : m->write_samples ? (double)m->read_samples / (double)m->write_samples
						: 0.0;
	for (int k = 0; k < 3; k++) {
		m->retention_s[k] = qs_q(&m->retention, q[k], 1e9);
		m->lifetime_s[k] = qs_q(&m->lifetime, q[k], 1e9);
		m->iai_ns[k] = m->iai.n ? floor(mt_qs_quantile(&m->iai, q[k])) /* as mrm-trace */
					: NAN;
		m->reuse_lines[k] = m->reuse.n ? floor(mt_qs_quantile(&m->reuse, q[k])) : NAN;
	}
	m->stride_mean = lr > 0 ? m->stride_mean_sum / lr : NAN;
	m->stride_median = lr > 0 ? m->stride_median_sum / lr : NAN;
	m->same_page_fraction = lr > 0 ? m->same_page_sum / lr : NAN;
	m->iai_mean_ns = m->iai.n ? mt_qs_mean(&m->iai) : NAN;
	m->wss_mean_pages = m->wss_windows ? m->wss_sum / (double)m->wss_windows : NAN;
	if (m->kernel_regions == m->regions) {
		m->mrm = MT_MRM_NOT_APPLICABLE;
		return;
	}
	v = mt_mrm_classify(rule, &(struct mt_mrm_input){
					  .write_once = m->wo_regions == m->regions && m->wo_pages
								? m->write_once
								: NAN,
					  .retention_p99_s = m->retention_s[2],
					  .retention_p50_s = m->retention_s[0],
					  .read_samples = m->read_samples,
					  .lifetime_p99_s = life_bound(m, 0.99),
					  .lifetime_p50_s = life_bound(m, 0.5),
				  });
	m->mrm = v.label;
	m->mrm_by = v.by;
}

/* A region's own figures, write-once basis and MRM label; *wo_pages gets the pages its
 * write-once ratio covers. */
static void settle_region(struct pass *ps, struct mt_access_region *g, uint64_t *wo_pages)
{
	struct mt_access_stats *st = ps->st;
	struct mt_region_behavior *b = &g->b;
	uint64_t born, end = b->end_ns ? b->end_ns : st->t_end, n = g->c.samples;
	struct mt_mrm_verdict v;

	settle_stride(b);
	*wo_pages = 0;
	b->lifetime_s = NAN;
	if (g->t_start && end > g->t_start) {
		b->lifetime_ns = end - g->t_start;
		b->lifetime_s = (double)b->lifetime_ns / 1e9;
	}
	born = b->first_write_ns ? b->first_write_ns : g->t_start;
	if (b->last_read_ns > born)
		b->retention_ns = b->last_read_ns - born;
	b->retention_s = g->c.read_samples ? (double)b->retention_ns / 1e9 : NAN;
	b->read_fraction = n ? (double)g->c.read_samples / (double)n : NAN;
	b->same_page_fraction = b->strides ? (double)b->same_page / (double)b->strides : NAN;
	if (!b->strides)
		b->stride_mean = b->stride_median = NAN;
	b->write_once = -1;
	b->wo_basis = MT_WO_NONE;
	if (g->type == MT_REGION_LABEL && b->wp == MT_LABEL_WP_TRACKED && b->wp_pages &&
	    pw_lost(ps, g->pid)) {
		st->page_writes_incomplete++; /* an epoch of its process went unseen */
	} else if (g->type == MT_REGION_LABEL && b->wp == MT_LABEL_WP_TRACKED && b->wp_pages) {
		b->wo_basis = MT_WO_PAGE_WRITES;
		*wo_pages = b->wp_pages;
		b->write_once = (double)(b->wp_pages - b->pages_rewritten) / (double)b->wp_pages;
	} else if (b->readonly && g->end > g->start) {
		b->wo_basis = MT_WO_READONLY;
		*wo_pages = (g->end - g->start + 4095) / 4096;
		b->write_once = 1.0;
	}
	if (g->type == MT_REGION_SPECIAL) {
		b->mrm = MT_MRM_NOT_APPLICABLE;
		return;
	}
	v = mt_mrm_classify(&ps->o.mrm,
			    &(struct mt_mrm_input){
				    .write_once = b->write_once < 0 ? NAN : b->write_once,
				    .retention_p99_s = b->retention_s,
				    .retention_p50_s = b->retention_s,
				    .read_samples = g->c.read_samples,
				    .lifetime_p99_s = b->lifetime_s,
				    .lifetime_p50_s = b->lifetime_s,
			    });
	b->mrm = v.label;
	b->mrm_by = v.by;
}

/* Settles what only the end knows: page-write runs, windows, per-region and per-type
 * figures, the MRM labels. */
static void finish(struct pass *ps)
{
	struct mt_access_stats *st = ps->st;
	const struct mt_mrm_rule *rule = &ps->o.mrm;

	if (ps->window)
		flush_window(ps);
	st->iai_rate_shift = ps->iai.k;
	for (size_t i = 0; i < st->nphases; i++) {
		struct mt_phase_stats *p = &st->phases[i];

		fold_wss(&p->cur_pages, &p->wss_peak_pages, &p->wss_sum, &p->wss_windows);
	}
	for (size_t i = 0; i < ps->nprocs; i++)
		if (ps->procs[i].phase && st->t_end > ps->procs[i].phase_since)
			st->phases[ps->procs[i].phase].ns += st->t_end - ps->procs[i].phase_since;
	st->pages = malloc((ps->pages.len ? ps->pages.len : 1) * sizeof(*st->pages));
	for (size_t i = 0; st->pages && i < ps->pages.cap; i++)
		if (ps->pages.v[i].key && ps->pages.v[i].seq < ps->pages.len)
			st->pages[ps->pages.v[i].seq] = ps->pages.v[i].p; /* in first-touch order */
	st->npages = st->pages ? ps->pages.len : 0;
	for (size_t i = 0; i < st->npages; i++) {
		pw_settle(st, &st->pages[i]);
		if (st->pages[i].site >= 0)
			st->sites[st->pages[i].site].pages++;
	}
	for (size_t i = 0; i < st->nregions; i++) {
		struct mt_access_region *g = &st->regions[i];
		struct mt_region_behavior *b = &g->b;
		uint64_t pages = 0;
		struct mt_type_metrics *m;
		int32_t tix;

		if (b->cur_pages > b->wss_peak_pages)
			b->wss_peak_pages = b->cur_pages;
		settle_region(ps, g, &pages);
		/* A region counts for its type when the run touched it, or the workload named it. */
		if (g->type != MT_REGION_LABEL && !g->c.samples && !b->pages_written &&
		    !g->faults_minor && !g->faults_major)
			continue;
		tix = type_of(ps, (uint32_t)i);
		if (tix < 0)
			continue;
		m = &st->types[tix];
		b = &st->regions[i].b;
		m->regions++;
		m->samples += g->c.samples;
		m->read_samples += g->c.read_samples;
		m->write_samples += g->c.write_samples;
		m->reads += g->c.reads;
		m->writes += g->c.writes;
		m->touches += g->c.samples + g->faults_minor + g->faults_major + b->pages_written;
		if (g->type == MT_REGION_SPECIAL)
			m->kernel_regions++;
		{
			uint64_t life = isnan(b->lifetime_s) ? st->t_end - st->t0 : b->lifetime_ns;

			if (life > m->life_max_ns)
				m->life_max_ns = life;
		}
		/* Retention only where a read was sampled: a region never seen read has an
		 * unknown retention, not 0. The lifetime is known from its events. */
		if (g->c.read_samples && g->type != MT_REGION_HEAP_OBJECTS &&
		    g->type != MT_REGION_UNKNOWN) {
			mt_qs_add(&m->retention, b->retention_ns);
			mt_qs_add(&m->life_read,
				  isnan(b->lifetime_s) ? st->t_end - st->t0 : b->lifetime_ns);
			m->retention_regions++;
		}
		if (!isnan(b->lifetime_s) && g->type != MT_REGION_HEAP_OBJECTS) {
			mt_qs_add(&m->lifetime, b->lifetime_ns);
			m->lifetime_regions++;
		}
		if (g->c.samples && b->strides) {
			m->locality_regions++;
			m->stride_mean_sum += b->stride_mean;
			m->stride_median_sum += b->stride_median;
			m->same_page_sum += b->same_page_fraction;
		}
		if (b->wo_basis != MT_WO_NONE) {
			m->wo_regions++;
			m->wo_pages += pages;
			m->wo_once_pages += (uint64_t)(b->write_once * (double)pages + 0.5);
		}
	}
	for (size_t i = 0; i < st->ntypes; i++)
		settle_type(&st->types[i], rule);
}

static void on_fault(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], reg;
	unsigned kind = ev->v[MT_F_FAULT_KIND] == MT_FAULT_MAJOR;
	int64_t site;
	uint64_t *ix;

	st->faults_present = true;
	reg = region_at(ps, pid, ev->v[MT_F_FAULT_ADDR], &site);
	if (reg != NONE && st->regions[reg].type == MT_REGION_MEMTAP) {
		/* memtap's own page: its runtime's slots or tables */
		if (kind)
			st->memtap_faults_major++;
		else
			st->memtap_faults_minor++;
		return;
	}
	if (kind)
		st->faults_major++;
	else
		st->faults_minor++;
	if (ev->v[MT_F_FAULT_IP] >= 0x800000000000ull)
		st->faults_in_kernel++;
	ix = mt_map64_get(&ps->fault_proc_ix, pid);
	if (!ix) {
		if (mt_grow_array(&st->fault_procs, &ps->fault_procs_cap, st->nfault_procs + 1,
				  sizeof(*st->fault_procs)) < 0 ||
		    mt_map64_put(&ps->fault_proc_ix, pid, &ix) < 0)
			return;
		*ix = st->nfault_procs;
		st->fault_procs[st->nfault_procs++] = (struct mt_fault_proc){ .pid = pid };
	}
	if (kind)
		st->fault_procs[*ix].major++;
	else
		st->fault_procs[*ix].minor++;
	if (reg == NONE)
		return;
	if (kind)
		st->regions[reg].faults_major++;
	else
		st->regions[reg].faults_minor++;
	st->faults_by_type[st->regions[reg].type][kind]++;
	if (site >= 0)
		st->sites[site].faults++;
	{
		struct proc *pr = proc_of(ps, pid);
		struct mt_access_page *pg = page_of(ps, pid, ev->v[MT_F_FAULT_ADDR], reg, site);

		if (pr)
			st->phases[pr->phase].faults++;
		if (pg)
			touch(ps, pg, reg, pr ? pr->phase : 0, ev->v[MT_F_TIME]);
		if (ps->o.row)
			emit_row(ps, ev, kind ? "fault_major" : "fault_minor",
				 ev->v[MT_F_FAULT_ADDR], ev->v[MT_F_FAULT_IP], 1, reg,
				 type_of(ps, reg), site, pr ? pr->phase : 0);
	}
}

static void on_access(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t addr = ev->v[MT_F_ACCESS_ADDR], kind = ev->v[MT_F_ACCESS_KIND];
	uint64_t reason = ev->v[MT_F_ACCESS_REASON], how = ev->v[MT_F_ACCESS_HOW];
	uint32_t reg;
	int64_t site;
	struct mt_access_page *pg;

	st->present = true;
	if (ev->v[MT_F_ACCESS_MECH] < 64)
		st->mech_mask |= 1ull << ev->v[MT_F_ACCESS_MECH];
	if (ev->v[MT_F_ACCESS_PART] == 0)
		st->samples++;
	if (kind == MT_ACCESS_UNRESOLVED) {
		if (reason < _MT_UNRES_MAX)
			st->unresolved[reason]++;
		return;
	}
	if (kind > MT_ACCESS_STORE)
		return;
	if (ev->v[MT_F_ACCESS_PART] == 0) {
		st->resolved++;
		if (how < 4)
			st->by_how[how]++;
	}
	/* The runtime at work inside a hook: its own memory, or the workload's (the unwinder
	 * reads the workload's stack) by memtap's code. Neither is the workload's access. */
	reg = region_at(ps, pid, addr, &site);
	if ((reg != NONE && st->regions[reg].type == MT_REGION_MEMTAP) ||
	    memtap_code(ps, pid,
			ev->v[MT_F_ACCESS_INSN_IP] ? ev->v[MT_F_ACCESS_INSN_IP]
						   : ev->v[MT_F_ACCESS_IP])) {
		st->memtap_accesses++;
		return;
	}
	st->accesses++;
	if (kind == MT_ACCESS_LOAD) {
		st->read_samples++;
		st->reads += ev->v[MT_F_ACCESS_WEIGHT];
	} else {
		st->write_samples++;
		st->writes += ev->v[MT_F_ACCESS_WEIGHT];
	}
	if (site >= 0) {
		st->in_blocks++;
		count(&st->sites[site].c, ev);
	}
	if (reg == NONE)
		return;
	count(&st->regions[reg].c, ev);
	st->by_type[st->regions[reg].type]++;
	if (kind == MT_ACCESS_LOAD)
		st->reads_by_type[st->regions[reg].type] += ev->v[MT_F_ACCESS_WEIGHT];
	else
		st->writes_by_type[st->regions[reg].type] += ev->v[MT_F_ACCESS_WEIGHT];
	pg = page_of(ps, pid, addr, reg, site);
	if (pg)
		count(&pg->c, ev);
	behave_access(ps, reg, pg, site, ev);
}

/* One event of the pass, in time order. */
static void dispatch(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;

	if (!st->t0)
		st->t0 = ev->v[MT_F_TIME] ? ev->v[MT_F_TIME] : 1;
	if (ev->v[MT_F_TIME] > st->t_end)
		st->t_end = ev->v[MT_F_TIME];
	window_to(ps, ev->v[MT_F_TIME]);
	switch (ev->type) {
	case MT_EV_LOST: {
		const char *coll =
			mt_reader_str(ps->r, ev->stream, ev->v[MT_F_LOST_COLLECTOR], NULL);
		struct proc *pr;

		if (coll && !strcmp(coll, "pagewrites") &&
		    (pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID])))
			pr->pw_lost = true;
		break;
	}
	case MT_EV_PAGE_WRITE:
		on_page_write(ps, ev);
		break;
	case MT_EV_PHASE:
		on_phase(ps, ev);
		break;
	case MT_EV_ACCESS:
		on_access(ps, ev);
		break;
	case MT_EV_FAULT:
		on_fault(ps, ev);
		break;
	case MT_EV_MMAP:
		on_mmap(ps, ev);
		break;
	case MT_EV_MUNMAP:
		on_unmap(ps, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_MUNMAP_ADDR],
			 ev->v[MT_F_MUNMAP_LEN], ev->v[MT_F_TIME]);
		break;
	case MT_EV_MREMAP:
		on_mremap(ps, ev);
		break;
	case MT_EV_BRK:
		on_brk(ps, ev);
		break;
	case MT_EV_ALLOC:
		on_alloc(ps, ev);
		break;
	case MT_EV_TASK_NEW:
		on_task_new(ps, ev);
		break;
	case MT_EV_LABEL:
		on_label(ps, ev);
		break;
	case MT_EV_TASK_EXEC: {
		struct proc *pr = proc_of(ps, (uint32_t)ev->v[MT_F_PID]);

		if (pr) {
			free_tree(&ps->pool, pr->blocks); /* the old image's heap is gone */
			free_tree(&ps->pool, pr->labels); /* and the names it gave */
			pr->blocks = pr->labels = 0;
		}
		break;
	}
	default:
		break;
	}
}

/* Starts fetching the table slots an access will use. Inlined by force: gcc finds a function
 * that only prefetches free of side effects and drops its calls. */
static inline __attribute__((always_inline)) void prefetch_slots(const struct pass *ps,
								 const struct mt_event *e)
{
	uint64_t pid = e->v[MT_F_PID], addr = e->v[MT_F_ACCESS_ADDR], h;

	if (e->type != MT_EV_ACCESS || !ps->iai.v)
		return;
	h = mt_hash_u64(iai_key((uint32_t)pid, addr));
	if (iai_followed(&ps->iai, h))
		__builtin_prefetch(&ps->iai.v[h & (ps->iai.cap - 1)]);
	if (ps->pages.cap) { /* the page's slot: key and counters */
		const struct page_slot *sl =
			&ps->pages.v[mt_hash_u64(page_key((uint32_t)pid, addr)) &
				     (ps->pages.cap - 1)];

		__builtin_prefetch(sl);
		__builtin_prefetch((const char *)sl + 64);
	}
}

#define ACCESS_TYPES                                                                               \
	(1ull << MT_EV_ACCESS | 1ull << MT_EV_FAULT | 1ull << MT_EV_MMAP | 1ull << MT_EV_MUNMAP |  \
	 1ull << MT_EV_MREMAP | 1ull << MT_EV_BRK | 1ull << MT_EV_ALLOC | 1ull << MT_EV_TASK_NEW | \
	 1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_LABEL | 1ull << MT_EV_PAGE_WRITE |                \
	 1ull << MT_EV_PHASE | 1ull << MT_EV_LOST)

/* Each access's slots in the exact-address and page tables are fetched from memory PIPE
 * events before it is handled. */
static int access_batch(void *ctx, const struct mt_event *evs, int n)
{
	struct pass *ps = ctx;

	/* The batch was just written by the other core: its events are fetched ahead of the
	 * table slots, which need their addresses. */
	for (int i = 0; i < n && i < 2 * PIPE; i++)
		__builtin_prefetch(&evs[i]);
	for (int i = 0; i < n; i++) {
		if (i + 2 * PIPE < n) {
			__builtin_prefetch(&evs[i + 2 * PIPE]);
			__builtin_prefetch((const char *)&evs[i + 2 * PIPE] + 64);
		}
		if (i + PIPE < n)
			prefetch_slots(ps, &evs[i + PIPE]);
		if (evs[i].type < 64 && (ACCESS_TYPES & (1ull << evs[i].type)))
			dispatch(ps, &evs[i]);
	}
	return 0;
}

static int access_finish(void *ctx, int rc)
{
	struct pass *ps = ctx;
	struct mt_access_stats *st = ps->st;

	if (rc == 0)
		finish(ps);
	free(ps->pool.v);
	free(ps->procs);
	mt_map64_release(&ps->proc_ix);
	mt_map64_release(&ps->site_ix);
	free(ps->pages.v);
	mt_map64_release(&ps->fault_proc_ix);
	iai_free(&ps->iai);
	free(ps->rd.bit);
	free(ps->rd.mark);
	mt_map64_release(&ps->rd.last);
	mt_map64_release(&ps->ip_phase);
	free(ps);
	if (rc < 0)
		mt_access_release(st);
	return rc;
}

int mt_access_pass(struct mt_reader *r, const struct mt_access_opts *o, struct mt_access_stats *st,
		   struct mt_pass *pass)
{
	struct pass *ps;

	memset(st, 0, sizeof(*st));
	*pass = (struct mt_pass){ .name = "access" };
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	*ps = (struct pass){ .r = r, .st = st, .pool.seed = 2463534242u, .last_pid = UINT32_MAX };
	if (o)
		ps->o = *o;
	if (!ps->o.window_ns)
		ps->o.window_ns = 100000000;
	if (!ps->o.mrm_set)
		ps->o.mrm = (struct mt_mrm_rule){ 0.8, 10.0, 0.5, 1.0 };
	st->window_ns = ps->o.window_ns;
	st->mrm_rule = ps->o.mrm;
	mt_map64_init(&ps->proc_ix);
	mt_map64_init(&ps->site_ix);
	mt_map64_init(&ps->fault_proc_ix);
	mt_map64_init(&ps->rd.last);
	mt_map64_init(&ps->ip_phase);
	if (!mt_reader_event_count(r, MT_EV_ACCESS) && !mt_reader_event_count(r, MT_EV_FAULT) &&
	    !mt_reader_event_count(r, MT_EV_PAGE_WRITE)) {
		access_finish(ps, 1); /* nothing to analyse: nothing to finish either */
		return 0;
	}
	if (phase_index(ps, "") != 0) { /* phases[0]: outside any phase */
		access_finish(ps, -ENOMEM);
		return -ENOMEM;
	}
	*pass = (struct mt_pass){ .name = "access",
				  .types = ACCESS_TYPES,
				  .ctx = ps,
				  .batch = access_batch,
				  .finish = access_finish };
	return 0;
}

int mt_access_analyze(struct mt_reader *r, const struct mt_access_opts *o,
		      struct mt_access_stats *st)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_access_pass(r, o, st, &p), &p);
}

void mt_access_release(struct mt_access_stats *st)
{
	for (size_t i = 0; i < st->nregions; i++)
		mt_qs_release(&st->regions[i].b.stride);
	for (size_t i = 0; i < st->ntypes; i++) {
		free(st->types[i].name);
		mt_qs_release(&st->types[i].retention);
		mt_qs_release(&st->types[i].lifetime);
		mt_qs_release(&st->types[i].life_read);
		mt_qs_release(&st->types[i].iai);
		mt_qs_release(&st->types[i].reuse);
	}
	for (size_t i = 0; i < st->nphases; i++)
		free(st->phases[i].name);
	free(st->types);
	free(st->phases);
	free(st->wss);
	free(st->regions);
	free(st->sites);
	free(st->pages);
	free(st->fault_procs);
	memset(st, 0, sizeof(*st));
}
