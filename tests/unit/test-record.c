/* SPDX-License-Identifier: MIT */
/* Unit tests of src/record that need no perf events: /proc parsing, build-ids, probe control,
 * the live figures' joins, page-write epochs. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "format/block.h"
#include "format/chunk.h"
#include "format/rt-proto.h"
#include "format/writer.h"
#include "record/alloc-reorder.h"
#include "record/buildid.h"
#include "record/live-internal.h"
#include "record/live.h"
#include "record/pagewrites.h"
#include "record/pwset.h"
#include "record/probe.h"
#include "record/procfs.h"
#include "record/session.h"
#include "mt-test-trace.h"
#include "mt-test.h"

MT_TEST_MAIN()

TEST(maps_line_file)
{
	char line[] = "7f0e1c021000-7f0e1c1b6000 r-xp 00028000 fe:01 1318447                    "
		      "/usr/lib/x86_64-linux-gnu/libc.so.6\n";
	struct mt_maps_entry e;

	ASSERT_EQ(mt_maps_parse_line(line, &e), 0);
	ASSERT_EQ_U(e.start, 0x7f0e1c021000);
	ASSERT_EQ_U(e.end, 0x7f0e1c1b6000);
	ASSERT_EQ_U(e.pgoff, 0x28000);
	ASSERT_EQ(e.prot, PROT_READ | PROT_EXEC);
	ASSERT_TRUE(!e.shared);
	ASSERT_EQ(e.maj, 0xfe);
	ASSERT_EQ(e.min, 1);
	ASSERT_EQ_U(e.ino, 1318447);
	ASSERT_STREQ(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(maps_line_special)
{
	char anon[] =
		"7ffd5e4e2000-7ffd5e503000 rw-p 00000000 00:00 0                          [stack]";
	char bare[] = "55e6a2f13000-55e6a2f34000 rw-s 00000000 00:00 0";
	char spaces[] = "00400000-00401000 r--p 00000000 08:01 42 /tmp/my file (deleted)";
	struct mt_maps_entry e;

	ASSERT_EQ(mt_maps_parse_line(anon, &e), 0);
	ASSERT_STREQ(e.path, "[stack]");
	ASSERT_EQ(e.prot, PROT_READ | PROT_WRITE);
	ASSERT_EQ(mt_maps_parse_line(bare, &e), 0);
	ASSERT_STREQ(e.path, "");
	ASSERT_TRUE(e.shared);
	ASSERT_EQ(mt_maps_parse_line(spaces, &e), 0);
	ASSERT_STREQ(e.path, "/tmp/my file (deleted)");
	ASSERT_EQ_U(e.ino, 42);
}

TEST(maps_line_rejects_garbage)
{
	static const char *const bad[] = {
		"",
		"x",
		"1000-",
		"1000-2000",
		"1000-2000 rwxp",
		"2000-1000 r--p 0 00:00 0",
		"1000-2000 r--p zz 00:00 0",
		"1000-2000 r--p 0 00 0",
		"1000-2000 r-- 0 00:00 0",
		"1000-2000 r--p 0 00:00 x",
		"-1000-2000 r--p 0 00:00 0",
		"1000-2000 r--p 0 fffffffffffff:00 0",
	};
	struct mt_maps_entry e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%s", bad[i]);
		if (mt_maps_parse_line(buf, &e) == 0)
			MT_FAIL("accepted '%s'", bad[i]);
	}
}

static int count_maps(void *ctx, const struct mt_maps_entry *e)
{
	(void)e;
	(*(int *)ctx)++;
	return 0;
}

TEST(procfs_self)
{
	pid_t tgid = 0, ppid = 0;
	char comm[64], exe[4096];
	int n = 0;

	ASSERT_EQ(mt_procfs_status(getpid(), &tgid, &ppid), 0);
	ASSERT_EQ(tgid, getpid());
	ASSERT_EQ(ppid, getppid());
	ASSERT_EQ(mt_procfs_comm(getpid(), comm, sizeof(comm)), 0);
	ASSERT_STREQ(comm, "test-record");
	ASSERT_EQ(mt_procfs_exe(getpid(), exe, sizeof(exe)), 0);
	ASSERT_TRUE(strstr(exe, "test-record") != NULL);
	ASSERT_EQ(mt_procfs_maps(getpid(), count_maps, &n), 0);
	ASSERT_TRUE(n > 5);
	ASSERT_TRUE(mt_procfs_status(999999999, &tgid, &ppid) < 0);
}

TEST(buildid_of_self)
{
	char a[64] = "", b[64] = "";

	if (mt_buildid_of_file("/proc/self/exe", NULL, a, sizeof(a)) == -ENOENT) {
		printf("# skipped: this binary was linked without a build-id\n");
		return;
	}
	ASSERT_EQ(strlen(a), 40);
	ASSERT_TRUE(strspn(a, "0123456789abcdef") == 40);
	/* The cached answer is the same. */
	ASSERT_EQ(mt_buildid_of_file("/proc/self/exe", NULL, b, sizeof(b)), 0);
	ASSERT_STREQ(a, b);
	ASSERT_EQ(mt_buildid_of_file("/etc/hostname", NULL, b, sizeof(b)), -ENOENT);
	ASSERT_EQ(mt_buildid_of_file("/nonexistent", NULL, b, sizeof(b)), -ENOENT);
	mt_buildid_cache_clear();
}

TEST(probe_can_be_disabled)
{
	const struct mt_probe_result *p;

	/* Probes cache per process, so set the variable before the first probe. */
	setenv("MEMTAP_DISABLE_FEAT", "ptrace,perf", 1);
	p = mt_probe(MT_FEAT_PTRACE);
	ASSERT_TRUE(!p->available);
	ASSERT_STREQ(p->detail, "disabled by MEMTAP_DISABLE_FEAT");
	/* Dependents report the dependency's reason. */
	p = mt_probe(MT_FEAT_MMAP2);
	ASSERT_TRUE(!p->available);
	ASSERT_TRUE(strstr(p->detail, "needs perf") != NULL);
	ASSERT_TRUE(mt_feat_disabled(MT_FEAT_PERF));
	ASSERT_TRUE(!mt_feat_disabled(MT_FEAT_BPF));
	/* Cached: a later change of the environment does not flip a result. */
	unsetenv("MEMTAP_DISABLE_FEAT");
	ASSERT_TRUE(!mt_feat_ok(MT_FEAT_PTRACE));
	for (int f = 0; f < _MT_FEAT_MAX; f++) {
		ASSERT_TRUE(mt_feat_id((enum mt_feat)f)[0] != '?');
		ASSERT_TRUE(mt_probe((enum mt_feat)f)->detail[0] != 0);
	}
}

/* One ALLOC row into b. */
static void alloc_row(struct mt_block *b, unsigned kind, uint64_t addr, uint64_t size,
		      uint64_t usable, uint64_t old, uint64_t stack)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_PID] = 42;
	row[MT_F_ALLOC_KIND] = kind;
	row[MT_F_ALLOC_ADDR] = addr;
	row[MT_F_ALLOC_SIZE] = size;
	row[MT_F_ALLOC_USABLE] = usable;
	row[MT_F_ALLOC_OLD] = old;
	row[MT_F_ALLOC_STACK] = stack;
	ASSERT_EQ(mt_block_add(b, row), 0);
}

/* memtap top's heap in use joins each free and realloc to its block: known answers for a
 * sequence with a realloc that moves, one in place, a free of a block never seen (allocated
 * before the runtime came in), realloc(p, 0), and an exec (a new stream starts afresh). */
TEST(live_heap_joins_frees_to_blocks)
{
	struct mt_session s = { 0 };
	struct mt_live *l = calloc(1, sizeof(*l));
	struct mt_block b;
	struct live_heap *h;

	ASSERT_TRUE(l != NULL);
	mt_map64_init(&l->ix);
	s.livefig = l;
	ASSERT_EQ(mt_block_init(&b, MT_EV_ALLOC, 64), 0);
	alloc_row(&b, MT_ALLOC_MALLOC, 0x1000, 100, 112, 0, 1);
	alloc_row(&b, MT_ALLOC_MALLOC, 0x2000, 4096, 4104, 0, 2);
	alloc_row(&b, MT_ALLOC_REALLOC, 0x3000, 200, 208, 0x1000, 1); /* moves */
	alloc_row(&b, MT_ALLOC_REALLOC, 0x3000, 150, 208, 0x3000, 1); /* in place */
	alloc_row(&b, MT_ALLOC_FREE, 0x9000, 0, 0, 0, 0); /* never seen: ignored */
	mt_live_allocs(&s, 42, 7, &b, 0);
	h = mt_live_proc(l, 42)->heap;
	ASSERT_TRUE(h != NULL);
	ASSERT_EQ_U(h->live, 4104 + 208);
	ASSERT_EQ_U(h->nlive, 2);
	ASSERT_EQ_U(h->calls, 4);
	ASSERT_EQ_U(h->bytes, 100 + 4096 + 200 + 150);
	ASSERT_EQ_U(h->nsites, 2);
	ASSERT_EQ_U(h->sites[0].live, 208); /* stack 1: the moved and resized block */
	ASSERT_EQ_U(h->sites[0].calls, 3);
	ASSERT_EQ_U(h->sites[1].live, 4104);
	/* rows from 5 on only: the first five were seen */
	alloc_row(&b, MT_ALLOC_FREE, 0x2000, 0, 0, 0, 0);
	alloc_row(&b, MT_ALLOC_REALLOC, 0, 0, 0, 0x3000, 1); /* realloc(p, 0) frees p */
	mt_live_allocs(&s, 42, 7, &b, 5);
	ASSERT_EQ_U(h->live, 0);
	ASSERT_EQ_U(h->nlive, 0);
	ASSERT_EQ_U(h->sites[1].live, 0);
	ASSERT_EQ_U(l->blocks, 0);
	/* an exec: the new image's stream starts from nothing */
	b.count = 0;
	alloc_row(&b, MT_ALLOC_MALLOC, 0x1000, 10, 24, 0, 1);
	mt_live_allocs(&s, 42, 8, &b, 0);
	h = mt_live_proc(l, 42)->heap;
	ASSERT_EQ_U(h->calls, 1);
	ASSERT_EQ_U(h->live, 24);
	ASSERT_EQ_U(l->sites, 1);
	mt_live_heap_free(l, h);
	ASSERT_EQ_U(l->blocks, 0);
	ASSERT_EQ_U(l->sites, 0);
	mt_map64_release(&l->ix);
	free(l->v);
	free(l);
	mt_block_release(&b);
}

/* Closes the pagewrites collector, finishes the trace written to fd and reads back its
 * page_write events, up to max, into got (their fields); returns how many. */
static size_t page_writes_back(struct mt_session *s, int fd, struct mt_event *got, size_t max)
{
	struct mt_reader *r;
	struct mt_cursor *c;
	struct mt_event ev;
	struct mt_kv kv;
	size_t n, k = 0;
	uint8_t *bytes;
	int rfd;

	mt_kv_init(&kv);
	mt_pagewrites_close(s, &kv);
	mt_kv_release(&kv);
	if (mt_writer_finish(s->w, NULL) < 0)
		return 0;
	mt_writer_free(s->w);
	bytes = slurp(fd, &n);
	close(fd);
	rfd = open_bytes(bytes, n, &r);
	if (rfd < 0 || mt_cursor_new(r, NULL, &c) < 0)
		return 0;
	while (mt_cursor_next(c, &ev) == 1)
		if (ev.type == MT_EV_PAGE_WRITE && k < max)
			got[k++] = ev;
	mt_cursor_free(c);
	mt_reader_free(r);
	close(rfd);
	free(bytes);
	return k;
}

/*
 * The runtime scans a tracked block itself at its free and sends the runs by datagram; the
 * recorder may read it only after its own next scans of the process. The runs belong to
 * the epoch that was open at the runtime's scan, at its time (before the free), not to the
 * recorder's later epoch: a CI run saw a block's rewrite land after its free (write-once
 * 1.0 instead of 0.0). Known answer: two recorder scans after the runtime's scan.
 */
TEST(pagewrites_late_release_scan_keeps_its_epoch)
{
	struct mt_record_opts o = { .page_writes_ns = 1 }; /* every drain scans */
	struct mt_session s = { .o = &o };
	uint64_t t0, t_rt, t_late, runs[3] = { 0x10000, 0x12000, 2 }, got[2][2] = { { 0 } };
	struct mt_rt_pwruns h = { .type = MT_RT_MSG_PWRUNS,
				  .n = 1,
				  .kind = MT_RT_PW_WRITTEN,
				  .lo = 0x10000,
				  .hi = 0x12000 };
	const char *why;
	struct mt_event ev[4];
	int fd = memfd(NULL, 0);

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(mt_writer_open_fd(fd, NULL, &s.w), 0);
	if (mt_pagewrites_open(&s, &why) < 0 || !s.pagewrites) {
		printf("  skipped: %s\n", why ? why : "page-write tracking is off");
		mt_writer_free(s.w);
		close(fd);
		return;
	}
	t0 = mt_now_ns();
	mt_pagewrites_track(&s, getpid(), t0);
	t_rt = mt_now_ns(); /* the runtime's scan at a free */
	usleep(1000);
	mt_pagewrites_drain(&s); /* the recorder's scans, before it reads the datagram */
	usleep(1000);
	mt_pagewrites_drain(&s);
	h.time_ns = t_rt;
	mt_pagewrites_msg(&s, getpid(), &h, runs);
	h.time_ns = t_late = mt_now_ns(); /* a release scan after the recorder's scans */
	mt_pagewrites_msg(&s, getpid(), &h, runs);
	ASSERT_TRUE(page_writes_back(&s, fd, ev, 4) >= 2);
	for (int k = 0; k < 2; k++) {
		got[k][0] = ev[k].v[MT_F_TIME];
		got[k][1] = ev[k].v[MT_F_PW_SINCE];
	}
	ASSERT_EQ_U(got[0][0], t_rt); /* at its own time, before the recorder's scans */
	ASSERT_EQ_U(got[0][1], t0); /* in the epoch from the start of tracking */
	ASSERT_EQ_U(got[1][0], t_late);
	ASSERT_TRUE(got[1][1] > t_rt + 1000000 && got[1][1] < t_late); /* the second scan's start */
}

struct reorder_seen {
	uint64_t t[64];
	size_t n;
};

static void reorder_take(void *ctx, const struct mt_block *b, uint32_t i)
{
	struct reorder_seen *s = ctx;

	if (s->n < 64)
		s->t[s->n++] = b->col[MT_F_TIME][i];
}

/* The fold's reorder stage: rows of blocks handed over out of order come out merged in time
 * order up to the time released; a row behind what was released already is counted late. */
TEST(reorder_merges_blocks_in_time_order)
{
	static const uint64_t a[] = { 50, 10, 30, 70 }, b[] = { 20, 60, 40 }, late[] = { 25, 90 };
	struct mt_reorder r = { 0 };
	struct reorder_seen seen = { 0 };
	struct mt_block blk;
	uint64_t row[_MT_F_ALLOC_MAX] = { 0 };

	ASSERT_EQ(mt_block_init(&blk, MT_EV_ALLOC, 8), 0);
	for (size_t i = 0; i < 4; i++) {
		row[MT_F_TIME] = a[i];
		mt_block_add(&blk, row);
	}
	ASSERT_EQ(mt_reorder_add(&r, &blk), 0);
	blk.count = 0;
	for (size_t i = 0; i < 3; i++) {
		row[MT_F_TIME] = b[i];
		mt_block_add(&blk, row);
	}
	ASSERT_EQ(mt_reorder_add(&r, &blk), 0);
	ASSERT_EQ_U(r.held, 7);
	ASSERT_EQ_U(r.newest, 70);
	mt_reorder_release(&r, 45, reorder_take, &seen);
	ASSERT_EQ_U(seen.n, 4);
	ASSERT_EQ_U(seen.t[0], 10);
	ASSERT_EQ_U(seen.t[1], 20);
	ASSERT_EQ_U(seen.t[2], 30);
	ASSERT_EQ_U(seen.t[3], 40);
	ASSERT_EQ_U(r.held, 3);
	blk.count = 0;
	for (size_t i = 0; i < 2; i++) {
		row[MT_F_TIME] = late[i];
		mt_block_add(&blk, row);
	}
	ASSERT_EQ(mt_reorder_add(&r, &blk), 0);
	ASSERT_EQ_U(r.late, 1); /* 25: behind the 40 released */
	mt_reorder_release(&r, UINT64_MAX, reorder_take, &seen);
	ASSERT_EQ_U(seen.n, 9);
	ASSERT_EQ_U(seen.t[4], 25); /* out of order, first of what is left */
	ASSERT_EQ_U(seen.t[5], 50);
	ASSERT_EQ_U(seen.t[6], 60);
	ASSERT_EQ_U(seen.t[7], 70);
	ASSERT_EQ_U(seen.t[8], 90);
	ASSERT_EQ_U(r.held, 0);
	mt_reorder_free(&r);
	mt_block_release(&blk);
}

/* Sets of page runs (record/pwset.c): union, intersection and difference by one sweep, runs
 * that touch coalesced, empty runs ignored, the bound on runs kept. */
TEST(pwset_combines_runs)
{
	static const struct mt_pwrun a[] = { { 0, 10 }, { 10, 20 }, { 30, 40 }, { 50, 50 } },
				     b[] = { { 5, 35 }, { 60, 70 } };
	struct mt_pwset o = { 0 }, s = { 0 }, tmp = { 0 };

	ASSERT_EQ(mt_pwset_combine(a, 4, b, 2, MT_PWSET_OR, 16, &o), 0);
	ASSERT_EQ_U(o.n, 2);
	ASSERT_EQ_U(o.v[0].lo, 0);
	ASSERT_EQ_U(o.v[0].hi, 40);
	ASSERT_EQ_U(o.v[1].lo, 60);
	ASSERT_EQ(mt_pwset_combine(a, 4, b, 2, MT_PWSET_AND, 16, &o), 0);
	ASSERT_EQ_U(o.n, 2); /* [5, 20) (two runs that touch, one) and [30, 35) */
	ASSERT_EQ_U(o.v[0].lo, 5);
	ASSERT_EQ_U(o.v[0].hi, 20);
	ASSERT_EQ_U(o.v[1].lo, 30);
	ASSERT_EQ_U(o.v[1].hi, 35);
	ASSERT_EQ(mt_pwset_combine(a, 4, b, 2, MT_PWSET_MINUS, 16, &o), 0);
	ASSERT_EQ_U(o.n, 2);
	ASSERT_EQ_U(o.v[0].hi, 5);
	ASSERT_EQ_U(o.v[1].lo, 35);
	ASSERT_EQ_U(o.v[1].hi, 40);
	ASSERT_EQ_U(mt_pwset_bytes(o.v, o.n), 10);
	/* o: [0, 5), [35, 40) */
	ASSERT_TRUE(mt_pwset_overlaps(&o, 4, 6) && mt_pwset_overlaps(&o, 39, 100));
	ASSERT_TRUE(!mt_pwset_overlaps(&o, 5, 35) && !mt_pwset_overlaps(&o, 40, 90) &&
		    !mt_pwset_overlaps(&o, 2, 2));
	ASSERT_EQ(mt_pwset_combine(b, 2, a, 4, MT_PWSET_MINUS, 1, &o), -ENOSPC);
	/* apply: in place through the scratch set; unchanged when it would not fit */
	ASSERT_EQ(mt_pwset_apply(&s, a, 4, MT_PWSET_OR, 16, &tmp), 0);
	ASSERT_EQ_U(s.n, 2);
	ASSERT_EQ(mt_pwset_apply(&s, b + 1, 1, MT_PWSET_OR, 2, &tmp), -ENOSPC);
	ASSERT_EQ_U(s.n, 2);
	ASSERT_EQ_U(s.v[1].hi, 40);
	mt_pwset_free(&o);
	mt_pwset_free(&s);
	mt_pwset_free(&tmp);
}

#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

/* This process's pages [p, p + len) under write-protect async tracking, as the runtime
 * registers a range: the descriptor, or -1. */
static int wp_register(void *p, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC };
	struct uffdio_register reg = { .range = { (uintptr_t)p, len },
				       .mode = UFFDIO_REGISTER_MODE_WP };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1 /* user mode only */);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api) < 0 || ioctl(fd, UFFDIO_REGISTER, &reg) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

static void write_pages(volatile char *p, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++)
		p[i * 4096] += 1;
}

/*
 * Settling on real memory (pagewrites.c): 8 pages of this process under tracking. Found
 * written by the first scan, pages 0-3 written again in the next epoch settle (a settled
 * page_write event) and stay unprotected: written a third time they take no fault, where
 * page 4, written once since, takes one. With --page-writes=full every written page is
 * protected again: the third writes fault, and no event is settled.
 */
static void settle_case(bool full, long *third_faults, uint64_t *settled_pages)
{
	struct mt_record_opts o = { .page_writes_ns = 1, .page_writes_full = full };
	struct mt_session s = { .o = &o };
	const char *why;
	struct mt_event ev[64];
	struct mt_kv kv;
	size_t n;
	int fd = memfd(NULL, 0), uffd;
	char *p = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long f0;

	*third_faults = -1;
	*settled_pages = 0;
	ASSERT_TRUE(fd >= 0 && p != MAP_FAILED);
	madvise(p, 8 * 4096, MADV_NOHUGEPAGE);
	write_pages(p, 0, 8); /* present before the registration: "written" to the kernel */
	ASSERT_EQ(mt_writer_open_fd(fd, NULL, &s.w), 0);
	if (mt_pagewrites_open(&s, &why) < 0 || !s.pagewrites ||
	    (uffd = wp_register(p, 8 * 4096)) < 0) {
		printf("  skipped: %s\n", why ? why : "no userfaultfd write-protect here");
		mt_kv_init(&kv);
		mt_pagewrites_close(&s, &kv);
		mt_kv_release(&kv);
		mt_writer_free(s.w);
		close(fd);
		munmap(p, 8 * 4096);
		return;
	}
	mt_pagewrites_track(&s, getpid(), mt_now_ns());
	mt_pagewrites_drain(&s); /* epoch 1: all 8 seen, protected */
	usleep(1000);
	write_pages(p, 0, 4);
	mt_pagewrites_drain(&s); /* epoch 2: 0-3 written again */
	usleep(1000);
	f0 = minflt();
	write_pages(p, 0, 5);
	*third_faults = minflt() - f0;
	mt_pagewrites_drain(&s);
	n = page_writes_back(&s, fd, ev, 64);
	close(uffd);
	munmap(p, 8 * 4096);
	for (size_t i = 0; i < n; i++)
		if (ev[i].v[MT_F_PW_SETTLED])
			*settled_pages += ev[i].v[MT_F_PW_LEN] / 4096;
}

TEST(pagewrites_settle_leaves_rewritten_pages_unprotected)
{
	long faults;
	uint64_t settled;

	settle_case(false, &faults, &settled);
	if (faults < 0)
		return;
	ASSERT_EQ(faults, 1); /* page 4 only: 0-3 settled */
	ASSERT_EQ_U(settled, 4 + 1); /* 0-3 at epoch 2, page 4 at the last scan */
	settle_case(true, &faults, &settled);
	ASSERT_EQ(faults, 5); /* every page protected again */
	ASSERT_EQ_U(settled, 0);
}
