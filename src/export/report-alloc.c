/* SPDX-License-Identifier: MIT */
/* The report's allocation section: totals, processes, ranked sites with symbolized stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/rt-proto.h"

static const char *const kind_names[10] = { "malloc",	    "calloc",	      "realloc",
					    "reallocarray", "posix_memalign", "aligned_alloc",
					    "memalign",	    "valloc",	      "pvalloc",
					    "free" };
static const char *const rank_keys[MT_NRANKS] = { "calls", "peak_bytes", "leaked_bytes",
						  "temporary" };
static const char *const rank_titles[MT_NRANKS] = { "calls", "heap at the peak", "leaked",
						    "temporary allocations" };

/* ---- shared pieces ---- */

/* What --alloc=sites does not record (JSON keys; the text says it in words). */
static const char *const sites_nulls[] = {
	"temporary",	     "temporary_heaptrack",	 "peak_blocks",
	"peak_usable_bytes", "inherited_frees",		 "max_live_bytes",
	"lifetime_ns",	     "events_time_interpolated", NULL
};

/* ... and with several process images, each image's peak only */
static const char *const peak_nulls[] = { "peak_bytes", NULL };

static const char *const *nulls(const struct mt_alloc_stats *st)
{
	return st->sites_mode ? sites_nulls : NULL;
}

static const char *kv(const struct mt_report_alloc *a, const char *key)
{
	return a->coll && a->coll->kv ? mt_kvlist_get(a->coll->kv, key) : NULL;
}

static uint64_t kv_u64(const struct mt_report_alloc *a, const char *key)
{
	const char *v = kv(a, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* Stacks truncated for reason k (enum mt_rt_trunc), or NULL when the trace does not say. */
static const char *truncated_by(const struct mt_report_alloc *a, unsigned k)
{
	char key[64];

	snprintf(key, sizeof(key), "stacks_truncated_%s", mt_rt_trunc_name(k));
	return kv(a, key);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Processes (pids) among the traced images. */
static size_t distinct_pids(const struct mt_alloc_stats *st)
{
	uint32_t *v = malloc((st->nprocs ? st->nprocs : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return st->nprocs;
	for (size_t i = 0; i < st->nprocs; i++)
		v[i] = st->procs[i].pid;
	mt_qsort(v, st->nprocs, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < st->nprocs; i++)
		n += !i || v[i] != v[i - 1];
	free(v);
	return n;
}

/* ---- JSON ---- */

static void json_life(struct mt_json *j, const char *key, const struct mt_sketch_family *f,
		      const struct mt_sketch *l)
{
	if (!l) { /* not recorded (--alloc=sites) */
		mt_json_kv_null(j, key);
		return;
	}
	mt_json_key(j, key);
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "count", l->n);
	mt_json_kv_double(j, "relative_error", mt_sketch_rel_error(f));
	if (l->n) {
		mt_json_kv_u64(j, "mean", l->sum / l->n);
		mt_json_kv_u64(j, "p50", mt_sketch_quantile(f, l, 0.50));
		mt_json_kv_u64(j, "p90", mt_sketch_quantile(f, l, 0.90));
		mt_json_kv_u64(j, "p99", mt_sketch_quantile(f, l, 0.99));
		mt_json_kv_u64(j, "min", l->min);
		mt_json_kv_u64(j, "max", l->max);
	} else {
		mt_json_kv_null(j, "mean");
		mt_json_kv_null(j, "p50");
		mt_json_kv_null(j, "p90");
		mt_json_kv_null(j, "p99");
	}
	mt_json_end_object(j);
}

static void json_frames(struct mt_json *j, const struct mt_report_alloc *a,
			const struct mt_report_site *rs)
{
	mt_json_key(j, "frames");
	mt_json_begin_array(j);
	for (size_t q = 0; q < rs->nframes; q++) {
		const struct mt_frame *f = &a->frames[rs->first_frame + q];

		mt_json_begin_object(j);
		mt_json_key(j, "ip");
		mt_json_hex(j, f->ip);
		if (f->function)
			mt_json_kv_str(j, "function", f->function);
		else
			mt_json_kv_null(j, "function");
		if (f->file) {
			mt_json_kv_str(j, "file", f->file);
			mt_json_kv_u64(j, "line", f->line);
		} else {
			mt_json_kv_null(j, "file");
			mt_json_kv_null(j, "line");
		}
		if (f->module) {
			mt_json_kv_str(j, "module", f->module);
			mt_json_key(j, "offset");
			mt_json_hex(j, f->offset);
		} else {
			mt_json_kv_null(j, "module");
			mt_json_kv_null(j, "offset");
		}
		mt_json_kv_bool(j, "inlined", f->inlined);
		mt_json_kv_bool(j, "python", mt_frame_is_python(f));
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

#define PR(key, member) MT_JSON_U64(key, struct mt_alloc_proc, member)
static const struct mt_json_u64 proc_figures[] = {
	PR("calls", calls),
	PR("frees", frees),
	PR("bytes", bytes),
	PR("peak_bytes", peak_bytes),
	PR("peak_ns", peak_ns),
	PR("leaked_bytes", live_bytes),
	PR("leaked_blocks", live_blocks),
	PR("temporary", temporary),
	PR("slack_bytes", slack),
	PR("untracked_frees", untracked_frees),
	PR("inherited_frees", inherited_frees),
};
#undef PR

/* alloc.processes: each traced process image's figures. */
static void json_procs(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_alloc_stats *st = &rep->alloc.st;

	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->nprocs; i++) {
		const struct mt_alloc_proc *p = &st->procs[i];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", p->pid);
		mt_json_kv_str(j, "comm", mt_procs_comm_at(&rep->procs, p->pid, p->first_ns));
		MT_JSON_KV_U64S_BUT(j, p, proc_figures, nulls(st));
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

#define SI(key, member) MT_JSON_U64(key, struct mt_alloc_site, member)
static const struct mt_json_u64 site_figures[] = {
	SI("calls", calls),
	SI("bytes", bytes),
	SI("frees", frees),
	SI("temporary", temporary),
	SI("max_live_bytes", max_live_bytes),
	SI("leaked_bytes", leaked_bytes),
	SI("leaked_blocks", leaked_blocks),
	SI("slack_bytes", slack),
};
static const struct mt_json_u64 site_peak[] = { SI("peak_bytes", peak_bytes) };
#undef SI

/* alloc.top_sites: every site that made a ranking, with its ranks and frames. */
static void json_top_sites(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_alloc *a = &rep->alloc;
	const struct mt_alloc_stats *st = &a->st;

	mt_json_key(j, "top_sites");
	mt_json_begin_array(j);
	for (size_t k = 0; k < a->nsel; k++) {
		const struct mt_report_site *rs = &a->sel[k];
		const struct mt_alloc_site *s = &st->sites[rs->site];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "site_id", rs->site);
		mt_json_kv_u64(j, "pid", s->pid);
		mt_json_kv_str(j, "comm", mt_procs_comm_at(&rep->procs, s->pid, s->first_ns));
		MT_JSON_KV_U64S_BUT(j, s, site_figures, nulls(st));
		MT_JSON_KV_U64S_BUT(j, s, site_peak, st->sites_mode ? peak_nulls : NULL);
		json_life(j, "lifetime_ns", &a->st.life_family, st->sites_mode ? NULL : &s->life);
		mt_json_key(j, "ranks");
		mt_json_begin_object(j);
		for (int r = 0; r < MT_NRANKS; r++)
			if (rs->rank[r])
				mt_json_kv_u64(j, rank_keys[r], rs->rank[r]);
		mt_json_end_object(j);
		mt_json_kv_bool(j, "stack_recorded", s->stack != 0);
		json_frames(j, a, rs);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

#define ST(key, member) MT_JSON_U64(key, struct mt_alloc_stats, member)
static const struct mt_json_u64 totals[] = {
	ST("calls", calls),
	ST("frees", frees),
	ST("bytes", bytes),
	ST("peak_bytes", peak_bytes),
};
static const struct mt_json_u64 at_peak[] = {
	ST("peak_blocks", peak_blocks),
	ST("peak_usable_bytes", peak_usable),
	ST("leaked_bytes", leaked_bytes),
	ST("leaked_blocks", leaked_blocks),
	ST("temporary", temporary),
	ST("temporary_heaptrack", temporary_heaptrack),
	ST("slack_bytes", slack),
	ST("untracked_frees", untracked_frees),
	ST("inherited_frees", inherited_frees),
	ST("reordered_frees", reordered_frees),
};
#undef ST

static const struct mt_json_u64 event_counts[] = {
	MT_JSON_U64("events", struct mt_alloc_stats, events),
	MT_JSON_U64("events_time_interpolated", struct mt_alloc_stats, time_estimated),
	MT_JSON_U64("events_without_stack_nested", struct mt_alloc_stats, nested),
	MT_JSON_U64("stacks_truncated", struct mt_alloc_stats, truncated),
};

/* Were allocations recorded at all? Not when the collector was off or unavailable (an
 * attached process, --no-alloc): its figures are then unknown, not 0. */
static bool recorded(const struct mt_report_alloc *a)
{
	return !a->coll ||
	       (strcmp(a->coll->status, "off") != 0 && strcmp(a->coll->status, "unavailable") != 0);
}

void mt_report_alloc_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_alloc *a = &rep->alloc;
	const struct mt_alloc_stats *st = &a->st;
	uint64_t t0 = rep->run.start_ns;

	mt_json_key(j, "alloc");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "mechanism", a->coll ? a->coll->mechanism : "preload");
	if (!recorded(a)) {
		mt_json_kv_null(j, "mode");
		mt_json_kv_str(j, "status", a->coll->status);
		mt_json_kv_str(j, "reason", a->coll->reason ? a->coll->reason : "");
		MT_JSON_KV_U64S(j, NULL, totals);
		mt_json_kv_null(j, "peak_ns");
		mt_json_kv_null(j, "peak_offset_ns");
		MT_JSON_KV_U64S(j, NULL, at_peak);
		mt_json_end_object(j);
		return;
	}
	/* events: every call recorded; sites: --alloc=sites, per-site windows */
	mt_json_kv_str(j, "mode", st->sites_mode ? "sites" : "events");
	mt_json_kv_u64(j, "stack_depth", kv_u64(a, "stack_depth"));
	MT_JSON_KV_U64S_BUT(j, st, totals, st->peak_known ? NULL : peak_nulls);
	if (st->peak_bytes && st->peak_known) {
		mt_json_kv_u64(j, "peak_ns", st->peak_ns);
		mt_json_kv_u64(j, "peak_offset_ns", st->peak_ns > t0 ? st->peak_ns - t0 : 0);
	} else {
		mt_json_kv_null(j, "peak_ns");
		mt_json_kv_null(j, "peak_offset_ns");
	}
	MT_JSON_KV_U64S_BUT(j, st, at_peak, nulls(st));
	mt_json_key(j, "not_recorded"); /* figures the recording mode cannot give */
	mt_json_begin_array(j);
	for (size_t k = 0; st->sites_mode && sites_nulls[k]; k++)
		mt_json_str(j, sites_nulls[k]);
	mt_json_end_array(j);
	mt_json_key(j, "calls_by_function");
	mt_json_begin_object(j);
	for (int k = 0; k < MT_ALLOC_FREE; k++)
		mt_json_kv_u64(j, kind_names[k], st->by_kind[k]);
	mt_json_end_object(j);
	json_life(j, "lifetime_ns", &st->life_overall, st->sites_mode ? NULL : &st->life);
	/* frees whose lifetime found no memory: counted, so a gap is never silent */
	if (st->sites_mode)
		mt_json_kv_null(j, "lifetimes_not_kept");
	else
		mt_json_kv_u64(j, "lifetimes_not_kept", st->life_lost);
	mt_json_key(j, "size_histogram");
	mt_json_begin_array(j);
	for (int k = 0; k < 65; k++) {
		if (!st->size_hist[k])
			continue;
		mt_json_begin_object(j);
		mt_json_kv_u64(j, "min", k ? 1ull << (k - 1) : 0);
		mt_json_kv_u64(j, "max", k ? (k == 64 ? UINT64_MAX : (1ull << k) - 1) : 0);
		mt_json_kv_u64(j, "calls", st->size_hist[k]);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	if (st->sites_mode) { /* no per-event flags: the runtime's own counts */
		mt_json_kv_u64(j, "events", st->events);
		mt_json_kv_null(j, "events_time_interpolated");
		mt_json_kv_u64(j, "events_without_stack_nested",
			       kv_u64(a, "events_without_stack_nested"));
		mt_json_kv_u64(j, "stacks_truncated", kv_u64(a, "stacks_truncated"));
	} else {
		MT_JSON_KV_U64S(j, st, event_counts);
	}
	mt_json_key(j, "stacks_truncated_by_reason");
	mt_json_begin_object(j);
	for (unsigned k = 0; k < MT_RT_TRUNC_MAX; k++) {
		const char *v = truncated_by(a, k);

		if (v)
			mt_json_kv_u64(j, mt_rt_trunc_name(k), strtoull(v, NULL, 10));
	}
	mt_json_end_object(j);
	mt_json_kv_u64(j, "stacks_depth_limited", kv_u64(a, "stacks_depth_limited"));
	mt_json_kv_u64(j, "allocations_without_frames", st->no_frames);
	mt_json_kv_u64(j, "processes_traced", distinct_pids(st));
	mt_json_kv_u64(j, "process_images_traced", st->nprocs);
	mt_json_kv_u64(j, "processes_untraced", kv_u64(a, "processes_untraced"));
	if (kv(a, "untraced"))
		mt_json_kv_str(j, "untraced", kv(a, "untraced"));
	json_procs(rep, j);
	mt_json_key(j, "symbolization");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "addresses", a->sym.addresses);
	mt_json_kv_u64(j, "resolved", a->sym.resolved);
	mt_json_kv_u64(j, "with_line", a->sym.with_line);
	mt_json_kv_u64(j, "no_mapping", a->sym.no_mapping);
	mt_json_kv_u64(j, "no_file", a->sym.no_file);
	mt_json_kv_u64(j, "build_id_mismatch", a->sym.build_id_mismatch);
	mt_json_kv_u64(j, "no_symbol", a->sym.no_symbol);
	mt_json_end_object(j);
	mt_json_kv_u64(j, "sites", st->nsites);
	json_top_sites(rep, j);
	mt_json_key(j, "rankings");
	mt_json_begin_object(j);
	for (int r = 0; r < MT_NRANKS; r++) {
		mt_json_key(j, rank_keys[r]);
		if (st->sites_mode && (r == MT_RANK_PEAK || r == MT_RANK_TEMPORARY)) {
			mt_json_null(j); /* not recorded in this mode */
			continue;
		}
		mt_json_begin_array(j);
		for (size_t q = 0; q < a->nrank[r]; q++)
			mt_json_u64(j, a->sel[a->rank[r][q]].site);
		mt_json_end_array(j);
	}
	mt_json_end_object(j);
	mt_json_end_object(j);
}

/* ---- text and Markdown ---- */

/* The first frames of a site, "f0 < f1", for one table cell; with Python frames, the
 * innermost native frame and the innermost Python one, "f0 < func (file:line)". */
static const char *site_label(const struct mt_report_alloc *a, const struct mt_report_site *rs,
			      char *buf, size_t size)
{
	const struct mt_alloc_site *s = &a->st.sites[rs->site];
	/* no frames at all: no pointer arithmetic on NULL */
	const struct mt_frame *fr = a->frames ? &a->frames[rs->first_frame] : NULL;
	size_t len = 0, py = rs->nframes;
	unsigned shown = 0;

	buf[0] = 0;
	if (!s->stack) {
		snprintf(buf, size, "(no stack recorded)");
		return buf;
	}
	if (!fr)
		return buf;
	for (size_t q = 0; q < rs->nframes && py == rs->nframes; q++)
		if (mt_frame_is_python(&fr[q]))
			py = q;
	for (size_t q = 0; q < rs->nframes && shown < 2; q++) {
		const struct mt_frame *f = &fr[q];
		char one[256];

		if (shown && py < rs->nframes)
			f = &fr[py];
		if (mt_frame_is_python(f) && f->function && f->file) {
			mt_frame_py_name(f, one, sizeof(one));
		} else if (f->function) {
			snprintf(one, sizeof(one), "%s", f->function);
		} else {
			mt_frame_name(f, one, sizeof(one));
		}
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
					shown ? " < " : "", one);
		shown++;
		if (len >= size || f == &fr[py])
			break;
	}
	return buf;
}

static void print_sites_ranking(const struct mt_report *rep, int r, bool md, FILE *f)
{
	const struct mt_report_alloc *a = &rep->alloc;
	static const char *const heads[] = { ">site",	  ">calls",  ">bytes",
					     ">peak",	  ">leaked", ">temporary",
					     ">p50 life", "process", "where" };
	struct mt_table t;
	char b1[32], label[512];

	if (!a->nrank[r])
		return;
	mt_table_init(&t, 9, heads);
	for (size_t q = 0; q < a->nrank[r]; q++) {
		const struct mt_report_site *rs = &a->sel[a->rank[r][q]];
		const struct mt_alloc_site *s = &a->st.sites[rs->site];

		mt_table_addf(&t, "#%zu", rs->site);
		mt_table_add(&t, mt_fmt_count(s->calls, b1, sizeof(b1)));
		mt_table_add(&t, mt_fmt_bytes(s->bytes, b1, sizeof(b1)));
		mt_table_add(&t,
			     a->st.sites_mode ? "-" : mt_fmt_bytes(s->peak_bytes, b1, sizeof(b1)));
		mt_table_add(&t, mt_fmt_bytes(s->leaked_bytes, b1, sizeof(b1)));
		if (a->st.sites_mode)
			mt_table_add(&t, "-");
		else
			mt_table_addf(&t, "%.1f%%", pct(s->temporary, s->calls));
		mt_table_add(&t, s->life.n ? mt_fmt_duration(mt_sketch_quantile(&a->st.life_family,
										&s->life, 0.5),
							     b1, sizeof(b1))
					   : "-");
		mt_table_addf(&t, "%s %u", mt_procs_comm_at(&rep->procs, s->pid, s->first_ns),
			      s->pid);
		mt_table_add(&t, site_label(a, rs, label, sizeof(label)));
	}
	if (md) {
		fprintf(f, "### Top sites by %s\n\n", rank_titles[r]);
		mt_report_md_table(&t, f);
	} else {
		fprintf(f, "top sites by %s\n", rank_titles[r]);
		mt_table_print(&t, f, 2, true);
		fputc('\n', f);
	}
	mt_table_release(&t);
}

static void print_frames(const struct mt_report_alloc *a, const struct mt_report_site *rs, bool md,
			 FILE *f);

static void print_site_detail(const struct mt_report *rep, const struct mt_report_site *rs, bool md,
			      FILE *f)
{
	const struct mt_report_alloc *a = &rep->alloc;
	const struct mt_alloc_site *s = &a->st.sites[rs->site];
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32];

	fprintf(f, md ? "#### Site #%zu (%s %u)\n\n" : "  site #%zu (%s %u)\n", rs->site,
		mt_procs_comm_at(&rep->procs, s->pid, s->first_ns), s->pid);
	if (a->st.sites_mode) {
		fprintf(f, "%s%s calls, %s, %s freed, leaked %s in %s blocks, slack %s\n",
			md ? "" : "    ", mt_fmt_count(s->calls, b1, sizeof(b1)),
			mt_fmt_bytes(s->bytes, b2, sizeof(b2)),
			mt_fmt_count(s->frees, b3, sizeof(b3)),
			mt_fmt_bytes(s->leaked_bytes, b4, sizeof(b4)),
			mt_fmt_count(s->leaked_blocks, b5, sizeof(b5)),
			mt_fmt_bytes(s->slack, b6, sizeof(b6)));
		print_frames(a, rs, md, f);
		return;
	}
	fprintf(f, "%s%s calls, %s, %s freed, peak %s (own max %s), leaked %s in %s blocks\n",
		md ? "" : "    ", mt_fmt_count(s->calls, b1, sizeof(b1)),
		mt_fmt_bytes(s->bytes, b2, sizeof(b2)), mt_fmt_count(s->frees, b3, sizeof(b3)),
		mt_fmt_bytes(s->peak_bytes, b4, sizeof(b4)),
		mt_fmt_bytes(s->max_live_bytes, b5, sizeof(b5)),
		mt_fmt_bytes(s->leaked_bytes, b6, sizeof(b6)),
		mt_fmt_count(s->leaked_blocks, b7, sizeof(b7)));
	if (md)
		fputc('\n', f);
	fprintf(f, "%stemporary %.1f%%, slack %s (%.1f%% of its bytes)", md ? "" : "    ",
		pct(s->temporary, s->calls), mt_fmt_bytes(s->slack, b1, sizeof(b1)),
		pct(s->slack, s->bytes));
	if (s->life.n)
		fprintf(f, ", lifetime p50 %s, p90 %s, p99 %s",
			mt_fmt_duration(mt_sketch_quantile(&a->st.life_family, &s->life, 0.5), b2,
					sizeof(b2)),
			mt_fmt_duration(mt_sketch_quantile(&a->st.life_family, &s->life, 0.9), b3,
					sizeof(b3)),
			mt_fmt_duration(mt_sketch_quantile(&a->st.life_family, &s->life, 0.99), b4,
					sizeof(b4)));
	fputc('\n', f);
	print_frames(a, rs, md, f);
}

static void print_frames(const struct mt_report_alloc *a, const struct mt_report_site *rs, bool md,
			 FILE *f)
{
	const struct mt_alloc_site *s = &a->st.sites[rs->site];
	char name[768];

	fputs(md ? "\n```\n" : "", f);
	if (!s->stack)
		fprintf(f, "%s(no stack recorded: --stack-depth 0, or a nested call)\n",
			md ? "" : "      ");
	if (rs->stack_incomplete)
		fprintf(f, "%s(the trace lacks this stack: cut short)\n", md ? "" : "      ");
	for (size_t q = 0; q < rs->nframes; q++) {
		const struct mt_frame *fr = &a->frames[rs->first_frame + q];

		fprintf(f, "%s%s%s\n", md ? "" : "      ", fr->inlined ? "(inlined) " : "",
			mt_frame_name(fr, name, sizeof(name)));
	}
	fputs(md ? "```\n\n" : "\n", f);
}

/* The allocation figures of each process, when there are several. */
static void print_procs_table(const struct mt_report *rep, bool md, FILE *f)
{
	const struct mt_alloc_stats *st = &rep->alloc.st;
	char b1[64];

	static const char *const heads[] = { ">pid",  "command", ">calls",    ">bytes",
					     ">peak", ">leaked", ">temporary" };
	struct mt_table t;

	mt_table_init(&t, 7, heads);
	for (size_t i = 0; i < st->nprocs; i++) {
		const struct mt_alloc_proc *p = &st->procs[i];

		mt_table_addf(&t, "%u", p->pid);
		mt_table_add(&t, mt_procs_comm_at(&rep->procs, p->pid, p->first_ns));
		mt_table_add(&t, mt_fmt_count(p->calls, b1, sizeof(b1)));
		mt_table_add(&t, mt_fmt_bytes(p->bytes, b1, sizeof(b1)));
		mt_table_add(&t, mt_fmt_bytes(p->peak_bytes, b1, sizeof(b1)));
		mt_table_add(&t, mt_fmt_bytes(p->live_bytes, b1, sizeof(b1)));
		mt_table_add(&t, st->sites_mode ? "-" : mt_fmt_count(p->temporary, b1, sizeof(b1)));
	}
	if (md) {
		fprintf(f, "### Allocations per process\n\n");
		mt_report_md_table(&t, f);
	} else {
		fprintf(f, "allocations per process\n");
		mt_table_print(&t, f, 2, true);
		fputc('\n', f);
	}
	mt_table_release(&t);
}

/* " (reason count, ...)" of the truncated stacks, or "" when none was. */
static void truncation_reasons(const struct mt_report_alloc *a, char *why, size_t size)
{
	size_t off = 0;

	why[0] = 0;
	for (unsigned k = 0; k < MT_RT_TRUNC_MAX; k++) {
		const char *v = truncated_by(a, k);
		uint64_t c = v ? strtoull(v, NULL, 10) : 0;
		char n[32];

		if (c && off < size)
			off += (size_t)snprintf(why + off, size - off, "%s%s %s", off ? ", " : " (",
						mt_rt_trunc_name(k), mt_fmt_count(c, n, sizeof(n)));
	}
	if (off && off < size)
		snprintf(why + off, size - off, ")");
}

void mt_report_alloc_text(const struct mt_report *rep, bool md, FILE *f)
{
	const struct mt_report_alloc *a = &rep->alloc;
	const struct mt_alloc_stats *st = &a->st;
	uint64_t t0 = rep->run.start_ns, life_n = st->life.n;
	char b1[64], b2[64], b3[64], b4[64], kinds[512];
	size_t klen = 0;

	if (md)
		fprintf(f, "## Allocations\n\n");
	else
		fprintf(f, "\nallocations\n");
	if (!recorded(a)) {
		fprintf(f, "%snot recorded: %s\n", md ? "" : "  ",
			a->coll->reason ? a->coll->reason : a->coll->status);
		return;
	}
	fprintf(f, "%s%s%s%s\n", md ? "" : "  ", a->coll ? a->coll->mechanism : "preload runtime",
		st->sites_mode ? " (--alloc=sites: every call counted by site and size class, the "
				 "heap in 10 ms windows; no addresses or per-call times)"
			       : " (every call is recorded)",
		md ? "\n" : "");
	if (md)
		fprintf(f, "| | |\n|---|---|\n");
	for (int k = 0; k < MT_ALLOC_FREE; k++) {
		if (!st->by_kind[k])
			continue;
		klen += (size_t)snprintf(kinds + klen,
					 klen < sizeof(kinds) ? sizeof(kinds) - klen : 0, "%s%s %s",
					 klen ? ", " : "", kind_names[k],
					 mt_fmt_count(st->by_kind[k], b1, sizeof(b1)));
		if (klen >= sizeof(kinds))
			break;
	}
#define ROW(label, ...) mt_summary_row(f, md, label, __VA_ARGS__)
	ROW("calls to allocation functions", "%s (%s)", mt_fmt_count(st->calls, b1, sizeof(b1)),
	    klen ? kinds : "none");
	ROW("frees", "%s", mt_fmt_count(st->frees, b1, sizeof(b1)));
	ROW("bytes allocated", "%s, allocator slack %s (%.1f%%)",
	    mt_fmt_bytes(st->bytes, b1, sizeof(b1)), mt_fmt_bytes(st->slack, b2, sizeof(b2)),
	    pct(st->slack, st->bytes));
	if (st->sites_mode && !st->peak_known)
		ROW("peak heap", "not known: several processes allocated and --alloc=sites keeps "
				 "each one's own peak (in the table below)");
	else if (st->sites_mode && st->peak_bytes)
		ROW("peak heap",
		    "%s at +%s (after every call, in the recorder's order: each "
		    "thread's calls in order)",
		    mt_fmt_bytes(st->peak_bytes, b1, sizeof(b1)),
		    mt_fmt_duration(st->peak_ns > t0 ? st->peak_ns - t0 : 0, b3, sizeof(b3)));
	else if (st->peak_bytes)
		ROW("peak heap", "%s in %s blocks at +%s (usable %s)",
		    mt_fmt_bytes(st->peak_bytes, b1, sizeof(b1)),
		    mt_fmt_count(st->peak_blocks, b2, sizeof(b2)),
		    mt_fmt_duration(st->peak_ns > t0 ? st->peak_ns - t0 : 0, b3, sizeof(b3)),
		    mt_fmt_bytes(st->peak_usable, b4, sizeof(b4)));
	else
		ROW("peak heap", "0 B");
	if (rep->run.alloc_exact_from_ns)
		ROW("traced from",
		    "+%s, when the runtime was loaded into the running process (%" PRIu64
		    " call slots redirected): blocks allocated before are not seen",
		    mt_fmt_duration(rep->run.alloc_exact_from_ns > t0
					    ? rep->run.alloc_exact_from_ns - t0
					    : 0,
				    b1, sizeof(b1)),
		    rep->run.alloc_redirected_slots);
	ROW(rep->run.attach_pid && !rep->run.has_exit ? "live at the detach"
						      : "leaked (live at exit)",
	    "%s in %s blocks", mt_fmt_bytes(st->leaked_bytes, b1, sizeof(b1)),
	    mt_fmt_count(st->leaked_blocks, b2, sizeof(b2)));
	if (st->sites_mode)
		ROW("not recorded (--alloc=sites)",
		    "lifetimes, temporary allocations, each site's heap at the peak and its own "
		    "maximum, heap blocks (so faults, access samples and page writes are not "
		    "joined to allocation sites)");
	else
		ROW("temporary allocations", "%s (%.1f%% of calls)",
		    mt_fmt_count(st->temporary, b1, sizeof(b1)), pct(st->temporary, st->calls));
	if (life_n)
		ROW("lifetime of freed blocks",
		    "p50 %s, p90 %s, p99 %s (every free; within %.1f%%, per site within %.1f%%)",
		    mt_fmt_duration(mt_sketch_quantile(&st->life_overall, &st->life, 0.5), b1,
				    sizeof(b1)),
		    mt_fmt_duration(mt_sketch_quantile(&st->life_overall, &st->life, 0.9), b2,
				    sizeof(b2)),
		    mt_fmt_duration(mt_sketch_quantile(&st->life_overall, &st->life, 0.99), b3,
				    sizeof(b3)),
		    100 * mt_sketch_rel_error(&st->life_overall),
		    100 * mt_sketch_rel_error(&st->life_family));
	if (st->life_lost)
		ROW("lifetimes not kept", "%s frees (no memory)",
		    mt_fmt_count(st->life_lost, b1, sizeof(b1)));
	if (st->untracked_frees)
		ROW("frees of unseen blocks",
		    "%s (allocated before tracing, or by an unhooked path)",
		    mt_fmt_count(st->untracked_frees, b1, sizeof(b1)));
	if (st->sites_mode)
		ROW("event times", "windows of %s of event time (each window's first and last)",
		    kv(a, "sites_window_ns")
			    ? mt_fmt_duration(kv_u64(a, "sites_window_ns"), b1, sizeof(b1))
			    : "?");
	else if (st->events && st->time_estimated)
		ROW("event times",
		    "%.1f%% interpolated between clock reads (--time-every %s): not bounded across "
		    "idle gaps",
		    pct(st->time_estimated, st->events),
		    kv(a, "time_every") ? kv(a, "time_every") : "?");
	else if (st->events)
		ROW("event times", "every event read the clock in its hook (%s)",
		    kv(a, "time") && !strncmp(kv(a, "time"), "tsc", 3) ? "TSC" : "CLOCK_MONOTONIC");
	if (kv(a, "stack_depth")) {
		char why[256];

		truncation_reasons(a, why, sizeof(why));
		ROW("stacks",
		    "up to %s frames; %s truncated%s (frames walked kept), %s cut at the depth "
		    "(innermost kept), %s without any frame",
		    kv(a, "stack_depth"),
		    mt_fmt_count(st->sites_mode ? kv_u64(a, "stacks_truncated") : st->truncated, b1,
				 sizeof(b1)),
		    why, mt_fmt_count(kv_u64(a, "stacks_depth_limited"), b2, sizeof(b2)),
		    mt_fmt_count(st->no_frames, b3, sizeof(b3)));
	}
	if (a->sym.addresses)
		ROW("symbolized addresses", "%s of %s (%s with a source line)",
		    mt_fmt_count(a->sym.resolved, b1, sizeof(b1)),
		    mt_fmt_count(a->sym.addresses, b2, sizeof(b2)),
		    mt_fmt_count(a->sym.with_line, b3, sizeof(b3)));
	{
		/* images are what the runtime traces (an exec starts a new one); people count pids */
		size_t pids = distinct_pids(st);

		if (pids == st->nprocs)
			ROW("processes traced", "%zu", pids);
		else
			ROW("processes traced",
			    "%zu (%zu process images: an exec starts a new one)", pids, st->nprocs);
	}
	if (kv_u64(a, "processes_untraced"))
		ROW("processes not traced", "%s (%s)", kv(a, "processes_untraced"),
		    kv(a, "untraced") ? kv(a, "untraced") : "reason unknown");
#undef ROW
	fputc('\n', f);
	if (st->nprocs > 1)
		print_procs_table(rep, md, f);
	for (int r = 0; r < MT_NRANKS; r++)
		print_sites_ranking(rep, r, md, f);
	if (a->nsel) {
		fprintf(f, md ? "### Sites\n\n" : "sites (innermost frame first)\n");
		for (size_t k = 0; k < a->nsel; k++)
			print_site_detail(rep, &a->sel[k], md, f);
	}
}

void mt_report_alloc_sites_table(const struct mt_report *rep, struct mt_table *t)
{
	static const char *const heads[] = {
		">site_id",	    ">pid",	    ">calls",		">bytes",
		">frees",	    ">temporary",   ">peak_bytes",	">leaked_bytes",
		">leaked_blocks",   ">slack_bytes", ">lifetime_p50_ns", ">lifetime_p90_ns",
		">lifetime_p99_ns", "top_frame"
	};
	const struct mt_report_alloc *a = &rep->alloc;
	char name[512];

	mt_table_init(t, 14, heads);
	for (size_t k = 0; k < a->nsel; k++) {
		const struct mt_report_site *rs = &a->sel[k];
		const struct mt_alloc_site *s = &a->st.sites[rs->site];
		bool life = s->life.n != 0;

		mt_table_addf(t, "%zu", rs->site);
		mt_table_addf(t, "%u", s->pid);
		mt_table_addf(t, "%" PRIu64, s->calls);
		mt_table_addf(t, "%" PRIu64, s->bytes);
		mt_table_addf(t, "%" PRIu64, s->frees);
		if (a->st.sites_mode) { /* not recorded: empty, as a null */
			mt_table_add(t, "");
			mt_table_add(t, "");
		} else {
			mt_table_addf(t, "%" PRIu64, s->temporary);
			mt_table_addf(t, "%" PRIu64, s->peak_bytes);
		}
		mt_table_addf(t, "%" PRIu64, s->leaked_bytes);
		mt_table_addf(t, "%" PRIu64, s->leaked_blocks);
		mt_table_addf(t, "%" PRIu64, s->slack);
		for (int p = 0; p < 3; p++) {
			static const double ps[3] = { 0.5, 0.9, 0.99 };

			if (life)
				mt_table_addf(t, "%" PRIu64,
					      mt_sketch_quantile(&a->st.life_family, &s->life,
								 ps[p]));
			else
				mt_table_add(t, "");
		}
		mt_table_add(t, rs->nframes ? mt_frame_name(&a->frames[rs->first_frame], name,
							    sizeof(name))
					    : "");
	}
}
