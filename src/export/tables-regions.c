/* SPDX-License-Identifier: MIT */
/* The exported tables of the region model: region_map, kv_block_lifecycle, metrics, sites,
 * phases and mrm_candidates, each a description (columns and a row function) that
 * tables-rows.c's writer writes (docs/exports.md). */
#include "export/tables-internal.h"

#include <errno.h>
#include <stdlib.h>

#include "analysis/candidates.h"
#include "export/table.h"

/* An MRM label, what decided it, and the sampling: five consecutive columns from col. */
static void sink_mrm(struct mt_sink *s, unsigned col, unsigned label, unsigned by,
		     const struct sampling *smp)
{
	char b[64];

	mt_sink_str(s, col, mt_mrm_name(label));
	if (by)
		mt_sink_str(s, col + 1, mt_mrm_by_name(by, b, sizeof(b)));
	if (smp->period)
		mt_sink_i64(s, col + 2, (int64_t)smp->period);
	if (smp->hz)
		mt_sink_i64(s, col + 3, (int64_t)smp->hz);
	if (smp->unit)
		mt_sink_str(s, col + 4, smp->unit);
}

/* Why censoring left a label open (null when it did not). */
static void sink_note(struct mt_sink *s, unsigned col, const struct mt_access_stats *st,
		      unsigned open, double retention_s, uint64_t born_ns, uint64_t alive,
		      uint64_t of)
{
	char note[256];
	double run;

	if (mt_report_censor_note(st, open, retention_s, born_ns, alive, of, note, sizeof(note),
				  &run)[0])
		mt_sink_str(s, col, note);
}

/* region_map: one row per region, with its behaviour. */
enum {
	RM_ID,
	RM_PID,
	RM_TYPE,
	RM_LABEL,
	RM_START,
	RM_END,
	RM_BYTES,
	RM_SITE,
	RM_SAMPLES,
	RM_READS,
	RM_WRITES,
	RM_EREADS,
	RM_EWRITES,
	RM_FMIN,
	RM_FMAJ,
	RM_T_START,
	RM_T_END,
	RM_RET,
	RM_LIFE,
	RM_WO,
	RM_WOB,
	RM_WSS,
	RM_MRM,
	RM_MRMBY,
	RM_SPER,
	RM_SHZ,
	RM_SUNIT,
	RM_TYPED_BY,
	RM_CENSORED,
	RM_NOTE
};
static const struct mt_col region_cols[] = {
	[RM_ID] = { "region_id", MT_COL_I64, false },
	[RM_PID] = { "pid", MT_COL_I64, false },
	[RM_TYPE] = { "region_type", MT_COL_STRING, false },
	[RM_LABEL] = { "label", MT_COL_STRING, false },
	[RM_START] = { "start", MT_COL_U64, true },
	[RM_END] = { "end", MT_COL_U64, true },
	[RM_BYTES] = { "bytes", MT_COL_I64, true },
	[RM_SITE] = { "site_id", MT_COL_I64, true },
	[RM_SAMPLES] = { "samples", MT_COL_I64, false },
	[RM_READS] = { "total_reads", MT_COL_I64, false },
	[RM_WRITES] = { "total_writes", MT_COL_I64, false },
	[RM_EREADS] = { "reads_estimated", MT_COL_I64, false },
	[RM_EWRITES] = { "writes_estimated", MT_COL_I64, false },
	[RM_FMIN] = { "faults_minor", MT_COL_I64, false },
	[RM_FMAJ] = { "faults_major", MT_COL_I64, false },
	[RM_T_START] = { "start_ns", MT_COL_I64, false },
	[RM_T_END] = { "end_ns", MT_COL_I64, true },
	[RM_RET] = { "retention_s", MT_COL_DOUBLE, true },
	[RM_LIFE] = { "lifetime_s", MT_COL_DOUBLE, true },
	[RM_WO] = { "write_once_ratio", MT_COL_DOUBLE, true },
	[RM_WOB] = { "write_once_basis", MT_COL_STRING, false },
	[RM_WSS] = { "wss_peak_pages", MT_COL_I64, false },
	[RM_MRM] = { "mrm", MT_COL_STRING, false },
	[RM_MRMBY] = { "mrm_decided_by", MT_COL_STRING, true },
	[RM_SPER] = { "sample_period", MT_COL_I64, true },
	[RM_SHZ] = { "sample_frequency_hz", MT_COL_I64, true },
	[RM_SUNIT] = { "sample_unit", MT_COL_STRING, true },
	[RM_TYPED_BY] = { "typed_by", MT_COL_STRING, true },
	[RM_CENSORED] = { "censored", MT_COL_I64, false },
	[RM_NOTE] = { "mrm_note", MT_COL_STRING, true },
};

static int regions_start(struct out *o, struct rows *r)
{
	mt_report_sampling(o->rep, &r->smp.period, &r->smp.hz, &r->smp.unit);
	r->n = o->rep->access.nregions;
	return 0;
}

static int region_row(struct out *o, struct rows *r, struct mt_sink *s, size_t k)
{
	const struct mt_report_access *ra = &o->rep->access;
	const struct mt_access_region *g = &ra->st.regions[ra->regions[k]];
	const struct mt_region_behavior *b = &g->b;

	mt_sink_i64(s, RM_ID, (int64_t)ra->regions[k]);
	mt_sink_i64(s, RM_PID, g->pid);
	mt_sink_str(s, RM_TYPE, mt_report_region_type(o->rep, g));
	mt_sink_str(s, RM_LABEL, mt_report_region_label(o->rep, g, r->text, sizeof(r->text)));
	if (g->end > g->start) {
		mt_sink_u64(s, RM_START, g->start);
		mt_sink_u64(s, RM_END, g->end);
		mt_sink_i64(s, RM_BYTES, (int64_t)(g->end - g->start));
	}
	if (g->site >= 0)
		mt_sink_i64(s, RM_SITE, g->site);
	mt_sink_i64(s, RM_SAMPLES, (int64_t)g->c.samples);
	mt_sink_i64(s, RM_READS, (int64_t)g->c.read_samples);
	mt_sink_i64(s, RM_WRITES, (int64_t)g->c.write_samples);
	mt_sink_i64(s, RM_EREADS, (int64_t)g->c.reads);
	mt_sink_i64(s, RM_EWRITES, (int64_t)g->c.writes);
	mt_sink_i64(s, RM_FMIN, (int64_t)g->faults_minor);
	mt_sink_i64(s, RM_FMAJ, (int64_t)g->faults_major);
	mt_sink_i64(s, RM_T_START, (int64_t)g->t_start);
	mt_sink_ns(s, RM_T_END, b->end_ns);
	mt_sink_dbl(s, RM_RET, b->retention_s);
	mt_sink_dbl(s, RM_LIFE, b->lifetime_s);
	if (b->write_once >= 0)
		mt_sink_dbl(s, RM_WO, b->write_once);
	mt_sink_str(s, RM_WOB, mt_wo_basis_name(b->wo_basis));
	mt_sink_i64(s, RM_WSS, (int64_t)b->wss_peak_pages);
	sink_mrm(s, RM_MRM, b->mrm, b->mrm_by, &r->smp);
	mt_sink_str(s, RM_TYPED_BY, mt_report_typed_by(g, r->text, sizeof(r->text)));
	mt_sink_i64(s, RM_CENSORED, mt_region_censored(b));
	sink_note(s, RM_NOTE, &ra->st, b->mrm_open, b->retention_s,
		  b->first_write_ns ? b->first_write_ns : g->t_start, 0, 0);
	return 1;
}

/* kv_block_lifecycle (the seed's name): every labelled object and large heap block. */
enum { LC_ID, LC_TYPE, LC_LABEL, LC_BYTES, LC_T_START, LC_FW, LC_LW, LC_FR, LC_LR, LC_T_END };
static const struct mt_col lifecycle_cols[] = {
	[LC_ID] = { "region_id", MT_COL_I64, false },
	[LC_TYPE] = { "region_type", MT_COL_STRING, false },
	[LC_LABEL] = { "label", MT_COL_STRING, false },
	[LC_BYTES] = { "bytes", MT_COL_I64, false },
	[LC_T_START] = { "start_ns", MT_COL_I64, false },
	[LC_FW] = { "first_write_ns", MT_COL_I64, true },
	[LC_LW] = { "last_write_ns", MT_COL_I64, true },
	[LC_FR] = { "first_read_ns", MT_COL_I64, true },
	[LC_LR] = { "last_read_ns", MT_COL_I64, true },
	[LC_T_END] = { "end_ns", MT_COL_I64, true },
};

static int all_regions_start(struct out *o, struct rows *r)
{
	r->n = o->rep->access.st.nregions;
	return 0;
}

static int lifecycle_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_access_region *g = &o->rep->access.st.regions[i];
	const struct mt_region_behavior *b = &g->b;

	if (g->type != MT_REGION_LABEL && g->type != MT_REGION_ALLOCATION)
		return 0;
	mt_sink_i64(s, LC_ID, (int64_t)i);
	mt_sink_str(s, LC_TYPE, mt_report_region_type(o->rep, g));
	mt_sink_str(s, LC_LABEL, mt_report_region_label(o->rep, g, r->text, sizeof(r->text)));
	mt_sink_i64(s, LC_BYTES, (int64_t)(g->end - g->start));
	mt_sink_i64(s, LC_T_START, (int64_t)g->t_start);
	mt_sink_ns(s, LC_FW, b->first_write_ns);
	mt_sink_ns(s, LC_LW, b->last_write_ns);
	mt_sink_ns(s, LC_FR, b->first_read_ns);
	mt_sink_ns(s, LC_LR, b->last_read_ns);
	mt_sink_ns(s, LC_T_END, b->end_ns);
	return 1;
}

/* metrics: one row per region type, the report's by_type figures. */
enum {
	MX_TYPE,
	MX_REGIONS,
	MX_READS,
	MX_WRITES,
	MX_RF,
	MX_RPW,
	MX_R50,
	MX_R90,
	MX_R99,
	MX_L50,
	MX_WO,
	MX_MS,
	MX_MDS,
	MX_SP,
	MX_I50,
	MX_I90,
	MX_I99,
	MX_RD50,
	MX_WSS,
	MX_MRM,
	MX_MRMBY,
	MX_SPER,
	MX_SHZ,
	MX_SUNIT,
	MX_RCENS,
	MX_LCENS,
	MX_NOTE
};
static const struct mt_col metric_cols[] = {
	[MX_TYPE] = { "region_type", MT_COL_STRING, false },
	[MX_REGIONS] = { "regions", MT_COL_I64, false },
	[MX_READS] = { "total_reads", MT_COL_I64, false },
	[MX_WRITES] = { "total_writes", MT_COL_I64, false },
	[MX_RF] = { "read_fraction", MT_COL_DOUBLE, true },
	[MX_RPW] = { "reads_per_write", MT_COL_DOUBLE, true },
	[MX_R50] = { "retention_p50_s", MT_COL_DOUBLE, true },
	[MX_R90] = { "retention_p90_s", MT_COL_DOUBLE, true },
	[MX_R99] = { "retention_p99_s", MT_COL_DOUBLE, true },
	[MX_L50] = { "lifetime_p50_s", MT_COL_DOUBLE, true },
	[MX_WO] = { "write_once_ratio", MT_COL_DOUBLE, true },
	[MX_MS] = { "mean_stride_bytes", MT_COL_DOUBLE, true },
	[MX_MDS] = { "median_stride_bytes", MT_COL_DOUBLE, true },
	[MX_SP] = { "same_page_fraction", MT_COL_DOUBLE, true },
	[MX_I50] = { "iai_p50_ns", MT_COL_I64, true },
	[MX_I90] = { "iai_p90_ns", MT_COL_I64, true },
	[MX_I99] = { "iai_p99_ns", MT_COL_I64, true },
	[MX_RD50] = { "reuse_p50_lines", MT_COL_I64, true },
	[MX_WSS] = { "wss_peak_pages", MT_COL_I64, true },
	[MX_MRM] = { "mrm", MT_COL_STRING, false },
	[MX_MRMBY] = { "mrm_decided_by", MT_COL_STRING, true },
	[MX_SPER] = { "sample_period", MT_COL_I64, true },
	[MX_SHZ] = { "sample_frequency_hz", MT_COL_I64, true },
	[MX_SUNIT] = { "sample_unit", MT_COL_STRING, true },
	[MX_RCENS] = { "retention_censored", MT_COL_I64, false },
	[MX_LCENS] = { "lifetime_censored", MT_COL_I64, false },
	[MX_NOTE] = { "mrm_note", MT_COL_STRING, true },
};

static int metrics_start(struct out *o, struct rows *r)
{
	mt_report_sampling(o->rep, &r->smp.period, &r->smp.hz, &r->smp.unit);
	r->n = o->rep->access.st.ntypes;
	return 0;
}

static int metric_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_type_metrics *m = &o->rep->access.st.types[i];

	if (!m->regions)
		return 0;
	mt_sink_str(s, MX_TYPE, m->name);
	mt_sink_i64(s, MX_REGIONS, (int64_t)m->regions);
	mt_sink_i64(s, MX_READS, (int64_t)m->read_samples);
	mt_sink_i64(s, MX_WRITES, (int64_t)m->write_samples);
	mt_sink_dbl(s, MX_RF, m->read_fraction);
	mt_sink_dbl(s, MX_RPW, m->reads_per_write);
	for (unsigned q = 0; q < 3; q++)
		mt_sink_dbl(s, MX_R50 + q, m->retention_s[q]);
	mt_sink_dbl(s, MX_L50, m->lifetime_s[0]);
	if (m->write_once >= 0)
		mt_sink_dbl(s, MX_WO, m->write_once);
	mt_sink_dbl(s, MX_MS, m->stride_mean);
	mt_sink_dbl(s, MX_MDS, m->stride_median);
	mt_sink_dbl(s, MX_SP, m->same_page_fraction);
	for (unsigned q = 0; m->iai.n && q < 3; q++)
		mt_sink_i64(s, MX_I50 + q, (int64_t)m->iai_ns[q]);
	if (m->reuse.n)
		mt_sink_i64(s, MX_RD50, (int64_t)m->reuse_lines[0]);
	if (m->touches)
		mt_sink_i64(s, MX_WSS, (int64_t)m->wss_peak_pages);
	sink_mrm(s, MX_MRM, m->mrm, m->mrm_by, &r->smp);
	mt_sink_i64(s, MX_RCENS, (int64_t)m->retention.censored);
	mt_sink_i64(s, MX_LCENS, (int64_t)m->lifetime.censored);
	sink_note(s, MX_NOTE, &o->rep->access.st, m->mrm_open,
		  m->mrm_open & MT_MRM_NEEDS_HIGH ? m->retention_s[2] : m->retention_s[0], 0,
		  m->retention.censored, m->retention.n);
	return 1;
}

/* sites: each allocation site's heap bytes beside its samples, faults and touched pages. */
enum {
	SI_ID,
	SI_PID,
	SI_FUNC,
	SI_SAMPLES,
	SI_READS,
	SI_WRITES,
	SI_FAULTS,
	SI_PAGES,
	SI_BYTES,
	SI_PEAK,
	SI_MAXLIVE,
	SI_CALLS
};
static const struct mt_col site_cols[] = {
	[SI_ID] = { "site_id", MT_COL_I64, false },
	[SI_PID] = { "pid", MT_COL_I64, false },
	[SI_FUNC] = { "function", MT_COL_STRING, false },
	[SI_SAMPLES] = { "samples", MT_COL_I64, false },
	[SI_READS] = { "total_reads", MT_COL_I64, false },
	[SI_WRITES] = { "total_writes", MT_COL_I64, false },
	[SI_FAULTS] = { "faults", MT_COL_I64, false },
	[SI_PAGES] = { "pages_touched", MT_COL_I64, false },
	[SI_BYTES] = { "allocated_bytes", MT_COL_I64, true },
	[SI_PEAK] = { "peak_bytes", MT_COL_I64, true },
	[SI_MAXLIVE] = { "max_live_bytes", MT_COL_I64, true },
	[SI_CALLS] = { "calls", MT_COL_I64, true },
};

static int sites_start(struct out *o, struct rows *r)
{
	r->order = mt_report_ranked_sites(&o->rep->access.st, &r->n);
	return r->order ? 0 : -ENOMEM;
}

static int site_row(struct out *o, struct rows *r, struct mt_sink *s, size_t k)
{
	const struct mt_access_site *as = &o->rep->access.st.sites[r->order[k]];
	const struct mt_alloc_site *a = mt_report_alloc_site(o->rep, as);

	mt_sink_i64(s, SI_ID, (int64_t)r->order[k]);
	mt_sink_i64(s, SI_PID, as->pid);
	mt_sink_str(s, SI_FUNC, mt_report_site_name(o->rep, r->order[k], r->text, sizeof(r->text)));
	mt_sink_i64(s, SI_SAMPLES, (int64_t)as->c.samples);
	mt_sink_i64(s, SI_READS, (int64_t)as->c.read_samples);
	mt_sink_i64(s, SI_WRITES, (int64_t)as->c.write_samples);
	mt_sink_i64(s, SI_FAULTS, (int64_t)as->faults);
	mt_sink_i64(s, SI_PAGES, (int64_t)as->pages);
	if (a) {
		mt_sink_i64(s, SI_BYTES, (int64_t)a->bytes);
		mt_sink_i64(s, SI_PEAK, (int64_t)a->peak_bytes);
		mt_sink_i64(s, SI_MAXLIVE, (int64_t)a->max_live_bytes);
		mt_sink_i64(s, SI_CALLS, (int64_t)a->calls);
	}
	return 1;
}

/* phases: time, samples, faults, pages written and working set per phase. */
enum {
	PH_NAME,
	PH_SOURCE,
	PH_VISITS,
	PH_DURATION,
	PH_SAMPLES,
	PH_ER,
	PH_EW,
	PH_FAULTS,
	PH_PW,
	PH_WSSP,
	PH_WSSM
};
static const struct mt_col phase_cols[] = {
	[PH_NAME] = { "phase", MT_COL_STRING, true },
	[PH_SOURCE] = { "source", MT_COL_STRING, false },
	[PH_VISITS] = { "visits", MT_COL_I64, false },
	[PH_DURATION] = { "duration_ns", MT_COL_I64, true },
	[PH_SAMPLES] = { "samples", MT_COL_I64, false },
	[PH_ER] = { "reads_estimated", MT_COL_I64, false },
	[PH_EW] = { "writes_estimated", MT_COL_I64, false },
	[PH_FAULTS] = { "faults", MT_COL_I64, false },
	[PH_PW] = { "pages_written", MT_COL_I64, false },
	[PH_WSSP] = { "wss_peak_pages", MT_COL_I64, false },
	[PH_WSSM] = { "wss_mean_pages", MT_COL_DOUBLE, false },
};

static int phases_start(struct out *o, struct rows *r)
{
	r->n = o->rep->access.st.nphases;
	return 0;
}

static int phase_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_phase_stats *p = &o->rep->access.st.phases[i];

	if (!i && !p->samples && !p->faults && !p->pages_written)
		return 0;
	if (i)
		mt_sink_str(s, PH_NAME, p->name);
	mt_sink_str(s, PH_SOURCE,
		    !i			      ? "none"
		    : p->by_rule && p->visits ? "memtap_phase+rule"
		    : p->by_rule	      ? "rule"
					      : "memtap_phase");
	mt_sink_i64(s, PH_VISITS, (int64_t)p->visits);
	if (i && p->visits)
		mt_sink_i64(s, PH_DURATION, (int64_t)p->ns);
	mt_sink_i64(s, PH_SAMPLES, (int64_t)p->samples);
	mt_sink_i64(s, PH_ER, (int64_t)p->reads);
	mt_sink_i64(s, PH_EW, (int64_t)p->writes);
	mt_sink_i64(s, PH_FAULTS, (int64_t)p->faults);
	mt_sink_i64(s, PH_PW, (int64_t)p->pages_written);
	mt_sink_i64(s, PH_WSSP, (int64_t)p->wss_peak_pages);
	mt_sink_dbl(s, PH_WSSM, p->wss_windows ? p->wss_sum / (double)p->wss_windows : 0);
	return 1;
}

/* mrm_candidates: the report's MRM candidates, most movable bytes first. */
enum {
	CA_KIND,
	CA_PID,
	CA_TYPE,
	CA_TYPED_BY,
	CA_LABEL,
	CA_SITE,
	CA_BYTES,
	CA_MOVABLE,
	CA_REGIONS,
	CA_WO,
	CA_WOB,
	CA_RET,
	CA_LIFE,
	CA_RPS,
	CA_SAMPLES,
	CA_SPIN,
	CA_READS,
	CA_WRITES,
	CA_PAGES,
	CA_WP_PAGES,
	CA_MRM,
	CA_MRMBY,
	CA_CENSORED,
	CA_NOTE
};
static const struct mt_col candidate_cols[] = {
	[CA_KIND] = { "kind", MT_COL_STRING, false },
	[CA_PID] = { "pid", MT_COL_I64, false },
	[CA_TYPE] = { "region_type", MT_COL_STRING, false },
	[CA_TYPED_BY] = { "typed_by", MT_COL_STRING, true },
	[CA_LABEL] = { "label", MT_COL_STRING, false },
	[CA_SITE] = { "site_id", MT_COL_I64, true },
	[CA_BYTES] = { "bytes", MT_COL_I64, false },
	[CA_MOVABLE] = { "movable_bytes", MT_COL_I64, false },
	[CA_REGIONS] = { "regions", MT_COL_I64, false },
	[CA_WO] = { "write_once_ratio", MT_COL_DOUBLE, true },
	[CA_WOB] = { "write_once_basis", MT_COL_STRING, false },
	[CA_RET] = { "retention_s", MT_COL_DOUBLE, true },
	[CA_LIFE] = { "lifetime_s", MT_COL_DOUBLE, true },
	[CA_RPS] = { "data_reads_per_s", MT_COL_DOUBLE, true },
	[CA_SAMPLES] = { "samples", MT_COL_I64, false },
	[CA_SPIN] = { "spin_samples", MT_COL_I64, false },
	[CA_READS] = { "read_samples", MT_COL_I64, false },
	[CA_WRITES] = { "write_samples", MT_COL_I64, false },
	[CA_PAGES] = { "pages", MT_COL_I64, false },
	[CA_WP_PAGES] = { "page_write_pages", MT_COL_I64, false },
	[CA_MRM] = { "mrm", MT_COL_STRING, false },
	[CA_MRMBY] = { "mrm_decided_by", MT_COL_STRING, true },
	[CA_CENSORED] = { "censored", MT_COL_I64, false },
	[CA_NOTE] = { "mrm_note", MT_COL_STRING, true },
};

static int candidates_start(struct out *o, struct rows *r)
{
	r->n = o->rep->ncands;
	return 0;
}

static int candidate_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_candidate *c = &o->rep->cands[i];
	const struct mt_access_region *g = &o->rep->access.st.regions[c->region];
	char by[64];

	mt_sink_str(s, CA_KIND, mt_cand_kind_name(c->kind));
	mt_sink_i64(s, CA_PID, c->pid);
	mt_sink_str(s, CA_TYPE, mt_report_region_type(o->rep, g));
	mt_sink_str(s, CA_TYPED_BY, mt_report_typed_by(g, r->text, sizeof(r->text)));
	mt_sink_str(s, CA_LABEL, mt_report_region_label(o->rep, g, r->text, sizeof(r->text)));
	if (c->site >= 0)
		mt_sink_i64(s, CA_SITE, c->site);
	mt_sink_i64(s, CA_BYTES, (int64_t)c->bytes);
	mt_sink_i64(s, CA_MOVABLE, (int64_t)c->movable_bytes);
	mt_sink_i64(s, CA_REGIONS, (int64_t)c->regions);
	mt_sink_dbl(s, CA_WO, c->write_once);
	mt_sink_str(s, CA_WOB, mt_cand_basis_name(c->wo_basis));
	mt_sink_dbl(s, CA_RET, c->retention_s);
	mt_sink_dbl(s, CA_LIFE, c->lifetime_s);
	mt_sink_dbl(s, CA_RPS, c->reads_per_s);
	mt_sink_i64(s, CA_SAMPLES, (int64_t)c->samples);
	mt_sink_i64(s, CA_SPIN, (int64_t)c->spin_samples);
	mt_sink_i64(s, CA_READS, (int64_t)c->read_samples);
	mt_sink_i64(s, CA_WRITES, (int64_t)c->write_samples);
	mt_sink_i64(s, CA_PAGES, (int64_t)c->pages);
	mt_sink_i64(s, CA_WP_PAGES, (int64_t)c->wp_pages);
	mt_sink_str(s, CA_MRM, mt_mrm_name(c->mrm));
	if (c->mrm_by)
		mt_sink_str(s, CA_MRMBY, mt_mrm_by_name(c->mrm_by, by, sizeof(by)));
	mt_sink_i64(s, CA_CENSORED, c->censored);
	sink_note(s, CA_NOTE, &o->rep->access.st, c->mrm_open, c->retention_s,
		  o->rep->access.st.regions[c->region].t_start, 0, 0);
	return 1;
}

const struct table_def mt_table_region_map =
	TABLE("region_map", region_cols, regions_start, region_row);
const struct table_def mt_table_lifecycle =
	TABLE("kv_block_lifecycle", lifecycle_cols, all_regions_start, lifecycle_row);
const struct table_def mt_table_metrics = TABLE("metrics", metric_cols, metrics_start, metric_row);
const struct table_def mt_table_sites = TABLE("sites", site_cols, sites_start, site_row);
const struct table_def mt_table_phases = TABLE("phases", phase_cols, phases_start, phase_row);
const struct table_def mt_table_candidates =
	TABLE("mrm_candidates", candidate_cols, candidates_start, candidate_row);
