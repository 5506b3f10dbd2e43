/* SPDX-License-Identifier: MIT */
/* The report's allocation section as JSON, and what its text renderer shares (report-alloc-text.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/report-alloc-internal.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/rt-proto.h"

const char *const mt_ra_kind_names[10] = { "malloc",	   "calloc",	     "realloc",
					   "reallocarray", "posix_memalign", "aligned_alloc",
					   "memalign",	   "valloc",	     "pvalloc",
					   "free" };
static const char *const rank_keys[MT_NRANKS] = { "calls", "peak_bytes", "leaked_bytes",
						  "temporary" };
/* ---- shared pieces ---- */

/* What --alloc=sites does not record (JSON keys; the text says it in words). */
static const char *const sites_nulls[] = {
	"temporary",	     "temporary_heaptrack",	 "peak_blocks",
	"peak_usable_bytes", "inherited_frees",		 "max_live_bytes",
	"lifetime_ns",	     "events_time_interpolated", NULL
};

/* ... and with several process images, each image's peak only */
static const char *const peak_nulls[] = { "peak_bytes", NULL };

/* ... and after a --max-size fold whose peak is a window's */
static const char *const window_peak_nulls[] = { "peak_blocks", "peak_usable_bytes", NULL };

static const char *const *nulls(const struct mt_alloc_stats *st)
{
	return st->sites_mode			     ? sites_nulls
	       : st->folded && !st->site_peaks_known ? window_peak_nulls
						     : NULL;
}

/* A site's figures the recording cannot give: a folded site's own maximum is its rows'. */
static const char *const folded_site_nulls[] = { "max_live_bytes", NULL };

static const char *const *site_nulls(const struct mt_alloc_stats *st, const struct mt_alloc_site *s)
{
	return st->sites_mode ? sites_nulls : s->folded_calls ? folded_site_nulls : NULL;
}

const char *mt_ra_kv(const struct mt_report_alloc *a, const char *key)
{
	return a->coll && a->coll->kv ? mt_kvlist_get(a->coll->kv, key) : NULL;
}

uint64_t mt_ra_kv_u64(const struct mt_report_alloc *a, const char *key)
{
	const char *v = mt_ra_kv(a, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* Stacks truncated for reason k (enum mt_rt_trunc), or NULL when the trace does not say. */
const char *mt_ra_truncated_by(const struct mt_report_alloc *a, unsigned k)
{
	char key[64];

	snprintf(key, sizeof(key), "stacks_truncated_%s", mt_rt_trunc_name(k));
	return mt_ra_kv(a, key);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Processes (pids) among the traced images. */
size_t mt_ra_distinct_pids(const struct mt_alloc_stats *st)
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

/* Lifetimes of the freed blocks; censored: the blocks never freed (alive when their process
 * ended or at the end of the recording), counted apart (docs/metrics.md). */
static void json_life(struct mt_json *j, const char *key, const struct mt_sketch_family *f,
		      const struct mt_sketch *l, uint64_t censored)
{
	if (!l) { /* not recorded (--alloc=sites) */
		mt_json_kv_null(j, key);
		return;
	}
	mt_json_key(j, key);
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "count", l->n);
	mt_json_kv_u64(j, "censored", censored);
	mt_json_kv_str(j, "estimator", "observed");
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
		MT_JSON_KV_U64S_BUT(j, s, site_figures, site_nulls(st, s));
		MT_JSON_KV_U64S_BUT(j, s, site_peak,
				    st->sites_mode || (st->folded && !st->site_peaks_known)
					    ? peak_nulls
					    : NULL);
		/* --max-size: its calls counted in site windows, without rows (null: no fold) */
		if (st->folded)
			mt_json_kv_u64(j, "calls_folded", s->folded_calls);
		else
			mt_json_kv_null(j, "calls_folded");
		json_life(j, "lifetime_ns", &a->st.life_family, st->sites_mode ? NULL : &s->life,
			  s->leaked_blocks + s->live_blocks);
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
bool mt_ra_recorded(const struct mt_report_alloc *a)
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
	if (!mt_ra_recorded(a)) {
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
	mt_json_kv_u64(j, "stack_depth", mt_ra_kv_u64(a, "stack_depth"));
	/* --max-size: from when small blocks' calls were folded into site windows, and how
	 * many (null: no fold) */
	if (st->folded) {
		mt_json_kv_u64(j, "folded_from_ns", st->folded_from_ns);
		mt_json_kv_u64(j, "calls_folded", st->folded_calls);
	} else {
		mt_json_kv_null(j, "folded_from_ns");
		mt_json_kv_null(j, "calls_folded");
	}
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
		mt_json_kv_u64(j, mt_ra_kind_names[k], st->by_kind[k]);
	mt_json_end_object(j);
	{
		uint64_t never_freed = 0;

		for (size_t k = 0; k < st->nsites; k++)
			never_freed += st->sites[k].leaked_blocks + st->sites[k].live_blocks;
		json_life(j, "lifetime_ns", &st->life_overall, st->sites_mode ? NULL : &st->life,
			  never_freed);
	}
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
			       mt_ra_kv_u64(a, "events_without_stack_nested"));
		mt_json_kv_u64(j, "stacks_truncated", mt_ra_kv_u64(a, "stacks_truncated"));
	} else {
		MT_JSON_KV_U64S(j, st, event_counts);
	}
	/* TSC times converted to CLOCK_MONOTONIC: within this of the clock (null: not stated) */
	if (mt_ra_kv(a, "time_conversion_bound_ns"))
		mt_json_kv_u64(j, "time_conversion_bound_ns",
			       mt_ra_kv_u64(a, "time_conversion_bound_ns"));
	else
		mt_json_kv_null(j, "time_conversion_bound_ns");
	mt_json_key(j, "stacks_truncated_by_reason");
	mt_json_begin_object(j);
	for (unsigned k = 0; k < MT_RT_TRUNC_MAX; k++) {
		const char *v = mt_ra_truncated_by(a, k);

		if (v)
			mt_json_kv_u64(j, mt_rt_trunc_name(k), strtoull(v, NULL, 10));
	}
	mt_json_end_object(j);
	mt_json_kv_u64(j, "stacks_depth_limited", mt_ra_kv_u64(a, "stacks_depth_limited"));
	mt_json_kv_u64(j, "allocations_without_frames", st->no_frames);
	mt_json_kv_u64(j, "processes_traced", mt_ra_distinct_pids(st));
	mt_json_kv_u64(j, "process_images_traced", st->nprocs);
	mt_json_kv_u64(j, "processes_untraced", mt_ra_kv_u64(a, "processes_untraced"));
	if (mt_ra_kv(a, "untraced"))
		mt_json_kv_str(j, "untraced", mt_ra_kv(a, "untraced"));
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
