/* SPDX-License-Identifier: MIT */
/* The report's what-if placement: JSON and the text/Markdown table (docs/metrics.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "analysis/placement.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

static unsigned basis(const struct mt_report *rep, uint64_t *period, const char **unit)
{
	uint64_t hz;

	mt_report_sampling(rep, period, &hz, unit);
	return mt_place_basis_of(*period, *unit);
}

/* Why columns are null: the collectors (or the sampling) they need, "" when none is. */
const char *mt_report_placement_missing(const struct mt_report *rep, char *buf, size_t size)
{
	uint64_t period;
	const char *unit;
	unsigned b = basis(rep, &period, &unit);
	size_t n;

	snprintf(buf, size, "%s%s%s",
		 b == MT_PLACE_NONE	? "access (no samples: bandwidth, access time and added "
					  "time are null)"
		 : b == MT_PLACE_CYCLES ? "access in time or counts (cycles samples give neither: "
					  "bandwidth, access time and added time are null)"
					: "",
		 b != MT_PLACE_COUNTS && b != MT_PLACE_TIME && !rep->access.st.page_writes_present
			 ? "; "
			 : "",
		 rep->access.st.page_writes_present
			 ? ""
			 : "pagewrites (no page writes: the rewrites of written memory are null)");
	n = strlen(buf);
	if (rep->access.st.page_write_settled && n < size)
		snprintf(buf + n, size - n,
			 "%spagewrites every epoch (pages written twice were "
			 "settled, their later writes unseen: the rewrites of regions holding them "
			 "are null; record --page-writes=full)",
			 n ? "; " : "");
	return buf;
}

static void tier_json(struct mt_json *j, const struct mt_tier *t)
{
	mt_json_begin_object(j);
	mt_json_kv_str(j, "name", t->name);
	mt_json_kv_double(j, "read_latency_ns", t->read_ns);
	mt_json_kv_double(j, "write_latency_ns", t->write_ns);
	mt_json_kv_double(j, "retention_s", t->retention_s > 0 ? t->retention_s : NAN);
	mt_json_end_object(j);
}

/* The rows summed by tier and region type: what moving all of a type would do. */
struct place_sum {
	unsigned tier;
	const char *type;
	size_t rows, censored;
	uint64_t bytes;
	double read_time, write_time, read_bps, write_bps, added, added_var, refresh, refresh_s,
		cost;
};

static int cmp_sum(const void *a, const void *b)
{
	const struct place_sum *x = a, *y = b;

	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->type, y->type);
}

/* *out: one sum per tier and type (free it); their count, 0 when out of memory. */
static size_t sum_by_type(const struct mt_report *rep, struct place_sum **out)
{
	struct place_sum *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < rep->nplaces; i++) {
		const struct mt_placement *p = &rep->places[i];
		const struct mt_candidate *c = &rep->cands[p->cand];
		const char *type = mt_report_region_type(rep, &rep->access.st.regions[c->region]);
		struct place_sum *x = NULL;

		for (size_t k = 0; k < n && !x; k++)
			if (v[k].tier == p->tier && !strcmp(v[k].type, type))
				x = &v[k];
		if (!x) {
			if (n == cap) {
				struct place_sum *w =
					realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

				if (!w) {
					free(v);
					*out = NULL;
					return 0;
				}
				v = w;
			}
			x = &v[n++];
			*x = (struct place_sum){ .tier = p->tier, .type = type };
		}
		x->rows++;
		x->censored += c->censored;
		x->bytes += p->bytes;
		x->read_time += p->read_time_s;
		x->write_time += p->write_time_s;
		x->read_bps += p->read_bps;
		x->write_bps += p->write_bps;
		x->added += p->added_s;
		x->added_var += p->added_err_s * p->added_err_s;
		x->refresh += p->refresh_bytes;
		x->refresh_s += p->refresh_s;
		x->cost += p->cost_s;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_sum);
	*out = v;
	return n;
}

/* bytes per second of cost, INFINITY at none, NaN when unknown */
static double sum_score(const struct place_sum *x)
{
	return isnan(x->cost) ? NAN : x->cost <= 0 ? INFINITY : (double)x->bytes / x->cost;
}

static void sums_json(const struct mt_report *rep, struct mt_json *j)
{
	struct place_sum *v;
	size_t n = sum_by_type(rep, &v);

	mt_json_key(j, "by_type");
	mt_json_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		const struct place_sum *x = &v[i];

		mt_json_begin_object(j);
		mt_json_kv_str(j, "tier", rep->tiers.v[x->tier].name);
		mt_json_kv_str(j, "region_type", x->type);
		mt_json_kv_u64(j, "rows", x->rows);
		mt_json_kv_u64(j, "censored", x->censored);
		mt_json_kv_u64(j, "bytes", x->bytes);
		mt_json_kv_double(j, "read_bytes_per_s", x->read_bps);
		mt_json_kv_double(j, "write_bytes_per_s", x->write_bps);
		mt_json_kv_double(j, "read_time_s", x->read_time);
		mt_json_kv_double(j, "write_time_s", x->write_time);
		mt_json_kv_double(j, "added_time_s", x->added);
		mt_json_kv_double(j, "added_time_error_s", sqrt(x->added_var));
		mt_json_kv_double(j, "refresh_bytes", x->refresh);
		mt_json_kv_double(j, "refresh_bytes_per_s",
				  rep->run.duration_ns
					  ? x->refresh / ((double)rep->run.duration_ns / 1e9)
					  : NAN);
		mt_json_kv_double(j, "refresh_time_s", x->refresh_s);
		mt_json_kv_double(j, "cost_s", x->cost);
		mt_json_kv_double(j, "dram_bytes_per_cost_s", sum_score(x));
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	free(v);
}

static void row_json(const struct mt_report *rep, struct mt_json *j, const struct mt_placement *p)
{
	const struct mt_candidate *c = &rep->cands[p->cand];
	const struct mt_access_region *g = &rep->access.st.regions[c->region];
	char buf[512];

	mt_json_begin_object(j);
	mt_json_kv_str(j, "tier", rep->tiers.v[p->tier].name);
	mt_json_kv_str(j, "kind", mt_cand_kind_name(c->kind));
	mt_json_kv_u64(j, "pid", c->pid);
	mt_json_kv_str(j, "region_type", mt_report_region_type(rep, g));
	mt_json_kv_str(j, "label", mt_report_region_label(rep, g, buf, sizeof(buf)));
	mt_json_kv_u64(j, "start", g->start); /* its first region's (0: a site's small blocks) */
	if (c->site >= 0)
		mt_json_kv_u64(j, "site_id", (uint64_t)c->site);
	else
		mt_json_kv_null(j, "site_id");
	mt_json_kv_str(j, "mrm", mt_mrm_name(c->mrm));
	mt_json_kv_u64(j, "bytes", p->bytes);
	mt_json_kv_double(j, "read_bytes_per_s", p->read_bps);
	mt_json_kv_double(j, "read_bytes_per_s_error", p->read_bps_err);
	mt_json_kv_double(j, "write_bytes_per_s", p->write_bps);
	mt_json_kv_double(j, "write_bytes_per_s_error", p->write_bps_err);
	mt_json_kv_double(j, "read_time_s", p->read_time_s);
	mt_json_kv_double(j, "write_time_s", p->write_time_s);
	mt_json_kv_double(j, "access_time_error_s", p->time_err_s);
	mt_json_kv_double(j, "added_time_s", p->added_s);
	mt_json_kv_double(j, "added_time_error_s", p->added_err_s);
	mt_json_kv_double(j, "refresh_bytes", p->refresh_bytes);
	mt_json_kv_double(j, "refresh_bytes_low", p->refresh_lo);
	mt_json_kv_double(j, "refresh_bytes_high", p->refresh_hi);
	mt_json_kv_double(j, "refresh_bytes_per_s", p->refresh_bps);
	mt_json_kv_double(j, "refresh_time_s", p->refresh_s);
	/* alive at the end: its rewrites so far, a lower bound of its life's */
	mt_json_kv_bool(j, "censored", c->censored);
	mt_json_kv_double(j, "cost_s", p->cost_s);
	mt_json_kv_double(j, "dram_bytes_per_cost_s", p->score);
	mt_json_kv_bool(j, "no_cost", isinf(p->score));
	mt_json_end_object(j);
}

void mt_report_placement_json(const struct mt_report *rep, struct mt_json *j)
{
	uint64_t period;
	const char *unit;
	unsigned b = basis(rep, &period, &unit);
	char miss[256];

	mt_json_key(j, "placement");
	mt_json_begin_object(j);
	mt_json_key(j, "model");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "source", rep->tiers.source);
	mt_json_key(j, "tiers");
	mt_json_begin_array(j);
	for (unsigned i = 0; i < rep->tiers.n; i++)
		tier_json(j, &rep->tiers.v[i]);
	mt_json_end_array(j);
	mt_json_end_object(j);
	mt_json_kv_str(j, "basis", mt_place_basis_name(b));
	if (period)
		mt_json_kv_u64(j, "sample_period", period);
	else
		mt_json_kv_null(j, "sample_period");
	if (unit)
		mt_json_kv_str(j, "sample_unit", unit);
	else
		mt_json_kv_null(j, "sample_unit");
	mt_json_kv_u64(j, "line_bytes", MT_PLACE_LINE);
	mt_json_kv_double(j, "duration_s", (double)rep->run.duration_ns / 1e9);
	mt_report_placement_missing(rep, miss, sizeof(miss));
	if (miss[0])
		mt_json_kv_str(j, "missing", miss);
	else
		mt_json_kv_null(j, "missing");
	/* record --max-size: from then on blocks below the kept size are not joined to their
	 * sites (null: no fold) */
	if (rep->alloc.st.folded)
		mt_json_kv_u64(j, "heap_joins_folded_from_ns", rep->alloc.st.folded_from_ns);
	else
		mt_json_kv_null(j, "heap_joins_folded_from_ns");
	sums_json(rep, j);
	mt_json_key(j, "rows");
	mt_json_begin_array(j);
	for (size_t i = 0; i < rep->nplaces; i++)
		row_json(rep, j, &rep->places[i]);
	mt_json_end_array(j);
	mt_json_end_object(j);
}

/* "1.2 MB/s ± 0.1", "-" */
static const char *rate(double v, double err, char *buf, size_t size)
{
	char a[32], b[32];

	if (isnan(v))
		return "-";
	mt_fmt_bytes((uint64_t)llround(v), a, sizeof(a));
	if (isnan(err)) {
		snprintf(buf, size, "%s/s", a);
		return buf;
	}
	mt_fmt_bytes((uint64_t)llround(err), b, sizeof(b));
	snprintf(buf, size, "%s/s ± %s", a, b);
	return buf;
}

static const char *secs(double v, double err, char *buf, size_t size)
{
	if (isnan(v))
		return "-";
	if (isnan(err))
		snprintf(buf, size, "%.3f s", v);
	else
		snprintf(buf, size, "%.3f ± %.3f s", v, err);
	return buf;
}

static void header(const struct mt_report *rep, bool md, unsigned b, uint64_t period, FILE *f)
{
	const char *in = md ? "" : "  ";
	char miss[256];

	fprintf(f, md ? "\n## What-if placement\n\n" : "\nwhat-if placement\n");
	fprintf(f, "%stier model (%s):", in, rep->tiers.source);
	for (unsigned i = 0; i < rep->tiers.n; i++) {
		const struct mt_tier *t = &rep->tiers.v[i];

		fprintf(f, "%s %s %g/%g ns", i ? ";" : "", t->name, t->read_ns, t->write_ns);
		if (t->retention_s > 0)
			fprintf(f, ", retention %g s", t->retention_s);
	}
	fprintf(f, "\n%s(read/write latency; the first is where the memory is now)\n", in);
	if (b == MT_PLACE_TIME)
		fprintf(f,
			"%saccess time: the CPU time of the sampled loads and stores (cpu-clock, one "
			"sample per %" PRIu64
			" ns, ± 95%%); added time = access time × (latency ratio − 1), a "
			"first-order model, not a measurement; bandwidth needs counting samples "
			"(PEBS, IBS)\n",
			in, period);
	else if (b == MT_PLACE_COUNTS)
		fprintf(f,
			"%sbandwidth: sampled accesses × period %" PRIu64
			" × %d B per line over the run (± 95%%); added time = accesses × latency "
			"difference, a first-order model, not a measurement\n",
			in, period, MT_PLACE_LINE);
	fprintf(f,
		"%srefresh: bytes rewritten because their data outlived the tier's retention "
		"window (page-write epochs and lifetimes; ≥ when alive at the end); ranked by "
		"DRAM freed per second of added time\n",
		in);
	if (mt_report_placement_missing(rep, miss, sizeof(miss))[0])
		fprintf(f, "%smissing: %s\n", in, miss);
}

/* "free", "-" or "N/s": DRAM freed per second of cost */
static const char *freed(double score, char *buf, size_t size)
{
	char b[64];

	if (isinf(score))
		return "free";
	if (isnan(score))
		return "-";
	snprintf(buf, size, "%s/s", mt_fmt_bytes((uint64_t)llround(score), b, sizeof(b)));
	return buf;
}

static const char *refresh_rate(double bps, bool censored, char *buf, size_t size)
{
	char b[64];

	if (isnan(bps))
		return "-";
	snprintf(buf, size, "%s%s/s", censored && bps > 0 ? "≥ " : "",
		 mt_fmt_bytes((uint64_t)llround(bps), b, sizeof(b)));
	return buf;
}

/* The rows summed by tier and region type. */
static void sums_text(const struct mt_report *rep, bool md, unsigned b, FILE *f)
{
	static const char *const heads[] = { "tier",   "type",	"rows",	     "bytes", "reads",
					     "writes", "added", "refresh/s", "cost",  "freed/s" };
	double run = (double)rep->run.duration_ns / 1e9;
	struct place_sum *v;
	size_t n = sum_by_type(rep, &v);
	char x[8][96];
	struct mt_table t;

	if (!n)
		return;
	fprintf(f, md ? "### By region type\n\n" : "  by region type (the rows summed)\n");
	mt_table_init(&t, 10, heads);
	for (size_t i = 0; i < n; i++) {
		const struct place_sum *s = &v[i];

		mt_table_add(&t, rep->tiers.v[s->tier].name);
		mt_table_add(&t, s->type);
		mt_table_add(&t, mt_fmt_count(s->rows, x[0], 96));
		mt_table_add(&t, mt_fmt_bytes(s->bytes, x[1], 96));
		if (b == MT_PLACE_COUNTS) {
			mt_table_add(&t, rate(s->read_bps, NAN, x[2], 96));
			mt_table_add(&t, rate(s->write_bps, NAN, x[3], 96));
		} else {
			mt_table_add(&t, secs(s->read_time, NAN, x[2], 96));
			mt_table_add(&t, secs(s->write_time, NAN, x[3], 96));
		}
		mt_table_add(&t, secs(s->added, sqrt(s->added_var), x[4], 96));
		mt_table_add(&t,
			     refresh_rate(run > 0 ? s->refresh / run : NAN, s->censored, x[5], 96));
		mt_table_add(&t, secs(s->cost, NAN, x[6], 96));
		mt_table_add(&t, freed(sum_score(s), x[7], 96));
	}
	if (md)
		mt_report_md_table(&t, f);
	else
		mt_table_print(&t, f, 2, true);
	mt_table_release(&t);
	free(v);
	fprintf(f, md ? "\n### Ranked\n\n" : "  ranked\n");
}

void mt_report_placement_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { "tier",	"kind",	  "type",  "bytes",
					     "reads",	"writes", "added", "refresh/s",
					     "freed/s", "mrm",	  "label" };
	uint64_t period;
	const char *unit;
	unsigned b = basis(rep, &period, &unit);
	char x[6][96], label[512];
	struct mt_table t;

	header(rep, md, b, period, f);
	mt_report_fold_note(rep, md, f);
	if (!rep->nplaces) {
		fprintf(f, "%sno candidates\n", md ? "" : "  ");
		return;
	}
	if (md)
		fputc('\n', f);
	sums_text(rep, md, b, f);
	mt_table_init(&t, 11, heads);
	for (size_t i = 0; i < rep->nplaces && i < rep->top * 2; i++) {
		const struct mt_placement *p = &rep->places[i];
		const struct mt_candidate *c = &rep->cands[p->cand];
		const struct mt_access_region *g = &rep->access.st.regions[c->region];

		mt_table_add(&t, rep->tiers.v[p->tier].name);
		mt_table_add(&t, mt_cand_kind_name(c->kind));
		mt_table_add(&t, mt_report_region_type(rep, g));
		mt_table_add(&t, mt_fmt_bytes(p->bytes, x[0], 96));
		if (b == MT_PLACE_COUNTS) {
			mt_table_add(&t, rate(p->read_bps, p->read_bps_err, x[1], 96));
			mt_table_add(&t, rate(p->write_bps, p->write_bps_err, x[2], 96));
		} else {
			mt_table_add(&t, secs(p->read_time_s, NAN, x[1], 96));
			mt_table_add(&t, secs(p->write_time_s, NAN, x[2], 96));
		}
		mt_table_add(&t, secs(p->added_s, p->added_err_s, x[3], 96));
		mt_table_add(&t, refresh_rate(p->refresh_bps, c->censored, x[4], 96));
		mt_table_add(&t, freed(p->score, x[5], 96));
		mt_table_add(&t, mt_mrm_name(c->mrm));
		mt_table_add(&t, mt_report_region_label(rep, g, label, sizeof(label)));
	}
	if (md)
		mt_report_md_table(&t, f);
	else
		mt_table_print(&t, f, 2, true);
	mt_table_release(&t);
	if (rep->nplaces > rep->top * 2)
		fprintf(f, "%s%zu of %zu rows (--top; every row in JSON and the placement table)\n",
			md ? "\n" : "  ", (size_t)rep->top * 2, rep->nplaces);
}
