/* SPDX-License-Identifier: MIT */
/* `memtap events`: the summary of application events as text, Markdown, JSON or CSV. */
#include "export/appev.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

/* Python's float repr for JSON; a NaN or an infinity (which Python's json writes as
 * NaN/Infinity, not JSON) as null. */
static void jdouble(struct mt_json *j, const char *key, double d)
{
	char b[64];

	mt_json_key(j, key);
	if (!isfinite(d)) {
		mt_json_null(j);
		return;
	}
	mt_py_float_repr(d, b, sizeof(b));
	mt_json_raw(j, b, strlen(b));
}

static double rate(uint64_t a, uint64_t n)
{
	return n ? (double)a / (double)n : 0.0;
}

/* A probe as JSON: its text as a string, or a number/boolean as written. */
static void jprobe(struct mt_json *j, const char *text, size_t len, bool raw)
{
	if (!text)
		mt_json_null(j);
	else if (raw)
		mt_json_raw(j, text, len);
	else
		mt_json_strn(j, text, len);
}

static void json_skipped(struct mt_json *j, const struct mt_appev *a)
{
	static const char *const keys[MT_AE_NSKIP] = { "not_json", "not_object",  "invalid_utf8",
						       "too_deep", "wrong_types", "too_long" };
	uint64_t total = 0;

	mt_json_key(j, "skipped");
	mt_json_begin_object(j);
	for (int k = 0; k < MT_AE_NSKIP; k++) {
		total += a->skipped[k];
		mt_json_kv_u64(j, keys[k], a->skipped[k]);
	}
	mt_json_kv_u64(j, "total", total);
	mt_json_key(j, "first_lines");
	mt_json_begin_array(j);
	for (unsigned i = 0; i < a->nfirst; i++)
		mt_json_u64(j, a->first_skipped[i]);
	mt_json_end_array(j);
	mt_json_end_object(j);
}

static void render_json(const struct mt_appev *a, FILE *f)
{
	struct mt_json j;

	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_u64(&j, "total_events", a->total_events);
	jdouble(&j, "total_wall_ms", a->total_ms);
	jdouble(&j, "overall_hit_rate", rate(a->hits, a->total_events));
	mt_json_key(&j, "per_probe");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < a->probes.n; i++) {
		const struct mt_appev_group *g = &a->probes.v[i];

		mt_json_begin_object(&j);
		mt_json_key(&j, "probe");
		jprobe(&j, g->key, g->len, g->raw);
		mt_json_kv_u64(&j, "n_events", g->n);
		jdouble(&j, "total_ms", g->ms);
		mt_json_kv_u64(&j, "cache_hits", g->hits);
		mt_json_kv_u64(&j, "cache_misses", g->misses);
		jdouble(&j, "hit_rate", rate(g->hits, g->hits + g->misses));
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	mt_json_key(&j, "per_view");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < a->views.n; i++) {
		const struct mt_appev_group *g = &a->views.v[i];

		mt_json_begin_object(&j);
		mt_json_key(&j, "view_id");
		mt_json_strn(&j, g->key, g->len);
		mt_json_kv_u64(&j, "n_events", g->n);
		jdouble(&j, "total_ms", g->ms);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	mt_json_key(&j, "slowest");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < a->nslow; i++) {
		const struct mt_appev_event *e = &a->slow[i];

		mt_json_begin_object(&j);
		jdouble(&j, "ts", e->ts);
		mt_json_key(&j, "probe");
		jprobe(&j, e->probe, e->probe ? strlen(e->probe) : 0, e->probe_raw);
		mt_json_kv_str(&j, "view_id", e->view_id);
		mt_json_kv_str(&j, "prompt_hash", e->prompt_hash);
		mt_json_kv_i64(&j, "top_k", e->top_k);
		mt_json_kv_str(&j, "op", e->op);
		jdouble(&j, "wall_ms", e->wall_ms);
		mt_json_kv_bool(&j, "hit", e->hit);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	mt_json_kv_u64(&j, "lines", a->lines);
	json_skipped(&j, a);
	mt_json_end_object(&j);
	fputc('\n', f);
}

/* "1,234.5" as Python's f"{x:,.1f}" */
static const char *ms_text(double x, char *buf, size_t size)
{
	char t[64], *dot;
	size_t n, lead, o = 0;

	snprintf(t, sizeof(t), "%.1f", x);
	if (!isfinite(x))
		return snprintf(buf, size, "%s", t), buf;
	dot = strchr(t, '.');
	n = (size_t)(dot - t);
	lead = t[0] == '-';
	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i > lead && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = t[i];
	}
	snprintf(buf + o, size - o, "%s", dot);
	return buf;
}

static void tables(const struct mt_appev *a, struct mt_table *tp, struct mt_table *tv,
		   struct mt_table *ts)
{
	static const char *const hp[] = { "probe", ">events", ">wall_ms", ">hits", ">hit_rate" };
	static const char *const hv[] = { "view_id", ">events", ">wall_ms" };
	static const char *const hs[] = { "probe", "view", "op", ">wall_ms", "hit" };
	char b[64];

	mt_table_init(tp, 5, hp);
	for (size_t i = 0; i < a->probes.n; i++) {
		const struct mt_appev_group *g = &a->probes.v[i];

		mt_table_add(tp, g->key);
		mt_table_addf(tp, "%" PRIu64, g->n);
		mt_table_add(tp, ms_text(g->ms, b, sizeof(b)));
		mt_table_addf(tp, "%" PRIu64, g->hits);
		mt_table_addf(tp, "%.1f%%", 100 * rate(g->hits, g->hits + g->misses));
	}
	mt_table_init(tv, 3, hv);
	for (size_t i = 0; i < a->views.n; i++) {
		mt_table_add(tv, a->views.v[i].key);
		mt_table_addf(tv, "%" PRIu64, a->views.v[i].n);
		mt_table_add(tv, ms_text(a->views.v[i].ms, b, sizeof(b)));
	}
	mt_table_init(ts, 5, hs);
	for (size_t i = 0; i < a->nslow; i++) {
		const struct mt_appev_event *e = &a->slow[i];
		bool falsy = !e->probe || !*e->probe || !strcmp(e->probe, "false") ||
			     (e->probe_raw && strtod(e->probe, NULL) == 0);

		mt_table_add(ts, falsy ? "\u2014" : e->probe);
		mt_table_add(ts, e->view_id);
		mt_table_add(ts, e->op);
		mt_table_add(ts, ms_text(e->wall_ms, b, sizeof(b)));
		mt_table_add(ts, e->hit ? "yes" : "no");
	}
}

static void render_people(const struct mt_appev *a, bool md, FILE *f)
{
	struct mt_table tp, tv, ts;
	uint64_t skipped = 0;

	for (int k = 0; k < MT_AE_NSKIP; k++)
		skipped += a->skipped[k];
	fprintf(f, "%s%" PRIu64 " events, total %.2fs, %shit rate %.1f%%\n\n",
		md ? "# events: " : "", a->total_events, a->total_ms / 1000.0, md ? "" : "cache ",
		100 * rate(a->hits, a->total_events));
	tables(a, &tp, &tv, &ts);
	fputs(md ? "## per-probe\n\n" : "per-probe\n", f);
	md ? mt_report_md_table(&tp, f) : mt_table_print(&tp, f, 2, true);
	fputs(md ? "## per-view\n\n" : "\nper-view\n", f);
	md ? mt_report_md_table(&tv, f) : mt_table_print(&tv, f, 2, true);
	if (a->nslow) {
		fprintf(f, md ? "## slowest %zu events\n\n" : "\nslowest %zu events\n", a->nslow);
		md ? mt_report_md_table(&ts, f) : mt_table_print(&ts, f, 2, true);
	}
	if (skipped) {
		fprintf(f, "%s%" PRIu64 " of %" PRIu64 " lines skipped:", md ? "\n" : "\n", skipped,
			a->lines);
		for (int k = 0, first = 1; k < MT_AE_NSKIP; k++)
			if (a->skipped[k]) {
				fprintf(f, "%s %" PRIu64 " %s", first ? "" : ",", a->skipped[k],
					mt_appev_skip_name((unsigned)k));
				first = 0;
			}
		fputs(" (lines", f);
		for (unsigned i = 0; i < a->nfirst; i++)
			fprintf(f, "%s %" PRIu64, i ? "," : "", a->first_skipped[i]);
		fputs(a->nfirst < skipped ? ", ...)\n" : ")\n", f);
	}
	mt_table_release(&tp);
	mt_table_release(&tv);
	mt_table_release(&ts);
}

/* CSV: one row per probe (the view scripts want most); the JSON has all three views. */
static void render_csv(const struct mt_appev *a, FILE *f)
{
	char b[64];

	fputs("probe,n_events,total_ms,cache_hits,cache_misses,hit_rate\n", f);
	for (size_t i = 0; i < a->probes.n; i++) {
		const struct mt_appev_group *g = &a->probes.v[i];

		mt_csv_cell(f, g->key, g->len, true);
		fprintf(f, ",%" PRIu64 ",%s", g->n, mt_py_float_repr(g->ms, b, sizeof(b)));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%s\n", g->hits, g->misses,
			mt_py_float_repr(rate(g->hits, g->hits + g->misses), b, sizeof(b)));
	}
}

void mt_appev_print(const struct mt_appev *a, enum mt_report_format fmt, FILE *f)
{
	switch (fmt) {
	case MT_REPORT_JSON:
		render_json(a, f);
		break;
	case MT_REPORT_CSV:
		render_csv(a, f);
		break;
	default:
		render_people(a, fmt == MT_REPORT_MD, f);
		break;
	}
}
