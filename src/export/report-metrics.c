/* SPDX-License-Identifier: MIT */
/* The report's metrics section: memory behaviour per region type and phase, the working set
 * over time, MRM suitability (docs/metrics.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "format/chunk.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

static void json_opt_ratio(struct mt_json *j, const char *key, double v)
{
	if (v < 0)
		mt_json_kv_null(j, key);
	else
		mt_json_kv_double(j, key, v);
}

/* What decided a label, or null: "write_once+retention", "lifetime", ... */
static void json_mrm(struct mt_json *j, unsigned label, unsigned by)
{
	char buf[64];

	mt_json_kv_str(j, "mrm", mt_mrm_name(label));
	if (by)
		mt_json_kv_str(j, "mrm_decided_by", mt_mrm_by_name(by, buf, sizeof(buf)));
	else
		mt_json_kv_null(j, "mrm_decided_by");
}

const char *mt_report_mrm_text(unsigned label, unsigned by, uint64_t reads, char *buf, size_t size)
{
	char b1[64], b2[32];

	mt_fmt_count(reads, b2, sizeof(b2));
	if (label == MT_MRM_NOT_APPLICABLE)
		snprintf(buf, size, "%s (kernel mapping)", mt_mrm_name(label));
	else if (label == MT_MRM_INSUFFICIENT && by & MT_MRM_BY_CENSORED)
		snprintf(buf, size, "%s (censored, %s reads)", mt_mrm_name(label), b2);
	else if (label == MT_MRM_INSUFFICIENT)
		snprintf(buf, size, "%s (%s reads%s)", mt_mrm_name(label), b2,
			 reads < MT_MRM_MIN_READS ? ", < 10" : "; write-once unknown");
	else if (by & MT_MRM_BY_RETENTION)
		snprintf(buf, size, "%s (%s, %s reads)", mt_mrm_name(label),
			 mt_mrm_by_name(by, b1, sizeof(b1)), b2);
	else
		snprintf(buf, size, "%s (%s)", mt_mrm_name(label),
			 mt_mrm_by_name(by, b1, sizeof(b1)));
	return buf;
}

static const struct mt_json_u64 behavior_times[] = {
	MT_JSON_U64("first_write_ns", struct mt_region_behavior, first_write_ns),
	MT_JSON_U64("last_write_ns", struct mt_region_behavior, last_write_ns),
	MT_JSON_U64("first_read_ns", struct mt_region_behavior, first_read_ns),
	MT_JSON_U64("last_read_ns", struct mt_region_behavior, last_read_ns),
};

void mt_report_region_behavior_json(struct mt_json *j, const struct mt_access_stats *st,
				    const struct mt_access_region *g)
{
	const struct mt_region_behavior *b = &g->b;

	if (b->end_ns)
		mt_json_kv_u64(j, "end_ns", b->end_ns);
	else
		mt_json_kv_null(j, "end_ns");
	MT_JSON_KV_U64S(j, b, behavior_times);
	mt_json_kv_double(j, "retention_s", b->retention_s);
	mt_json_kv_double(j, "lifetime_s", b->lifetime_s);
	/* alive at the end: both are lower bounds (right-censored) */
	mt_json_kv_bool(j, "censored", mt_region_censored(b));
	json_opt_ratio(j, "write_once_ratio", b->write_once);
	mt_json_kv_str(j, "write_once_basis", mt_wo_basis_name(b->wo_basis));
	if (b->wo_basis == MT_WO_PAGE_WRITES) {
		mt_json_kv_u64(j, "pages_tracked", b->wp_pages);
		/* on transparent huge pages (never protected): not in the ratio */
		mt_json_kv_u64(j, "pages_huge", b->wp_huge_pages);
		mt_json_kv_u64(j, "pages_written", b->pages_written);
		mt_json_kv_u64(j, "pages_rewritten", b->pages_rewritten);
		/* faults of the tracking itself (memtap's): not in faults_minor */
		mt_json_kv_u64(j, "faults_write_protect", b->wp_faults);
	} else if (b->wp == MT_LABEL_WP_TRACKED) { /* tracked, yet no ratio: why */
		mt_json_kv_u64(j, "pages_tracked", b->wp_pages);
		mt_json_kv_u64(j, "pages_huge", b->wp_huge_pages);
		mt_json_kv_str(j, "write_once_unknown_because",
			       b->wp_ended ? "tracking ended: the program asked for huge pages"
			       : b->wp_huge_pages >= b->wp_pages
				       ? "its pages are transparent huge pages (never protected)"
				       : "an epoch of its process went unseen");
		mt_json_kv_u64(j, "faults_write_protect", b->wp_faults);
	}
	mt_json_kv_u64(j, "total_reads", g->c.read_samples);
	mt_json_kv_u64(j, "total_writes", g->c.write_samples);
	mt_json_kv_double(j, "read_fraction", b->read_fraction);
	mt_json_kv_double(j, "reads_per_write",
			  !g->c.samples ? NAN
			  : g->c.write_samples
				  ? (double)g->c.read_samples / (double)g->c.write_samples
				  : 0.0);
	mt_json_kv_double(j, "mean_stride_bytes", b->stride_mean);
	mt_json_kv_double(j, "median_stride_bytes", b->stride_median);
	mt_json_kv_double(j, "same_page_fraction", b->same_page_fraction);
	if (g->c.samples || g->faults_minor || g->faults_major || b->pages_written)
		mt_json_kv_u64(j, "wss_peak_pages", b->wss_peak_pages);
	else
		mt_json_kv_null(j, "wss_peak_pages");
	json_mrm(j, b->mrm, b->mrm_by);
	mt_report_censor_note_json(j, st, b->mrm_open, b->retention_s,
				   b->first_write_ns ? b->first_write_ns : g->t_start, 0, 0);
}

static const struct mt_json_u64 type_counts[] = {
	MT_JSON_U64("regions", struct mt_type_metrics, regions),
	MT_JSON_U64("samples", struct mt_type_metrics, samples),
	MT_JSON_U64("total_reads", struct mt_type_metrics, read_samples),
	MT_JSON_U64("total_writes", struct mt_type_metrics, write_samples),
};

void mt_report_type_json(struct mt_json *j, const struct mt_access_stats *st,
			 const struct mt_type_metrics *m)
{
	mt_json_begin_object(j);
	mt_json_kv_str(j, "region_type", m->name);
	MT_JSON_KV_U64S(j, m, type_counts);
	mt_json_kv_u64(j, "total_accesses", m->read_samples + m->write_samples);
	mt_json_kv_double(j, "read_fraction", m->read_fraction);
	mt_json_kv_double(j, "reads_per_write", m->reads_per_write);
	mt_json_kv_u64(j, "reads_estimated", m->reads);
	mt_json_kv_u64(j, "writes_estimated", m->writes);
	mt_json_kv_u64(j, "retention_regions", m->retention_regions);
	/* typed by their sites' behaviour at the end: in the windowed figures (working set,
	 * intervals, reuse) under the built-in type they were read as */
	mt_json_kv_u64(j, "behaviour_regions", m->behaviour_regions);
	mt_json_kv_double(j, "retention_p50_s", m->retention_s[0]);
	mt_json_kv_double(j, "retention_p90_s", m->retention_s[1]);
	mt_json_kv_double(j, "retention_p99_s", m->retention_s[2]);
	mt_report_censoring_json(j, "retention", &m->retention, m->retention_lower_from);
	mt_json_kv_double(j, "lifetime_p50_s", m->lifetime_s[0]);
	mt_json_kv_double(j, "lifetime_p90_s", m->lifetime_s[1]);
	mt_json_kv_double(j, "lifetime_p99_s", m->lifetime_s[2]);
	mt_report_censoring_json(j, "lifetime", &m->lifetime, m->lifetime_lower_from);
	/* the bound of every retention: the longest lifetime (the run's, where one is unknown) */
	mt_json_kv_double(j, "lifetime_max_s", (double)m->life_max_ns / 1e9);
	json_opt_ratio(j, "write_once_ratio", m->write_once);
	mt_json_kv_u64(j, "write_once_regions", m->wo_regions);
	mt_json_kv_u64(j, "write_once_pages", m->wo_pages);
	mt_json_kv_double(j, "mean_stride_bytes", m->stride_mean);
	mt_json_kv_double(j, "median_stride_bytes", m->stride_median);
	mt_json_kv_double(j, "same_page_fraction", m->same_page_fraction);
	mt_json_kv_u64(j, "n_intervals", m->iai.n);
	mt_json_kv_double(j, "iai_p50_ns", m->iai_ns[0]);
	mt_json_kv_double(j, "iai_p90_ns", m->iai_ns[1]);
	mt_json_kv_double(j, "iai_p99_ns", m->iai_ns[2]);
	mt_json_kv_double(j, "iai_mean_ns", m->iai_mean_ns);
	mt_json_kv_bool(j, "iai_exact", mt_qs_exact(&m->iai));
	mt_json_kv_u64(j, "reuses", m->reuse.n);
	mt_json_kv_double(j, "reuse_p50_lines", m->reuse_lines[0]);
	mt_json_kv_double(j, "reuse_p90_lines", m->reuse_lines[1]);
	mt_json_kv_double(j, "reuse_p99_lines", m->reuse_lines[2]);
	mt_json_kv_u64(j, "reuse_cold", m->reuse_cold);
	mt_json_kv_u64(j, "reuse_far", m->reuse_far);
	if (m->touches)
		mt_json_kv_u64(j, "wss_peak_pages", m->wss_peak_pages);
	else
		mt_json_kv_null(j, "wss_peak_pages");
	mt_json_kv_double(j, "wss_mean_pages", m->touches ? m->wss_mean_pages : NAN);
	json_mrm(j, m->mrm, m->mrm_by);
	mt_report_censor_note_json(j, st, m->mrm_open,
				   m->mrm_open & MT_MRM_NEEDS_HIGH ? m->retention_s[2]
								   : m->retention_s[0],
				   0, m->retention.censored, m->retention.n);
	mt_json_end_object(j);
}

/* What every figure rests on: each collector's mechanism, status and rate. */
static void json_sources(const struct mt_report *rep, struct mt_json *j)
{
	static const struct {
		const char *collector, *keys[4];
	} src[] = {
		{ "access", { "period", "frequency_hz", "weight_unit", NULL } },
		{ "pagewrites", { "epoch_ns", "tracked_ranges", "failed_ranges", NULL } },
		{ "faults", { NULL } },
		{ "alloc", { NULL } },
	};

	mt_json_key(j, "sources");
	mt_json_begin_object(j);
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		const struct mt_collector_info *c = mt_report_collector(rep, src[i].collector);

		mt_json_key(j, src[i].collector);
		if (!c) {
			mt_json_null(j);
			continue;
		}
		mt_json_begin_object(j);
		mt_json_kv_str(j, "mechanism", c->mechanism ? c->mechanism : "");
		mt_json_kv_str(j, "status", c->status ? c->status : "");
		for (int k = 0; src[i].keys[k]; k++) {
			const char *v = c->kv ? mt_kvlist_get(c->kv, src[i].keys[k]) : NULL;

			if (v)
				mt_json_kv_str(j, src[i].keys[k], v);
		}
		mt_json_end_object(j);
	}
	mt_json_end_object(j);
}

static const struct mt_json_u64 site_alloc_figures[] = {
	MT_JSON_U64("allocated_bytes", struct mt_alloc_site, bytes),
	MT_JSON_U64("peak_bytes", struct mt_alloc_site, peak_bytes),
	MT_JSON_U64("max_live_bytes", struct mt_alloc_site, max_live_bytes),
	MT_JSON_U64("calls", struct mt_alloc_site, calls),
};

/* metrics.by_site: the access sites with the most samples, faults or pages, with their
 * allocation figures and behaviour. */
static void json_by_site(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_access_stats *st = &rep->access.st;

	mt_json_key(j, "by_site");
	mt_json_begin_array(j);
	{
		size_t n, *v = mt_report_ranked_sites(st, &n);
		char name[512], stack[1024];

		for (size_t k = 0; v && k < n && k < rep->top; k++) {
			const struct mt_access_site *s = &st->sites[v[k]];
			const struct mt_alloc_site *a = mt_report_alloc_site(rep, s);

			mt_json_begin_object(j);
			mt_json_kv_u64(j, "site_id", v[k]);
			mt_json_kv_u64(j, "pid", s->pid);
			mt_json_kv_str(j, "function",
				       mt_report_site_name(rep, v[k], name, sizeof(name)));
			mt_json_kv_str(j, "stack",
				       mt_report_site_stack(rep, v[k], stack, sizeof(stack)));
			mt_json_kv_u64(j, "samples", s->c.samples);
			mt_json_kv_u64(j, "total_reads", s->c.read_samples);
			/* the reads the samples stand for (each weighs the sampling period), and their
			 * relative standard error: a count of n samples is known within 1/sqrt(n) */
			mt_json_kv_u64(j, "reads_estimated", s->c.reads);
			mt_json_kv_double(j, "reads_relative_error",
					  s->c.read_samples ? 1.0 / sqrt((double)s->c.read_samples)
							    : NAN);
			mt_json_kv_u64(j, "total_writes", s->c.write_samples);
			mt_json_kv_u64(j, "faults", s->faults);
			/* page-write tracking's (memtap's), not in faults */
			mt_json_kv_u64(j, "faults_write_protect", s->tracking_faults);
			mt_json_kv_u64(j, "pages_touched", s->pages);
			if (a) {
				MT_JSON_KV_U64S(j, a, site_alloc_figures);
			} else {
				mt_json_kv_null(j, "allocated_bytes");
			}
			mt_report_behaviour_json(j, &s->beh);
			mt_json_end_object(j);
		}
		free(v);
	}
	mt_json_end_array(j);
}

static const struct mt_json_u64 phase_figures[] = {
	MT_JSON_U64("samples", struct mt_phase_stats, samples),
	MT_JSON_U64("reads_estimated", struct mt_phase_stats, reads),
	MT_JSON_U64("writes_estimated", struct mt_phase_stats, writes),
	MT_JSON_U64("faults", struct mt_phase_stats, faults),
	MT_JSON_U64("pages_written", struct mt_phase_stats, pages_written),
	MT_JSON_U64("wss_peak_pages", struct mt_phase_stats, wss_peak_pages),
};

/* metrics.phases: each phase's time, samples and working set (outside any phase first). */
static void json_phases(const struct mt_access_stats *st, struct mt_json *j)
{
	mt_json_key(j, "phases");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->nphases; i++) {
		const struct mt_phase_stats *p = &st->phases[i];

		if (!i && !p->samples && !p->faults && !p->pages_written)
			continue;
		mt_json_begin_object(j);
		if (i)
			mt_json_kv_str(j, "phase", p->name);
		else
			mt_json_kv_null(j, "phase");
		mt_json_kv_str(j, "source",
			       !i			 ? "none"
			       : p->by_rule && p->visits ? "memtap_phase+rule"
			       : p->by_rule		 ? "rule"
							 : "memtap_phase");
		mt_json_kv_u64(j, "visits", p->visits);
		if (i && p->visits) /* a rule's phase has samples, not a measured duration */
			mt_json_kv_u64(j, "duration_ns", p->ns);
		else
			mt_json_kv_null(j, "duration_ns");
		MT_JSON_KV_U64S(j, p, phase_figures);
		mt_json_kv_double(j, "wss_mean_pages",
				  p->wss_windows ? p->wss_sum / (double)p->wss_windows : 0);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

static const struct mt_json_u64 page_write_figures[] = {
	MT_JSON_U64("events", struct mt_access_stats, page_write_events),
	MT_JSON_U64("pages", struct mt_access_stats, page_write_pages),
	/* of them, settled: written in a second epoch and left unprotected (later writes
	 * unseen; record --page-writes=full for every epoch's) */
	MT_JSON_U64("settled_pages", struct mt_access_stats, page_write_settled),
	MT_JSON_U64("unattributed_pages", struct mt_access_stats, page_writes_unattributed),
	MT_JSON_U64("incomplete_regions", struct mt_access_stats, page_writes_incomplete),
	MT_JSON_U64("ranges_unlabelled", struct mt_access_stats, pw_ranges),
	MT_JSON_U64("ranges_unlabelled_failed", struct mt_access_stats, pw_ranges_failed),
	MT_JSON_U64("ranges_unlabelled_unplaced", struct mt_access_stats, pw_ranges_unplaced),
};

void mt_report_metrics_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_access_stats *st = &rep->access.st;
	const struct mt_mrm_rule *rule = &st->mrm_rule;

	mt_json_key(j, "metrics");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "window_ns", st->window_ns);
	json_sources(rep, j);
	mt_json_key(j, "mrm_rule");
	mt_json_begin_object(j);
	mt_json_kv_double(j, "high_write_once", rule->high_write_once);
	mt_json_kv_double(j, "high_retention_p99_s", rule->high_retention_p99_s);
	mt_json_kv_double(j, "medium_write_once", rule->medium_write_once);
	mt_json_kv_double(j, "medium_retention_p50_s", rule->medium_retention_p50_s);
	mt_json_kv_u64(j, "min_read_samples", MT_MRM_MIN_READS);
	mt_json_end_object(j);
	mt_json_key(j, "page_writes");
	mt_json_begin_object(j);
	mt_json_kv_bool(j, "present", st->page_writes_present);
	MT_JSON_KV_U64S(j, st, page_write_figures);
	mt_json_end_object(j);
	mt_json_key(j, "iai");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "method",
		       st->iai_rate_shift
			       ? "SHARDS spatial sampling of the sampled accesses' addresses"
			       : "every sampled address");
	mt_json_kv_u64(j, "rate_inverse", 1ull << st->iai_rate_shift);
	mt_json_kv_u64(j, "max_addresses", 1u << 20);
	mt_json_end_object(j);
	mt_json_key(j, "reuse");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "method",
		       "SHARDS spatial sampling of the sampled accesses' 64-byte lines");
	mt_json_kv_u64(j, "rate_inverse", 16);
	mt_json_kv_u64(j, "window_samples", 1u << 20);
	mt_json_kv_u64(j, "resets", st->reuse_resets);
	mt_json_end_object(j);
	mt_json_key(j, "rules");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "rules", rep->access_opts.rules ? rep->access_opts.rules->n : 0);
	mt_json_kv_u64(j, "regions_typed", st->rule_regions);
	mt_json_end_object(j);
	mt_json_key(j, "by_type");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->ntypes; i++)
		if (st->types[i].regions)
			mt_report_type_json(j, st, &st->types[i]);
	mt_json_end_array(j);
	json_by_site(rep, j);
	json_phases(st, j);
	mt_json_key(j, "working_set");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "window_ns", st->window_ns);
	mt_json_kv_u64(j, "peak_pages", st->wss_peak_pages);
	mt_json_kv_u64(j, "peak_bytes", st->wss_peak_pages * 4096);
	mt_json_key(j, "series");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->nwss; i++) {
		mt_json_begin_array(j);
		mt_json_u64(j, st->wss[i].t);
		mt_json_u64(j, st->wss[i].pages);
		mt_json_end_array(j);
	}
	mt_json_end_array(j);
	mt_json_end_object(j);
	mt_json_end_object(j);
}

/* A ratio for people: "-" when nothing backs it. */
static void add_ratio(struct mt_table *t, double v)
{
	if (isnan(v))
		mt_table_add(t, "-");
	else
		mt_table_addf(t, "%.2f", v);
}

/* A figure for scripts: empty (null) when nothing backs it. */
static void add_raw(struct mt_table *t, double v)
{
	if (isnan(v))
		mt_table_add(t, "");
	else
		mt_table_addf(t, "%.10g", v);
}

/* An integral figure for scripts (ns, lines): no exponent. */
static void add_raw_int(struct mt_table *t, double v)
{
	if (isnan(v))
		mt_table_add(t, "");
	else
		mt_table_addf(t, "%.0f", v);
}

/* The joined per-site view: heap bytes (alloc) vs pages touched and faults vs samples. */
static void site_table(const struct mt_report *rep, bool raw, size_t limit, struct mt_table *t)
{
	static const char *const heads[] = { "site_id",	      "function",	 "samples",
					     "reads",	      "writes",		 "faults",
					     "pages_touched", "allocated_bytes", "peak_bytes",
					     "max_live_bytes" };
	static const char *const human[] = { "site",	"function", "samples", "reads",
					     "writes",	"faults",   "touched", "allocated",
					     "at peak", "max live" };
	const struct mt_access_stats *st = &rep->access.st;
	size_t n, *v = mt_report_ranked_sites(st, &n);
	char name[512], b[4][64];

	mt_table_init(t, 10, raw ? heads : human);
	for (size_t k = 0; v && k < n && k < limit; k++) {
		const struct mt_access_site *s = &st->sites[v[k]];
		const struct mt_alloc_site *a = mt_report_alloc_site(rep, s);

		mt_table_addf(t, "%zu", v[k]);
		mt_table_add(t, mt_report_site_name(rep, v[k], name, sizeof(name)));
		mt_table_addf(t, "%" PRIu64, s->c.samples);
		mt_table_addf(t, "%" PRIu64, s->c.read_samples);
		mt_table_addf(t, "%" PRIu64, s->c.write_samples);
		mt_table_addf(t, "%" PRIu64, s->faults);
		if (raw)
			mt_table_addf(t, "%" PRIu64, s->pages);
		else
			mt_table_add(t, mt_fmt_bytes(s->pages * 4096, b[0], 64));
		if (!a) {
			for (int i = 0; i < 3; i++)
				mt_table_add(t, raw ? "" : "-");
		} else if (raw) {
			mt_table_addf(t, "%" PRIu64, a->bytes);
			mt_table_addf(t, "%" PRIu64, a->peak_bytes);
			mt_table_addf(t, "%" PRIu64, a->max_live_bytes);
		} else {
			mt_table_add(t, mt_fmt_bytes(a->bytes, b[1], 64));
			mt_table_add(t, mt_fmt_bytes(a->peak_bytes, b[2], 64));
			mt_table_add(t, mt_fmt_bytes(a->max_live_bytes, b[3], 64));
		}
	}
	free(v);
}

static void region_table(const struct mt_report *rep, bool raw, size_t limit, struct mt_table *t)
{
	static const char *const heads[] = {
		"region_id",	    "region_type",	 "label",	   "bytes",
		"samples",	    "retention_s",	 "lifetime_s",	   "write_once_ratio",
		"write_once_basis", "mean_stride_bytes", "wss_peak_pages", "mrm",
		"mrm_decided_by"
	};
	static const char *const human[] = {
		"region",   "type",	  "label", "size",	  "samples",  "retention",
		"lifetime", "write-once", "basis", "stride mean", "WSS peak", "MRM (evidence)"
	};
	const struct mt_report_access *ra = &rep->access;
	char label[512], b[5][64];

	mt_table_init(t, raw ? 13 : 12, raw ? heads : human);
	for (size_t k = 0; k < ra->nregions && k < limit; k++) {
		const struct mt_access_region *g = &ra->st.regions[ra->regions[k]];
		const struct mt_region_behavior *bh = &g->b;

		mt_table_addf(t, "%zu", ra->regions[k]);
		mt_table_add(t, mt_report_region_type(rep, g));
		mt_table_add(t, mt_report_region_label(rep, g, label, sizeof(label)));
		if (g->end <= g->start)
			mt_table_add(t, raw ? "" : "-");
		else if (raw)
			mt_table_addf(t, "%" PRIu64, g->end - g->start);
		else
			mt_table_add(t, mt_fmt_bytes(g->end - g->start, b[0], 64));
		mt_table_addf(t, "%" PRIu64, g->c.samples);
		if (raw) {
			add_raw(t, bh->retention_s);
			add_raw(t, bh->lifetime_s);
		} else {
			mt_table_add(t, mt_report_secs(bh->retention_s, mt_region_censored(bh),
						       b[1], 64));
			mt_table_add(t, mt_report_secs(bh->lifetime_s, mt_region_censored(bh), b[2],
						       64));
		}
		if (bh->write_once < 0)
			mt_table_add(t, raw ? "" : "unknown");
		else
			mt_table_addf(t, raw ? "%.10g" : "%.2f", bh->write_once);
		mt_table_add(t, mt_wo_basis_name(bh->wo_basis));
		if (raw)
			add_raw(t, bh->stride_mean);
		else if (isnan(bh->stride_mean))
			mt_table_add(t, "-");
		else
			mt_table_add(t, mt_fmt_bytes((uint64_t)bh->stride_mean, b[3], 64));
		mt_table_addf(t, "%" PRIu64, bh->wss_peak_pages);
		if (raw) {
			mt_table_add(t, mt_mrm_name(bh->mrm));
			mt_table_add(t, mt_mrm_by_name(bh->mrm_by, b[4], 64));
		} else {
			mt_table_add(t, mt_report_mrm_text(bh->mrm, bh->mrm_by, g->c.read_samples,
							   b[4], 64));
		}
	}
}

static void phase_table(const struct mt_report *rep, bool raw, struct mt_table *t)
{
	static const char *const heads[] = { "phase",	      "duration_ns",   "samples",
					     "faults",	      "pages_written", "wss_peak_pages",
					     "wss_mean_pages" };
	static const char *const human[] = { "phase",	      "time",	  "samples", "faults",
					     "pages written", "WSS peak", "WSS mean" };
	const struct mt_access_stats *st = &rep->access.st;
	char b[6][64];

	mt_table_init(t, 7, raw ? heads : human);
	for (size_t i = 0; i < st->nphases; i++) {
		const struct mt_phase_stats *p = &st->phases[i];
		double mean = p->wss_windows ? p->wss_sum / (double)p->wss_windows : 0;

		if (!i && !p->samples && !p->faults && !p->pages_written)
			continue;
		if (raw) {
			mt_table_add(t, i ? p->name : "");
			if (i && p->visits)
				mt_table_addf(t, "%" PRIu64, p->ns);
			else
				mt_table_add(t, "");
			mt_table_addf(t, "%" PRIu64, p->samples);
			mt_table_addf(t, "%" PRIu64, p->faults);
			mt_table_addf(t, "%" PRIu64, p->pages_written);
			mt_table_addf(t, "%" PRIu64, p->wss_peak_pages);
			mt_table_addf(t, "%.10g", mean);
			continue;
		}
		mt_table_add(t, i ? p->name : "(no phase)");
		mt_table_add(t, !i	    ? "-"
				: p->visits ? mt_fmt_duration(p->ns, b[0], 64)
					    : "(by rule)");
		mt_table_add(t, mt_fmt_count(p->samples, b[1], 64));
		mt_table_add(t, mt_fmt_count(p->faults, b[2], 64));
		mt_table_add(t, mt_fmt_count(p->pages_written, b[3], 64));
		mt_table_add(t, mt_fmt_bytes(p->wss_peak_pages * 4096, b[4], 64));
		mt_table_add(t, mt_fmt_bytes((uint64_t)(mean * 4096), b[5], 64));
	}
}

static void print_table(struct mt_table *t, bool md, FILE *f)
{
	if (md)
		mt_report_md_table(t, f);
	else
		mt_table_print(t, f, 2, true);
	mt_table_release(t);
}

/* Where the write-once figures come from, and, when page writes are not among them, why. */
static const char *wo_source(const struct mt_report *rep, char *buf, size_t n)
{
	const struct mt_collector_info *pw = mt_report_collector(rep, "pagewrites");
	const char *status = pw && pw->status ? pw->status : "";

	if (rep->access.st.page_writes_present && rep->access.st.page_write_settled)
		return "page-write epochs (exact: labelled ranges, blocks and mappings of "
		       "--page-writes-min or more; pages written in two epochs settled, not "
		       "tracked further) and read-only mappings";
	if (rep->access.st.page_writes_present)
		return "page-write epochs (exact: labelled ranges, blocks and mappings of "
		       "--page-writes-min or more) and read-only mappings";
	if (!strcmp(status, "active"))
		return "read-only mappings (page writes were tracked, but no labelled range, "
		       "block or mapping of --page-writes-min or more was written)";
	if (!pw || !strcmp(status, "off") || !*status)
		return "read-only mappings only (page-write tracking was off: record without "
		       "--page-writes-ms 0 for the rest)";
	snprintf(buf, n, "read-only mappings only (page-write tracking %s: %s)", status,
		 pw->reason ? pw->reason : "no reason given");
	return buf;
}

void mt_report_metrics_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const th[] = { "type",	   "regions",	    "samples",
					  "read frac",	   "retention p50", "p99",
					  "lifetime p50",  "write-once",    "stride mean",
					  "same page",	   "IAI p50",	    "WSS peak",
					  "MRM (evidence)" };
	static const char *const by_name[] = { "region type", "region", "allocation site",
					       "phase" };
	const struct mt_access_stats *st = &rep->access.st;
	struct mt_table t;
	char b[8][64];

	fprintf(f, md ? "## Memory behaviour (by %s)\n\n" : "\nmemory behaviour (by %s)\n",
		by_name[rep->by]);
	fprintf(f,
		"%sworking-set window %s; write-once from %s; retention and locality from "
		"sampled accesses%s\n\n",
		md ? "" : "  ", mt_fmt_duration(st->window_ns, b[0], 64), wo_source(rep, b[1], 64),
		md ? "." : "");
	{
		const struct mt_collector_info *a = mt_report_collector(rep, "access");
		const char *per = a && a->kv ? mt_kvlist_get(a->kv, "period") : NULL;
		const char *hz = a && a->kv ? mt_kvlist_get(a->kv, "frequency_hz") : NULL;
		const char *unit = a && a->kv ? mt_kvlist_get(a->kv, "weight_unit") : NULL;

		if (a && strcmp(a->status ? a->status : "", "off"))
			fprintf(f, "%ssamples: %s, %s %s %s%s\n\n", md ? "" : "  ",
				a->mechanism ? a->mechanism : "?", per ? "every" : "at",
				per  ? per
				: hz ? hz
				     : "?",
				per ? (unit ? unit : "") : "Hz", md ? "." : "");
	}
	switch (rep->by) {
	case MT_BY_REGION:
		region_table(rep, false, rep->top, &t);
		print_table(&t, md, f);
		break;
	case MT_BY_SITE:
		site_table(rep, false, rep->top, &t);
		print_table(&t, md, f);
		if (!rep->alloc.loaded)
			fprintf(f,
				"%sheap bytes need the alloc section (--section alloc,metrics)\n",
				md ? "\n" : "  ");
		break;
	case MT_BY_PHASE:
		phase_table(rep, false, &t);
		print_table(&t, md, f);
		break;
	default:
		mt_table_init(&t, 13, th);
		for (size_t i = 0; i < st->ntypes; i++) {
			const struct mt_type_metrics *m = &st->types[i];

			if (!m->regions)
				continue;
			mt_table_add(&t, m->name);
			mt_table_addf(&t, "%" PRIu64, m->regions);
			mt_table_add(&t, mt_fmt_count(m->samples, b[0], 64));
			add_ratio(&t, m->read_fraction);
			mt_table_add(&t, mt_report_secs(m->retention_s[0],
							m->retention_lower_from == 0, b[1], 64));
			mt_table_add(&t, mt_report_secs(m->retention_s[2],
							m->retention_lower_from <= 2, b[2], 64));
			mt_table_add(&t, mt_report_secs(m->lifetime_s[0],
							m->lifetime_lower_from == 0, b[3], 64));
			if (m->write_once < 0)
				mt_table_add(&t, "unknown");
			else if (m->wo_regions < m->regions)
				mt_table_addf(&t, "%.2f (%" PRIu64 "/%" PRIu64 ")", m->write_once,
					      m->wo_regions, m->regions);
			else
				mt_table_addf(&t, "%.2f", m->write_once);
			mt_table_add(&t,
				     isnan(m->stride_mean)
					     ? "-"
					     : mt_fmt_bytes((uint64_t)m->stride_mean, b[4], 64));
			add_ratio(&t, m->same_page_fraction);
			mt_table_add(&t,
				     isnan(m->iai_ns[0])
					     ? "-"
					     : mt_fmt_duration((uint64_t)m->iai_ns[0], b[5], 64));
			mt_table_add(&t, m->touches
						 ? mt_fmt_bytes(m->wss_peak_pages * 4096, b[6], 64)
						 : "-");
			mt_table_add(&t, mt_report_mrm_text(m->mrm, m->mrm_by, m->read_samples,
							    b[7], 64));
		}
		print_table(&t, md, f);
		if (st->nphases > 1) {
			fprintf(f, md ? "\n### Phases\n\n" : "\n  phases\n");
			phase_table(rep, false, &t);
			print_table(&t, md, f);
		}
		break;
	}
	fprintf(f,
		md ? "\nWorking set: peak %s in one window (distinct pages touched).\n\n"
		   : "\n  working set: peak %s in one window (distinct pages touched)\n",
		mt_fmt_bytes(st->wss_peak_pages * 4096, b[0], 64));
	if (st->page_write_settled)
		fprintf(f,
			"%s%s pages written in two epochs settled (not tracked further): from then "
			"on only their sampled accesses and faults count them (record "
			"--page-writes=full for every epoch's writes)\n%s",
			md ? "" : "  ", mt_fmt_count(st->page_write_settled, b[1], 64),
			md ? "\n" : "");
}

static void type_csv(const struct mt_report *rep, struct mt_table *t)
{
	static const char *const heads[] = {
		"region_type",	       "regions",
		"total_reads",	       "total_writes",
		"read_fraction",       "reads_per_write",
		"retention_p50_s",     "retention_p90_s",
		"retention_p99_s",     "lifetime_p50_s",
		"write_once_ratio",    "mean_stride_bytes",
		"median_stride_bytes", "same_page_fraction",
		"iai_p50_ns",	       "iai_p99_ns",
		"wss_peak_pages",      "mrm",
		"mrm_decided_by",      "sample_period",
		"sample_frequency_hz", "sample_unit",
	};
	const struct mt_access_stats *st = &rep->access.st;
	uint64_t period, hz;
	const char *unit;
	char by[64];

	mt_table_init(t, sizeof(heads) / sizeof(heads[0]), heads);
	mt_report_sampling(rep, &period, &hz, &unit);
	for (size_t i = 0; i < st->ntypes; i++) {
		const struct mt_type_metrics *m = &st->types[i];

		if (!m->regions)
			continue;
		mt_table_add(t, m->name);
		mt_table_addf(t, "%" PRIu64, m->regions);
		mt_table_addf(t, "%" PRIu64, m->read_samples);
		mt_table_addf(t, "%" PRIu64, m->write_samples);
		add_raw(t, m->read_fraction);
		add_raw(t, m->reads_per_write);
		for (int k = 0; k < 3; k++)
			add_raw(t, m->retention_s[k]);
		add_raw(t, m->lifetime_s[0]);
		if (m->write_once < 0)
			mt_table_add(t, "");
		else
			mt_table_addf(t, "%.10g", m->write_once);
		add_raw(t, m->stride_mean);
		add_raw(t, m->stride_median);
		add_raw(t, m->same_page_fraction);
		add_raw_int(t, m->iai_ns[0]);
		add_raw_int(t, m->iai_ns[2]);
		if (m->touches)
			mt_table_addf(t, "%" PRIu64, m->wss_peak_pages);
		else
			mt_table_add(t, "");
		mt_table_add(t, mt_mrm_name(m->mrm));
		mt_table_add(t, mt_mrm_by_name(m->mrm_by, by, sizeof(by)));
		/* the sampling every sample-based figure rests on, in every row */
		if (period)
			mt_table_addf(t, "%" PRIu64, period);
		else
			mt_table_add(t, "");
		if (hz)
			mt_table_addf(t, "%" PRIu64, hz);
		else
			mt_table_add(t, "");
		mt_table_add(t, unit ? unit : "");
	}
}

void mt_report_metrics_table(const struct mt_report *rep, struct mt_table *t)
{
	switch (rep->by) {
	case MT_BY_REGION:
		region_table(rep, true, (size_t)-1, t);
		break;
	case MT_BY_SITE:
		site_table(rep, true, (size_t)-1, t);
		break;
	case MT_BY_PHASE:
		phase_table(rep, true, t);
		break;
	default:
		type_csv(rep, t);
		break;
	}
}
