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

/* ---- memtap.h: labels, phases, events and spans from the workload ---- */

/* include/memtap/memtap.h declares these weak for the workload; defined here, strong. */
RT_EXPORT int memtap__label(const void *addr, size_t len, const char *region_type,
			    const char *name);
RT_EXPORT int memtap__unlabel(const void *addr);
RT_EXPORT int memtap__phase(const char *name);
RT_EXPORT int memtap__event(const char *name, const char *fields);
RT_EXPORT int memtap__span_begin(const char *name, const char *fields);
RT_EXPORT int memtap__span_end(void);

static uint64_t span_next; /* the process's span ids, from 1 */

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

/* ---- events and spans ---- */

static bool ready(struct rt_thread *t)
{
	return (FAST(t) || rt_slow_mode(t) == TM_READY) && rt_region;
}

struct appev_msg {
	struct mt_rt_appev h;
	char s[MT_RT_APPEV_NAME_MAX + MT_RT_APPEV_FIELDS_MAX];
};

/* The message, strings copied in. Fields longer than the limit are left out (a cut JSON
 * object would not parse), and counted. */
static void appev_fill(struct appev_msg *m, struct rt_thread *t, uint32_t op, const char *name,
		       const char *fields)
{
	size_t nl = name ? strnlen(name, MT_RT_APPEV_NAME_MAX) : 0;
	size_t fl = fields ? strnlen(fields, MT_RT_APPEV_FIELDS_MAX + 1) : 0;

	if (fl > MT_RT_APPEV_FIELDS_MAX) {
		__atomic_add_fetch(&rt_region->appev_fields_dropped, 1, __ATOMIC_RELAXED);
		fl = 0;
	}
	memset(&m->h, 0, sizeof(m->h));
	m->h.type = MT_RT_MSG_APPEV;
	m->h.op = op;
	m->h.tid = t->tid;
	m->h.name_len = (uint16_t)nl;
	m->h.fields_len = (uint16_t)fl;
	if (nl)
		memcpy(m->s, name, nl);
	if (fl)
		memcpy(m->s + nl, fields, fl);
}

/* One datagram; a full socket is retried for up to 10 ms, then counted. */
static int appev_send(const struct appev_msg *m)
{
	if (rt_send(m, sizeof(m->h) + m->h.name_len + m->h.fields_len, 10000) >= 0)
		return 0;
	if (rt_region)
		__atomic_add_fetch(&rt_region->appev_dropped, 1, __ATOMIC_RELAXED);
	return -1;
}

RT_EXPORT int memtap__event(const char *name, const char *fields)
{
	struct rt_thread *t = &rt_self;
	struct appev_msg m;
	int saved = errno, r;

	if (!ready(t))
		return -1;
	appev_fill(&m, t, MT_APP_EVENT, name, fields);
	m.h.time_ns = rt_mono_ns();
	m.h.parent = t->span_depth ? t->spans[t->span_depth - 1] : 0;
	r = appev_send(&m);
	errno = saved;
	return r;
}

/*
 * The message is made before the time is read (its strings copied, its stack touched), so
 * that nothing memtap does for it falls inside the span but its mark; the time is read
 * first of the span, so that everything the span does follows it. The MARK row makes the
 * thread's next allocations the span's, in the order the thread made them.
 */
RT_EXPORT int memtap__span_begin(const char *name, const char *fields)
{
	struct rt_thread *t = &rt_self;
	struct appev_msg m;
	int saved = errno, r;

	if (!ready(t))
		return -1;
	if (!t->spans) {
		t->mode = TM_BUSY;
		t->spans = rt_mmap_anon(4096);
		t->mode = TM_READY;
		if (!t->spans)
			return -1;
	}
	if (t->span_depth >= MT_RT_SPAN_DEPTH) { /* refused; its end will be too */
		t->span_over++;
		__atomic_add_fetch(&rt_region->spans_too_deep, 1, __ATOMIC_RELAXED);
		errno = saved;
		return -1;
	}
	appev_fill(&m, t, MT_APP_BEGIN, name, fields);
	m.h.time_ns = rt_mono_ns();
	m.h.id = __atomic_add_fetch(&span_next, 1, __ATOMIC_RELAXED);
	m.h.parent = t->span_depth ? t->spans[t->span_depth - 1] : 0;
	t->spans[t->span_depth++] = m.h.id;
	t->mode = TM_BUSY;
	rt_put_mark(t, m.h.id);
	t->mode = TM_READY;
	r = appev_send(&m);
	errno = saved;
	return r;
}

/* The time is read first, after the span's last deed. */
RT_EXPORT int memtap__span_end(void)
{
	struct rt_thread *t = &rt_self;
	uint64_t time = rt_mono_ns();
	struct appev_msg m;
	int saved = errno, r;

	if (!ready(t))
		return -1;
	if (t->span_over) { /* the end of a span refused as too deep */
		t->span_over--;
		return -1;
	}
	if (!t->span_depth) {
		__atomic_add_fetch(&rt_region->spans_unmatched, 1, __ATOMIC_RELAXED);
		return -1;
	}
	appev_fill(&m, t, MT_APP_END, NULL, NULL);
	m.h.time_ns = time;
	m.h.id = t->spans[--t->span_depth];
	m.h.parent = t->span_depth ? t->spans[t->span_depth - 1] : 0;
	t->mode = TM_BUSY;
	rt_put_mark(t, m.h.parent);
	t->mode = TM_READY;
	r = appev_send(&m);
	errno = saved;
	return r;
}
