/* SPDX-License-Identifier: MIT */
/* Sampled accesses and faults on a compacted address axis. */
#include "export/addrmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/access.h"
#include "format/reader.h"

#define GAP (16ull << 20) /* touched addresses further apart start a new band */

int mt_addrmap_init(struct mt_addrmap *m, struct mt_reader *r, size_t max)
{
	memset(m, 0, sizeof(*m));
	m->max = max ? max : 1;
	/* decided before the pass from the event counts (unresolved samples included, so at
	 * most max points are kept), evenly through the run */
	m->stride =
		(mt_reader_event_count(r, MT_EV_ACCESS) + mt_reader_event_count(r, MT_EV_FAULT)) /
			m->max +
		1;
	m->pts = malloc(m->max * sizeof(*m->pts));
	return m->pts ? 0 : -ENOMEM;
}

void mt_addrmap_row(void *ctx, const struct mt_access_row *r)
{
	struct mt_addrmap *m = ctx;

	if (!r->has_region || !r->addr)
		return; /* an allocation call, or a sample without an address */
	if (m->seen++ % m->stride || m->npts == m->max)
		return;
	m->pts[m->npts++] = (struct mt_addr_pt){
		.t = r->time_ns,
		.addr = r->addr,
		.pid = r->pid,
		.region = (uint32_t)r->region_id,
		.kind = !strcmp(r->op, "load")		? MT_PT_LOAD
			: !strcmp(r->op, "store")	? MT_PT_STORE
			: !strcmp(r->op, "fault_major") ? MT_PT_FAULT_MAJOR
							: MT_PT_FAULT_MINOR,
	};
}

static int cmp_pid_addr(const void *a, const void *b, void *arg)
{
	const struct mt_addr_pt *p = arg;
	const struct mt_addr_pt *x = &p[*(const uint32_t *)a], *y = &p[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Per process, the touched addresses in bands where no gap exceeds GAP; each band gets a
 * height that grows with the log of its span and with its share of the points, so a busy
 * 4 KiB stack and a 1 GiB heap both stay readable.
 */
int mt_addrmap_segments(struct mt_addrmap *m)
{
	size_t n = m->npts ? m->npts : 1;
	uint32_t *ord = malloc(n * sizeof(*ord));
	double total = 0, y = 0;

	m->seg_of = malloc(n * sizeof(*m->seg_of));
	m->segs = malloc(n * sizeof(*m->segs));
	if (!ord || !m->seg_of || !m->segs) {
		free(ord);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->npts; i++)
		ord[i] = (uint32_t)i;
	qsort_r(ord, m->npts, sizeof(*ord), cmp_pid_addr, m->pts);
	for (size_t k = 0; k < m->npts; k++) {
		const struct mt_addr_pt *p = &m->pts[ord[k]];
		struct mt_addr_seg *s = m->nsegs ? &m->segs[m->nsegs - 1] : NULL;

		if (!s || s->pid != p->pid || (p->addr >= s->hi && p->addr - s->hi > GAP)) {
			s = &m->segs[m->nsegs++];
			*s = (struct mt_addr_seg){ .pid = p->pid, .lo = p->addr & ~4095ull };
		}
		if ((p->addr | 4095) + 1 > s->hi)
			s->hi = (p->addr | 4095) + 1;
		s->points++;
		m->seg_of[ord[k]] = (uint32_t)(m->nsegs - 1);
	}
	free(ord);
	for (size_t i = 0; i < m->nsegs; i++) {
		struct mt_addr_seg *s = &m->segs[i];
		int lg = 0;

		while ((1ull << lg) < s->hi - s->lo && lg < 63)
			lg++;
		s->h = 1.0 + (lg > 12 ? (lg - 12) / 4.0 : 0) + 4.0 * (double)s->points / (double)n;
		total += s->h;
	}
	for (size_t i = 0; i < m->nsegs; i++) {
		m->segs[i].h /= total ? total : 1;
		m->segs[i].y0 = y;
		y += m->segs[i].h;
	}
	return 0;
}

double mt_addrmap_y(const struct mt_addrmap *m, size_t i)
{
	const struct mt_addr_seg *s = &m->segs[m->seg_of[i]];

	return s->y0 + s->h * (double)(m->pts[i].addr - s->lo) / (double)(s->hi - s->lo);
}

void mt_addrmap_release(struct mt_addrmap *m)
{
	free(m->pts);
	free(m->segs);
	free(m->seg_of);
	memset(m, 0, sizeof(*m));
}
