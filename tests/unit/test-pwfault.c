/* SPDX-License-Identifier: MIT */
/*
 * Which faults page-write tracking caused (format/pwfault.c), on event sequences whose answer
 * the kernel's behaviour fixes (measured on Linux 6.18: tests/e2e/faults-bare.sh checks the
 * same against perf stat on real programs).
 */
#include <memtap/trace-format.h>

#include "format/pwfault.h"
#include "mt-test.h"

MT_TEST_MAIN()

#define PID 100
#define LO 0x10000000ull
#define PAGE 4096ull

static uint64_t now = 1000;

static unsigned ev(struct mt_pwf *p, unsigned type, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t v[MT_MAX_FIELDS] = { 0 };

	v[MT_F_TIME] = now += 10;
	v[MT_F_PID] = v[MT_F_TID] = PID;
	v[3] = a;
	v[4] = b;
	v[5] = c;
	v[6] = d;
	return mt_pwf_event(p, type, v);
}

static unsigned fault(struct mt_pwf *p, uint64_t addr)
{
	return ev(p, MT_EV_FAULT, MT_FAULT_MINOR, 0x401000, addr, 0);
}

static void track(struct mt_pwf *p, uint64_t pages)
{
	ev(p, MT_EV_PW_RANGE, LO, pages * PAGE, MT_LABEL_WP_TRACKED, 0);
}

/* A recorder scan that found [addr, addr + n pages) written and protected it again. */
static void scan(struct mt_pwf *p, uint64_t addr, uint64_t n)
{
	ev(p, MT_EV_PAGE_WRITE, addr, n * PAGE, 0, 5);
}

/* A fresh block: first touches are the program's; after a scan, the next write is memtap's,
 * once; a page not written again keeps its protection pending across scans. */
TEST(fresh_block_rewritten)
{
	struct mt_pwf *p = mt_pwf_new();
	struct mt_pwf_stats st;

	track(p, 4);
	for (unsigned i = 0; i < 4; i++)
		ASSERT_EQ(fault(p, LO + i * PAGE + 8), 0);
	scan(p, LO, 4);
	ASSERT_EQ(fault(p, LO), MT_FAULT_TRACKING);
	ASSERT_EQ(fault(p, LO + PAGE), MT_FAULT_TRACKING);
	ASSERT_EQ(fault(p, LO), 0); /* written already: a second fault is the program's */
	scan(p, LO, 2); /* pages 2 and 3 not written: still protected */
	ASSERT_EQ(fault(p, LO + 3 * PAGE), MT_FAULT_TRACKING);
	ASSERT_EQ(fault(p, LO + 5 * PAGE), 0); /* outside the range */
	mt_pwf_stats(p, &st);
	ASSERT_EQ_U(st.tracking, 3);
	mt_pwf_free(p);
}

/* A page not present when a scan reports it: its first touch came inside the walk, before
 * the protection; it is the program's, and the next write memtap's. */
TEST(first_touch_inside_the_walk)
{
	struct mt_pwf *p = mt_pwf_new();

	track(p, 1);
	scan(p, LO, 1);
	ASSERT_EQ(fault(p, LO) & MT_FAULT_TRACKING, 0);
	ASSERT_EQ(fault(p, LO) & MT_FAULT_TRACKING, MT_FAULT_TRACKING);
	mt_pwf_free(p);
}

/* Recycled memory: its present pages armed at the registration; a major fault (swap-in) never
 * consumes the protection. */
TEST(armed_at_registration)
{
	struct mt_pwf *p = mt_pwf_new();

	track(p, 2);
	ev(p, MT_EV_PAGE_TRACK, LO, PAGE, MT_PT_ARMED, 0);
	ASSERT_EQ(ev(p, MT_EV_FAULT, MT_FAULT_MAJOR, 0x401000, LO, 0), 0);
	ASSERT_EQ(fault(p, LO), MT_FAULT_TRACKING);
	ASSERT_EQ(fault(p, LO + PAGE), 0); /* not present then: its own first touch */
	mt_pwf_free(p);
}

/* A discard: the pages come back by the program's own faults; a fork: the parent's next
 * writes are copy-on-write faults, as bare; the range's end forgets it. */
TEST(discard_fork_release)
{
	struct mt_pwf *p = mt_pwf_new();
	uint64_t v[MT_MAX_FIELDS] = { 0 };

	track(p, 2);
	fault(p, LO);
	fault(p, LO + PAGE);
	scan(p, LO, 2);
	ev(p, MT_EV_PAGE_TRACK, LO, PAGE, MT_PT_ZAPPED, 0);
	ASSERT_EQ(fault(p, LO), 0);
	v[MT_F_TIME] = now += 10;
	v[MT_F_PID] = v[MT_F_TID] = 200;
	v[MT_F_NEW_PPID] = PID;
	v[MT_F_NEW_KIND] = MT_TASK_PROCESS;
	mt_pwf_event(p, MT_EV_TASK_NEW, v);
	ASSERT_EQ(fault(p, LO + PAGE), 0); /* copy-on-write: the program's */
	scan(p, LO, 2);
	ev(p, MT_EV_PAGE_TRACK, LO, 2 * PAGE, MT_PT_RELEASED, 0);
	ASSERT_EQ(fault(p, LO), 0); /* memory handed out again: not tracked */
	mt_pwf_free(p);
}

/* A settled run (written in a second epoch, left unprotected by the scan: settling): nothing
 * is pending on it, also when its fault was never seen; a page of the same scan that was
 * protected again keeps its one fault; a discard and a new scan start the page over. */
TEST(settled_pages_take_no_tracking_fault)
{
	struct mt_pwf *p = mt_pwf_new();
	uint64_t v[MT_MAX_FIELDS] = { 0 };
	struct mt_pwf_stats st;

	track(p, 3);
	for (unsigned i = 0; i < 3; i++)
		fault(p, LO + i * PAGE);
	scan(p, LO, 3);
	ASSERT_EQ(fault(p, LO), MT_FAULT_TRACKING);
	v[MT_F_TIME] = now += 10;
	v[MT_F_PID] = v[MT_F_TID] = PID;
	v[MT_F_PW_ADDR] = LO;
	v[MT_F_PW_LEN] = 2 * PAGE; /* page 1's protection pending: its fault unseen */
	v[MT_F_PW_SINCE] = 0;
	v[MT_F_PW_SCAN_NS] = 5;
	v[MT_F_PW_SETTLED] = 1;
	mt_pwf_event(p, MT_EV_PAGE_WRITE, v);
	ASSERT_EQ(fault(p, LO), 0);
	ASSERT_EQ(fault(p, LO + PAGE), 0);
	ASSERT_EQ(fault(p, LO + 2 * PAGE), MT_FAULT_TRACKING); /* not settled: protected */
	ev(p, MT_EV_PAGE_TRACK, LO, PAGE, MT_PT_ZAPPED, 0);
	ASSERT_EQ(fault(p, LO), 0); /* back by the program's own fault */
	scan(p, LO, 1);
	ASSERT_EQ(fault(p, LO), MT_FAULT_TRACKING); /* tracked afresh */
	mt_pwf_stats(p, &st);
	ASSERT_EQ_U(st.tracking, 3);
	mt_pwf_free(p);
}

/* A protection still pending when a scan reports the page again: its fault came inside the
 * walk, so two faults are memtap's; inside the walk, the fault is marked uncertain. */
TEST(pending_protection_and_the_walk)
{
	struct mt_pwf *p = mt_pwf_new();
	uint64_t v[MT_MAX_FIELDS] = { 0 };

	track(p, 1);
	fault(p, LO);
	scan(p, LO, 1);
	scan(p, LO, 1); /* written in between; its fault not yet seen */
	v[MT_F_TIME] = now + 2; /* inside the last walk: [now, now + 5] */
	v[MT_F_PID] = v[MT_F_TID] = PID;
	v[MT_F_FAULT_KIND] = MT_FAULT_MINOR;
	v[MT_F_FAULT_ADDR] = LO;
	ASSERT_EQ(mt_pwf_event(p, MT_EV_FAULT, v), MT_FAULT_TRACKING | MT_FAULT_TRACKING_UNCERTAIN);
	ASSERT_EQ(fault(p, LO), MT_FAULT_TRACKING); /* after the walk */
	ASSERT_EQ(fault(p, LO), 0);
	mt_pwf_free(p);
}

/* Bad input costs nothing: a range beyond user space or too large is refused, an unmap of
 * part of a range keeps the rest, an exec forgets the process. */
TEST(bounds_and_lifecycle)
{
	struct mt_pwf *p = mt_pwf_new();
	struct mt_pwf_stats st;

	ev(p, MT_EV_PW_RANGE, 1ull << 47, PAGE, MT_LABEL_WP_TRACKED, 0);
	ev(p, MT_EV_PW_RANGE, LO, MT_PWF_MAX_RANGE + PAGE, MT_LABEL_WP_TRACKED, 0);
	mt_pwf_stats(p, &st);
	ASSERT_EQ_U(st.refused, 2);
	track(p, 3);
	fault(p, LO);
	fault(p, LO + 2 * PAGE);
	scan(p, LO, 3);
	ev(p, MT_EV_MUNMAP, LO + PAGE, PAGE, 0, 0); /* the middle page goes */
	ASSERT_EQ(fault(p, LO + PAGE), 0);
	ASSERT_EQ(fault(p, LO + 2 * PAGE), MT_FAULT_TRACKING);
	ev(p, MT_EV_TASK_EXEC, 0, 0, 0, 0);
	ASSERT_EQ(fault(p, LO), 0);
	mt_pwf_free(p);
}
