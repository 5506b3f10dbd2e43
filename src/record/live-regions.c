/* SPDX-License-Identifier: MIT */
/*
 * Hottest regions and working sets for memtap top. A sampled access counts for the mapping
 * that holds its address in /proc/PID/maps as last read (read again, at most once a second,
 * when an address falls outside every mapping read). A region is a process's named
 * mappings taken together (a file's segments, [heap], [stack]) or one anonymous mapping by
 * its start (it may grow or move its end); the working set of a window is the
 * number of distinct 4 KiB pages its faults and sampled accesses touched (a lower bound, as
 * the report's: samples see a fraction of the pages touched).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/strutil.h"
#include "record/live-internal.h"
#include "record/procfs.h"

#define REGIONS_SHOWN 16
#define PAGE_SHIFT 12
#define PAGE_BITS 36 /* a user address's page number fits (47-bit addresses) */

void mt_live_touch(struct mt_live *l, struct live_proc *p, uint64_t addr, uint64_t t)
{
	uint64_t page = addr >> PAGE_SHIFT, *v;

	if (!addr || page >> PAGE_BITS)
		return; /* no address, or a kernel one */
	if (!l->wss_start)
		l->wss_start = t;
	if (l->wss.len >= LIVE_WSS_MAX) {
		if (!mt_map64_get(&l->wss, (uint64_t)p->pid << PAGE_BITS | page))
			l->wss_partial = true;
		return;
	}
	if (mt_map64_put(&l->wss, (uint64_t)p->pid << PAGE_BITS | page, &v) < 0) {
		l->wss_partial = true;
		return;
	}
	if (!*v) {
		*v = 1;
		p->wss_cur++;
	}
}

/* A window ends: its counts become the shown ones; the map is emptied, its memory kept. */
void mt_live_wss_roll(struct mt_live *l, uint64_t now)
{
	if (!l->wss_start || now - l->wss_start < LIVE_WSS_NS)
		return;
	for (size_t i = 0; i < l->n; i++) {
		l->v[i].wss_last = l->v[i].wss_cur;
		l->v[i].wss_seen = true;
		l->v[i].wss_cur = 0;
	}
	l->wss_partial_last = l->wss_partial;
	l->wss_partial = false;
	l->wss_start = now;
	if (l->wss.cap) {
		memset(l->wss.keys, 0xff, l->wss.cap * sizeof(*l->wss.keys));
		l->wss.len = 0;
	}
}

void mt_live_maps_free(struct live_maps *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->names);
	free(m);
}

static int add_range(void *ctx, const struct mt_maps_entry *e)
{
	struct live_maps *m = ctx;
	size_t len = strlen(e->path) + 1;

	if (mt_grow_array(&m->v, &m->cap, m->n + 1, sizeof(*m->v)) < 0 ||
	    mt_grow_array(&m->names, &m->ncap, m->nlen + len, 1) < 0)
		return -1;
	memcpy(m->names + m->nlen, e->path, len);
	m->v[m->n++] = (struct live_range){ e->start, e->end, 0, (uint32_t)m->nlen };
	m->nlen += len;
	return 0;
}

/* "[anon 0x...]" names an anonymous mapping by its start: two are two regions. */
static void region_name(const struct live_maps *m, const struct live_range *r, char *buf,
			size_t size)
{
	const char *path = m->names + r->name;

	if (path[0])
		mt_strlcpy(buf, path, size);
	else
		snprintf(buf, size, "[anon 0x%" PRIx64 "]", r->lo);
}

static uint64_t region_key(pid_t pid, const char *name)
{
	uint64_t k = mt_hash64(name, strlen(name), (uint64_t)pid);

	return k == MT_MAP64_EMPTY ? 0 : k;
}

/* The region a range belongs to, made when new; 0 when the bound is reached. */
static uint32_t region_of(struct mt_live *l, pid_t pid, struct live_maps *m, struct live_range *r)
{
	char name[sizeof(l->regions[0].name)];
	struct live_region *g;
	uint64_t *ix;

	region_name(m, r, name, sizeof(name));
	if (mt_map64_put(&l->region_ix, region_key(pid, name), &ix) < 0)
		return 0;
	if (*ix) {
		g = &l->regions[*ix - 1];
		return g->pid == pid && !strcmp(g->name, name) ? (uint32_t)*ix : 0;
	}
	if (l->nregions >= LIVE_REGIONS_MAX ||
	    mt_grow_array(&l->regions, &l->regions_cap, l->nregions + 1, sizeof(*l->regions)) < 0) {
		mt_map64_del(&l->region_ix, region_key(pid, name));
		return 0;
	}
	g = &l->regions[l->nregions];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	mt_strlcpy(g->name, name, sizeof(g->name));
	*ix = ++l->nregions;
	return (uint32_t)*ix;
}

/* The bytes of each region with ranges in m: the sizes of its ranges now. */
static void region_sizes(struct mt_live *l, struct live_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].region)
			l->regions[m->v[i].region - 1].bytes = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].region)
			l->regions[m->v[i].region - 1].bytes += m->v[i].hi - m->v[i].lo;
}

/* Reads pid's mappings again; the ranges of regions already found find them again. */
static void maps_read(struct mt_live *l, struct live_proc *p, uint64_t now)
{
	struct live_maps *m = p->maps, old;

	if (!m && !(m = p->maps = calloc(1, sizeof(*m))))
		return;
	old = *m;
	memset(m, 0, sizeof(*m));
	m->read_ns = now;
	if (mt_procfs_maps(p->pid, add_range, m) != 0) {
		free(m->v);
		free(m->names);
		*m = old; /* gone, or no memory: the last reading stays */
		m->read_ns = now;
		return;
	}
	for (size_t i = 0; i < m->n; i++) {
		char name[sizeof(l->regions[0].name)];
		uint64_t *ix;

		region_name(m, &m->v[i], name, sizeof(name));
		ix = mt_map64_get(&l->region_ix, region_key(p->pid, name));
		if (ix && l->regions[*ix - 1].pid == p->pid &&
		    !strcmp(l->regions[*ix - 1].name, name))
			m->v[i].region = (uint32_t)*ix;
	}
	region_sizes(l, m);
	free(old.v);
	free(old.names);
}

static struct live_range *range_of(struct live_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->v[mid].lo)
			hi = mid;
		else if (addr >= m->v[mid].hi)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

void mt_live_sample(struct mt_live *l, struct live_proc *p, uint64_t addr, uint64_t now)
{
	struct live_range *r = range_of(p->maps, addr);

	if (!r && (!p->maps || now - p->maps->read_ns >= LIVE_MAPS_EVERY_NS)) {
		maps_read(l, p, now);
		r = range_of(p->maps, addr);
	}
	if (r && !r->region && (r->region = region_of(l, p->pid, p->maps, r)))
		region_sizes(l, p->maps);
	if (!r || !r->region) {
		p->unplaced++;
		return;
	}
	l->regions[r->region - 1].samples++;
}

/* A process that is gone: its regions leave the list (their samples stay in its count). */
void mt_live_regions_forget(struct mt_live *l, pid_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < l->nregions; i++)
		if (l->regions[i].pid != pid)
			l->regions[k++] = l->regions[i];
	if (k == l->nregions)
		return;
	l->nregions = k;
	/* the survivors moved: the index is made again, the ranges find theirs at their
	 * processes' next reading */
	mt_map64_release(&l->region_ix);
	for (size_t i = 0; i < l->nregions; i++) {
		uint64_t *ix;

		if (mt_map64_put(&l->region_ix, region_key(l->regions[i].pid, l->regions[i].name),
				 &ix) == 0)
			*ix = i + 1;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct live_maps *m = l->v[i].maps;

		for (size_t j = 0; m && j < m->n; j++)
			m->v[j].region = 0;
		if (m)
			m->read_ns = 0;
	}
}

static int by_samples(const void *a, const void *b)
{
	const struct live_region *x = *(const struct live_region *const *)a;
	const struct live_region *y = *(const struct live_region *const *)b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* "region PID SAMPLES BYTES NAME", the most sampled first. */
void mt_live_regions_print(struct mt_live *l, FILE *f)
{
	struct live_region **v = l->nregions ? malloc(l->nregions * sizeof(*v)) : NULL;
	size_t n = 0;

	for (size_t i = 0; v && i < l->nregions; i++)
		v[n++] = &l->regions[i];
	if (n)
		qsort(v, n, sizeof(*v), by_samples);
	for (size_t i = 0; i < n && i < REGIONS_SHOWN; i++) {
		char name[sizeof(v[i]->name)];

		mt_strlcpy(name, v[i]->name, sizeof(name));
		for (char *c = name; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = '?';
		fprintf(f, "region %d %" PRIu64 " %" PRIu64 " %s\n", (int)v[i]->pid, v[i]->samples,
			v[i]->bytes, name);
	}
	free(v);
}

void mt_live_regions_release(struct mt_live *l)
{
	for (size_t i = 0; i < l->n; i++) {
		mt_live_maps_free(l->v[i].maps);
		l->v[i].maps = NULL;
	}
	free(l->regions);
	l->regions = NULL;
	l->nregions = 0;
	mt_map64_release(&l->region_ix);
	mt_map64_release(&l->wss);
}
