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

void mt_own_event(struct mt_own *o, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct mt_own_proc *p, *pp;

	switch (ev->type) {
	case MT_EV_MMAP: {
		const char *path = mt_reader_str(o->r, ev->stream, ev->v[MT_F_MMAP_PATH], NULL);

		if (ev->v[MT_F_MMAP_ORIGIN] != MT_MMAP_MEMTAP && !mt_own_path(path))
			return;
		p = proc(o, pid, true);
		if (!p)
			return;
		p->lo[p->n % 4] = ev->v[MT_F_MMAP_ADDR];
		p->hi[p->n % 4] = ev->v[MT_F_MMAP_ADDR] + ev->v[MT_F_MMAP_LEN];
		p->n++;
		return;
	}
	case MT_EV_TASK_EXEC:
		if ((p = proc(o, pid, false)))
			p->n = 0; /* a new image: its runtime greets again */
		return;
	case MT_EV_TASK_NEW:
		/* a fork child holds a copy of its parent's arena until its own greeting */
		if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD || pid == ev->v[MT_F_NEW_PPID])
			return;
		pp = proc(o, (uint32_t)ev->v[MT_F_NEW_PPID], false);
		if (pp && (p = proc(o, pid, true)))
			*p = o->v[mt_map64_get(&o->by_pid, ev->v[MT_F_NEW_PPID])[0] - 1];
		return;
	default:
		return;
	}
}

bool mt_own_has(const struct mt_own *o, uint32_t pid, uint64_t addr)
{
	uint64_t *ix = o->nv ? mt_map64_get(&o->by_pid, pid) : NULL;
	const struct mt_own_proc *p;

	if (!ix)
		return false;
	p = &o->v[*ix - 1];
	for (unsigned i = 0; i < p->n && i < 4; i++)
		if (addr >= p->lo[i] && addr < p->hi[i])
			return true;
	return false;
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
