/* SPDX-License-Identifier: MIT */
/* What-if placement: each candidate on each tier it could move to (docs/metrics.md). */
#include "analysis/placement.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

#define Z95 1.96 /* the normal quantile of a 95% interval */

enum mt_place_basis mt_place_basis_of(uint64_t period, const char *unit)
{
	if (!period || !unit)
		return MT_PLACE_NONE;
	if (!strcmp(unit, "ns"))
		return MT_PLACE_TIME;
	if (!strcmp(unit, "cycles"))
		return MT_PLACE_CYCLES;
	return MT_PLACE_COUNTS; /* loads (PEBS), ops (IBS), ... */
}

const char *mt_place_basis_name(unsigned basis)
{
	static const char *const n[] = { "none", "counts", "cpu_time", "cycles" };

	return basis < 4 ? n[basis] : "?";
}

/* The sampled figures: bandwidth (counts) or CPU time (time), and the added time. */
static void sampled(const struct mt_place_in *in, const struct mt_candidate *c,
		    const struct mt_tier *d, const struct mt_tier *t, struct mt_placement *p)
{
	/* a spin-wait re-reads one line from the cache: moving its memory does not slow it */
	uint64_t spin = c->spin_samples < c->read_samples ? c->spin_samples : c->read_samples;
	double per = (double)in->period, rs = (double)(c->read_samples - spin),
	       ws = (double)c->write_samples;

	p->read_bps = p->read_bps_err = p->write_bps = p->write_bps_err = NAN;
	p->read_time_s = p->write_time_s = p->time_err_s = NAN;
	p->added_s = p->added_err_s = NAN;
	switch (mt_place_basis_of(in->period, in->unit)) {
	case MT_PLACE_COUNTS: {
		double dr = (t->read_ns - d->read_ns) * 1e-9,
		       dw = (t->write_ns - d->write_ns) * 1e-9;
		double line = MT_PLACE_LINE / in->run_s;

		if (in->run_s > 0) {
			p->read_bps = rs * per * line;
			p->read_bps_err = Z95 * sqrt(rs) * per * line;
			p->write_bps = ws * per * line;
			p->write_bps_err = Z95 * sqrt(ws) * per * line;
		}
		p->added_s = (rs * dr + ws * dw) * per;
		p->added_err_s = Z95 * sqrt(rs * dr * dr + ws * dw * dw) * per;
		break;
	}
	case MT_PLACE_TIME: {
		double a = t->read_ns / d->read_ns - 1, b = t->write_ns / d->write_ns - 1;

		p->read_time_s = rs * per * 1e-9;
		p->write_time_s = ws * per * 1e-9;
		p->time_err_s = Z95 * sqrt(rs + ws) * per * 1e-9;
		p->added_s = p->read_time_s * a + p->write_time_s * b;
		p->added_err_s = Z95 * sqrt(rs * a * a + ws * b * b) * per * 1e-9;
		break;
	}
	default:
		break;
	}
}

/* The tier's retention window's index among the model's windows, or -1. */
static int window_of(const struct mt_tiers *m, unsigned tier)
{
	int k = 0;

	if (!(m->v[tier].retention_s > 0))
		return -1;
	for (unsigned i = 0; i < tier; i++)
		k += m->v[i].retention_s > 0;
	return k < MT_TIERS_MAX_R ? k : -1;
}

static void refresh(const struct mt_place_in *in, const struct mt_candidate *c, unsigned tier,
		    struct mt_placement *p)
{
	const struct mt_tier *t = &in->tiers->v[tier];
	int k = window_of(in->tiers, tier);

	if (!(t->retention_s > 0)) {
		p->refresh_bytes = p->refresh_lo = p->refresh_hi = p->refresh_bps = p->refresh_s =
			0;
		return;
	}
	if (k < 0 || !c->refresh_known) {
		p->refresh_bytes = p->refresh_lo = p->refresh_hi = p->refresh_bps = p->refresh_s =
			NAN;
		return;
	}
	p->refresh_bytes = c->refresh_bytes[k][0];
	p->refresh_lo = c->refresh_bytes[k][1];
	p->refresh_hi = c->refresh_bytes[k][2];
	p->refresh_bps = in->run_s > 0 ? p->refresh_bytes / in->run_s : NAN;
	p->refresh_s = p->refresh_bytes / MT_PLACE_LINE * t->write_ns * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	const struct mt_placement *x = a, *y = b;
	bool kx = !isnan(x->score), ky = !isnan(y->score);

	if (kx != ky)
		return kx ? -1 : 1;
	if (kx && x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->cand != y->cand)
		return x->cand < y->cand ? -1 : 1;
	return x->tier < y->tier ? -1 : x->tier > y->tier;
}

int mt_placement_build(const struct mt_place_in *in, struct mt_placement **out, size_t *n)
{
	unsigned targets = in->tiers->n > 1 ? in->tiers->n - 1 : 0;
	size_t nv = 0, cap = in->ncands * targets;
	struct mt_placement *v = calloc(cap ? cap : 1, sizeof(*v));

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < in->ncands; i++)
		for (unsigned k = 1; k <= targets; k++) {
			const struct mt_candidate *c = &in->cands[i];
			struct mt_placement *p = &v[nv++];

			p->cand = i;
			p->tier = k;
			p->bytes = c->bytes;
			sampled(in, c, &in->tiers->v[0], &in->tiers->v[k], p);
			refresh(in, c, k, p);
			p->cost_s = p->added_s + p->refresh_s;
			p->score = isnan(p->cost_s) ? NAN
				   : p->cost_s <= 0 ? INFINITY
						    : (double)p->bytes / p->cost_s;
		}
	if (nv)
		mt_qsort(v, nv, sizeof(*v), cmp);
	*out = v;
	*n = nv;
	return 0;
}
