/* SPDX-License-Identifier: MIT */
/* The report's allocation section as text and Markdown, and its CSV table of sites. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/strutil.h"
#include "export/report.h"
#include "export/report-alloc-internal.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/rt-proto.h"

static const char *const rank_titles[MT_NRANKS] = { "calls", "heap at the peak", "leaked",
						    "temporary allocations" };

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
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
	if (s->life.n && s->leaked_blocks + s->live_blocks) /* censored: counted apart */
		fprintf(f, " of its freed blocks (%s never freed: alive to the end)",
			mt_fmt_count(s->leaked_blocks + s->live_blocks, b5, sizeof(b5)));
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
		const char *v = mt_ra_truncated_by(a, k);
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
	char b1[64], b2[64], b3[64], b4[64], b5[64], kinds[512];
	size_t klen = 0;

	if (md)
		fprintf(f, "## Allocations\n\n");
	else
		fprintf(f, "\nallocations\n");
	if (!mt_ra_recorded(a)) {
		fprintf(f, "%snot recorded: %s\n", md ? "" : "  ",
			a->coll->reason ? a->coll->reason : a->coll->status);
		return;
	}
	fprintf(f, "%s%s%s%s\n", md ? "" : "  ", a->coll ? a->coll->mechanism : "preload runtime",
		st->sites_mode ? " (--alloc=sites: every call counted by site and size class, the "
				 "heap in 10 ms windows; no addresses or per-call times)"
		: st->folded   ? " (every call is recorded, those of small blocks from the "
				 "--max-size fold on by site: see below)"
			       : " (every call is recorded)",
		md ? "\n" : "");
	if (md)
		fprintf(f, "| | |\n|---|---|\n");
	for (int k = 0; k < MT_ALLOC_FREE; k++) {
		if (!st->by_kind[k])
			continue;
		klen += (size_t)snprintf(kinds + klen,
					 klen < sizeof(kinds) ? sizeof(kinds) - klen : 0, "%s%s %s",
					 klen ? ", " : "", mt_ra_kind_names[k],
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
	else if (st->folded && !st->peak_known)
		ROW("peak heap", "not known: several processes allocated after the --max-size "
				 "fold, whose heap windows give each one's own peak (table below)");
	else if (st->folded && !st->site_peaks_known && st->peak_bytes)
		ROW("peak heap",
		    "%s at +%s (in a heap window after the --max-size fold: its "
		    "blocks and usable bytes not known)",
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
		ROW("temporary allocations", "%s (%.1f%% of calls%s)",
		    mt_fmt_count(st->temporary, b1, sizeof(b1)), pct(st->temporary, st->calls),
		    st->folded ? "; of the recorded rows only" : "");
	if (st->folded)
		ROW("folded (--max-size)",
		    "from +%s, allocations below %s counted by site, in %s windows: %s of the "
		    "%s calls (%.1f%%), without rows, so without lifetimes or temporaries; larger "
		    "blocks, and every block allocated before, keep their rows",
		    mt_fmt_duration(st->folded_from_ns > t0 ? st->folded_from_ns - t0 : 0, b1,
				    sizeof(b1)),
		    mt_fmt_bytes(mt_ra_kv_u64(a, "fold_keep_bytes"), b2, sizeof(b2)),
		    mt_ra_kv(a, "sites_window_ns")
			    ? mt_fmt_duration(mt_ra_kv_u64(a, "sites_window_ns"), b3, sizeof(b3))
			    : "?",
		    mt_fmt_count(st->folded_calls, b4, sizeof(b4)),
		    mt_fmt_count(st->calls, b5, sizeof(b5)), pct(st->folded_calls, st->calls));
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
		    mt_ra_kv(a, "sites_window_ns")
			    ? mt_fmt_duration(mt_ra_kv_u64(a, "sites_window_ns"), b1, sizeof(b1))
			    : "?");
	else if (st->events && st->time_estimated)
		ROW("event times",
		    "%.1f%% interpolated between clock reads (--time-every %s): not bounded across "
		    "idle gaps",
		    pct(st->time_estimated, st->events),
		    mt_ra_kv(a, "time_every") ? mt_ra_kv(a, "time_every") : "?");
	else if (st->events && mt_ra_kv(a, "time_conversion_bound_ns"))
		ROW("event times",
		    "every event read the clock in its hook (TSC, converted to CLOCK_MONOTONIC "
		    "within %s ns)",
		    mt_ra_kv(a, "time_conversion_bound_ns"));
	else if (st->events)
		ROW("event times", "every event read the clock in its hook (%s)",
		    mt_ra_kv(a, "time") && !strncmp(mt_ra_kv(a, "time"), "tsc", 3)
			    ? "TSC"
			    : "CLOCK_MONOTONIC");
	if (mt_ra_kv(a, "stack_depth")) {
		char why[256];

		truncation_reasons(a, why, sizeof(why));
		ROW("stacks",
		    "up to %s frames; %s truncated%s (frames walked kept), %s cut at the depth "
		    "(innermost kept), %s without any frame",
		    mt_ra_kv(a, "stack_depth"),
		    mt_fmt_count(st->sites_mode ? mt_ra_kv_u64(a, "stacks_truncated")
						: st->truncated,
				 b1, sizeof(b1)),
		    why, mt_fmt_count(mt_ra_kv_u64(a, "stacks_depth_limited"), b2, sizeof(b2)),
		    mt_fmt_count(st->no_frames, b3, sizeof(b3)));
	}
	if (a->sym.addresses)
		ROW("symbolized addresses", "%s of %s (%s with a source line)",
		    mt_fmt_count(a->sym.resolved, b1, sizeof(b1)),
		    mt_fmt_count(a->sym.addresses, b2, sizeof(b2)),
		    mt_fmt_count(a->sym.with_line, b3, sizeof(b3)));
	{
		/* images are what the runtime traces (an exec starts a new one); people count pids */
		size_t pids = mt_ra_distinct_pids(st);

		if (pids == st->nprocs)
			ROW("processes traced", "%zu", pids);
		else
			ROW("processes traced",
			    "%zu (%zu process images: an exec starts a new one)", pids, st->nprocs);
	}
	if (mt_ra_kv_u64(a, "processes_untraced"))
		ROW("processes not traced", "%s (%s)", mt_ra_kv(a, "processes_untraced"),
		    mt_ra_kv(a, "untraced") ? mt_ra_kv(a, "untraced") : "reason unknown");
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
