/* SPDX-License-Identifier: MIT */
/* The placement table: the report's what-if placement, one row per candidate and tier, in
 * its ranking (docs/exports.md, docs/metrics.md "What-if placement"). */
#include <math.h>

#include "analysis/placement.h"
#include "export/tables-internal.h"

enum {
	PL_TIER,
	PL_TIER_READ,
	PL_TIER_WRITE,
	PL_TIER_RET,
	PL_KIND,
	PL_PID,
	PL_TYPE,
	PL_LABEL,
	PL_SITE,
	PL_MRM,
	PL_BYTES,
	PL_BASIS,
	PL_PERIOD,
	PL_UNIT,
	PL_RBPS,
	PL_RBPS_ERR,
	PL_WBPS,
	PL_WBPS_ERR,
	PL_RTIME,
	PL_WTIME,
	PL_TIME_ERR,
	PL_ADDED,
	PL_ADDED_ERR,
	PL_REFRESH,
	PL_REFRESH_LO,
	PL_REFRESH_HI,
	PL_REFRESH_BPS,
	PL_REFRESH_S,
	PL_CENSORED,
	PL_COST,
	PL_SCORE,
	PL_NO_COST,
};
static const struct mt_col cols[] = {
	[PL_TIER] = { "tier", MT_COL_STRING, false },
	[PL_TIER_READ] = { "tier_read_latency_ns", MT_COL_DOUBLE, false },
	[PL_TIER_WRITE] = { "tier_write_latency_ns", MT_COL_DOUBLE, false },
	[PL_TIER_RET] = { "tier_retention_s", MT_COL_DOUBLE, true },
	[PL_KIND] = { "kind", MT_COL_STRING, false },
	[PL_PID] = { "pid", MT_COL_I64, false },
	[PL_TYPE] = { "region_type", MT_COL_STRING, false },
	[PL_LABEL] = { "label", MT_COL_STRING, false },
	[PL_SITE] = { "site_id", MT_COL_I64, true },
	[PL_MRM] = { "mrm", MT_COL_STRING, false },
	[PL_BYTES] = { "bytes", MT_COL_I64, false },
	[PL_BASIS] = { "basis", MT_COL_STRING, false },
	[PL_PERIOD] = { "sample_period", MT_COL_I64, true },
	[PL_UNIT] = { "sample_unit", MT_COL_STRING, true },
	[PL_RBPS] = { "read_bytes_per_s", MT_COL_DOUBLE, true },
	[PL_RBPS_ERR] = { "read_bytes_per_s_error", MT_COL_DOUBLE, true },
	[PL_WBPS] = { "write_bytes_per_s", MT_COL_DOUBLE, true },
	[PL_WBPS_ERR] = { "write_bytes_per_s_error", MT_COL_DOUBLE, true },
	[PL_RTIME] = { "read_time_s", MT_COL_DOUBLE, true },
	[PL_WTIME] = { "write_time_s", MT_COL_DOUBLE, true },
	[PL_TIME_ERR] = { "access_time_error_s", MT_COL_DOUBLE, true },
	[PL_ADDED] = { "added_time_s", MT_COL_DOUBLE, true },
	[PL_ADDED_ERR] = { "added_time_error_s", MT_COL_DOUBLE, true },
	[PL_REFRESH] = { "refresh_bytes", MT_COL_DOUBLE, true },
	[PL_REFRESH_LO] = { "refresh_bytes_low", MT_COL_DOUBLE, true },
	[PL_REFRESH_HI] = { "refresh_bytes_high", MT_COL_DOUBLE, true },
	[PL_REFRESH_BPS] = { "refresh_bytes_per_s", MT_COL_DOUBLE, true },
	[PL_REFRESH_S] = { "refresh_time_s", MT_COL_DOUBLE, true },
	[PL_CENSORED] = { "censored", MT_COL_I64, false },
	[PL_COST] = { "cost_s", MT_COL_DOUBLE, true },
	[PL_SCORE] = { "dram_bytes_per_cost_s", MT_COL_DOUBLE, true },
	[PL_NO_COST] = { "no_cost", MT_COL_I64, false },
};

static int start(struct out *o, struct rows *r)
{
	r->n = o->rep->nplaces;
	mt_report_sampling(o->rep, &r->smp.period, &r->smp.hz, &r->smp.unit);
	return 0;
}

static int row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_report *rep = o->rep;
	const struct mt_placement *p = &rep->places[i];
	const struct mt_candidate *c = &rep->cands[p->cand];
	const struct mt_access_region *g = &rep->access.st.regions[c->region];
	const struct mt_tier *t = &rep->tiers.v[p->tier];

	mt_sink_str(s, PL_TIER, t->name);
	mt_sink_dbl(s, PL_TIER_READ, t->read_ns);
	mt_sink_dbl(s, PL_TIER_WRITE, t->write_ns);
	if (t->retention_s > 0)
		mt_sink_dbl(s, PL_TIER_RET, t->retention_s);
	mt_sink_str(s, PL_KIND, mt_cand_kind_name(c->kind));
	mt_sink_i64(s, PL_PID, c->pid);
	mt_sink_str(s, PL_TYPE, mt_report_region_type(rep, g));
	mt_sink_str(s, PL_LABEL, mt_report_region_label(rep, g, r->text, sizeof(r->text)));
	if (c->site >= 0)
		mt_sink_i64(s, PL_SITE, c->site);
	mt_sink_str(s, PL_MRM, mt_mrm_name(c->mrm));
	mt_sink_i64(s, PL_BYTES, (int64_t)p->bytes);
	mt_sink_str(s, PL_BASIS,
		    mt_place_basis_name(mt_place_basis_of(r->smp.period, r->smp.unit)));
	if (r->smp.period)
		mt_sink_i64(s, PL_PERIOD, (int64_t)r->smp.period);
	mt_sink_str(s, PL_UNIT, r->smp.unit);
	mt_sink_dbl(s, PL_RBPS, p->read_bps);
	mt_sink_dbl(s, PL_RBPS_ERR, p->read_bps_err);
	mt_sink_dbl(s, PL_WBPS, p->write_bps);
	mt_sink_dbl(s, PL_WBPS_ERR, p->write_bps_err);
	mt_sink_dbl(s, PL_RTIME, p->read_time_s);
	mt_sink_dbl(s, PL_WTIME, p->write_time_s);
	mt_sink_dbl(s, PL_TIME_ERR, p->time_err_s);
	mt_sink_dbl(s, PL_ADDED, p->added_s);
	mt_sink_dbl(s, PL_ADDED_ERR, p->added_err_s);
	mt_sink_dbl(s, PL_REFRESH, p->refresh_bytes);
	mt_sink_dbl(s, PL_REFRESH_LO, p->refresh_lo);
	mt_sink_dbl(s, PL_REFRESH_HI, p->refresh_hi);
	mt_sink_dbl(s, PL_REFRESH_BPS, p->refresh_bps);
	mt_sink_dbl(s, PL_REFRESH_S, p->refresh_s);
	mt_sink_i64(s, PL_CENSORED, c->censored);
	mt_sink_dbl(s, PL_COST, p->cost_s);
	mt_sink_dbl(s, PL_SCORE, isinf(p->score) ? NAN : p->score);
	mt_sink_i64(s, PL_NO_COST, isinf(p->score));
	return 1;
}

const struct table_def mt_table_placement = TABLE("placement", cols, start, row);
