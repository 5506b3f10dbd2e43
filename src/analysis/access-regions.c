/* SPDX-License-Identifier: MIT */
/* The region model: mappings, heap blocks and labels per process, replayed in time order. */
#include "analysis/access-internal.h"

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

struct proc *mt_acc_proc_of(struct pass *ps, uint32_t pid)
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
void mt_acc_settle_stride(struct mt_region_behavior *b)
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
	mt_acc_settle_stride(&st->regions[reg].b);
}

/* The end of the page that holds byte x - 1: mappings are whole 4 KiB pages. */
static uint64_t page_up(uint64_t x)
{
	return (x + 4095) & ~4095ull;
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

/* The mapping ev reports is in pr's map as it is: same range, type, protection and path. */
static bool same_mapping(struct pass *ps, struct proc *pr, const struct mt_event *ev, unsigned type,
			 const char *path)
{
	uint64_t start = ev->v[MT_F_MMAP_ADDR], end = start + ev->v[MT_F_MMAP_LEN];
	uint32_t n = mt_rs_find(&ps->pool, pr->maps, start);
	const struct mt_access_region *g;
	const char *had;

	if (!n || ps->pool.v[n].start != start || page_up(ps->pool.v[n].end) != page_up(end) ||
	    ps->pool.v[n].a == NONE)
		return false;
	g = &ps->st->regions[ps->pool.v[n].a];
	if (g->pid != (uint32_t)ev->v[MT_F_PID] || g->type != type || g->b.end_ns ||
	    g->prot != (uint8_t)(ev->v[MT_F_MMAP_PROT] & 0xff) || g->start != start ||
	    page_up(g->end) != page_up(end))
		return false;
	had = g->label ? mt_reader_str(ps->r, g->stream, g->label, NULL) : NULL;
	return (!had && !path) || (had && path && !strcmp(had, path));
}

void mt_acc_on_mmap(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	uint64_t start = ev->v[MT_F_MMAP_ADDR], end = start + ev->v[MT_F_MMAP_LEN];
	const char *path = mt_reader_str(ps->r, ev->stream, ev->v[MT_F_MMAP_PATH], NULL);
	uint32_t reg, n;
	unsigned type;

	if (!pr || end <= start)
		return;
	/* The runtime's record of an mmap call knows no path and gives the caller's length; the
	 * kernel's record of the same mapping (perf MMAP2, written before the call returns) has
	 * the path and the length rounded up to pages: keep that one. */
	if (ev->v[MT_F_MMAP_ORIGIN] == MT_MMAP_RT && (n = mt_rs_find(&ps->pool, pr->maps, start)) &&
	    ps->pool.v[n].start == start && page_up(ps->pool.v[n].end) == page_up(end))
		return;
	type = mapping_type(path, ev->v[MT_F_MMAP_PROT], ev->v[MT_F_MMAP_ORIGIN]);
	if (ev->v[MT_F_MMAP_ORIGIN] == MT_MMAP_PROCFS && same_mapping(ps, pr, ev, type, path))
		return; /* the exec's snapshot of a mapping the kernel already reported */
	/* The loader's anonymous mapping over the runtime's image (its bss, mapped before the
	 * runtime could announce the image; the kernel reports it merged with any anonymous
	 * mapping right after it): the part in memtap's memory stays memtap's, the rest is a
	 * new mapping (analysis/own.c: the same rule). */
	while (type == MT_REGION_ANON && start < end &&
	       (n = mt_rs_find(&ps->pool, pr->maps, start)) && ps->pool.v[n].a != NONE &&
	       ps->st->regions[ps->pool.v[n].a].type == MT_REGION_MEMTAP)
		start = ps->pool.v[n].end;
	if (start >= end)
		return;
	/* A stack that grew down (the kernel reports the whole grown mapping): the same region.
	 * So is the brk heap that grew up (each growth is reported as the whole [heap] from its
	 * start): one region that grows, never one per growth. */
	if (type == MT_REGION_STACK && (n = mt_rs_find(&ps->pool, pr->maps, end - 1)) &&
	    ps->pool.v[n].end == end && ps->pool.v[n].start >= start &&
	    ps->st->regions[ps->pool.v[n].a].type == MT_REGION_STACK) {
		reg = ps->pool.v[n].a;
		ps->st->regions[reg].start = start;
	} else if (type == MT_REGION_HEAP && (n = mt_rs_find(&ps->pool, pr->maps, start)) &&
		   ps->pool.v[n].a != NONE &&
		   ps->st->regions[ps->pool.v[n].a].type == MT_REGION_HEAP &&
		   ps->st->regions[ps->pool.v[n].a].start == start) {
		reg = ps->pool.v[n].a;
		if (ps->st->regions[reg].end < end)
			ps->st->regions[reg].end = end; /* its largest extent */
	} else {
		reg = new_region(ps, (uint32_t)ev->v[MT_F_PID], type, ev->stream, start, end,
				 ev->v[MT_F_MMAP_PATH], -1, ev->v[MT_F_TIME]);
		if (reg == NONE)
			return;
	}
	ps->st->regions[reg].b.readonly = !(ev->v[MT_F_MMAP_PROT] & PROT_WRITE);
	ps->st->regions[reg].prot = (uint8_t)(ev->v[MT_F_MMAP_PROT] & 0xff);
	mt_rs_punch(&ps->pool, &pr->maps, start, end);
	n = mt_rs_new(&ps->pool, start, end, reg, 0);
	if (n)
		mt_rs_insert(&ps->pool, &pr->maps, n);
}

void mt_acc_on_unmap(struct pass *ps, uint32_t pid, uint64_t start, uint64_t len, uint64_t t)
{
	struct proc *pr = mt_acc_proc_of(ps, pid);

	len = page_up(start + len) - start; /* the kernel unmaps whole pages */
	if (pr && len) {
		uint32_t n = mt_rs_find(&ps->pool, pr->maps, start);

		if (n && ps->pool.v[n].start == start && ps->pool.v[n].end <= start + len)
			end_region(ps->st, ps->pool.v[n].a, t);
		mt_rs_punch(&ps->pool, &pr->maps, start, start + len);
		mt_rs_punch(&ps->pool, &pr->labels, start,
			    start + len); /* a name dies with its memory */
	}
}

struct image_end {
	struct mt_access_stats *st;
	uint32_t pid;
	uint64_t t;
	int value; /* 0: the node's a names the region, 1: its b (heap blocks, NONE unsampled) */
};

static void end_of_image(const struct mt_rs_node *n, void *ctx)
{
	struct image_end *e = ctx;
	uint32_t reg = e->value ? n->b : n->a;

	/* a forked child's copy of its parent's ranges names the parent's regions: left open */
	if (reg != NONE && reg < e->st->nregions && e->st->regions[reg].pid == e->pid &&
	    !e->st->regions[reg].b.end_ns) {
		end_region(e->st, reg, e->t);
		e->st->regions[reg].b.with_image = true;
	}
}

void mt_acc_on_image_end(struct pass *ps, uint32_t pid, uint64_t t, bool maps)
{
	struct proc *pr = mt_acc_proc_of(ps, pid);
	struct image_end e = { ps->st, pid, t ? t : 1, 0 };

	if (!pr)
		return;
	if (maps)
		mt_rs_each(&ps->pool, pr->maps, end_of_image, &e);
	mt_rs_each(&ps->pool, pr->labels, end_of_image, &e);
	e.value = 1;
	mt_rs_each(&ps->pool, pr->blocks, end_of_image, &e);
}

/*
 * memtap_label: the range becomes a region of the workload's type, in front of the mapping
 * or heap block it lies in, until memtap_unlabel, an unmap of it, or the process's exec.
 * A range not inside one mapping of the process at that time is counted and ignored.
 */
void mt_acc_on_label(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct proc *pr = mt_acc_proc_of(ps, pid);
	uint64_t start = ev->v[MT_F_LABEL_ADDR], end = start + ev->v[MT_F_LABEL_LEN];
	uint32_t m, reg, n;

	if (!pr)
		return;
	if (ev->v[MT_F_LABEL_OP] == MT_LABEL_UNSET) {
		n = mt_rs_find(&ps->pool, pr->labels, start);
		if (!n || ps->pool.v[n].start != start) {
			ps->st->unlabels_unmatched++;
			return;
		}
		end_region(ps->st, ps->pool.v[n].a, ev->v[MT_F_TIME]);
		mt_rs_erase(&ps->pool, &pr->labels, start, start + 1);
		return;
	}
	m = mt_rs_find(&ps->pool, pr->maps, start);
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
			g->b.wp_lo = lo;
			g->b.wp_hi = hi > lo ? hi : lo;
		}
	}
	ps->st->labels++;
	pr = mt_acc_proc_of(ps, pid);
	mt_rs_punch(&ps->pool, &pr->labels, start, end);
	n = mt_rs_new(&ps->pool, start, end, reg, 0);
	if (n)
		mt_rs_insert(&ps->pool, &pr->labels, n);
}

void mt_acc_on_mremap(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	uint64_t old = ev->v[MT_F_MREMAP_OLD_ADDR], len = ev->v[MT_F_MREMAP_LEN];
	uint64_t addr = ev->v[MT_F_MREMAP_ADDR];
	uint32_t m, reg, n;

	if (!pr || !(m = mt_rs_find(&ps->pool, pr->maps, old)))
		return;
	reg = ps->pool.v[m].a;
	mt_rs_punch(&ps->pool, &pr->maps, old, old + ev->v[MT_F_MREMAP_OLD_LEN]);
	mt_rs_punch(&ps->pool, &pr->maps, addr, addr + len);
	n = mt_rs_new(&ps->pool, addr, addr + len, reg, 0);
	if (n)
		mt_rs_insert(&ps->pool, &pr->maps, n);
}

void mt_acc_on_brk(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct proc *pr = mt_acc_proc_of(ps, pid);
	uint64_t lo = ev->v[MT_F_BRK_OLD], hi = ev->v[MT_F_BRK_NEW];
	uint32_t m, n, reg;

	if (!pr || hi <= lo)
		return; /* shrinking: the heap mapping keeps its range; harmless */
	m = lo ? mt_rs_find(&ps->pool, pr->maps, lo - 1) : 0;
	if (m && ps->st->regions[ps->pool.v[m].a].type == MT_REGION_HEAP) {
		if (ps->pool.v[m].end < hi)
			ps->pool.v[m].end = hi;
		if (ps->st->regions[ps->pool.v[m].a].end < hi)
			ps->st->regions[ps->pool.v[m].a].end = hi; /* the region grows with it */
		return;
	}
	reg = new_region(ps, pid, MT_REGION_HEAP, ev->stream, lo, hi, 0, -1, ev->v[MT_F_TIME]);
	if (reg == NONE)
		return;
	mt_rs_punch(&ps->pool, &pr->maps, lo, hi);
	n = mt_rs_new(&ps->pool, lo, hi, reg, 0);
	if (n)
		mt_rs_insert(&ps->pool, &pr->maps, n);
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
	uint32_t n = mt_rs_find(&ps->pool, pr->blocks, addr);

	if (!n || ps->pool.v[n].start != addr)
		return;
	if (ps->pool.v[n].a < ps->st->nsites)
		mt_beh_free(&ps->st->sites[ps->pool.v[n].a].beh, ps->pool.v[n].c);
	if (ps->pool.v[n].b != NONE)
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
		uint32_t n = mt_rs_find(&ps->pool, pr->blocks, addr);

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

void mt_acc_on_alloc(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
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
		mt_rs_erase(&ps->pool, &pr->blocks, addr, addr + 1);
		return;
	}
	if (old) {
		end_block(ps, pr, old, ev->v[MT_F_TIME]);
		mt_rs_erase(&ps->pool, &pr->blocks, old, old + 1);
	}
	if (!addr || !size)
		return;
	site = site_of(ps, ev);
	if (site < 0)
		return;
	n = mt_rs_new(&ps->pool, addr, addr + size, (uint32_t)site, NONE);
	if (n) {
		ps->pool.v[n].c = mt_beh_alloc(&ps->st->sites[site].beh, size);
		ps->pool.v[n].t = ev->v[MT_F_TIME];
		mt_rs_insert(&ps->pool, &pr->blocks, n);
	}
}

void mt_acc_on_task_new(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], ppid = (uint32_t)ev->v[MT_F_NEW_PPID];
	struct proc *parent, *child;
	uint32_t maps, blocks, labels;

	if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD || pid == ppid)
		return;
	parent = mt_acc_proc_of(ps, ppid);
	if (!parent)
		return;
	maps = parent->maps;
	blocks = parent->blocks;
	labels = parent->labels;
	child = mt_acc_proc_of(ps, pid); /* may move procs: parent is stale from here */
	if (!child)
		return;
	mt_rs_free(&ps->pool, child->maps);
	mt_rs_free(&ps->pool, child->blocks);
	mt_rs_free(&ps->pool, child->labels);
	child->maps = child->blocks = child->labels = 0;
	{
		uint32_t m = 0, b = 0, l = 0;

		mt_rs_copy(&ps->pool, maps, &m);
		mt_rs_copy(&ps->pool, blocks, &b);
		mt_rs_copy(&ps->pool, labels,
			   &l); /* the child's copy of the memory keeps its names */
		child = mt_acc_proc_of(ps, pid);
		child->maps = m;
		child->blocks = b;
		child->labels = l;
	}
}

/* A big block's ALLOCATION region (pool node n of pid's blocks), made when first needed. */
static uint32_t block_region(struct pass *ps, uint32_t pid, uint32_t n)
{
	struct mt_rs_node *b = &ps->pool.v[n];

	if (b->b == NONE) {
		const struct mt_access_site *s = &ps->st->sites[b->a];
		/* it appeared when it was allocated (the site's first time for a block of an
		 * older trace's copy, whose time is not kept) */
		uint32_t r = new_region(ps, pid, MT_REGION_ALLOCATION, s->stream, b->start, b->end,
					0, b->a, b->t ? b->t : s->first_ns);

		ps->pool.v[n].b = r;
	}
	return ps->pool.v[n].b;
}

/*
 * A large block or writable mapping the runtime tracked at its allocation
 * (--page-writes-min): its region's write-once ratio is exact from here on, over the pages
 * [addr, addr + len). The block (or, for a mapping, the mapping) must hold them all.
 */
void mt_acc_on_pw_range(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], n, reg = NONE;
	struct proc *pr = mt_acc_proc_of(ps, pid);
	uint64_t lo = ev->v[MT_F_PWR_ADDR], hi = lo + ev->v[MT_F_PWR_LEN];
	struct mt_region_behavior *b;

	if (!pr || hi <= lo)
		return;
	if (ev->v[MT_F_PWR_WP] != MT_LABEL_WP_TRACKED) {
		st->pw_ranges_failed++;
		return;
	}
	st->pw_ranges++;
	if ((n = mt_rs_find(&ps->pool, pr->blocks, lo)) && ps->pool.v[n].end >= hi &&
	    ps->pool.v[n].end - ps->pool.v[n].start >= MT_ACCESS_BIG_BLOCK)
		reg = block_region(ps, pid, n);
	else if ((n = mt_rs_find(&ps->pool, pr->maps, lo)) && page_up(ps->pool.v[n].end) >= hi)
		reg = ps->pool.v[n].a;
	if (reg == NONE) {
		st->pw_ranges_unplaced++;
		return;
	}
	b = &st->regions[reg].b;
	b->wp = MT_LABEL_WP_TRACKED;
	b->wp_lo = lo;
	b->wp_hi = hi;
	b->wp_pages = (hi - lo) / 4096;
}

/*
 * What tracking did to a range (page_track): huge pages, never protected, have no write
 * epochs, and a range whose tracking ended early (the program asked for huge pages) is missing
 * its later ones: the write-once figure leaves the first out and is unknown for the second.
 */
void mt_acc_on_page_track(struct pass *ps, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t lo = ev->v[MT_F_PT_ADDR], hi = lo + ev->v[MT_F_PT_LEN], t = ev->v[MT_F_TIME];
	uint64_t op = ev->v[MT_F_PT_OP];
	int64_t site;

	if ((op != MT_PT_HUGE && op != MT_PT_UNTRACKED_HUGE) || hi <= lo || hi - lo > (1ull << 47))
		return;
	/* the regions of the range's pages, found once per run of pages of one region */
	for (uint64_t p = lo; p < hi;) {
		uint32_t reg = mt_acc_region_at(ps, pid, p, &site);
		struct mt_region_behavior *b;
		uint64_t end;

		if (reg == NONE) {
			p += 4096;
			continue;
		}
		b = &ps->st->regions[reg].b;
		end = ps->st->regions[reg].end > p ? ps->st->regions[reg].end : p + 4096;
		end = end < hi ? (end + 4095) & ~4095ull : hi;
		if (b->wp == MT_LABEL_WP_TRACKED && op == MT_PT_UNTRACKED_HUGE) {
			b->wp_ended = true;
		} else if (b->wp == MT_LABEL_WP_TRACKED) {
			uint64_t a = p > b->wp_lo ? p : b->wp_lo,
				 z = end < b->wp_hi ? end : b->wp_hi;

			if (b->wp_huge_t != t) { /* a new scan's set: counted afresh */
				b->wp_huge_t = t;
				b->wp_huge_cur = 0;
			}
			b->wp_huge_cur += z > a ? (z - a) / 4096 : 0;
			if (b->wp_huge_cur > b->wp_huge_pages)
				b->wp_huge_pages = b->wp_huge_cur;
		}
		p = end;
	}
}

/* The region holding addr in pid now, or NONE; *site gets the heap block's site or -1. */
uint32_t mt_acc_region_at(struct pass *ps, uint32_t pid, uint64_t addr, int64_t *site_out)
{
	struct mt_access_stats *st = ps->st;
	struct proc *pr = mt_acc_proc_of(ps, pid);
	uint32_t n;
	int64_t site;

	*site_out = -1;
	if (!pr)
		return NONE;
	if ((n = mt_rs_find(&ps->pool, pr->labels, addr))) {
		/* a named heap block still counts for its allocation site */
		uint32_t blk = mt_rs_find(&ps->pool, pr->blocks, addr);

		if (blk)
			*site_out = ps->pool.v[blk].a;
		return ps->pool.v[n].a;
	}
	if ((n = mt_rs_find(&ps->pool, pr->blocks, addr))) {
		struct mt_rs_node *b = &ps->pool.v[n];
		struct mt_access_site *s = &st->sites[b->a];

		site = b->a;
		*site_out = site;
		if (b->end - b->start >= MT_ACCESS_BIG_BLOCK)
			return block_region(ps, pid, n);
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
	if ((n = mt_rs_find(&ps->pool, pr->maps, addr)))
		return ps->pool.v[n].a;
	if (pr->unknown == NONE) {
		uint32_t r = new_region(ps, pid, MT_REGION_UNKNOWN, 0, 0, 0, 0, -1, 0);

		pr = mt_acc_proc_of(ps, pid);
		pr->unknown = r;
	}
	return pr->unknown;
}

/* Was the instruction at ip memtap's own (the preload runtime's code, at work in a hook)? */
bool mt_acc_memtap_code(struct pass *ps, uint32_t pid, uint64_t ip)
{
	struct proc *pr = mt_acc_proc_of(ps, pid);
	uint32_t n = pr && ip ? mt_rs_find(&ps->pool, pr->maps, ip) : 0;

	return n && ps->pool.v[n].a != NONE &&
	       ps->st->regions[ps->pool.v[n].a].type == MT_REGION_MEMTAP;
}
