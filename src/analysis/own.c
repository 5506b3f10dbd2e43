/* SPDX-License-Identifier: MIT */
/* memtap's own memory per process, from its mappings of origin MEMTAP (and its memfd). */
#include "analysis/own.h"

#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "format/reader.h"

bool mt_own_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return path && (!strncmp(path, "/memfd:memtap-rt", 16) ||
			(n >= 16 && !strcmp(path + n - 16, "/libmemtap-rt.so")));
}

void mt_own_init(struct mt_own *o, const struct mt_reader *r)
{
	memset(o, 0, sizeof(*o));
	o->r = r;
	mt_map64_init(&o->by_pid);
}

void mt_own_release(struct mt_own *o)
{
	mt_map64_release(&o->by_pid);
	free(o->v);
	free(o->pool.v);
	memset(o, 0, sizeof(*o));
}

static struct mt_own_proc *proc(struct mt_own *o, uint32_t pid, bool create)
{
	uint64_t *ix = mt_map64_get(&o->by_pid, pid);

	if (ix)
		return &o->v[*ix - 1];
	if (!create || mt_grow_array(&o->v, &o->cap, o->nv + 1, sizeof(*o->v)) < 0 ||
	    mt_map64_put(&o->by_pid, pid, &ix) < 0)
		return NULL;
	memset(&o->v[o->nv], 0, sizeof(o->v[0]));
	*ix = ++o->nv;
	return &o->v[o->nv - 1];
}

static void own_add(struct mt_own *o, struct mt_own_proc *p, uint64_t lo, uint64_t hi)
{
	uint32_t n;

	mt_rs_punch(&o->pool, &p->ranges, lo, hi);
	if ((n = mt_rs_new(&o->pool, lo, hi, 1, 0)))
		mt_rs_insert(&o->pool, &p->ranges, n);
}

static void on_mmap(struct mt_own *o, const struct mt_event *ev, uint32_t pid)
{
	const char *path = mt_reader_str(o->r, ev->stream, ev->v[MT_F_MMAP_PATH], NULL);
	uint64_t lo = ev->v[MT_F_MMAP_ADDR], hi = lo + ev->v[MT_F_MMAP_LEN];
	struct mt_own_proc *p;

	if (hi <= lo)
		return;
	if (ev->v[MT_F_MMAP_ORIGIN] == MT_MMAP_MEMTAP || mt_own_path(path)) {
		if ((p = proc(o, pid, true)))
			own_add(o, p, lo, hi);
		return;
	}
	if (!(p = proc(o, pid, false)))
		return;
	/* The loader's anonymous mapping over the runtime's image (its bss; the kernel reports
	 * it merged with any anonymous mapping right after it): the part in memtap's memory
	 * stays memtap's. Anything else mapped over memtap's memory is the workload's now. */
	if (!path || !path[0]) {
		uint32_t n;

		while (lo < hi && (n = mt_rs_find(&o->pool, p->ranges, lo)))
			lo = o->pool.v[n].end;
	}
	if (lo < hi)
		mt_rs_punch(&o->pool, &p->ranges, lo, hi);
}

static void on_mremap(struct mt_own *o, const struct mt_event *ev, uint32_t pid)
{
	uint64_t old = ev->v[MT_F_MREMAP_OLD_ADDR], addr = ev->v[MT_F_MREMAP_ADDR];
	uint64_t len = ev->v[MT_F_MREMAP_LEN];
	struct mt_own_proc *p = proc(o, pid, false);
	bool own;

	if (!p)
		return;
	own = mt_rs_find(&o->pool, p->ranges, old) != 0; /* the mapping moves with its owner */
	mt_rs_punch(&o->pool, &p->ranges, old, old + ev->v[MT_F_MREMAP_OLD_LEN]);
	mt_rs_punch(&o->pool, &p->ranges, addr, addr + len);
	if (own && len)
		own_add(o, p, addr, addr + len);
}

void mt_own_event(struct mt_own *o, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct mt_own_proc *p, *pp;

	switch (ev->type) {
	case MT_EV_MMAP:
		on_mmap(o, ev, pid);
		return;
	case MT_EV_MUNMAP: {
		uint64_t lo = ev->v[MT_F_MUNMAP_ADDR];

		/* the kernel unmaps whole pages */
		if ((p = proc(o, pid, false)))
			mt_rs_punch(&o->pool, &p->ranges, lo,
				    (lo + ev->v[MT_F_MUNMAP_LEN] + 4095) & ~4095ull);
		return;
	}
	case MT_EV_MREMAP:
		on_mremap(o, ev, pid);
		return;
	case MT_EV_TASK_EXEC:
		if ((p = proc(o, pid, false))) {
			mt_rs_free(&o->pool, p->ranges); /* a new image: its runtime greets again */
			p->ranges = 0;
		}
		return;
	case MT_EV_TASK_NEW:
		/* a fork child holds a copy of its parent's memtap memory until its own greeting */
		if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD || pid == ev->v[MT_F_NEW_PPID])
			return;
		if (!proc(o, (uint32_t)ev->v[MT_F_NEW_PPID], false) || !(p = proc(o, pid, true)))
			return;
		pp = proc(o, (uint32_t)ev->v[MT_F_NEW_PPID], false); /* o->v may have moved */
		mt_rs_free(&o->pool, p->ranges);
		p->ranges = 0;
		mt_rs_copy(&o->pool, pp->ranges, &p->ranges);
		p->anon = pp->anon;
		p->shmem = pp->shmem;
		return;
	default:
		return;
	}
}

enum mt_fault_whose mt_own_fault(const struct mt_own *o, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];

	if (ev->v[MT_F_FAULT_TRACKING] & MT_FAULT_TRACKING)
		return MT_FW_TRACKING;
	if (mt_own_has(o, pid, ev->v[MT_F_FAULT_ADDR]) || mt_own_has(o, pid, ev->v[MT_F_FAULT_IP]))
		return MT_FW_OWN;
	return MT_FW_WORKLOAD;
}

bool mt_own_has(const struct mt_own *o, uint32_t pid, uint64_t addr)
{
	uint64_t *ix = o->nv ? mt_map64_get(&o->by_pid, pid) : NULL;

	return ix && mt_rs_find(&o->pool, o->v[*ix - 1].ranges, addr) != 0;
}

bool mt_own_rss(struct mt_own *o, const struct mt_event *ev, uint64_t v[4])
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct mt_own_proc *p = proc(o, pid, ev->v[MT_F_RSS_SOURCE] == MT_RSS_MEMTAP);

	if (ev->v[MT_F_RSS_SOURCE] == MT_RSS_MEMTAP) {
		if (p) {
			p->anon = ev->v[MT_F_RSS_ANON];
			p->shmem = ev->v[MT_F_RSS_SHMEM];
		}
		return false;
	}
	v[0] = ev->v[MT_F_RSS_FILE];
	v[1] = ev->v[MT_F_RSS_ANON];
	v[2] = ev->v[MT_F_RSS_SHMEM];
	v[3] = ev->v[MT_F_RSS_SWAP];
	if (p) {
		v[1] = v[1] > p->anon ? v[1] - p->anon : 0;
		v[2] = v[2] > p->shmem ? v[2] - p->shmem : 0;
	}
	return true;
}
