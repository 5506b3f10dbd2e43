/* SPDX-License-Identifier: MIT */
/* Page-write tracking in the process: userfaultfd write-protect registrations (async). */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt-internal.h"

/*
 * Page-write tracking (record --page-writes-ms): a tracked range's pages are registered with a
 * userfaultfd in write-protect *async* mode, so a write to a protected page is resolved by
 * the kernel at once (no message, no thread here) and leaves the page "written"; the
 * recorder's PAGEMAP_SCAN of /proc/PID/pagemap reads and re-protects the written pages once
 * per epoch. Here we only register and arm (protect) the range. The workload never sees the
 * descriptor's effects: async mode never blocks and never signals.
 */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
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
#define RT_HUGE (2ull << 20) /* x86-64's transparent huge page */
#define RT_PM_SCAN_WP_MATCHING 1ull
/* PAGEMAP_SCAN's page categories (include/uapi/linux/fs.h) */
#define PG_WPALLOWED (1ull << 0)
#define PG_WRITTEN (1ull << 1)
#define PG_PRESENT (1ull << 3)
#define PG_SWAPPED (1ull << 4)
#define PG_PFNZERO (1ull << 5)
#define PG_HUGE (1ull << 6)

/*
 * Which pages a walk protects (PM_SCAN_WP_MATCHING protects what it reports). Never a page
 * that is not present: protecting one installs a marker that makes its first write take two
 * faults where the program alone takes one. Never the zero page (a read of an untouched
 * page maps it; its first write faults bare too) and never a transparent huge page (a write
 * to a protected one splits it in async mode: the program's page size would change). The
 * arming walk of a registration: present or swapped pages; a scan: pages written since.
 */
static void arm_args(struct rt_pm_scan_arg *a, bool scan)
{
	a->category_inverted = PG_PFNZERO | PG_HUGE;
	a->category_mask = PG_PFNZERO | PG_HUGE | (scan ? PG_WRITTEN | PG_WPALLOWED : 0);
	/* (without markers the kernel calls a page not present "written": it cannot be
	 * protected, so it is never reported or protected here) */
	a->category_anyof_mask = PG_PRESENT | PG_SWAPPED;
	a->return_mask = scan ? PG_WRITTEN : PG_PRESENT | PG_SWAPPED;
}

static long wp_open(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  /* not WP_UNPOPULATED: a page not present is never
				   * protected (arm_args), so no marker may stand in for one */
				  .features = UFFD_FEATURE_WP_ASYNC };
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

static void send_msg(const void *m, size_t n);

/*
 * One walk of [lo, hi) that protects what it matches (arm_args), its runs sent as messages of
 * kind (struct mt_rt_pwruns, range [lo, hi)). false: an ioctl failed (counted).
 */
static bool walk_send(uint64_t lo, uint64_t hi, bool scan, uint32_t kind)
{
	struct {
		struct mt_rt_pwruns h;
		struct mt_rt_run run[MT_RT_PWRUNS_MAX];
	} m;
	/* struct page_region is {start, end, categories}: MT_RT_RUN's layout */
	struct rt_pm_scan_arg a = {
		.size = sizeof(a),
		.flags = RT_PM_SCAN_WP_MATCHING,
		.start = lo,
		.end = hi,
		.vec = (uint64_t)(uintptr_t)m.run,
		.vec_len = MT_RT_PWRUNS_MAX,
	};

	arm_args(&a, scan);
	for (;;) {
		long n = rt_sys3(SYS_ioctl, rt_pagemap, RT_PAGEMAP_SCAN, &a);

		if (n < 0) {
			if (rt_region)
				__atomic_add_fetch(&rt_region->wp_failed, 1, __ATOMIC_RELAXED);
			return false;
		}
		if (n > 0) {
			memset(&m.h, 0, sizeof(m.h));
			m.h.type = MT_RT_MSG_PWRUNS;
			m.h.n = (uint32_t)n;
			m.h.time_ns = rt_mono_ns();
			m.h.tid = rt_self.tid;
			m.h.kind = kind;
			m.h.lo = lo;
			m.h.hi = hi;
			send_msg(&m, sizeof(m.h) + (size_t)n * sizeof(m.run[0]));
		}
		if (n < MT_RT_PWRUNS_MAX || a.walk_end >= hi || a.walk_end <= a.start)
			return true;
		a.start = a.walk_end;
	}
}

/* A message of kind about [lo, hi) with no runs (its end, a discard). */
static void send_range(uint64_t lo, uint64_t hi, uint32_t kind)
{
	struct mt_rt_pwruns h;

	memset(&h, 0, sizeof(h));
	h.type = MT_RT_MSG_PWRUNS;
	h.time_ns = rt_mono_ns();
	h.tid = rt_self.tid;
	h.kind = kind;
	h.lo = lo;
	h.hi = hi;
	send_msg(&h, sizeof(h));
}

/* 1 (MT_RT_WP_TRACKED) or -errno. */
int rt_wp_track(const void *addr, size_t len)
{
	uint64_t lo = (uint64_t)(uintptr_t)addr & ~4095ull;
	uint64_t hi = ((uint64_t)(uintptr_t)addr + len + 4095) & ~4095ull;
	struct uffdio_register reg = { .range = { lo, hi - lo }, .mode = UFFDIO_REGISTER_MODE_WP };
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
	__atomic_store_n(&rt_wp_lock, 0, __ATOMIC_RELEASE);
	/* protect the present pages now (the recorder is told which): writes from here on are
	 * the recorder's to see; a page not present is not written until its first touch */
	if (r == 0 && !walk_send(lo, hi, false, MT_RT_PW_ARMED)) {
		struct uffdio_range un = { lo, hi - lo };

		(void)rt_sys3(SYS_ioctl, rt_uffd, UFFDIO_UNREGISTER, &un);
		__atomic_sub_fetch(&rt_wp_ranges, 1, __ATOMIC_RELAXED);
		r = -EIO;
	}
	if (rt_region)
		__atomic_add_fetch(r < 0 ? &rt_region->wp_failed : &rt_region->wp_ranges, 1,
				   __ATOMIC_RELAXED);
	return r < 0 ? (int)r : MT_RT_WP_TRACKED;
}

/* ---- ranges tracked without a label: large allocations and writable mappings ---- */

/*
 * With record --page-writes-min BYTES (default 1 MiB), every heap block and every writable
 * anonymous mapping of at least that size is tracked from its allocation on, its whole
 * pages only (a page shared with another block would mix their writes). A tracked block
 * freed (or moved by realloc, or unmapped) is scanned here, in the hook, before the real
 * call: the writes of its last epoch reach the recorder (MT_RT_MSG_PWRUNS), then the range is
 * unregistered, so memory the allocator hands out again is not tracked under its old owner.
 */
#define WP_TABLE 2048 /* live auto-tracked ranges, open addressing; at most RT_WP_MAX_RANGES */

struct wp_ent {
	uint64_t key; /* the block or mapping address; 0: empty; 1: deleted */
	uint64_t lo, hi;
};

static struct wp_ent wp_tab[WP_TABLE];
unsigned rt_wp_live;
uint64_t rt_wp_min = UINT64_MAX;

static unsigned wp_slot(uint64_t key)
{
	return (unsigned)(rt_hash64(key) >> 20) & (WP_TABLE - 1);
}

/* Under rt_wp_lock. */
static void wp_put(uint64_t key, uint64_t lo, uint64_t hi)
{
	for (unsigned i = wp_slot(key), n = 0; n < WP_TABLE; n++, i = (i + 1) & (WP_TABLE - 1)) {
		if (wp_tab[i].key <= 1 || wp_tab[i].key == key) {
			if (wp_tab[i].key != key)
				rt_wp_live++;
			wp_tab[i].lo = lo;
			wp_tab[i].hi = hi;
			__atomic_store_n(&wp_tab[i].key, key, __ATOMIC_RELEASE);
			return;
		}
	}
}

static void send_msg(const void *m, size_t n)
{
	long r = rt_send(m, n, 10000);

	if (r < 0 && rt_region)
		__atomic_add_fetch(&rt_region->labels_dropped, 1, __ATOMIC_RELAXED);
}

/* Tells the recorder a range is tracked (or why it could not be). */
static void announce(uint64_t lo, uint64_t hi, int wp)
{
	struct mt_rt_label m;

	memset(&m, 0, sizeof(m));
	m.type = MT_RT_MSG_LABEL;
	m.op = MT_RT_WP_RANGE;
	m.time_ns = rt_mono_ns();
	m.tid = rt_self.tid;
	m.addr = lo;
	m.len = hi - lo;
	m.wp = wp;
	send_msg(&m, sizeof(m));
}

/*
 * The largest range tracked without a label: every epoch's scan walks a tracked range's page
 * tables, and the reader keeps a state per page it touched. A sparse reservation larger than
 * memory (an address sanitizer's shadow, a runtime's arena reserve) is not the program's
 * memory in use: half of RAM at most.
 */
static uint64_t wp_max(void)
{
	static uint64_t max;
	struct sysinfo si;

	if (!max)
		max = rt_sys1(SYS_sysinfo, &si) == 0 ? (uint64_t)si.totalram * si.mem_unit / 2
						     : (1ull << 30);
	return max;
}

void rt_wp_auto(uint64_t addr, uint64_t len, bool mapping)
{
	uint64_t lo = (addr + 4095) & ~4095ull, hi = (addr + len) & ~4095ull;
	int r;

	/*
	 * With transparent huge pages always on, a heap block's registration would split its
	 * mapping at the block's first and last whole pages, and the huge pages that would
	 * straddle the cuts could no longer be: only its whole 2 MiB windows are registered (a
	 * mapping of its own is registered whole, with no cut).
	 */
	if (rt_cfg.thp_always && !mapping) {
		lo = (lo + RT_HUGE - 1) & ~(RT_HUGE - 1);
		hi &= ~(RT_HUGE - 1);
	}
	if (hi <= lo)
		return;
	if (hi - lo > wp_max()) {
		announce(lo, hi, -EFBIG); /* said, not tracked */
		return;
	}
	r = rt_wp_track((const void *)lo, hi - lo);
	if (r == MT_RT_WP_TRACKED) {
		while (__atomic_exchange_n(&rt_wp_lock, 1, __ATOMIC_ACQUIRE))
			;
		wp_put(addr, lo, hi);
		__atomic_store_n(&rt_wp_lock, 0, __ATOMIC_RELEASE);
	}
	announce(lo, hi, r);
}

/*
 * Smaller blocks of a site that allocates much: a block of RT_WP_SITE_BLOCK or more from an
 * allocation stack whose such blocks have added up to --page-writes-min is tracked as a
 * large one (a KV cache grown by concatenation, a framework's per-token tensors). A tally
 * per stack in a fixed table (claimed once, never freed; when it is full, the stacks left
 * out are not tracked).
 */
#define WP_SITES 4096

static struct {
	uint32_t stack;
	uint64_t bytes;
} wp_sites[WP_SITES];

bool rt_wp_site_tally(uint32_t stack, uint64_t size)
{
	unsigned i = (unsigned)(rt_hash64(stack) >> 24) & (WP_SITES - 1);

	for (unsigned n = 0; n < 16; n++, i = (i + 1) & (WP_SITES - 1)) {
		uint32_t k = __atomic_load_n(&wp_sites[i].stack, __ATOMIC_ACQUIRE), zero = 0;

		if (!k && !__atomic_compare_exchange_n(&wp_sites[i].stack, &zero, stack, false,
						       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			k = zero; /* another thread claimed it: whose is it? */
		else if (!k)
			k = stack;
		if (k == stack)
			return __atomic_add_fetch(&wp_sites[i].bytes, size, __ATOMIC_RELAXED) >=
			       rt_wp_min;
	}
	return false;
}

/*
 * Memory that exists before the runtime starts: the writable segments of the program and
 * of the libraries loaded with it (.data and .bss), tracked as a mapping of their own would
 * be when they are large enough. A writable PT_LOAD segment is two mappings: its file part
 * (up to the page holding its last file byte) and the anonymous .bss pages after it; each
 * is registered whole, without the part the loader made read-only after relocation
 * (PT_GNU_RELRO). The runtime's own segments are memtap's, left out.
 */
static void existing_part(uint64_t lo, uint64_t hi)
{
	if (hi > lo && hi - lo >= rt_wp_min)
		rt_wp_auto(lo, hi - lo, true);
}

static int existing_segments(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uint64_t self = (uint64_t)(uintptr_t)ctx, relro = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz)
			return 0; /* the runtime itself */
		if (ph->p_type == PT_GNU_RELRO) /* the loader rounds its end down to a page */
			relro = (lo + ph->p_memsz) & ~4095ull;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, file_end, end;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W) || !ph->p_memsz)
			continue;
		file_end = (lo + ph->p_filesz + 4095) & ~4095ull;
		end = (lo + ph->p_memsz + 4095) & ~4095ull;
		if (relro > lo && relro <= file_end)
			lo = relro;
		existing_part(lo & ~4095ull, file_end < end ? file_end : end);
		if (end > file_end)
			existing_part(file_end, end);
	}
	return 0;
}

void rt_wp_existing(void)
{
	if (rt_wp_min == UINT64_MAX)
		return;
	dl_iterate_phdr(existing_segments, (void *)&rt_wp_min);
}

/*
 * The written runs of [lo, hi) since the last scan, to the recorder; then unregistered and
 * said so (end: MT_RT_PW_RELEASED or MT_RT_PW_UNTRACKED_HUGE). The scan protects what it
 * reports, in the same walk: the recorder's periodic scan, which may come before the
 * unregister, cannot report those pages a second time.
 */
static void wp_final(uint64_t lo, uint64_t hi, uint32_t end)
{
	struct uffdio_range un = { lo, hi - lo };

	walk_send(lo, hi, true, MT_RT_PW_WRITTEN);
	(void)rt_sys3(SYS_ioctl, rt_uffd, UFFDIO_UNREGISTER, &un);
	send_range(lo, hi, end);
}

/* Under rt_wp_lock: takes entry i out. */
static void wp_take(unsigned i, uint64_t *lo, uint64_t *hi)
{
	*lo = wp_tab[i].lo;
	*hi = wp_tab[i].hi;
	wp_tab[i].key = 1;
	rt_wp_ranges--;
	if (!--rt_wp_live) /* no range left: the deleted marks go too, probes stay short */
		for (unsigned k = 0; k < WP_TABLE; k++)
			__atomic_store_n(&wp_tab[k].key, 0, __ATOMIC_RELAXED);
}

bool rt_wp_release(uint64_t addr)
{
	uint64_t lo = 0, hi = 0, k;
	unsigned i = wp_slot(addr), n = 0;

	/* Every free asks while a range is tracked: a probe without the lock first (the entry of
	 * a block being freed was put by the thread that allocated it, before returning it). */
	for (; n < WP_TABLE && (k = __atomic_load_n(&wp_tab[i].key, __ATOMIC_ACQUIRE)) != addr;
	     n++, i = (i + 1) & (WP_TABLE - 1))
		if (!k)
			return false;
	if (n == WP_TABLE)
		return false;
	while (__atomic_exchange_n(&rt_wp_lock, 1, __ATOMIC_ACQUIRE))
		;
	if (wp_tab[i].key == addr) /* not taken meanwhile by a racing free of the same block */
		wp_take(i, &lo, &hi);
	__atomic_store_n(&rt_wp_lock, 0, __ATOMIC_RELEASE);
	if (hi > lo)
		wp_final(lo, hi, MT_RT_PW_RELEASED);
	return hi > lo;
}

/* Takes every tracked range overlapping [start, start + len) out of the table and ends it. */
static void release_range(uint64_t start, uint64_t len, uint32_t end)
{
	for (unsigned i = 0; i < WP_TABLE && rt_wp_live; i++) {
		uint64_t lo = 0, hi = 0;

		/* most slots are empty or elsewhere: looked at without the lock first */
		if (__atomic_load_n(&wp_tab[i].key, __ATOMIC_ACQUIRE) <= 1 ||
		    __atomic_load_n(&wp_tab[i].lo, __ATOMIC_RELAXED) >= start + len ||
		    __atomic_load_n(&wp_tab[i].hi, __ATOMIC_RELAXED) <= start)
			continue;
		while (__atomic_exchange_n(&rt_wp_lock, 1, __ATOMIC_ACQUIRE))
			;
		if (wp_tab[i].key > 1 && wp_tab[i].lo < start + len && wp_tab[i].hi > start)
			wp_take(i, &lo, &hi);
		__atomic_store_n(&rt_wp_lock, 0, __ATOMIC_RELEASE);
		if (hi > lo)
			wp_final(lo, hi, end);
	}
}

void rt_wp_release_range(uint64_t start, uint64_t len)
{
	release_range(start, len, MT_RT_PW_RELEASED);
}

void rt_wp_madvise(uint64_t start, uint64_t len, int advice)
{
	uint64_t end = (start + len + 4095) & ~4095ull;

	if (advice == MADV_HUGEPAGE || advice == MADV_COLLAPSE) {
		/* the program wants huge pages there: no protection of ours may stand in the way
		 * (khugepaged collapses no range with a protected or, registered, absent page) */
		release_range(start, end - start, MT_RT_PW_UNTRACKED_HUGE);
		return;
	}
	if (advice != MADV_DONTNEED && advice != MADV_DONTNEED_LOCKED && advice != MADV_REMOVE)
		return;
	/* the pages go: their writes since the last scan first, then the discard is said (the
	 * pages that come back at the next touch are not protected, and fault as bare) */
	for (unsigned i = 0; i < WP_TABLE && rt_wp_live; i++) {
		uint64_t lo = __atomic_load_n(&wp_tab[i].lo, __ATOMIC_RELAXED);
		uint64_t hi = __atomic_load_n(&wp_tab[i].hi, __ATOMIC_RELAXED);

		if (__atomic_load_n(&wp_tab[i].key, __ATOMIC_ACQUIRE) <= 1 || lo >= end ||
		    hi <= start)
			continue;
		lo = lo > start ? lo : start;
		hi = hi < end ? hi : end;
		walk_send(lo, hi, true, MT_RT_PW_WRITTEN);
		send_range(lo, hi, MT_RT_PW_ZAPPED);
	}
}

void rt_wp_fork_child(void)
{
	/* the child's mappings carry no registration: nothing of the parent's is tracked */
	memset(wp_tab, 0, sizeof(wp_tab));
	rt_wp_live = 0;
}
