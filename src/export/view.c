/* SPDX-License-Identifier: MIT */
/* memtap view: the report as one offline HTML page (first-party script and styles, data as
 * HTML-safe JSON). */
#include "export/view.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/rereads.h"
#include "common/outfile.h"
#include "analysis/timeline.h"
#include "decode/syscalls.h"
#include "export/addrmap.h"
#include "export/json.h"
#include "export/table.h"
#include "export/report.h"
#include "format/reader.h"

/* The page's parts (view/view.html, .css, .js), built into the binary by cmake/embed.cmake. */
extern const char mt_view_html[], mt_view_css[], mt_view_js[];

#define MAX_OVERLAYS 4000 /* regions drawn over the address axis */

struct view {
	struct mt_addrmap m;
	uint64_t t0;
};

/* data as a JSON string of base64 (JSON has no binary; the page decodes typed arrays). */
static void json_b64(struct mt_json *j, const char *key, const void *data, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const uint8_t *p = data;
	char *out = malloc((n + 2) / 3 * 4 + 3), *q = out;

	mt_json_key(j, key);
	if (!out) {
		mt_json_null(j);
		return;
	}
	*q++ = '"';
	for (size_t i = 0; i < n; i += 3) {
		uint32_t x = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		*q++ = a[x >> 18 & 63];
		*q++ = a[x >> 12 & 63];
		*q++ = i + 1 < n ? a[x >> 6 & 63] : '=';
		*q++ = i + 2 < n ? a[x & 63] : '=';
	}
	*q++ = '"';
	mt_json_raw(j, out, (size_t)(q - out));
	free(out);
}

static void json_run(struct mt_json *j, const struct mt_report *rep, const char *path)
{
	const struct mt_run *run = &rep->run;

	mt_json_key(j, "run");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "trace", path);
	mt_json_kv_str(j, "command", run->command ? run->command : "");
	if (run->has_exit)
		mt_json_kv_i64(j, "exit_status", run->exit_status);
	else
		mt_json_kv_null(j, "exit_status");
	mt_json_kv_u64(j, "duration_ns", run->duration_ns);
	mt_json_kv_u64(j, "lost_events", run->lost_events);
	mt_json_kv_str(j, "recorded_by", run->memtap_version ? run->memtap_version : "");
	mt_report_json_collectors(j, run); /* with every parameter: periods, rates, costs */
	mt_json_end_object(j);
}

static void json_series(struct mt_json *j, const char *key, const struct mt_timeline *tl,
			size_t off, bool present)
{
	mt_json_key(j, key);
	if (!present) {
		mt_json_null(j);
		return;
	}
	mt_json_begin_array(j);
	for (size_t i = 0; i < MT_TL_BUCKETS; i++)
		mt_json_u64(j, *(const uint64_t *)((const char *)&tl->b[i] + off));
	mt_json_end_array(j);
}

static void json_timeline(struct mt_json *j, const struct mt_timeline *tl,
			  const struct mt_access_stats *as, uint64_t t0)
{
	mt_json_key(j, "timeline");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "buckets", MT_TL_BUCKETS);
	mt_json_kv_u64(j, "bucket_ns", tl->bucket_ns);
	mt_json_kv_u64(j, "rss_peak", tl->rss_peak);
	mt_json_kv_u64(j, "heap_peak", tl->heap_peak);
	json_series(j, "rss_file", tl, offsetof(struct mt_tl_bucket, rss[0]), tl->has_rss);
	json_series(j, "rss_anon", tl, offsetof(struct mt_tl_bucket, rss[1]), tl->has_rss);
	json_series(j, "rss_shmem", tl, offsetof(struct mt_tl_bucket, rss[2]), tl->has_rss);
	json_series(j, "rss_swap", tl, offsetof(struct mt_tl_bucket, rss[3]), tl->has_rss);
	json_series(j, "heap", tl, offsetof(struct mt_tl_bucket, heap_max), tl->has_heap);
	json_series(j, "faults_minor", tl, offsetof(struct mt_tl_bucket, faults_minor),
		    tl->has_faults);
	json_series(j, "faults_major", tl, offsetof(struct mt_tl_bucket, faults_major),
		    tl->has_faults);
	/* memtap's page-write tracking: apart from the workload's two series */
	json_series(j, "faults_tracking", tl, offsetof(struct mt_tl_bucket, faults_tracking),
		    tl->has_faults);
	mt_json_key(j, "wss"); /* [window start ns since t0, pages] */
	mt_json_begin_array(j);
	for (size_t i = 0; i < as->nwss; i++) {
		mt_json_begin_array(j);
		mt_json_u64(j, as->t0 + as->wss[i].t - t0);
		mt_json_u64(j, as->wss[i].pages);
		mt_json_end_array(j);
	}
	mt_json_end_array(j);
	mt_json_kv_u64(j, "wss_window_ns", as->window_ns);
	mt_json_key(j, "phases");
	mt_json_begin_array(j);
	for (size_t i = 0; i < tl->nphases; i++) {
		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", tl->phases[i].pid);
		mt_json_kv_str(j, "name", tl->phases[i].name);
		mt_json_kv_u64(j, "start", tl->phases[i].start_ns - t0);
		mt_json_kv_u64(j, "end", tl->phases[i].end_ns - t0);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_key(j, "spans"); /* the workload's own (memtap_span_begin/end) */
	mt_json_begin_array(j);
	for (size_t i = 0; i < tl->nspans; i++) {
		const struct mt_tl_span *sp = &tl->spans[i];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", sp->pid);
		mt_json_kv_u64(j, "tid", sp->tid);
		mt_json_kv_u64(j, "depth", sp->depth);
		mt_json_kv_str(j, "name", sp->name);
		mt_json_kv_u64(j, "start", sp->start_ns > t0 ? sp->start_ns - t0 : 0);
		mt_json_kv_u64(j, "end", sp->end_ns > t0 ? sp->end_ns - t0 : 0);
		mt_json_kv_bool(j, "open", sp->open);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_kv_u64(j, "spans_dropped", tl->spans_dropped);
	mt_json_end_object(j);
}

/* The address view: points as base64 typed arrays, bands, region overlays. */
static void json_points(struct mt_json *j, struct view *v, const struct mt_report *rep)
{
	const struct mt_addrmap *m = &v->m;
	const struct mt_access_stats *st = &rep->access.st;
	float *t = malloc((m->npts ? m->npts : 1) * sizeof(float));
	float *y = malloc((m->npts ? m->npts : 1) * sizeof(float));
	uint8_t *k = malloc(m->npts ? m->npts : 1);
	uint32_t *g = malloc((m->npts ? m->npts : 1) * sizeof(uint32_t));
	char hex[32], label[512];
	uint32_t *ov_of = calloc(st->nregions ? st->nregions : 1, sizeof(*ov_of));
	size_t nov = 0;

	mt_json_key(j, "address");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "total", m->seen);
	mt_json_kv_u64(j, "drawn", m->npts);
	mt_json_kv_u64(j, "stride", m->stride);
	mt_json_key(j, "segments");
	mt_json_begin_array(j);
	for (size_t i = 0; i < m->nsegs; i++) {
		const struct mt_addr_seg *s = &m->segs[i];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", s->pid);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, s->lo);
		mt_json_kv_str(j, "lo", hex);
		mt_json_kv_double(j, "size", (double)(s->hi - s->lo));
		mt_json_kv_double(j, "y0", s->y0);
		mt_json_kv_double(j, "h", s->h);
		mt_json_kv_u64(j, "points", s->points);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	/* overlays: each region with drawn points, as the bands' parts its range covers */
	mt_json_key(j, "regions");
	mt_json_begin_array(j);
	for (size_t i = 0; ov_of && i < m->npts && nov < MAX_OVERLAYS; i++) {
		uint32_t reg = m->pts[i].region;

		if (reg >= st->nregions || ov_of[reg])
			continue;
		ov_of[reg] = (uint32_t)++nov;
	}
	for (size_t r = 0; ov_of && r < st->nregions; r++) {
		const struct mt_access_region *gr = &st->regions[r];

		if (!ov_of[r])
			continue;
		mt_json_begin_object(j);
		mt_json_kv_u64(j, "ix", ov_of[r] - 1);
		mt_json_kv_u64(j, "region_id", r);
		mt_json_kv_u64(j, "pid", gr->pid);
		mt_json_kv_str(j, "region_type", mt_report_region_type(rep, gr));
		mt_json_kv_str(j, "label", mt_report_region_label(rep, gr, label, sizeof(label)));
		if (gr->end > gr->start) {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, gr->start);
			mt_json_kv_str(j, "start", hex);
			mt_json_kv_double(j, "bytes", (double)(gr->end - gr->start));
		}
		mt_json_kv_str(j, "mrm", mt_mrm_name(gr->b.mrm));
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	for (size_t i = 0; t && y && k && g && i < m->npts; i++) {
		const struct mt_addr_pt *p = &m->pts[i];

		t[i] = (float)((double)(p->t - v->t0) / 1e9);
		y[i] = (float)mt_addrmap_y(m, i);
		k[i] = p->kind;
		g[i] = p->region < st->nregions && ov_of && ov_of[p->region] ? ov_of[p->region] - 1
									     : UINT32_MAX;
	}
	if (t && y && k && g) { /* little-endian typed arrays */
		json_b64(j, "t", t, m->npts * sizeof(float));
		json_b64(j, "y", y, m->npts * sizeof(float));
		json_b64(j, "kind", k, m->npts);
		json_b64(j, "region", g, m->npts * sizeof(uint32_t));
	}
	mt_json_end_object(j);
	free(t);
	free(y);
	free(k);
	free(g);
	free(ov_of);
}

static const struct mt_json_u64 view_site_figures[] = {
	MT_JSON_U64("calls", struct mt_alloc_site, calls),
	MT_JSON_U64("bytes", struct mt_alloc_site, bytes),
	MT_JSON_U64("peak_bytes", struct mt_alloc_site, peak_bytes),
	MT_JSON_U64("leaked_bytes", struct mt_alloc_site, leaked_bytes),
	MT_JSON_U64("temporary", struct mt_alloc_site, temporary),
};

static const struct mt_json_u64 view_reread_figures[] = {
	MT_JSON_U64("reread_bytes", struct mt_reread_file, reread_bytes),
	MT_JSON_U64("bytes_read", struct mt_reread_file, bytes_read),
	MT_JSON_U64("reads", struct mt_reread_file, reads),
	MT_JSON_U64("faults", struct mt_reread_file, faults),
};

static void json_tables(struct mt_json *j, const struct mt_report *rep, const struct mt_rereads *rr,
			unsigned top)
{
	const struct mt_access_stats *st = &rep->access.st;
	const struct mt_report_alloc *a = &rep->alloc;
	char name[64];

	mt_report_regions_json(rep, j); /* as memtap report --format json has them */
	mt_json_key(j, "types");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->ntypes; i++)
		if (st->types[i].regions)
			mt_report_type_json(j, st, &st->types[i]);
	mt_json_end_array(j);
	mt_json_key(j, "sites"); /* the allocation sites ranked by bytes at the peak */
	mt_json_begin_array(j);
	for (size_t r = 0; a->loaded && r < a->nrank[MT_RANK_PEAK] && r < top; r++) {
		const struct mt_report_site *rs = &a->sel[a->rank[MT_RANK_PEAK][r]];
		const struct mt_alloc_site *s = &a->st.sites[rs->site];
		char fn[1024];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", s->pid);
		MT_JSON_KV_U64S(j, s, view_site_figures);
		mt_json_key(j, "stack");
		mt_json_begin_array(j);
		for (size_t q = 0; q < rs->nframes; q++)
			mt_json_str(j,
				    mt_frame_name(&a->frames[rs->first_frame + q], fn, sizeof(fn)));
		mt_json_end_array(j);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_key(j, "syscalls");
	mt_json_begin_array(j);
	for (size_t i = 0; rep->syscalls.loaded && i < rep->syscalls.st.work.n; i++) {
		const struct mt_syscall_stat *c = &rep->syscalls.st.work.v[i];

		mt_json_begin_object(j);
		mt_json_kv_str(j, "name", mt_syscall_name(c->nr, name, sizeof(name)));
		mt_json_kv_u64(j, "calls", c->calls);
		mt_json_kv_u64(j, "errors", c->errors);
		mt_json_kv_u64(j, "total_ns", c->total_ns);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_key(j, "rereads");
	mt_json_begin_array(j);
	for (size_t i = 0; rr && i < rr->nfiles && i < top; i++) {
		const struct mt_reread_file *fl = &rr->files[i];

		if (!fl->reread_bytes)
			continue;
		mt_json_begin_object(j);
		mt_json_kv_str(j, "path", fl->path);
		MT_JSON_KV_U64S(j, fl, view_reread_figures);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < rep->procs.n; i++) {
		const struct mt_proc *p = &rep->procs.v[i];
		int stat = mt_proc_exit_status(p);

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", p->pid);
		mt_json_kv_u64(j, "ppid", p->ppid);
		mt_json_kv_str(j, "comm", p->comm ? p->comm : "");
		mt_report_json_argv(j, p);
		mt_json_kv_u64(j, "start_ns", p->start_ns);
		if (p->ended)
			mt_json_kv_u64(j, "duration_ns", p->end_ns - p->start_ns);
		else
			mt_json_kv_null(j, "duration_ns");
		if (stat >= 0)
			mt_json_kv_i64(j, "exit_status", stat);
		else
			mt_json_kv_null(j, "exit_status");
		for (size_t q = 0; rep->rss.loaded && q < rep->rss.st.nprocs; q++)
			if (rep->rss.st.procs[q].pid == p->pid)
				mt_json_kv_u64(j, "rss_peak", rep->rss.st.procs[q].peak);
		for (size_t q = 0; q < st->nfault_procs; q++)
			if (st->fault_procs[q].pid == p->pid) {
				mt_json_kv_u64(j, "faults_minor", st->fault_procs[q].minor);
				mt_json_kv_u64(j, "faults_major", st->fault_procs[q].major);
			}
		for (size_t q = 0; a->loaded && q < a->st.nprocs; q++)
			if (a->st.procs[q].pid == p->pid)
				mt_json_kv_u64(j, "heap_peak", a->st.procs[q].peak_bytes);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

int mt_export_view(struct mt_reader *r, const char *path, const char *out,
		   const struct mt_view_opts *o, struct mt_view_stats *st)
{
	struct view v = { 0 };
	struct mt_access_opts ao = o->ao ? *o->ao : (struct mt_access_opts){ 0 };
	struct mt_timeline tl = { 0 };
	struct mt_rereads rr = { 0 };
	bool have_rr = false, to_stdout = !strcmp(out, "-");
	struct mt_report rep;
	struct mt_passes ps;
	struct mt_pass p;
	struct mt_json j;
	struct mt_outfile of = { .fd = -1 };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint64_t t1 = 0;
	FILE *f = NULL;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!to_stdout && !o->force && mt_path_exists(out))
		return -EEXIST;
	rc = mt_addrmap_init(&v.m, r, o->max_points ? o->max_points : MT_VIEW_MAX_POINTS);
	if (rc < 0)
		return rc;
	st->stride = v.m.stride;
	mt_reader_time_range(r, &v.t0, &t1);
	ao.row = mt_addrmap_row;
	ao.row_ctx = &v.m;
	/* one read: the report's passes, the timeline and the files read again */
	mt_passes_init(&ps);
	mt_report_setup(&rep, r, path, MT_SEC_ALL & ~MT_SEC_EVENTS, o->top ? o->top : 50, &ao, &ps);
	mt_passes_add(&ps, mt_timeline_pass(r, &tl, &p), &p);
	/* the rereads table goes with the syscalls section (loaded: events, or a collector on) */
	have_rr = mt_reader_event_count(r, MT_EV_SYSCALL) ||
		  mt_reader_event_count(r, MT_EV_SYSCALL_SUM) ||
		  (rep.syscalls.coll && strcmp(rep.syscalls.coll->status, "off"));
	if (have_rr)
		mt_passes_add(&ps, mt_rereads_pass(r, 0, &rr, &p), &p);
	rc = mt_report_done(&rep, MT_SEC_ALL & ~MT_SEC_EVENTS, mt_passes_run(r, &ps));
	if (rc < 0) {
		mt_timeline_release(&tl);
		mt_rereads_release(&rr);
		mt_addrmap_release(&v.m);
		return rc;
	}
	st->points = v.m.npts;
	st->points_total = v.m.seen; /* the samples with an address, and the faults */
	rc = mt_addrmap_segments(&v.m);
	if (rc < 0)
		goto out_tl;
	st->segments = (unsigned)v.m.nsegs;
	if (to_stdout) {
		f = stdout;
	} else {
		rc = mt_outfile_open(&of, out, o->force, 0666);
		if (rc < 0)
			goto out_tl;
		if (!(f = mt_outfile_stream(&of))) {
			rc = -errno;
			mt_outfile_abort(&of);
			goto out_tl;
		}
	}
	/* The page: nothing may load from anywhere (the policy forbids it, the test checks). */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>memtap: ",
	      f);
	mt_markup_text(f, rep.run.command ? rep.run.command : base);
	fputs("</title>\n<style>\n", f);
	fputs(mt_view_css, f);
	fputs("</style></head>\n<body>\n", f);
	fputs(mt_view_html, f);
	fputs("<script type=\"application/json\" id=\"memtap-data\">", f);
	mt_json_init(&j, f, false);
	j.html_safe = true; /* no "</script>" or markup can close the block */
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "memtap_version", MEMTAP_VERSION);
	json_run(&j, &rep, base);
	mt_json_kv_u64(&j, "t0_ns", v.t0);
	mt_json_kv_u64(&j, "span_ns", t1 > v.t0 ? t1 - v.t0 : 0);
	json_timeline(&j, &tl, &rep.access.st, v.t0);
	json_points(&j, &v, &rep);
	json_tables(&j, &rep, have_rr ? &rr : NULL, o->top ? o->top : 50);
	mt_json_end_object(&j);
	fputs("</script>\n<script>\n", f);
	fputs(mt_view_js, f);
	fputs("</script>\n</body></html>\n", f);
	if (!to_stdout) {
		if (fflush(f) != 0 && !rc)
			rc = -errno;
		st->bytes = (uint64_t)ftell(f);
		if (rc)
			mt_outfile_abort(&of);
		else
			rc = mt_outfile_commit(&of);
	} else if (fflush(stdout) != 0) {
		rc = -errno;
	}
out_tl:
	if (have_rr)
		mt_rereads_release(&rr);
	mt_timeline_release(&tl);
	mt_report_release(&rep);
	mt_addrmap_release(&v.m);
	return rc;
}
