/* SPDX-License-Identifier: MIT */
/* Unit tests of the allocation pass on hand-made traces: every figure known in advance. */
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "analysis/access.h"
#include "analysis/alloc.h"
#include "analysis/rereads.h"
#include "analysis/sketch.h"
#include "analysis/symbols.h"
#include "format/block.h"
#include "format/reader.h"
#include "format/writer.h"
#include "mt-test.h"

MT_TEST_MAIN()

struct ev {
	uint32_t stream;
	uint64_t t, pid, tid;
	unsigned kind;
	uint64_t addr, size, usable, old, stack;
};

static void put_alloc(struct mt_writer *w, const struct ev *e)
{
	struct mt_block b = { 0 };
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	if (mt_block_init(&b, MT_EV_ALLOC, 4) < 0)
		abort();
	row[MT_F_TIME] = e->t;
	row[MT_F_PID] = e->pid;
	row[MT_F_TID] = e->tid;
	row[MT_F_ALLOC_KIND] = e->kind;
	row[MT_F_ALLOC_ADDR] = e->addr;
	row[MT_F_ALLOC_SIZE] = e->size;
	row[MT_F_ALLOC_USABLE] = e->usable;
	row[MT_F_ALLOC_OLD] = e->old;
	row[MT_F_ALLOC_STACK] = e->stack;
	mt_block_add(&b, row);
	if (mt_writer_block(w, e->stream, &b) < 0)
		abort();
	mt_block_release(&b);
}

static void put_task(struct mt_writer *w, unsigned type, uint64_t t, uint64_t pid, uint64_t ppid)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = pid;
	row[MT_F_TID] = pid;
	if (type == MT_EV_TASK_NEW) {
		row[MT_F_NEW_PPID] = ppid;
		row[MT_F_NEW_PTID] = ppid;
		row[MT_F_NEW_KIND] = MT_TASK_PROCESS;
	} else {
		row[MT_F_EXIT_KIND] = MT_TASK_PROCESS;
		row[MT_F_EXIT_KNOWN] = 1;
	}
	if (mt_writer_event(w, type, row) < 0)
		abort();
}

/*
 * Process 100 (stream 1, threads 100 and 101) forks process 200 (stream 2):
 *   t10 100: malloc A 100      t20 100: free A          (temporary: nothing in between)
 *   t30 100: malloc B 1000     t40 101: malloc C 500    (peak 1500)
 *   t45 100: free B            (temporary per thread: 100's last allocation was B)
 *   t50 101: realloc C -> D 2000  (releases C: temporary; peak 2000)
 *   t55 fork 200               t60 200: free D (inherited)   t61 200: free 0x9999 (unseen)
 *   t62 200: malloc E 7        (peak 2007: both processes run)
 *   t70 200 exits, t80 100 exits: D and E leaked.
 */
static struct mt_reader *scenario(void)
{
	static const struct ev evs[] = {
		{ 1, 10, 100, 100, MT_ALLOC_MALLOC, 0x1000, 100, 104, 0, 0 },
		{ 1, 20, 100, 100, MT_ALLOC_FREE, 0x1000, 0, 0, 0, 0 },
		{ 1, 30, 100, 100, MT_ALLOC_MALLOC, 0x2000, 1000, 1000, 0, 0 },
		{ 1, 40, 100, 101, MT_ALLOC_MALLOC, 0x3000, 500, 504, 0, 0 },
		{ 1, 45, 100, 100, MT_ALLOC_FREE, 0x2000, 0, 0, 0, 0 },
		{ 1, 50, 100, 101, MT_ALLOC_REALLOC, 0x4000, 2000, 2008, 0x3000, 0 },
		{ 2, 60, 200, 200, MT_ALLOC_FREE, 0x4000, 0, 0, 0, 0 },
		{ 2, 61, 200, 200, MT_ALLOC_FREE, 0x9999, 0, 0, 0, 0 },
		{ 2, 62, 200, 200, MT_ALLOC_MALLOC, 0x5000, 7, 24, 0, 0 },
	};
	int fd = memfd_create("trace", MFD_CLOEXEC);
	struct mt_writer *w;
	struct mt_reader *r;

	if (fd < 0 || mt_writer_open_fd(fd, NULL, &w) < 0)
		abort();
	put_task(w, MT_EV_TASK_NEW, 5, 100, 1);
	for (size_t i = 0; i < 6; i++)
		put_alloc(w, &evs[i]);
	put_task(w, MT_EV_TASK_NEW, 55, 200, 100);
	for (size_t i = 6; i < 9; i++)
		put_alloc(w, &evs[i]);
	put_task(w, MT_EV_TASK_EXIT, 70, 200, 0);
	put_task(w, MT_EV_TASK_EXIT, 80, 100, 0);
	if (mt_writer_finish(w, NULL) < 0)
		abort();
	mt_writer_free(w);
	if (mt_reader_open_fd(fd, &r) < 0)
		abort();
	return r; /* the reader reads fd lazily: it stays open for the test's short life */
}

TEST(alloc_totals)
{
	struct mt_reader *r = scenario();
	struct mt_alloc_stats st;

	ASSERT_EQ(mt_alloc_analyze(r, &st), 0);
	ASSERT_TRUE(st.present);
	ASSERT_EQ_U(st.calls, 5);
	ASSERT_EQ_U(st.by_kind[MT_ALLOC_MALLOC], 4);
	ASSERT_EQ_U(st.by_kind[MT_ALLOC_REALLOC], 1);
	ASSERT_EQ_U(st.frees, 4);
	ASSERT_EQ_U(st.bytes, 100 + 1000 + 500 + 2000 + 7);
	ASSERT_EQ_U(st.slack, 4 + 0 + 4 + 8 + 17);
	ASSERT_EQ_U(st.temporary, 3);
	ASSERT_EQ_U(st.peak_bytes, 2007);
	ASSERT_EQ_U(st.peak_ns, 62);
	ASSERT_EQ_U(st.peak_blocks, 2);
	ASSERT_EQ_U(st.leaked_bytes, 2007);
	ASSERT_EQ_U(st.leaked_blocks, 2);
	ASSERT_EQ_U(st.inherited_frees, 1);
	ASSERT_EQ_U(st.untracked_frees, 1);
	ASSERT_EQ_U(st.nprocs, 2);
	ASSERT_EQ_U(st.nsites, 2); /* one per stream: no stacks */
	ASSERT_EQ_U(st.life.n, 3); /* A 10 ns, B 15 ns, C 10 ns */
	ASSERT_EQ_U(st.life.sum, 35);
	mt_alloc_release(&st);
	mt_reader_free(r);
}

TEST(alloc_sites_and_processes)
{
	struct mt_reader *r = scenario();
	struct mt_alloc_stats st;
	const struct mt_alloc_site *p, *c;

	ASSERT_EQ(mt_alloc_analyze(r, &st), 0);
	p = st.sites[0].pid == 100 ? &st.sites[0] : &st.sites[1];
	c = p == &st.sites[0] ? &st.sites[1] : &st.sites[0];
	ASSERT_EQ_U(p->calls, 4);
	ASSERT_EQ_U(p->frees, 3); /* A, B and C (C by the realloc) */
	ASSERT_EQ_U(p->temporary, 3);
	ASSERT_EQ_U(p->peak_bytes, 2000); /* live at t62: D */
	ASSERT_EQ_U(p->max_live_bytes, 2000);
	ASSERT_EQ_U(p->leaked_bytes, 2000);
	ASSERT_EQ_U(c->calls, 1);
	ASSERT_EQ_U(c->peak_bytes, 7);
	ASSERT_EQ_U(c->leaked_blocks, 1);
	for (size_t i = 0; i < st.nprocs; i++) {
		const struct mt_alloc_proc *pr = &st.procs[i];

		ASSERT_TRUE(pr->ended);
		if (pr->pid == 100) {
			ASSERT_EQ_U(pr->peak_bytes, 2000);
			ASSERT_EQ_U(pr->peak_ns, 50);
		} else {
			ASSERT_EQ_U(pr->inherited_frees, 1);
			ASSERT_EQ_U(pr->untracked_frees, 1);
			ASSERT_EQ_U(pr->frees, 2);
		}
	}
	mt_alloc_release(&st);
	mt_reader_free(r);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sketch's quantiles against the exact nearest-rank ones, within its stated error. */
static void check_sketch(const struct mt_sketch_family *f, const struct mt_sketch *s, uint64_t *v,
			 size_t n)
{
	static const double ps[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0 };

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		size_t rank = (size_t)ceil(ps[k] * (double)n);
		double want = (double)v[rank ? rank - 1 : 0];
		double got = (double)mt_sketch_quantile(f, s, ps[k]);

		ASSERT_TRUE(fabs(got - want) <= mt_sketch_rel_error(f) * want + 0.5);
	}
}

TEST(lifetime_sketch)
{
	struct mt_sketch_family f;
	struct mt_sketch a = { 0 }, b = { 0 };
	uint64_t *v = malloc(200000 * sizeof(*v)), x = 88172645463325252ull;
	size_t n = 0;

	ASSERT_TRUE(v != NULL);
	mt_sketch_family_init(&f, 1000);
	ASSERT_TRUE(fabs(mt_sketch_rel_error(&f) - 1.0 / 64) < 1e-12);
	/* small values are exact */
	for (uint64_t i = 0; i < 32; i++)
		mt_sketch_add(&f, &a, i);
	ASSERT_EQ_U(mt_sketch_quantile(&f, &a, 0.5), 15);
	ASSERT_EQ_U(mt_sketch_quantile(&f, &a, 1.0), 31);
	mt_sketch_release(&a);
	f.pairs = 0;
	/* log-uniform values over 12 decades: every quantile within the stated error */
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[n] = (uint64_t)exp((double)(x % 27000) / 1000.0);
		mt_sketch_add(&f, &a, v[n++]);
	}
	ASSERT_TRUE(f.pairs <= 64u * 32);
	check_sketch(&f, &a, v, n);
	/* a second sketch past the budget: both collapse, and stay within the new bound */
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[n] = x % 1000000007u;
		mt_sketch_add(&f, &b, v[n++]);
		if (mt_sketch_over(&f)) {
			mt_sketch_collapse(&f, &a);
			mt_sketch_collapse(&f, &b);
			mt_sketch_collapsed(&f);
		}
	}
	ASSERT_TRUE(f.collapses > 0 && f.pairs <= 1000);
	ASSERT_EQ_U(a.n + b.n, n); /* every value counted */
	check_sketch(&f, &a, v, 100000);
	check_sketch(&f, &b, v + 100000, 100000);
	mt_sketch_release(&a);
	mt_sketch_release(&b);
	free(v);
}

TEST(symbolize_without_mappings)
{
	struct mt_reader *r = scenario();
	struct mt_symbolizer *s;
	const struct mt_frame *f;
	char buf[64];

	ASSERT_EQ(mt_sym_open(r, &s), 0);
	ASSERT_EQ(mt_sym_resolve(s, 100, 10, 0x401234, true, &f), 1);
	ASSERT_TRUE(f->function == NULL && f->module == NULL);
	ASSERT_STREQ(mt_frame_name(f, buf, sizeof(buf)), "0x401234");
	/* The second lookup is cached. */
	ASSERT_EQ(mt_sym_resolve(s, 100, 10, 0x401234, true, &f), 1);
	ASSERT_EQ_U(mt_sym_stats(s)->addresses, 1);
	ASSERT_EQ_U(mt_sym_stats(s)->no_mapping, 1);
	mt_sym_close(s);
	mt_reader_free(r);
}

static void put_mmap(struct mt_writer *w, uint64_t t, uint64_t pid, uint64_t addr, uint64_t len,
		     const char *path, uint64_t prot)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = pid;
	row[MT_F_MMAP_ADDR] = addr;
	row[MT_F_MMAP_LEN] = len;
	row[MT_F_MMAP_PROT] = prot;
	row[MT_F_MMAP_PATH] = mt_writer_str(w, path);
	row[MT_F_MMAP_BUILD_ID] = mt_writer_str(w, "");
	if (mt_writer_event(w, MT_EV_MMAP, row) < 0)
		abort();
}

static void put_access(struct mt_writer *w, uint64_t t, uint64_t pid, unsigned kind, uint64_t addr,
		       unsigned part, unsigned reason)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = pid;
	row[MT_F_ACCESS_KIND] = kind;
	row[MT_F_ACCESS_ADDR] = addr;
	row[MT_F_ACCESS_SIZE] = 8;
	row[MT_F_ACCESS_MECH] = MT_MECH_TIMER;
	row[MT_F_ACCESS_WEIGHT] = 10;
	row[MT_F_ACCESS_HOW] = kind == MT_ACCESS_UNRESOLVED ? MT_HOW_NONE : MT_HOW_PREVIOUS;
	row[MT_F_ACCESS_REASON] = reason;
	row[MT_F_ACCESS_PART] = part;
	if (mt_writer_event(w, MT_EV_ACCESS, row) < 0)
		abort();
}

/*
 * Process 100 maps code, an anonymous arena and its stack; allocates a 64 KiB block (its own
 * region) and a small one (grouped under its site); accesses land in each, in unmapped
 * memory, and one sample is unresolved. It frees the big block (its address is then the
 * arena's), forks 200 (which inherits the small block and the mappings), and unmaps its
 * code (an access there is then in no mapping).
 */
TEST(access_regions)
{
	static const struct ev allocs[] = {
		{ 1, 10, 100, 100, MT_ALLOC_MALLOC, 0x10000, 65536, 65536, 0, 0 },
		{ 1, 11, 100, 100, MT_ALLOC_MALLOC, 0x20000, 100, 104, 0, 0 },
		{ 1, 20, 100, 100, MT_ALLOC_FREE, 0x10000, 0, 0, 0, 0 },
	};
	int fd = memfd_create("trace", MFD_CLOEXEC);
	struct mt_access_stats st;
	struct mt_writer *w;
	struct mt_reader *r;
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	if (fd < 0 || mt_writer_open_fd(fd, NULL, &w) < 0)
		abort();
	put_task(w, MT_EV_TASK_NEW, 5, 100, 1);
	put_mmap(w, 6, 100, 0x400000, 0x1000, "/bin/prog", PROT_READ | PROT_EXEC);
	put_mmap(w, 6, 100, 0x10000, 0x80000, "", PROT_READ | PROT_WRITE);
	put_mmap(w, 6, 100, 0x7ff000, 0x1000, "[stack]", PROT_READ | PROT_WRITE);
	for (size_t i = 0; i < 3; i++)
		put_alloc(w, &allocs[i]);
	put_access(w, 12, 100, MT_ACCESS_LOAD, 0x10010, 0, 0);
	put_access(w, 13, 100, MT_ACCESS_LOAD, 0x20008, 0, 0); /* a read-modify-write */
	put_access(w, 13, 100, MT_ACCESS_STORE, 0x20008, 1, 0);
	put_access(w, 14, 100, MT_ACCESS_LOAD, 0x400100, 0, 0);
	put_access(w, 15, 100, MT_ACCESS_STORE, 0x7ff100, 0, 0);
	put_access(w, 16, 100, MT_ACCESS_LOAD, 0x12345678, 0, 0);
	put_access(w, 17, 100, MT_ACCESS_UNRESOLVED, 0, 0, MT_UNRES_POINTER_CHASE);
	put_access(w, 21, 100, MT_ACCESS_LOAD, 0x10010, 0, 0);
	put_task(w, MT_EV_TASK_NEW, 30, 200, 100);
	put_access(w, 31, 200, MT_ACCESS_LOAD, 0x20008, 0, 0);
	put_access(w, 32, 200, MT_ACCESS_LOAD, 0x400100, 0, 0);
	row[MT_F_TIME] = 40;
	row[MT_F_PID] = row[MT_F_TID] = 100;
	row[MT_F_MUNMAP_ADDR] = 0x400000;
	row[MT_F_MUNMAP_LEN] = 0x1000;
	if (mt_writer_event(w, MT_EV_MUNMAP, row) < 0)
		abort();
	put_access(w, 41, 100, MT_ACCESS_LOAD, 0x400100, 0, 0);
	if (mt_writer_finish(w, NULL) < 0)
		abort();
	mt_writer_free(w);
	if (mt_reader_open_fd(fd, &r) < 0)
		abort();
	ASSERT_EQ(mt_access_analyze(r, NULL, &st), 0);
	ASSERT_TRUE(st.present);
	ASSERT_EQ(st.samples, 10);
	ASSERT_EQ(st.resolved, 9);
	ASSERT_EQ(st.accesses, 10);
	ASSERT_EQ(st.read_samples, 8);
	ASSERT_EQ(st.write_samples, 2);
	ASSERT_EQ(st.reads, 80);
	ASSERT_EQ(st.writes, 20);
	ASSERT_EQ(st.unresolved[MT_UNRES_POINTER_CHASE], 1);
	ASSERT_EQ(st.by_how[MT_HOW_PREVIOUS], 9);
	ASSERT_EQ(st.in_blocks, 4);
	ASSERT_EQ(st.by_type[MT_REGION_ALLOCATION], 1);
	ASSERT_EQ(st.by_type[MT_REGION_HEAP_OBJECTS], 3);
	ASSERT_EQ(st.by_type[MT_REGION_CODE], 2);
	ASSERT_EQ(st.by_type[MT_REGION_STACK], 1);
	ASSERT_EQ(st.by_type[MT_REGION_ANON], 1);
	ASSERT_EQ(st.by_type[MT_REGION_UNKNOWN], 2);
	/* One site: both blocks came from stack 0 of stream 1. */
	ASSERT_EQ(st.nsites, 1);
	ASSERT_EQ(st.sites[0].c.samples, 4);
	for (size_t i = 0; i < st.nregions; i++) {
		const struct mt_access_region *g = &st.regions[i];

		if (g->type == MT_REGION_ALLOCATION) {
			ASSERT_EQ_U(g->start, 0x10000);
			ASSERT_EQ_U(g->end, 0x20000);
			ASSERT_EQ(g->c.samples, 1);
		}
		if (g->type == MT_REGION_HEAP_OBJECTS) {
			/* The site's small blocks, also as the fork child inherited them. */
			ASSERT_EQ(g->c.samples, 3);
			ASSERT_EQ(g->pid, 100);
		}
	}
	/* Pages: 0x10000, 0x20000, 0x400000, 0x7ff000, 0x12345000 for 100; two for 200. */
	ASSERT_EQ(st.npages, 7);
	mt_access_release(&st);
	mt_reader_free(r);
}

/*
 * Two region-model answers (issue 35): a label made over pages touched earlier in the window
 * counts them for itself when they are touched again (its working set is never 0 with
 * samples); and the brk heap reported whole at each growth, as the kernel's MMAP2 records
 * do, is one region that grows, not one region per growth.
 */
TEST(label_wss_and_heap_growth)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);
	struct mt_access_stats st;
	struct mt_writer *w;
	struct mt_reader *r;
	uint64_t row[MT_MAX_FIELDS] = { 0 };
	unsigned heaps = 0;

	if (fd < 0 || mt_writer_open_fd(fd, NULL, &w) < 0)
		abort();
	put_task(w, MT_EV_TASK_NEW, 5, 100, 1);
	put_mmap(w, 6, 100, 0x1000000, 16 << 20, "", PROT_READ | PROT_WRITE);
	put_mmap(w, 6, 100, 0x600000, 0x21000, "[heap]", PROT_READ | PROT_WRITE);
	put_access(w, 10, 100, MT_ACCESS_LOAD, 0x1000010, 0, 0); /* the mapping's */
	row[MT_F_TIME] = 11;
	row[MT_F_PID] = row[MT_F_TID] = 100;
	row[MT_F_LABEL_OP] = MT_LABEL_SET;
	row[MT_F_LABEL_ADDR] = 0x1000000;
	row[MT_F_LABEL_LEN] = 16 << 20;
	row[MT_F_LABEL_TYPE] = mt_writer_str(w, "weight");
	row[MT_F_LABEL_NAME] = mt_writer_str(w, "w");
	if (mt_writer_event(w, MT_EV_LABEL, row) < 0)
		abort();
	put_access(w, 12, 100, MT_ACCESS_LOAD, 0x1000020, 0, 0); /* the same page, the label's */
	put_access(w, 13, 100, MT_ACCESS_LOAD, 0x1001020, 0, 0);
	put_access(w, 14, 100, MT_ACCESS_LOAD, 0x1000030, 0, 0);
	put_mmap(w, 20, 100, 0x600000, 0x42000, "[heap]", PROT_READ | PROT_WRITE);
	put_mmap(w, 21, 100, 0x600000, 0x84000, "[heap]", PROT_READ | PROT_WRITE);
	if (mt_writer_finish(w, NULL) < 0)
		abort();
	mt_writer_free(w);
	if (mt_reader_open_fd(fd, &r) < 0)
		abort();
	ASSERT_EQ(mt_access_analyze(r, NULL, &st), 0);
	for (size_t i = 0; i < st.nregions; i++) {
		const struct mt_access_region *g = &st.regions[i];

		if (g->type == MT_REGION_LABEL) {
			ASSERT_EQ(g->c.samples, 3);
			ASSERT_EQ_U(g->b.wss_peak_pages, 2);
		}
		if (g->type == MT_REGION_HEAP) {
			heaps++;
			ASSERT_EQ_U(g->start, 0x600000);
			ASSERT_EQ_U(g->end, 0x684000);
		}
	}
	ASSERT_EQ(heaps, 1);
	mt_access_release(&st);
	mt_reader_free(r);
}

/* Coverage counts against a byte-by-byte count over random reads. */
TEST(reread_coverage)
{
	struct mt_reread_file f = { 0 };
	unsigned count[4096] = { 0 };
	uint64_t seed = 12345, total = 0;

	for (int i = 0; i < 3000; i++) {
		uint64_t a, b;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		a = (seed >> 33) % 4096;
		b = a + ((seed >> 13) % 200);
		if (b > 4096)
			b = 4096;
		ASSERT_EQ(mt_reread_cover(&f, a, b), 0);
		for (uint64_t x = a; x < b; x++)
			count[x]++;
		total += b - a;
	}
	ASSERT_EQ(f.bytes_read, total);
	for (size_t k = 0; k < f.nsegs; k++) {
		ASSERT_TRUE(f.segs[k].start < f.segs[k].end);
		if (k) {
			ASSERT_TRUE(f.segs[k - 1].end <= f.segs[k].start);
			/* touching neighbours differ in count (else they were merged) */
			ASSERT_TRUE(f.segs[k - 1].end < f.segs[k].start ||
				    f.segs[k - 1].times != f.segs[k].times);
		}
		for (uint64_t x = f.segs[k].start; x < f.segs[k].end; x++) {
			ASSERT_EQ(count[x], f.segs[k].times);
			count[x] = 0;
		}
	}
	for (size_t x = 0; x < 4096; x++)
		ASSERT_EQ(count[x], 0); /* every byte read is in a segment */
	free(f.segs);
}

/* One read across 300 segments: the replacement outgrows its room on the stack. */
TEST(reread_coverage_across_many_segments)
{
	struct mt_reread_file f = { 0 };

	for (uint64_t x = 0; x < 600; x += 2)
		ASSERT_EQ(mt_reread_cover(&f, x, x + 1), 0);
	ASSERT_EQ(f.nsegs, 300);
	ASSERT_EQ(mt_reread_cover(&f, 0, 600), 0);
	ASSERT_EQ(f.nsegs, 600); /* 2, 1, 2, 1, ...: no neighbours merge */
	for (size_t k = 0; k < f.nsegs; k++)
		ASSERT_EQ(f.segs[k].times, k % 2 ? 1 : 2);
	free(f.segs);
}

static void put_file_map(struct mt_writer *w, uint64_t t, uint64_t addr, const char *path)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = 100;
	row[MT_F_MMAP_ADDR] = addr;
	row[MT_F_MMAP_LEN] = 0x4000;
	row[MT_F_MMAP_PGOFF] = 0x1000;
	row[MT_F_MMAP_PROT] = PROT_READ;
	row[MT_F_MMAP_INO] = 42;
	row[MT_F_MMAP_PATH] = mt_writer_str(w, path);
	row[MT_F_MMAP_BUILD_ID] = mt_writer_str(w, "");
	if (mt_writer_event(w, MT_EV_MMAP, row) < 0)
		abort();
}

static void put_sys(struct mt_writer *w, uint64_t t, uint64_t pid, unsigned nr, int64_t ret,
		    uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, const char *path)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = pid;
	row[MT_F_SYSCALL_NR] = nr;
	row[MT_F_SYSCALL_RET] = (uint64_t)ret;
	row[MT_F_SYSCALL_A0] = a0;
	row[MT_F_SYSCALL_A1] = a1;
	row[MT_F_SYSCALL_A2] = a2;
	row[MT_F_SYSCALL_A3] = a3;
	row[MT_F_SYSCALL_PATH] = path ? mt_writer_str(w, path) : 0;
	if (mt_writer_event(w, MT_EV_SYSCALL, row) < 0)
		abort();
}

/*
 * Process 100 in /work: openat("d/../m.bin") = 3, pread 4096 at 0 twice, lseek 8192,
 * read 100; dup2(3, 7); forks 200, which reads 50 through 7 at its inherited offset 8292,
 * then preads 100 at 8192 (read again); 100 closes 3 and reads through 3: unknown. 100
 * maps m.bin at 0x10000 (pgoff 0x1000), faults at 0x10010, maps it again, faults again.
 */
TEST(rereads_replay)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);
	struct mt_rereads rr;
	struct mt_writer *w;
	struct mt_reader *r;
	struct mt_kv meta;
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	if (fd < 0 || mt_writer_open_fd(fd, NULL, &w) < 0)
		abort();
	mt_kv_init(&meta);
	mt_kv_add(&meta, "cwd", "/work");
	if (mt_writer_kv(w, MT_CHUNK_META, &meta) < 0)
		abort();
	mt_kv_release(&meta);
	put_task(w, MT_EV_TASK_NEW, 5, 100, 1);
	put_sys(w, 10, 100, 257, 3, (uint64_t)-100, 0, 0, 0, "d/../m.bin");
	put_sys(w, 11, 100, 17, 4096, 3, 0, 4096, 0, NULL);
	put_sys(w, 12, 100, 17, 4096, 3, 0, 4096, 0, NULL);
	put_sys(w, 13, 100, 8, 8192, 3, 8192, 0, 0, NULL);
	put_sys(w, 14, 100, 0, 100, 3, 0, 100, 0, NULL);
	put_sys(w, 15, 100, 33, 7, 3, 7, 0, 0, NULL);
	put_task(w, MT_EV_TASK_NEW, 16, 200, 100);
	put_sys(w, 17, 200, 0, 50, 7, 0, 50, 0, NULL);
	put_sys(w, 18, 200, 17, 100, 7, 0, 100, 8192, NULL); /* 8192..8292 again */
	put_sys(w, 19, 100, 3, 0, 3, 0, 0, 0, NULL);
	put_sys(w, 20, 100, 0, 10, 3, 0, 10, 0, NULL); /* closed: unknown */
	put_file_map(w, 21, 0x10000, "/work/m.bin");
	row[MT_F_TIME] = 22;
	row[MT_F_PID] = row[MT_F_TID] = 100;
	row[MT_F_FAULT_KIND] = MT_FAULT_MINOR;
	row[MT_F_FAULT_ADDR] = 0x10010;
	if (mt_writer_event(w, MT_EV_FAULT, row) < 0)
		abort();
	put_file_map(w, 23, 0x10000, "/work/m.bin");
	row[MT_F_TIME] = 24;
	if (mt_writer_event(w, MT_EV_FAULT, row) < 0)
		abort();
	if (mt_writer_finish(w, NULL) < 0)
		abort();
	mt_writer_free(w);
	if (mt_reader_open_fd(fd, &r) < 0)
		abort();
	ASSERT_EQ(mt_rereads_analyze(r, 0, &rr), 0);
	ASSERT_EQ(rr.nfiles, 1);
	ASSERT_STREQ(rr.files[0].path, "/work/m.bin");
	ASSERT_EQ(rr.files[0].reads, 5);
	ASSERT_EQ(rr.files[0].faults, 2);
	ASSERT_EQ(rr.reads_unknown_fd, 1);
	/* [0, 4096) twice by pread, then [4096, 8192) twice by the faults (pgoff 0x1000):
	 * one range of count 2; 8192..8292 twice; 8292..8342 once. */
	ASSERT_EQ(rr.files[0].nsegs, 2);
	ASSERT_EQ(rr.files[0].segs[0].start, 0);
	ASSERT_EQ(rr.files[0].segs[0].end, 8292);
	ASSERT_EQ(rr.files[0].segs[0].times, 2);
	ASSERT_EQ(rr.files[0].segs[1].end, 8342);
	ASSERT_EQ(rr.files[0].segs[1].times, 1);
	ASSERT_EQ(rr.files[0].reread_bytes, 8292);
	mt_rereads_release(&rr);
	mt_reader_free(r);
}

/* Exact quantiles interpolate as pandas does; past MT_QS_EXACT values the histogram keeps
 * every quantile within 1/128 of the truth in bounded memory. */
TEST(quantile_store)
{
	struct mt_qs q = { 0 };
	double v;

	ASSERT_TRUE(mt_qs_quantile(&q, 0.5) == 0.0);
	for (uint64_t x = 1; x <= 4; x++)
		ASSERT_EQ(mt_qs_add(&q, x * 10), 0);
	/* pandas: Series([10, 20, 30, 40]).quantile(0.5) == 25.0, .quantile(0.9) == 37.0 */
	ASSERT_TRUE(mt_qs_quantile(&q, 0.5) == 25.0);
	ASSERT_TRUE(mt_qs_quantile(&q, 0.9) > 36.999 && mt_qs_quantile(&q, 0.9) < 37.001);
	ASSERT_TRUE(mt_qs_exact(&q));
	mt_qs_release(&q);
	for (uint64_t x = 1; x <= 100000; x++)
		ASSERT_EQ(mt_qs_add(&q, x * 1000), 0);
	ASSERT_TRUE(!mt_qs_exact(&q));
	v = mt_qs_quantile(&q, 0.5);
	ASSERT_TRUE(v > 50000000.0 * (1 - 1.0 / 128) && v < 50000000.0 * (1 + 1.0 / 128));
	v = mt_qs_quantile(&q, 0.99);
	ASSERT_TRUE(v > 99000000.0 * (1 - 1.0 / 128) && v < 99000000.0 * (1 + 1.0 / 128));
	ASSERT_TRUE(mt_qs_mean(&q) == 50000500.0);
	mt_qs_release(&q);
}

/* A value standing for w values: the histogram weighs it so. */
TEST(quantile_weights)
{
	struct mt_qs q = { 0 };

	ASSERT_EQ(mt_qs_add(&q, 10), 0);
	ASSERT_EQ(mt_qs_add_w(&q, 20, 3), 0);
	ASSERT_TRUE(!mt_qs_exact(&q));
	ASSERT_EQ(q.n, 4);
	ASSERT_TRUE(mt_qs_mean(&q) == 17.5);
	ASSERT_TRUE(mt_qs_quantile(&q, 0.0) == 10.0);
	ASSERT_TRUE(mt_qs_quantile(&q, 0.5) == 20.0);
	mt_qs_release(&q);
}

/*
 * Inter-access intervals past the exact-address table's capacity: 1.5 M distinct addresses,
 * each read twice 15 ms apart. The table follows every address up to 1 Mi of them, then half
 * (SHARDS-style): the intervals are all 15 ms, and their weighted count estimates 1.5 M.
 */
TEST(iai_spatial_sampling)
{
	const uint64_t n = 1500000, base = 0x100000000ull;
	int fd = memfd_create("trace", MFD_CLOEXEC);
	struct mt_access_stats st;
	struct mt_writer *w;
	struct mt_reader *r;
	const struct mt_type_metrics *m = NULL;

	if (fd < 0 || mt_writer_open_fd(fd, NULL, &w) < 0)
		abort();
	put_task(w, MT_EV_TASK_NEW, 5, 100, 1);
	put_mmap(w, 6, 100, base, 1ull << 30, "", PROT_READ | PROT_WRITE);
	for (uint64_t j = 0; j < 2 * n; j++)
		put_access(w, 10 + j * 10, 100, MT_ACCESS_LOAD, base + (j % n) * 8, 0, 0);
	if (mt_writer_finish(w, NULL) < 0)
		abort();
	mt_writer_free(w);
	if (mt_reader_open_fd(fd, &r) < 0)
		abort();
	ASSERT_EQ(mt_access_analyze(r, NULL, &st), 0);
	ASSERT_EQ(st.iai_rate_shift, 1);
	for (size_t i = 0; i < st.ntypes; i++)
		if (!strcmp(st.types[i].name, "anon"))
			m = &st.types[i];
	ASSERT_TRUE(m != NULL);
	ASSERT_TRUE(!mt_qs_exact(&m->iai));
	ASSERT_TRUE(m->iai.n > n * 97 / 100 && m->iai.n < n * 103 / 100);
	ASSERT_TRUE(m->iai_ns[0] > 15e6 * (1 - 1.0 / 128) && m->iai_ns[0] < 15e6 * (1 + 1.0 / 128));
	ASSERT_TRUE(m->iai_ns[2] > 15e6 * (1 - 1.0 / 128) && m->iai_ns[2] < 15e6 * (1 + 1.0 / 128));
	mt_access_release(&st);
	mt_reader_free(r);
	close(fd);
}

/* MRM labels are decided by evidence only (analysis/mrm.c). */
TEST(mrm_evidence)
{
	const struct mt_mrm_rule r = { 0.8, 10, 0.5, 1 };
	struct mt_mrm_input in = { .write_once = NAN,
				   .retention_p99_s = NAN,
				   .retention_p50_s = NAN,
				   .lifetime_p99_s = NAN,
				   .lifetime_p50_s = NAN };
	struct mt_mrm_verdict v;
	char buf[64];

	/* nothing known: no label */
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_INSUFFICIENT);
	/* a lifetime below both retention thresholds decides low alone */
	in.lifetime_p99_s = in.lifetime_p50_s = 0.6;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_LOW);
	ASSERT_STREQ(mt_mrm_by_name(v.by, buf, sizeof(buf)), "lifetime");
	/* long-lived, read 30 s with enough samples, but write-once unknown: undecided */
	in.lifetime_p99_s = in.lifetime_p50_s = 31;
	in.retention_p99_s = in.retention_p50_s = 30;
	in.read_samples = 30;
	ASSERT_EQ(mt_mrm_classify(&r, &in).label, MT_MRM_INSUFFICIENT);
	/* with an exact write-once of 1: high, by both */
	in.write_once = 1;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_HIGH);
	ASSERT_STREQ(mt_mrm_by_name(v.by, buf, sizeof(buf)), "write_once+retention");
	/* too few reads: the same retention decides nothing */
	in.read_samples = MT_MRM_MIN_READS - 1;
	ASSERT_EQ(mt_mrm_classify(&r, &in).label, MT_MRM_INSUFFICIENT);
	/* rewritten memory is low whatever the retention: write-once decides */
	in.write_once = 0;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_LOW);
	ASSERT_STREQ(mt_mrm_by_name(v.by, buf, sizeof(buf)), "write_once");
	/* medium: write-once 0.6, retention p50 2 s, p99 5 s */
	in.write_once = 0.6;
	in.read_samples = 100;
	in.retention_p99_s = 5;
	in.retention_p50_s = 2;
	ASSERT_EQ(mt_mrm_classify(&r, &in).label, MT_MRM_MEDIUM);
	/* thresholds of 0 hold without any evidence */
	{
		const struct mt_mrm_rule zero = { 0, 0, 0, 0 };
		struct mt_mrm_input none = { .write_once = NAN,
					     .retention_p99_s = NAN,
					     .retention_p50_s = NAN,
					     .lifetime_p99_s = NAN,
					     .lifetime_p50_s = NAN };

		ASSERT_EQ(mt_mrm_classify(&zero, &none).label, MT_MRM_HIGH);
	}
}

/* A censored retention establishes a threshold but never excludes one (issue 37). */
TEST(mrm_censored)
{
	const struct mt_mrm_rule r = { 0.8, 10, 0.5, 1 };
	struct mt_mrm_input in = { .write_once = 1,
				   .retention_p99_s = 0.4,
				   .retention_p50_s = 0.4,
				   .retention_p99_censored = true,
				   .retention_p50_censored = true,
				   .read_samples = 300,
				   .lifetime_p99_s = NAN,
				   .lifetime_p50_s = NAN };
	struct mt_mrm_verdict v;
	char buf[64];

	/* alive at the end of a 0.4 s run: nothing decided, both thresholds open */
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_INSUFFICIENT);
	ASSERT_STREQ(mt_mrm_by_name(v.by, buf, sizeof(buf)), "censored");
	ASSERT_EQ(v.censored, MT_MRM_NEEDS_HIGH | MT_MRM_NEEDS_MEDIUM);
	/* 3 s so far: medium at least, high still open */
	in.retention_p99_s = in.retention_p50_s = 3;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_INSUFFICIENT);
	ASSERT_EQ(v.censored, MT_MRM_NEEDS_HIGH);
	/* 12 s so far: a lower bound above the threshold establishes it */
	in.retention_p99_s = in.retention_p50_s = 12;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_HIGH);
	ASSERT_EQ(v.censored, 0);
	/* the same 0.4 s observed (freed): low, by retention */
	in.retention_p99_s = in.retention_p50_s = 0.4;
	in.retention_p99_censored = in.retention_p50_censored = false;
	in.lifetime_p99_s = in.lifetime_p50_s = 0.45;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_LOW);
	ASSERT_STREQ(mt_mrm_by_name(v.by, buf, sizeof(buf)), "lifetime");
	/* rewritten memory is low even when censored: write-once decides alone */
	in.write_once = 0.2;
	in.retention_p99_censored = in.retention_p50_censored = true;
	in.lifetime_p99_s = in.lifetime_p50_s = NAN;
	v = mt_mrm_classify(&r, &in);
	ASSERT_EQ(v.label, MT_MRM_LOW);
	ASSERT_STREQ(mt_mrm_by_name(v.by, buf, sizeof(buf)), "write_once");
}

/* Kaplan–Meier on a textbook set; pandas' interpolation without censoring. */
TEST(survival_quantiles)
{
	/* 1 2+ 3 4+ 5 6 (+: censored): S(1) = 5/6, S(3) = 5/6 * 3/4 = 0.625, S(5) = 0.625 * 1/2
	 * = 0.3125, S(6) = 0 */
	static const uint64_t t[] = { 6, 2, 5, 1, 4, 3 };
	static const bool c[] = { false, true, false, false, true, false };
	struct mt_surv s = { 0 };
	bool lower;

	for (int i = 0; i < 6; i++)
		ASSERT_EQ(mt_surv_add(&s, t[i], c[i]), 0);
	ASSERT_EQ(s.censored, 2);
	ASSERT_EQ(mt_surv_estimator(&s), MT_SURV_KAPLAN_MEIER);
	ASSERT_EQ(mt_surv_quantile(&s, 0.1, &lower), 1); /* F(1) = 1/6 >= 0.1 */
	ASSERT_TRUE(!lower);
	ASSERT_EQ(mt_surv_quantile(&s, 0.3, &lower), 3); /* F(3) = 0.375 */
	ASSERT_EQ(mt_surv_quantile(&s, 0.5, &lower), 5); /* F(5) = 0.6875 */
	ASSERT_EQ(mt_surv_quantile(&s, 0.99, &lower), 6);
	ASSERT_TRUE(!lower);
	mt_surv_release(&s);
	/* the largest censored: the estimate never reaches 0.9, a lower bound */
	for (int i = 0; i < 6; i++)
		ASSERT_EQ(mt_surv_add(&s, t[i] == 6 ? 7 : t[i], c[i] || t[i] == 6), 0);
	ASSERT_EQ(mt_surv_quantile(&s, 0.9, &lower), 7);
	ASSERT_TRUE(lower);
	mt_surv_release(&s);
	/* nothing censored: pandas' linear interpolation, as mrm-trace */
	for (uint64_t i = 1; i <= 4; i++)
		ASSERT_EQ(mt_surv_add(&s, i * 10, false), 0);
	ASSERT_TRUE(fabs(mt_surv_quantile(&s, 0.5, &lower) - 25) < 1e-9);
	ASSERT_EQ(mt_surv_estimator(&s), MT_SURV_OBSERVED);
	mt_surv_release(&s);
	ASSERT_TRUE(isnan(mt_surv_quantile(&s, 0.5, &lower)));
}

/* Typing by behaviour: each verdict from the counts alone (analysis/behaviour.c). */
TEST(behaviour_verdicts)
{
	struct mt_site_behaviour kv = { 0 }, act = { 0 }, w = { 0 }, none = { 0 };
	uint64_t at[64];

	/* a cache grown by copy: 4 layers x 16 steps, each block freed at the next step */
	for (int s = 0; s < 16; s++)
		for (int l = 0; l < 4; l++) {
			if (s)
				mt_beh_free(&kv, at[(s - 1) * 4 + l]);
			at[s * 4 + l] = mt_beh_alloc(&kv, 65536 + (uint64_t)s * 1024);
		}
	kv.big = 1;
	mt_beh_settle(&kv);
	ASSERT_EQ(kv.verdict, MT_BEH_KV_GROWN);
	ASSERT_STREQ(mt_beh_type(kv.verdict), "kv_cache");
	ASSERT_TRUE(kv.confidence > 0.9f && kv.confidence <= 1.0f);
	/* scratch: each freed before the next one, sizes growing too (attention scores) */
	for (int s = 0; s < 32; s++)
		mt_beh_free(&act, mt_beh_alloc(&act, 65536 + (uint64_t)s * 64));
	act.big = 1;
	mt_beh_settle(&act);
	ASSERT_EQ(act.verdict, MT_BEH_ACTIVATION);
	/* weights: lasting, read late, never written late, exactly written once */
	w = (struct mt_site_behaviour){ .allocs = 12,
					.big = 12,
					.lasting = 12,
					.read = 10,
					.read_late = 9,
					.read_late_expected = 10 * 0.75, /* 2 samples each */
					.wo_pages = 3000,
					.wo_once_pages = 3000 };
	mt_beh_settle(&w);
	ASSERT_EQ(w.verdict, MT_BEH_WEIGHT);
	/* 16 blocks read all along, sampled once each: the last sample of half of them lies
	 * in the first half of their lives, as chance puts it; they are read to the end all the
	 * same (a share of 7/16 against a bar of one half once failed them in CI) */
	w.read = 16;
	w.read_late = 7;
	w.read_late_expected = 16 * 0.5;
	mt_beh_settle(&w);
	ASSERT_EQ(w.verdict, MT_BEH_WEIGHT);
	/* read only early: none of them late */
	w.read_late = 0;
	mt_beh_settle(&w);
	ASSERT_EQ(w.verdict, MT_BEH_NONE);
	w.read = 10;
	w.read_late = 9;
	w.read_late_expected = 10 * 0.75;
	/* the same without an exact write-once basis: no verdict (samples cannot prove it) */
	w.wo_pages = w.wo_once_pages = 0;
	mt_beh_settle(&w);
	ASSERT_EQ(w.verdict, MT_BEH_NONE);
	/* written to the end, each page in a few epochs: a cache filled in place */
	w.written_late = 11;
	w.pages_written = 3000;
	w.page_epochs = 4500;
	mt_beh_settle(&w);
	ASSERT_EQ(w.verdict, MT_BEH_KV_IN_PLACE);
	/* written to the end, every page epoch after epoch: a compute buffer kept for the run */
	w.page_epochs = 3000 * 40;
	mt_beh_settle(&w);
	ASSERT_EQ(w.verdict, MT_BEH_SCRATCH);
	ASSERT_STREQ(mt_beh_type(w.verdict), "activation");
	/* no touched big block: nothing is typed */
	for (int s = 0; s < 32; s++)
		mt_beh_free(&none, mt_beh_alloc(&none, 100));
	mt_beh_settle(&none);
	ASSERT_EQ(none.verdict, MT_BEH_NONE);
}
