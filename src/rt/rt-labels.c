/* SPDX-License-Identifier: MIT */
/* memtap.h from the workload: labels, phases and page-write tracking (userfaultfd). */
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

/* ---- memtap.h: labels and phases from the workload ---- */

/* include/memtap/memtap.h declares these weak for the workload; defined here, strong. */
RT_EXPORT int memtap__label(const void *addr, size_t len, const char *region_type,
			    const char *name);
RT_EXPORT int memtap__unlabel(const void *addr);
RT_EXPORT int memtap__phase(const char *name);

/*
 * Page-write tracking (record --page-writes): a labelled range's pages are registered with a
 * userfaultfd in write-protect *async* mode, so a write to a protected page is resolved by
 * the kernel at once (no message, no thread here) and leaves the page "written"; the
 * recorder's PAGEMAP_SCAN of /proc/PID/pagemap reads and re-protects the written pages once
 * per epoch. Here we only register and arm (protect) the range. The workload never sees the
 * descriptor's effects: async mode never blocks and never signals.
 */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
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
#define RT_PM_SCAN_WP_MATCHING 1ull

static long wp_open(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED };
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

/* 1 (MT_RT_WP_TRACKED) or -errno. */
static int wp_track(const void *addr, size_t len)
{
	uint64_t lo = (uint64_t)(uintptr_t)addr & ~4095ull;
	uint64_t hi = ((uint64_t)(uintptr_t)addr + len + 4095) & ~4095ull;
	struct uffdio_register reg = { .range = { lo, hi - lo }, .mode = UFFDIO_REGISTER_MODE_WP };
	struct rt_pm_scan_arg arm = {
		.size = sizeof(arm), .flags = RT_PM_SCAN_WP_MATCHING, .start = lo, .end = hi
	};
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
	if (r == 0) /* protect every page now: writes from here on are the recorder's to see */
		r = rt_sys3(SYS_ioctl, rt_pagemap, RT_PAGEMAP_SCAN, &arm);
	__atomic_store_n(&rt_wp_lock, 0, __ATOMIC_RELEASE);
	if (rt_region)
		__atomic_add_fetch(r < 0 ? &rt_region->wp_failed : &rt_region->wp_ranges, 1,
				   __ATOMIC_RELAXED);
	return r < 0 ? (int)r : MT_RT_WP_TRACKED;
}

/* One datagram to the recorder; a full socket is retried for up to 10 ms, then counted. */
static int send_label(uint32_t op, const void *addr, size_t len, const char *type, const char *name)
{
	struct rt_thread *t = &rt_self;
	struct {
		struct mt_rt_label h;
		char s[MT_RT_LABEL_TYPE_MAX + MT_RT_LABEL_NAME_MAX];
	} m;
	struct timespec nap = { 0, 100000 };
	size_t tl = type ? strnlen(type, MT_RT_LABEL_TYPE_MAX) : 0;
	size_t nl = name ? strnlen(name, MT_RT_LABEL_NAME_MAX) : 0;
	int saved = errno;
	long r = -1;

	if (!(FAST(t) || rt_slow_mode(t) == TM_READY) || rt_sock < 0)
		return -1;
	memset(&m.h, 0, sizeof(m.h));
	m.h.type = MT_RT_MSG_LABEL;
	m.h.op = op;
	m.h.time_ns = rt_mono_ns();
	m.h.tid = t->tid;
	m.h.addr = (uint64_t)(uintptr_t)addr;
	m.h.len = len;
	m.h.type_len = (uint16_t)tl;
	m.h.name_len = (uint16_t)nl;
	if (tl)
		memcpy(m.s, type, tl);
	if (nl)
		memcpy(m.s + tl, name, nl);
	if (op == MT_RT_LABEL && rt_cfg.page_writes)
		m.h.wp = wp_track(addr, len);
	for (int tries = 0; tries < 100; tries++) {
		r = mt_rt_sys(SYS_sendto, rt_sock, (long)&m, (long)(sizeof(m.h) + tl + nl),
			      MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
		if (r != -EAGAIN)
			break;
		(void)rt_sys2(SYS_nanosleep, &nap, NULL);
	}
	if (r < 0 && rt_region)
		__atomic_add_fetch(&rt_region->labels_dropped, 1, __ATOMIC_RELAXED);
	errno = saved;
	return r < 0 ? -1 : 0;
}

RT_EXPORT int memtap__label(const void *addr, size_t len, const char *region_type, const char *name)
{
	return send_label(MT_RT_LABEL, addr, len, region_type, name);
}

RT_EXPORT int memtap__unlabel(const void *addr)
{
	return send_label(MT_RT_UNLABEL, addr, 0, NULL, NULL);
}

RT_EXPORT int memtap__phase(const char *name)
{
	return send_label(MT_RT_PHASE, NULL, 0, NULL, name);
}
