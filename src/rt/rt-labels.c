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

/* One datagram to the recorder; a full socket is retried for up to 10 ms, then counted. */
static int send_label(uint32_t op, const void *addr, size_t len, const char *type, const char *name)
{
	struct rt_thread *t = &rt_self;
	struct {
		struct mt_rt_label h;
		char s[MT_RT_LABEL_TYPE_MAX + MT_RT_LABEL_NAME_MAX];
	} m;
	size_t tl = type ? strnlen(type, MT_RT_LABEL_TYPE_MAX) : 0;
	size_t nl = name ? strnlen(name, MT_RT_LABEL_NAME_MAX) : 0;
	int saved = errno;
	long r = -1;

	if (!(FAST(t) || rt_slow_mode(t) == TM_READY) || !rt_region)
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
		m.h.wp = rt_wp_track(addr, len);
	r = rt_send(&m, sizeof(m.h) + tl + nl, 10000);
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
