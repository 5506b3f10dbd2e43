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
#include "common/strutil.h"
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

/* A span's (or a group's) memory figures; rss_change_bytes null without RSS records. */
static void json_mem(struct mt_json *j, const struct mt_appev *a, const struct mt_appev_mem *m,
		     bool group)
{
	mt_json_key(j, "memory");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "alloc_bytes", m->alloc_bytes);
	mt_json_kv_u64(j, "alloc_calls", m->alloc_calls);
	mt_json_kv_u64(j, "freed_bytes", m->freed_bytes);
	mt_json_kv_u64(j, "free_calls", m->free_calls);
	mt_json_kv_i64(j, "net_bytes", (int64_t)(m->alloc_bytes - m->freed_bytes));
	mt_json_kv_u64(j, "faults", m->faults);
	mt_json_kv_u64(j, "samples", m->samples);
	mt_json_key(j, "samples_by_type");
	mt_json_begin_object(j);
	for (unsigned k = 0; k < a->nstypes; k++)
		if (m->samples_by[k] && a->stype_names[k])
			mt_json_kv_u64(j, a->stype_names[k], m->samples_by[k]);
	mt_json_end_object(j);
	mt_json_kv_u64(j, group ? "heap_peak_max_bytes" : "heap_peak_bytes", m->heap_peak);
	mt_json_key(j, "rss_change_bytes");
	if (m->rss_known)
		mt_json_i64(j, m->rss_change);
	else
		mt_json_null(j);
	mt_json_end_object(j);
}

static void json_trace(struct mt_json *j, const struct mt_appev *a)
{
	const struct mt_spans_stats *t = &a->trace;

	mt_json_key(j, "spans");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "spans", t->spans);
	mt_json_kv_u64(j, "events", t->events);
	mt_json_kv_u64(j, "open_at_end", t->open_at_end);
	mt_json_kv_u64(j, "ended_by_exit", t->ended_by_exit);
	mt_json_kv_u64(j, "unmatched_ends", t->unmatched_ends);
	mt_json_kv_u64(j, "alloc_events_attributed", t->allocs_attributed);
	mt_json_kv_u64(j, "alloc_events_unattributed", t->allocs_unattributed);
	mt_json_kv_u64(j, "frees_of_unknown_blocks", t->frees_unknown_size);
	mt_json_kv_u64(j, "faults_in_spans", t->faults_in_spans);
	mt_json_kv_u64(j, "faults_on_memtap_memory", t->faults_memtap);
	mt_json_kv_u64(j, "samples_in_spans", t->samples_in_spans);
	mt_json_kv_u64(j, "rss_records", t->rss_records);
	mt_json_end_object(j);
	if (a->memory)
		json_mem(j, a, &a->mem, true);
}

/* A slowest event's end: a span's process, thread and memory. */
static void json_event_tail(struct mt_json *j, const struct mt_appev *a,
			    const struct mt_appev_event *e)
{
	if (a->from_trace) {
		mt_json_kv_u64(j, "pid", e->pid);
		mt_json_kv_u64(j, "tid", e->tid);
	}
	if (a->memory)
		json_mem(j, a, &e->mem, false);
	mt_json_end_object(j);
}

/* The document's end: lines read, skipped, and a trace's join counts. */
static void json_tail(struct mt_json *j, const struct mt_appev *a, FILE *f)
{
	mt_json_kv_u64(j, "lines", a->lines);
	json_skipped(j, a);
	if (a->from_trace)
		json_trace(j, a);
	mt_json_end_object(j);
	fputc('\n', f);
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
		if (a->memory)
			json_mem(&j, a, &g->mem, true);
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
		if (a->memory)
			json_mem(&j, a, &g->mem, true);
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
		json_event_tail(&j, a, e);
	}
	mt_json_end_array(&j);
	json_tail(&j, a, f);
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

/* A span's memory as table cells: allocated, freed, faults, heap peak. */
static void mem_cells(struct mt_table *t, const struct mt_appev_mem *m)
{
	char b[32];

	mt_table_add(t, mt_fmt_bytes(m->alloc_bytes, b, sizeof(b)));
	mt_table_add(t, mt_fmt_bytes(m->freed_bytes, b, sizeof(b)));
	mt_table_addf(t, "%" PRIu64, m->faults);
	mt_table_add(t, mt_fmt_bytes(m->heap_peak, b, sizeof(b)));
}

static void tables(const struct mt_appev *a, struct mt_table *tp, struct mt_table *tv,
		   struct mt_table *ts)
{
	static const char *const hp[] = { "probe",  ">events", ">wall_ms", ">hits",	">hit_rate",
					  ">alloc", ">freed",  ">faults",  ">heap_peak" };
	static const char *const hv[] = { "view_id", ">events", ">wall_ms",  ">alloc",
					  ">freed",  ">faults", ">heap_peak" };
	static const char *const hs[] = { "probe",  "view",   "op",	 ">wall_ms",  "hit",
					  ">alloc", ">freed", ">faults", ">heap_peak" };
	unsigned m = a->memory ? 4 : 0;
	char b[64];

	mt_table_init(tp, 5 + m, hp);
	for (size_t i = 0; i < a->probes.n; i++) {
		const struct mt_appev_group *g = &a->probes.v[i];

		mt_table_add(tp, g->key);
		mt_table_addf(tp, "%" PRIu64, g->n);
		mt_table_add(tp, ms_text(g->ms, b, sizeof(b)));
		mt_table_addf(tp, "%" PRIu64, g->hits);
		mt_table_addf(tp, "%.1f%%", 100 * rate(g->hits, g->hits + g->misses));
		if (m)
			mem_cells(tp, &g->mem);
	}
	mt_table_init(tv, 3 + m, hv);
	for (size_t i = 0; i < a->views.n; i++) {
		mt_table_add(tv, a->views.v[i].key);
		mt_table_addf(tv, "%" PRIu64, a->views.v[i].n);
		mt_table_add(tv, ms_text(a->views.v[i].ms, b, sizeof(b)));
		if (m)
			mem_cells(tv, &a->views.v[i].mem);
	}
	mt_table_init(ts, 5 + m, hs);
	for (size_t i = 0; i < a->nslow; i++) {
		const struct mt_appev_event *e = &a->slow[i];
		bool falsy = !e->probe || !*e->probe || !strcmp(e->probe, "false") ||
			     (e->probe_raw && strtod(e->probe, NULL) == 0);

		mt_table_add(ts, falsy ? "\u2014" : e->probe);
		mt_table_add(ts, e->view_id);
		mt_table_add(ts, e->op);
		mt_table_add(ts, ms_text(e->wall_ms, b, sizeof(b)));
		mt_table_add(ts, e->hit ? "yes" : "no");
		if (m)
			mem_cells(ts, &e->mem);
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
	if (a->from_trace) {
		const struct mt_spans_stats *t = &a->trace;

		fprintf(f,
			"%" PRIu64 " spans and %" PRIu64 " events of the workload (memtap.h); a "
			"span's allocations are its own (by span id), its faults those of its thread "
			"while it was innermost, its heap peak the process's in its window\n",
			t->spans, t->events);
		if (t->open_at_end || t->ended_by_exit || t->unmatched_ends ||
		    t->allocs_unattributed)
			fprintf(f,
				"note: %" PRIu64 " spans never ended (not counted), %" PRIu64
				" ended by their thread's exit, %" PRIu64 " ends without a begin, "
				"%" PRIu64 " allocation events of unknown spans\n",
				t->open_at_end, t->ended_by_exit, t->unmatched_ends,
				t->allocs_unattributed);
		fputc('\n', f);
	}
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

	fputs(a->memory ? "probe,n_events,total_ms,cache_hits,cache_misses,hit_rate,alloc_bytes,"
			  "alloc_calls,freed_bytes,free_calls,faults,samples,heap_peak_max_bytes\n"
			: "probe,n_events,total_ms,cache_hits,cache_misses,hit_rate\n",
	      f);
	for (size_t i = 0; i < a->probes.n; i++) {
		const struct mt_appev_group *g = &a->probes.v[i];

		mt_csv_cell(f, g->key, g->len, true);
		fprintf(f, ",%" PRIu64 ",%s", g->n, mt_py_float_repr(g->ms, b, sizeof(b)));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%s", g->hits, g->misses,
			mt_py_float_repr(rate(g->hits, g->hits + g->misses), b, sizeof(b)));
		if (a->memory)
			fprintf(f,
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64,
				g->mem.alloc_bytes, g->mem.alloc_calls, g->mem.freed_bytes,
				g->mem.free_calls, g->mem.faults, g->mem.samples, g->mem.heap_peak);
		fputc('\n', f);
	}
}

/* ---- --group-by: one grouping by the caller's keys ---- */

/* The next component of a shown key (tag 's' string, 'r' raw JSON, 'n' none). */
static bool component(const char **p, const char *end, char *tag, const char **s, size_t *len)
{
	uint32_t l;

	if (*p + 5 > end)
		return false;
	*tag = **p;
	memcpy(&l, *p + 1, 4);
	*s = *p + 5;
	*len = l;
	*p += 5 + l;
	return true;
}

static void json_key(struct mt_json *j, const struct mt_appev *a, const char *k, size_t n)
{
	const char *p = k, *end = k + n, *s;
	size_t len;
	char tag;

	mt_json_key(j, "key");
	mt_json_begin_object(j);
	for (unsigned i = 0; i < a->sc.ngroup && component(&p, end, &tag, &s, &len); i++) {
		mt_json_key(j, a->sc.group_by[i]);
		if (tag == 'n')
			mt_json_null(j);
		else if (tag == 'r')
			mt_json_raw(j, s, len);
		else
			mt_json_strn(j, s, len);
	}
	mt_json_end_object(j);
}

static void key_cells(struct mt_table *t, const struct mt_appev *a, const char *k, size_t n)
{
	const char *p = k, *end = k + n, *s;
	size_t len;
	char tag, b[256];

	for (unsigned i = 0; i < a->sc.ngroup; i++) {
		if (!component(&p, end, &tag, &s, &len) || tag == 'n') {
			mt_table_add(t, "\u2014");
			continue;
		}
		snprintf(b, sizeof(b), "%.*s", (int)(len < 200 ? len : 200), s);
		mt_table_add(t, b);
	}
}

static void render_generic_json(const struct mt_appev *a, FILE *f)
{
	struct mt_json j;

	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_key(&j, "group_by");
	mt_json_begin_array(&j);
	for (unsigned i = 0; i < a->sc.ngroup; i++)
		mt_json_str(&j, a->sc.group_by[i]);
	mt_json_end_array(&j);
	mt_json_key(&j, "time_key");
	a->sc.time_key ? mt_json_str(&j, a->sc.time_key) : mt_json_null(&j);
	mt_json_key(&j, "hit_key");
	a->sc.hit_key ? mt_json_str(&j, a->sc.hit_key) : mt_json_null(&j);
	mt_json_key(&j, "where");
	mt_json_begin_object(&j);
	for (unsigned i = 0; i < a->sc.nwhere; i++)
		mt_json_kv_str(&j, a->sc.where[i].key, a->sc.where[i].value);
	mt_json_end_object(&j);
	mt_json_kv_u64(&j, "total_events", a->total_events);
	jdouble(&j, "total_time", a->total_ms);
	if (a->sc.hit_key)
		jdouble(&j, "overall_hit_rate", rate(a->hits, a->total_events));
	mt_json_kv_str(&j, "percentiles",
		       "linear interpolation over every time while a group has at most 4096, "
		       "then a log-linear histogram's bucket midpoint (within 1/128)");
	mt_json_key(&j, "groups");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < a->groups.n; i++) {
		const struct mt_appev_group *g = &a->groups.v[i];

		mt_json_begin_object(&j);
		json_key(&j, a, g->key, g->len);
		mt_json_kv_u64(&j, "n_events", g->n);
		jdouble(&j, "total", g->ms);
		jdouble(&j, "mean", g->n ? g->ms / (double)g->n : 0.0);
		jdouble(&j, "p50", g->pct[0]);
		jdouble(&j, "p90", g->pct[1]);
		jdouble(&j, "p99", g->pct[2]);
		mt_json_kv_bool(&j, "percentiles_exact", g->pct_exact);
		if (a->sc.hit_key) {
			mt_json_kv_u64(&j, "hits", g->hits);
			mt_json_kv_u64(&j, "misses", g->misses);
			jdouble(&j, "hit_rate", rate(g->hits, g->hits + g->misses));
		}
		if (a->memory)
			json_mem(&j, a, &g->mem, true);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	mt_json_key(&j, "slowest");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < a->nslow; i++) {
		const struct mt_appev_event *e = &a->slow[i];

		mt_json_begin_object(&j);
		mt_json_kv_u64(&j, a->from_trace ? "ordinal" : "line", e->line);
		jdouble(&j, "time", e->wall_ms);
		json_key(&j, a, e->gkey, e->gkey_len);
		if (a->sc.hit_key)
			mt_json_kv_bool(&j, "hit", e->hit);
		json_event_tail(&j, a, e);
	}
	mt_json_end_array(&j);
	mt_json_kv_u64(&j, "filtered_out", a->filtered);
	json_tail(&j, a, f);
}

static void render_generic_people(const struct mt_appev *a, bool md, FILE *f)
{
	static const char *const tail[] = { ">events", ">total", ">mean",   ">p50",
					    ">p90",    ">p99",	 ">hits",   ">hit_rate",
					    ">alloc",  ">freed", ">faults", ">heap_peak" };
	const char *h[MT_AE_MAX_GROUP + 12];
	unsigned nk = a->sc.ngroup, nc = nk + 6, m = a->memory ? 4 : 0;
	struct mt_table t;
	char b[64];

	for (unsigned i = 0; i < nk; i++)
		h[i] = a->sc.group_by[i];
	for (unsigned i = 0; i < 6; i++)
		h[nk + i] = tail[i];
	if (a->sc.hit_key) {
		h[nc++] = tail[6];
		h[nc++] = tail[7];
	}
	for (unsigned i = 0; i < m; i++)
		h[nc++] = tail[8 + i];
	fprintf(f, "%s%" PRIu64 " events in %zu groups, total %s %s", md ? "# events: " : "",
		a->total_events, a->groups.n, a->sc.time_key ? a->sc.time_key : "time",
		ms_text(a->total_ms, b, sizeof(b)));
	if (a->filtered)
		fprintf(f, " (%" PRIu64 " left out by --where)", a->filtered);
	fputs("\n\n", f);
	mt_table_init(&t, nc, h);
	for (size_t i = 0; i < a->groups.n; i++) {
		const struct mt_appev_group *g = &a->groups.v[i];

		key_cells(&t, a, g->key, g->len);
		mt_table_addf(&t, "%" PRIu64, g->n);
		mt_table_add(&t, ms_text(g->ms, b, sizeof(b)));
		mt_table_add(&t, ms_text(g->n ? g->ms / (double)g->n : 0.0, b, sizeof(b)));
		for (int k = 0; k < 3; k++)
			mt_table_add(&t, isnan(g->pct[k]) ? "\u2014"
							  : ms_text(g->pct[k], b, sizeof(b)));
		if (a->sc.hit_key) {
			mt_table_addf(&t, "%" PRIu64, g->hits);
			mt_table_addf(&t, "%.1f%%", 100 * rate(g->hits, g->hits + g->misses));
		}
		if (m)
			mem_cells(&t, &g->mem);
	}
	md ? mt_report_md_table(&t, f) : mt_table_print(&t, f, 2, true);
	mt_table_release(&t);
}

static void render_generic_csv(const struct mt_appev *a, FILE *f)
{
	char b[64];

	for (unsigned i = 0; i < a->sc.ngroup; i++) {
		mt_csv_cell(f, a->sc.group_by[i], strlen(a->sc.group_by[i]), true);
		fputc(',', f);
	}
	fputs("n_events,total,mean,p50,p90,p99,hits,misses\n", f);
	for (size_t i = 0; i < a->groups.n; i++) {
		const struct mt_appev_group *g = &a->groups.v[i];
		const char *p = g->key, *end = g->key + g->len, *s;
		size_t len;
		char tag;

		for (unsigned k = 0; k < a->sc.ngroup; k++) {
			if (component(&p, end, &tag, &s, &len) && tag != 'n')
				mt_csv_cell(f, s, len, true);
			fputc(',', f);
		}
		fprintf(f, "%" PRIu64 ",%s", g->n, mt_py_float_repr(g->ms, b, sizeof(b)));
		fprintf(f, ",%s", mt_py_float_repr(g->n ? g->ms / (double)g->n : 0, b, sizeof(b)));
		for (int k = 0; k < 3; k++)
			fprintf(f, ",%s",
				isnan(g->pct[k]) ? "" : mt_py_float_repr(g->pct[k], b, sizeof(b)));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 "\n", g->hits, g->misses);
	}
}

void mt_appev_print(const struct mt_appev *a, enum mt_report_format fmt, FILE *f)
{
	if (a->generic) {
		if (fmt == MT_REPORT_JSON)
			render_generic_json(a, f);
		else if (fmt == MT_REPORT_CSV)
			render_generic_csv(a, f);
		else
			render_generic_people(a, fmt == MT_REPORT_MD, f);
		return;
	}
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
