/* SPDX-License-Identifier: MIT */
/* The pagewrites collector: exact, epoch-resolution page-write tracking of labelled ranges. */
#include "record/pagewrites.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/hash.h"
#include "format/chunk.h"
#include "format/rt-proto.h"
#include "format/writer.h"
#include "record/pwset.h"
#include "record/session.h"

/*
 * The preload runtime registers every range the workload labels, and every block and writable
 * mapping of --page-writes-min or more, with a userfaultfd in write-protect async mode, and
 * protects the range's present pages. A write to such a page is then resolved by the kernel
 * on the spot and marks the page written. Once per epoch this collector asks the kernel,
 * through PAGEMAP_SCAN on /proc/PID/pagemap, for the written pages of each tracked process,
 * and protects them again in the same walk (PM_SCAN_WP_MATCHING): every run of written pages
 * becomes one page_write event covering (since, now]. Memory that is not registered is
 * skipped by the kernel. The cost to the workload is one minor fault per protected page at
 * its next write (the reader tells those faults apart: format/pwfault.h); the kernel does the
 * rest. Neither walk protects a page that is not present, the zero page or a transparent huge
 * page (rt-wp.c, arm_args): the workload's own faults and page sizes stay what they are bare.
 * Huge pages in tracked ranges are said once per epoch in which they change (page_track huge).
 *
 * Settling (the default; --page-writes=full turns it off): a page found written by two scans
 * is known rewritten, and protecting it again would only cost the workload a fault per epoch
 * for nothing a write-once figure needs. Each process keeps the pages written in one epoch so
 * far (seen) and those settled. A scan first reads, without protecting, which seen pages were
 * written again (a second walk: they settle, and their page_write event says so), then walks
 * everything but the settled pages as above. Settled pages stay unprotected until their range
 * goes, is discarded or is registered again; their later writes are not seen.
 */

/* The kernel's ABI (include/uapi/linux/fs.h, Linux 6.7); Debian 12's headers predate it. */
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
struct page_region {
	uint64_t start, end, categories;
};
#define PAGEMAP_SCAN_ _IOWR('f', 16, struct pm_scan_arg)
#define PM_SCAN_WP_MATCHING_ 1ull
#define PAGE_IS_WPALLOWED_ (1ull << 0)
#define PAGE_IS_WRITTEN_ (1ull << 1)
#define PAGE_IS_PRESENT_ (1ull << 3)
#define PAGE_IS_SWAPPED_ (1ull << 4)
#define PAGE_IS_PFNZERO_ (1ull << 5)
#define PAGE_IS_HUGE_ (1ull << 6)

#define USER_END 0x7ffffffff000ull /* x86-64 TASK_SIZE with 4-level paging */
#define NVEC 512
/* Runs each of a process's seen and settled sets may hold: each settled run is one more
 * ioctl per protecting walk; seen runs closer than PW_HULL_GAP share one peeking ioctl. Pages
 * that do not fit are not settled (protected again each epoch, as in full). */
#define PW_SET_MAX 8192
#define PW_HULL_GAP (1ull << 20)

/* The ends of the last PW_ROUNDS scans of a process are kept: the runtime's own scans (of a
 * block at its free) reach the recorder by datagram, sometimes after a later scan. */
#define PW_ROUNDS 16

struct round {
	uint64_t start, end; /* the scan's first ioctl began, its last returned */
};

struct proc {
	pid_t pid;
	int fd; /* /proc/PID/pagemap */
	uint64_t start; /* when tracking began */
	struct round rounds[PW_ROUNDS]; /* a ring of scans; rounds[nrounds % PW_ROUNDS] next */
	uint64_t nrounds;
	uint64_t huge_hash; /* of the huge runs the last scan found (0: none) */
	struct mt_pwset seen, settled; /* written in one epoch so far; in two: unprotected */
};

struct mt_pagewrites_state {
	uint64_t period_ns, last_round;
	struct proc *procs;
	size_t nprocs, cap;
	uint64_t scans, runs, pages, scan_ns, tracked_ranges, failed_ranges, scan_errors;
	uint64_t final_scans, forgotten, final_runs, final_late;
	uint64_t armed_pages, huge_events, zapped, released, untracked_huge, bad_msgs;
	uint64_t settled_pages, settled_runs, unsettled_pages, sets_full;
	int last_failure, last_scan_error;
	bool settle; /* not --page-writes=full */
	struct mt_pwset again, found, tmp; /* one scan's scratch */
	struct page_region vec[NVEC];
};

enum walk { WALK_PROTECT, WALK_PEEK, WALK_HUGE };

/* One ioctl: huge: the huge pages of registered memory (reported, never protected); else the
 * written pages (the categories of rt-wp.c's arm_args), protected again unless peek. */
static int scan_fd(int fd, uint64_t start, uint64_t end, struct page_region *vec, size_t n,
		   uint64_t *walk_end, enum walk how)
{
	bool huge = how == WALK_HUGE;
	struct pm_scan_arg a = {
		.size = sizeof(a),
		.flags = how == WALK_PROTECT ? PM_SCAN_WP_MATCHING_ : 0,
		.start = start,
		.end = end,
		.vec = (uint64_t)(uintptr_t)vec,
		.vec_len = n,
		.category_inverted = huge ? 0 : PAGE_IS_PFNZERO_ | PAGE_IS_HUGE_,
		.category_mask = PAGE_IS_WPALLOWED_ |
				 (huge ? PAGE_IS_HUGE_
				       : PAGE_IS_WRITTEN_ | PAGE_IS_PFNZERO_ | PAGE_IS_HUGE_),
		/* present or swapped: without markers the kernel calls a page not present
		 * "written" (it cannot be protected); such a page is never reported or protected */
		.category_anyof_mask = PAGE_IS_PRESENT_ | PAGE_IS_SWAPPED_,
		.return_mask = huge ? PAGE_IS_HUGE_ : PAGE_IS_WRITTEN_,
	};
	int r = ioctl(fd, PAGEMAP_SCAN_, &a);

	*walk_end = a.walk_end;
	return r < 0 ? -errno : r;
}

int mt_pagewrites_open(struct mt_session *s, const char **why)
{
	struct mt_pagewrites_state *p;
	struct page_region v[1];
	uint64_t we;
	int fd, r;

	*why = NULL;
	if (!s->o->page_writes_ns)
		return 0;
	/* The kernel must know PAGEMAP_SCAN (6.7+); an empty range over our own map tells. */
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "cannot open /proc/self/pagemap";
		return -errno;
	}
	r = scan_fd(fd, 0, 4096, v, 1, &we, WALK_PROTECT);
	close(fd);
	if (r < 0) {
		*why = r == -ENOTTY || r == -EINVAL
			       ? "the kernel has no PAGEMAP_SCAN ioctl (Linux 6.7 or later needed)"
			       : "PAGEMAP_SCAN failed on /proc/self/pagemap";
		return r;
	}
	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1 /* UFFD_USER_MODE_ONLY */);
	if (fd < 0) {
		r = -errno;
		*why = r == -ENOSYS ? "the kernel has no userfaultfd"
				    : "userfaultfd is not permitted (vm.unprivileged_userfaultfd)";
		return r;
	}
	close(fd);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->period_ns = s->o->page_writes_ns;
	p->settle = !s->o->page_writes_full;
	s->pagewrites = p;
	return 0;
}

static struct proc *find(struct mt_pagewrites_state *p, pid_t pid)
{
	for (size_t i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return &p->procs[i];
	return NULL;
}

void mt_pagewrites_track(struct mt_session *s, pid_t pid, uint64_t t)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	char path[64];
	int fd;

	if (!p)
		return;
	p->tracked_ranges++;
	if (find(p, pid))
		return;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p->scan_errors++;
		p->last_scan_error = errno;
		return;
	}
	if (mt_grow_array(&p->procs, &p->cap, p->nprocs + 1, sizeof(*p->procs)) < 0) {
		close(fd);
		return;
	}
	p->procs[p->nprocs++] = (struct proc){ .pid = pid, .fd = fd, .start = t };
}

void mt_pagewrites_failed(struct mt_session *s, int err)
{
	if (s->pagewrites) {
		s->pagewrites->failed_ranges++;
		s->pagewrites->last_failure = err;
	}
}

/* The start of the process's open epoch: its last scan's start (every page that scan
 * protected again, it protected after), or when tracking began. */
static uint64_t open_epoch(const struct proc *pr)
{
	return pr->nrounds ? pr->rounds[(pr->nrounds - 1) % PW_ROUNDS].start : pr->start;
}

static void track_event(struct mt_session *s, pid_t pid, uint64_t t, uint64_t lo, uint64_t hi,
			unsigned op)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = (uint64_t)pid;
	row[MT_F_PT_ADDR] = lo;
	row[MT_F_PT_LEN] = hi - lo;
	row[MT_F_PT_OP] = op;
	mt_writer_event(s->w, MT_EV_PAGE_TRACK, row);
}

/*
 * The huge pages of the process's registered memory, said as page_track huge events when
 * they differ from the last scan's: they are left unprotected (a protected one would be
 * split), so the analysis knows which tracked pages it has no write epochs for.
 */
static void scan_huge(struct mt_session *s, struct proc *pr)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t start = 0, we, h = 0, t = mt_now_ns();
	size_t total = 0;
	int n;

	for (;;) { /* first pass: what they are (a hash of the runs) */
		n = scan_fd(pr->fd, start, USER_END, p->vec, NVEC, &we, WALK_HUGE);
		if (n <= 0)
			break;
		h = mt_hash64(p->vec, (size_t)n * sizeof(p->vec[0]), h);
		total += (size_t)n;
		if (n < NVEC || we >= USER_END || we <= start)
			break;
		start = we;
	}
	if (h == pr->huge_hash || (!total && !pr->huge_hash))
		return;
	pr->huge_hash = total ? h : 0;
	start = 0;
	for (;;) { /* changed: said (again, whole) */
		n = scan_fd(pr->fd, start, USER_END, p->vec, NVEC, &we, WALK_HUGE);
		if (n <= 0)
			break;
		for (int i = 0; i < n; i++)
			track_event(s, pr->pid, t, p->vec[i].start, p->vec[i].end, MT_PT_HUGE);
		p->huge_events += (uint64_t)n;
		if (n < NVEC || we >= USER_END || we <= start)
			break;
		start = we;
	}
}

/* The page_write event of the run [lo, hi), written in (since, t]: found by an ioctl that began
 * at t and took scan_ns (0: the runtime's); settled: left unprotected from now on. */
static void write_event(struct mt_session *s, pid_t pid, uint64_t t, uint64_t lo, uint64_t hi,
			uint64_t since, uint64_t scan_ns, bool settled)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = t > since ? t : since;
	row[MT_F_PID] = row[MT_F_TID] = (uint64_t)pid;
	row[MT_F_PW_ADDR] = lo;
	row[MT_F_PW_LEN] = hi - lo;
	row[MT_F_PW_SINCE] = since;
	row[MT_F_PW_SCAN_NS] = scan_ns;
	row[MT_F_PW_SETTLED] = settled;
	if (mt_writer_event(s->w, MT_EV_PAGE_WRITE, row) == 0) {
		p->runs++;
		p->pages += row[MT_F_PW_LEN] / 4096;
	}
}

/* One walk of [lo, hi): protect: its written runs become events (and, when settling, join
 * p->found); peek: they join p->again, unprotected. 0 or -errno. */
static int walk(struct mt_session *s, struct proc *pr, uint64_t lo, uint64_t hi, enum walk how,
		uint64_t since)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t start = lo, we, t, now;
	int n;

	for (;;) {
		t = mt_now_ns();
		n = scan_fd(pr->fd, start, hi, p->vec, NVEC, &we, how);
		if (n < 0) {
			p->scan_errors++;
			p->last_scan_error = -n;
			return n;
		}
		now = mt_now_ns();
		for (int i = 0; i < n; i++) {
			uint64_t a = p->vec[i].start, b = p->vec[i].end;

			if (how == WALK_PROTECT)
				write_event(s, pr->pid, t, a, b, since, now > t ? now - t : 1,
					    false);
			/* (out of memory: the run is not settled, or not remembered as seen) */
			if (how == WALK_PEEK && mt_pwset_append(&p->again, a, b) < 0)
				p->unsettled_pages += (b - a) / 4096;
			else if (how == WALK_PROTECT && p->settle)
				(void)mt_pwset_append(&p->found, a, b);
		}
		if (n < NVEC || we >= hi || we <= start)
			return 0;
		start = we; /* the vector filled up: go on where the walk stopped */
	}
}

/* Settling's first walk: which seen pages were written again; they settle (a page_write
 * event each run, settled) unless the settled set is full. */
static int settle_walk(struct mt_session *s, struct proc *pr, uint64_t since)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t t0 = mt_now_ns(), end;
	int rc = 0;

	/* seen runs less than PW_HULL_GAP apart are walked as one range (an ioctl each is the
	 * cost); the pages it finds outside them are not seen ones: left out below */
	for (size_t i = 0, k; i < pr->seen.n && rc == 0; i = k) {
		for (k = i + 1;
		     k < pr->seen.n && pr->seen.v[k].lo - pr->seen.v[k - 1].hi < PW_HULL_GAP; k++)
			;
		rc = walk(s, pr, pr->seen.v[i].lo, pr->seen.v[k - 1].hi, WALK_PEEK, since);
	}
	if (rc < 0 || !p->again.n)
		return rc;
	if (mt_pwset_apply(&p->again, pr->seen.v, pr->seen.n, MT_PWSET_AND, SIZE_MAX, &p->tmp) < 0)
		p->again.n = 0; /* (out of memory: nothing settles this time) */
	if (mt_pwset_apply(&pr->settled, p->again.v, p->again.n, MT_PWSET_OR, PW_SET_MAX, &p->tmp) <
	    0) {
		p->sets_full++;
		p->unsettled_pages += mt_pwset_bytes(p->again.v, p->again.n) / 4096;
		p->again.n = 0; /* protected again by the walk that follows, as in full */
		return 0;
	}
	/* stamped when the walk had ended: a page's tracking fault came before the ioctl that
	 * found it written returned, and the reader must apply that fault before the settling
	 * (a fault after it is the program's: nothing is pending on a settled page) */
	end = mt_now_ns();
	for (size_t i = 0; i < p->again.n; i++)
		write_event(s, pr->pid, end, p->again.v[i].lo, p->again.v[i].hi, since,
			    end > t0 ? end - t0 : 1, true);
	p->settled_runs += p->again.n;
	p->settled_pages += mt_pwset_bytes(p->again.v, p->again.n) / 4096;
	return 0;
}

/* One epoch of one process: every run of written pages as a page_write event at the start of
 * the ioctl that found it (scan_ns: how long that ioctl took; each page was protected again
 * within it, but settled ones). -errno when the scan failed (ESRCH: the memory is gone). */
static int scan(struct mt_session *s, struct proc *pr)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t t0 = mt_now_ns(), now, since = open_epoch(pr), lo = 0;
	int rc = 0;

	p->scans++;
	p->again.n = p->found.n = 0;
	if (p->settle)
		rc = settle_walk(s, pr, since);
	for (size_t i = 0; rc == 0 && i <= pr->settled.n; i++) { /* all but the settled pages */
		uint64_t hi = i < pr->settled.n ? pr->settled.v[i].lo : USER_END;

		if (hi > lo)
			rc = walk(s, pr, lo, hi, WALK_PROTECT, since);
		if (i < pr->settled.n)
			lo = pr->settled.v[i].hi;
	}
	if (rc == 0 && p->settle) { /* seen: what it was, less what settled, plus what was found */
		(void)mt_pwset_apply(&pr->seen, p->again.v, p->again.n, MT_PWSET_MINUS, SIZE_MAX,
				     &p->tmp);
		if (p->found.n && mt_pwset_apply(&pr->seen, p->found.v, p->found.n, MT_PWSET_OR,
						 PW_SET_MAX, &p->tmp) < 0)
			p->sets_full++; /* the pages found now will not settle */
	}
	if (rc == 0)
		scan_huge(s, pr);
	now = mt_now_ns();
	p->scan_ns += now - t0;
	pr->rounds[pr->nrounds++ % PW_ROUNDS] = (struct round){ t0, now };
	return rc;
}

/* [lo, hi) went, was discarded or registered anew: none of its pages is seen or settled. */
static void forget_range(struct mt_pagewrites_state *p, struct proc *pr, uint64_t lo, uint64_t hi)
{
	struct mt_pwrun r = { lo, hi };

	/* (most ranges hold neither: no copy of the sets then) */
	if (mt_pwset_overlaps(&pr->seen, lo, hi))
		(void)mt_pwset_apply(&pr->seen, &r, 1, MT_PWSET_MINUS, SIZE_MAX, &p->tmp);
	if (mt_pwset_overlaps(&pr->settled, lo, hi))
		(void)mt_pwset_apply(&pr->settled, &r, 1, MT_PWSET_MINUS, SIZE_MAX, &p->tmp);
}

/*
 * The epoch a runtime's scan at t closed: from the start of the last scan of the process that
 * ended at or before t (its walk protected the pages again), else from when tracking began. A
 * scan newer than the last one kept is the usual case; an older one is the runtime's scan at
 * a free whose datagram came after the recorder's next scans: its writes still belong before
 * the free.
 */
static uint64_t epoch_start(struct mt_pagewrites_state *p, const struct proc *pr, uint64_t t)
{
	uint64_t best = 0, best_end = 0, kept = pr->nrounds < PW_ROUNDS ? pr->nrounds : PW_ROUNDS;
	bool older = kept == PW_ROUNDS;

	for (uint64_t k = 0; k < kept; k++) {
		const struct round *r = &pr->rounds[k];

		if (r->end <= t && r->end > best_end) {
			best_end = r->end;
			best = r->start;
		}
		older = older && r->end > t;
	}
	if (older)
		p->final_late++; /* older than every scan kept: the epoch widens to the start */
	return best_end ? best : pr->start;
}

/* The runs a runtime's scan found written (before a range went or was discarded), but their
 * settled pages: unprotected, so "written" whether or not they were. */
static void written_runs(struct mt_session *s, struct proc *pr, uint64_t t, const uint64_t *runs,
			 unsigned n)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t since = epoch_start(p, pr, t);

	for (unsigned i = 0; i < n; i++) {
		struct mt_pwrun r = { runs[3 * i], runs[3 * i + 1] };

		if (r.hi <= r.lo || r.hi - r.lo > (1ull << 47))
			continue;
		if (mt_pwset_overlaps(&pr->settled, r.lo, r.hi) &&
		    mt_pwset_combine(&r, 1, pr->settled.v, pr->settled.n, MT_PWSET_MINUS, SIZE_MAX,
				     &p->tmp) == 0) {
			for (size_t k = 0; k < p->tmp.n; k++) {
				write_event(s, pr->pid, t, p->tmp.v[k].lo, p->tmp.v[k].hi, since, 0,
					    false);
				p->final_runs++;
			}
			continue;
		}
		write_event(s, pr->pid, t, r.lo, r.hi, since, 0, false);
		p->final_runs++;
	}
}

void mt_pagewrites_msg(struct mt_session *s, pid_t pid, const struct mt_rt_pwruns *h,
		       const uint64_t *runs)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	struct proc *pr = p ? find(p, pid) : NULL;
	static const unsigned ops[] = { [MT_RT_PW_RELEASED] = MT_PT_RELEASED,
					[MT_RT_PW_ZAPPED] = MT_PT_ZAPPED,
					[MT_RT_PW_UNTRACKED_HUGE] = MT_PT_UNTRACKED_HUGE };

	if (!pr)
		return;
	/* the workload can scribble on anything it sends: ranges in user space only */
	if (h->hi <= h->lo || h->hi > USER_END || h->kind > MT_RT_PW_UNTRACKED_HUGE) {
		p->bad_msgs++;
		return;
	}
	switch (h->kind) {
	case MT_RT_PW_WRITTEN:
		written_runs(s, pr, h->time_ns, runs, h->n);
		break;
	case MT_RT_PW_ARMED:
		forget_range(p, pr, h->lo, h->hi);
		for (unsigned i = 0; i < h->n; i++) {
			uint64_t a = runs[3 * i], b = runs[3 * i + 1];

			if (a < h->lo || b > h->hi || b <= a)
				continue;
			track_event(s, pid, h->time_ns, a, b, MT_PT_ARMED);
			p->armed_pages += (b - a) / 4096;
		}
		break;
	default:
		forget_range(p, pr, h->lo, h->hi);
		track_event(s, pid, h->time_ns, h->lo, h->hi, ops[h->kind]);
		p->zapped += h->kind == MT_RT_PW_ZAPPED;
		p->released += h->kind == MT_RT_PW_RELEASED;
		p->untracked_huge += h->kind == MT_RT_PW_UNTRACKED_HUGE;
		break;
	}
}

void mt_pagewrites_drain(struct mt_session *s)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t now = mt_now_ns();

	if (!p || !p->nprocs || now - p->last_round < p->period_ns)
		return;
	p->last_round = now;
	for (size_t i = 0; i < p->nprocs; i++)
		scan(s, &p->procs[i]);
}

int mt_pagewrites_timeout_ms(struct mt_session *s)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	uint64_t now = mt_now_ns(), due;

	if (!p || !p->nprocs)
		return -1;
	due = p->last_round + p->period_ns;
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

static void drop(struct mt_pagewrites_state *p, struct proc *pr)
{
	close(pr->fd);
	mt_pwset_free(&pr->seen);
	mt_pwset_free(&pr->settled);
	*pr = p->procs[--p->nprocs];
}

/* A LOST event of this process: writes of its last epoch were not seen. */
static void lost_epoch(struct mt_session *s, pid_t pid, const char *why)
{
	uint64_t row[MT_MAX_FIELDS] = { 0 };

	row[MT_F_TIME] = mt_now_ns();
	row[MT_F_PID] = row[MT_F_TID] = (uint64_t)pid;
	row[MT_F_LOST_COLLECTOR] = mt_writer_str(s->w, "pagewrites");
	row[MT_F_LOST_COUNT] = 1;
	row[MT_F_LOST_REASON] = mt_writer_str(s->w, why);
	if (mt_writer_event(s->w, MT_EV_LOST, row) == 0)
		s->pagewrites_coll.lost++;
}

void mt_pagewrites_exit(struct mt_session *s, pid_t pid)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	struct proc *pr = p ? find(p, pid) : NULL;

	if (!pr)
		return;
	if (scan(s, pr) < 0)
		lost_epoch(s, pid,
			   "the process's last epoch could not be scanned (its memory was gone)");
	else
		p->final_scans++;
	drop(p, pr);
}

void mt_pagewrites_forget(struct mt_session *s, pid_t pid)
{
	struct mt_pagewrites_state *p = s->pagewrites;
	struct proc *pr = p ? find(p, pid) : NULL;

	if (!pr)
		return;
	p->forgotten++;
	lost_epoch(s, pid, "exec replaced the image before its last epoch was scanned");
	drop(p, pr);
}

void mt_pagewrites_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_pagewrites_state *p = s->pagewrites;

	if (!p)
		return;
	/* Processes still tracked (no exit seen, e.g. without ptrace): their last epoch now. */
	while (p->nprocs)
		mt_pagewrites_exit(s, p->procs[0].pid);
	mt_kv_add_u64(kv, "epoch_ns", p->period_ns);
	/* settle: pages written in two epochs are not protected again (--page-writes=full) */
	mt_kv_add(kv, "mode", p->settle ? "settle" : "full");
	mt_kv_add_u64(kv, "settled_pages", p->settled_pages);
	mt_kv_add_u64(kv, "settled_runs", p->settled_runs);
	/* written again but not settled (the sets' bound, PW_SET_MAX runs each,
	 * or memory) */
	mt_kv_add_u64(kv, "unsettled_pages", p->unsettled_pages);
	mt_kv_add_u64(kv, "settle_sets_full", p->sets_full);
	mt_kv_add_u64(kv, "tracked_ranges", p->tracked_ranges);
	mt_kv_add_u64(kv, "failed_ranges", p->failed_ranges);
	if (p->last_failure)
		mt_kv_add(kv, "failure", strerror(p->last_failure));
	mt_kv_add_u64(kv, "scans", p->scans);
	mt_kv_add_u64(kv, "final_scans", p->final_scans);
	mt_kv_add_u64(kv, "forgotten_at_exec", p->forgotten);
	mt_kv_add_u64(kv, "runs", p->runs);
	mt_kv_add_u64(kv, "runs_at_release", p->final_runs); /* scanned by the runtime itself */
	/* of those scans, how many came after 16 later scans: their epoch starts at tracking */
	mt_kv_add_u64(kv, "release_scans_late", p->final_late);
	mt_kv_add_u64(kv, "pages", p->pages);
	/* present pages protected as their ranges were registered (one fault each at its next
	 * write, as every page a scan protects again) */
	mt_kv_add_u64(kv, "armed_pages", p->armed_pages);
	mt_kv_add_u64(kv, "huge_runs", p->huge_events); /* huge pages left whole, untracked */
	mt_kv_add_u64(kv, "zapped_ranges", p->zapped); /* discarded by the workload's madvise */
	mt_kv_add_u64(kv, "released_ranges", p->released);
	/* the workload asked for huge pages over them: tracking ended there */
	mt_kv_add_u64(kv, "untracked_for_huge_pages", p->untracked_huge);
	mt_kv_add_u64(kv, "bad_messages", p->bad_msgs);
	mt_kv_add_u64(kv, "min_bytes", s->o->page_writes_min);
	mt_kv_add_u64(kv, "scan_ns", p->scan_ns);
	mt_kv_add_u64(kv, "scan_errors", p->scan_errors);
	if (p->last_scan_error)
		mt_kv_add(kv, "scan_error", strerror(p->last_scan_error));
	s->pagewrites_coll.events = p->runs;
	mt_pwset_free(&p->again);
	mt_pwset_free(&p->found);
	mt_pwset_free(&p->tmp);
	free(p->procs);
	free(p);
	s->pagewrites = NULL;
}
