/* SPDX-License-Identifier: MIT */
/* Report rendering: each section once as data, printed in four formats. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/termsafe.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report-alloc-internal.h"
#include "export/table.h"
#include "format/reader.h"

/* The arguments of a process as one display string. */
static const char *proc_cmdline(const struct mt_proc *p, char *buf, size_t size)
{
	if (!p->argv_len) {
		snprintf(buf, size, "[%s]", p->comm && *p->comm ? p->comm : "?");
		return buf;
	}
	return mt_fmt_argv(p->argv, p->argv_len, buf, size);
}

void mt_report_json_collectors(struct mt_json *j, const struct mt_run *run)
{
	mt_json_key(j, "collectors");
	mt_json_begin_array(j);
	for (size_t i = 0; i < run->ncollectors; i++) {
		const struct mt_collector_info *c = &run->collectors[i];

		mt_json_begin_object(j);
		mt_json_kv_str(j, "name", c->name);
		mt_json_kv_str(j, "mechanism", c->mechanism);
		mt_json_kv_str(j, "status", c->status);
		if (c->reason)
			mt_json_kv_str(j, "reason", c->reason);
		mt_json_kv_u64(j, "events", c->events);
		mt_json_kv_u64(j, "lost", c->lost);
		if (c->kv) {
			static const char *const std_keys[] = { "name",	  "mechanism", "status",
								"reason", "events",    "lost",
								"final" };

			mt_json_key(j, "details");
			mt_json_begin_object(j);
			for (uint32_t k = 0; k < c->kv->n; k++) {
				bool std = false;

				for (size_t q = 0; q < sizeof(std_keys) / sizeof(std_keys[0]); q++)
					std |= !strcmp(c->kv->keys[k], std_keys[q]);
				if (!std)
					mt_json_kv_str(j, c->kv->keys[k], c->kv->vals[k]);
			}
			mt_json_end_object(j);
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

void mt_report_json_argv(struct mt_json *j, const struct mt_proc *p)
{
	mt_json_key(j, "argv");
	mt_json_begin_array(j);
	for (size_t k = 0; p->argv && k < p->argv_len;) {
		size_t n = strnlen(p->argv + k, p->argv_len - k);

		mt_json_strn(j, p->argv + k, n);
		k += n + 1;
	}
	mt_json_end_array(j);
}

void mt_report_json_process(struct mt_json *j, const struct mt_procs *ps, size_t i, uint64_t t0,
			    bool full)
{
	mt_json_begin_object(j);
	mt_report_json_process_fields(j, ps, i, t0, full);
	mt_json_end_object(j);
}

void mt_report_json_process_fields(struct mt_json *j, const struct mt_procs *ps, size_t i,
				   uint64_t t0, bool full)
{
	const struct mt_proc *p = &ps->v[i];
	int st = mt_proc_exit_status(p);

	mt_json_kv_u64(j, "pid", p->pid);
	mt_json_kv_u64(j, "ppid", p->ppid);
	mt_json_kv_str(j, "comm", p->comm ? p->comm : "");
	mt_json_kv_str(j, "exe", p->exe ? p->exe : "");
	if (p->cgroup)
		mt_json_kv_str(j, "cgroup", p->cgroup);
	else
		mt_json_kv_null(j, "cgroup");
	if (full)
		mt_report_json_argv(j, p);
	mt_json_kv_u64(j, "start_ns", p->start_ns);
	if (p->ended)
		mt_json_kv_u64(j, "end_ns", p->end_ns);
	else
		mt_json_kv_null(j, "end_ns");
	if (full)
		mt_json_kv_u64(j, "start_offset_ns", p->start_ns >= t0 ? p->start_ns - t0 : 0);
	if (st >= 0)
		mt_json_kv_i64(j, "exit_status", st);
	else
		mt_json_kv_null(j, "exit_status");
	if (full && p->ended && p->status_known) {
		if (p->signal)
			mt_json_kv_u64(j, "signal", (uint64_t)p->signal);
		else
			mt_json_kv_i64(j, "exit_code", p->exit_code);
	}
	mt_json_kv_u64(j, "threads", p->threads);
	if (full) {
		mt_json_kv_u64(j, "execs", p->execs);
		mt_json_key(j, "children");
		mt_json_begin_array(j);
		for (size_t k = 0; k < ps->n; k++)
			if (ps->v[k].parent == i)
				mt_json_u64(j, ps->v[k].pid);
		mt_json_end_array(j);
	}
}

void mt_report_collector_table(const struct mt_run *run, struct mt_table *t)
{
	static const char *const heads[] = { "name",	"mechanism", "status",
					     ">events", ">lost",     "note" };
	char a[32];

	mt_table_init(t, 6, heads);
	for (size_t i = 0; i < run->ncollectors; i++) {
		const struct mt_collector_info *c = &run->collectors[i];

		mt_table_add(t, c->name);
		mt_table_add(t, c->mechanism);
		mt_table_add(t, c->status);
		mt_table_add(t, mt_fmt_count(c->events, a, sizeof(a)));
		mt_table_add(t, mt_fmt_count(c->lost, a, sizeof(a)));
		mt_table_add(t, c->reason);
	}
}

void mt_report_process_table(const struct mt_procs *ps, uint64_t t0, bool raw, struct mt_table *t)
{
	static const char *const raw_heads[] = { ">pid",      ">ppid",	      ">exit",	">threads",
						 ">start_ns", ">duration_ns", "command" };
	static const char *const heads[] = { ">pid",   ">ppid",	    ">exit",  ">threads",
					     ">start", ">duration", "command" };
	size_t *order = NULL, n = ps->n;
	unsigned *depth = NULL;

	mt_table_init(t, 7, raw ? raw_heads : heads);
	/* People read a tree; scripts get creation order and raw numbers. */
	if (!raw) {
		int k = mt_procs_tree_order(ps, &order, &depth);

		if (k < 0)
			return;
		n = (size_t)k;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = raw ? k : order[k];
		const struct mt_proc *p = &ps->v[i];
		int st = mt_proc_exit_status(p);
		char a[32], cmd[512], line[600];

		mt_table_addf(t, "%u", p->pid);
		mt_table_addf(t, "%u", p->ppid);
		if (st >= 0)
			mt_table_addf(t, "%d", st);
		else
			mt_table_add(t, raw ? "" : p->ended ? "?" : "-");
		mt_table_addf(t, "%u", p->threads);
		if (raw) {
			mt_table_addf(t, "%" PRIu64, p->start_ns);
			if (p->ended)
				mt_table_addf(t, "%" PRIu64, p->end_ns - p->start_ns);
			else
				mt_table_add(t, "");
			mt_table_add(t, proc_cmdline(p, cmd, sizeof(cmd)));
			continue;
		}
		mt_table_addf(t, "+%s",
			      mt_fmt_duration(p->start_ns > t0 ? p->start_ns - t0 : 0, a,
					      sizeof(a)));
		mt_table_add(t, p->ended ? mt_fmt_duration(p->end_ns - p->start_ns, a, sizeof(a))
					 : "running");
		/* "└ " marks a child (it survives Markdown, where leading blanks do not). */
		snprintf(line, sizeof(line), "%*s%s%s",
			 depth[k] ? (int)(2 * ((depth[k] < 20 ? depth[k] : 20) - 1)) : 0, "",
			 depth[k] ? "\u2514 " : "", proc_cmdline(p, cmd, sizeof(cmd)));
		mt_table_add(t, line);
	}
	free(order);
	free(depth);
}

/* A table as a GitHub-flavoured Markdown table, with '|' in cells escaped. */
void mt_report_md_table(const struct mt_table *t, FILE *f)
{
	fputc('|', f);
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, " %s |", t->heads[c]);
	fprintf(f, "\n|");
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, "%s|", t->align[c] == MT_RIGHT ? "---:" : "---");
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		fputc('|', f);
		for (size_t c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			for (const char *s = t->cells[r * t->ncols + c]; *s; s++) {
				if (*s == '|')
					fputc('\\', f);
				if (*s == '\n' || *s == '\r')
					fputs(*s == '\n' ? "\\n" : "\\r", f);
				else
					fputc(*s, f);
			}
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* run.trace_budget: what record --max-size did (null: no budget). Times are CLOCK_MONOTONIC;
 * null where a step never came. */
static void json_budget(struct mt_json *j, const struct mt_run_budget *b)
{
	mt_json_key(j, "trace_budget");
	if (!b->max) {
		mt_json_null(j);
		return;
	}
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "max_bytes", b->max);
	if (b->fold_ns)
		mt_json_kv_u64(j, "folded_from_ns", b->fold_ns);
	else
		mt_json_kv_null(j, "folded_from_ns");
	if (b->end_ns)
		mt_json_kv_u64(j, "ended_ns", b->end_ns);
	else
		mt_json_kv_null(j, "ended_ns");
	mt_json_kv_u64(j, "left_out_events", b->left_out);
	if (b->left_out_from_ns)
		mt_json_kv_u64(j, "left_out_from_ns", b->left_out_from_ns);
	else
		mt_json_kv_null(j, "left_out_from_ns");
	mt_json_end_object(j);
}

/* The run section's line for record --max-size (memtap report and info). */
void mt_report_budget_line(const struct mt_run *run, char *text, size_t n)
{
	const struct mt_run_budget *b = &run->budget;
	char m[32], t1[32], t2[32], c[32];
	uint64_t t0 = run->start_ns;
	int k;

	k = snprintf(text, n, "--max-size %s: ", mt_fmt_bytes(b->max, m, sizeof(m)));
	if (b->fold_ns)
		k += snprintf(text + k, n - (size_t)k,
			      "from +%s, allocations of small blocks counted by site; ",
			      mt_fmt_duration(b->fold_ns > t0 ? b->fold_ns - t0 : 0, t1,
					      sizeof(t1)));
	if (!b->end_ns) {
		snprintf(text + k, n - (size_t)k, "the recording ran to its end within it");
		return;
	}
	k += snprintf(text + k, n - (size_t)k, "reached at +%s, where the recording ends",
		      mt_fmt_duration(b->end_ns > t0 ? b->end_ns - t0 : 0, t2, sizeof(t2)));
	if (b->command_end_ns > b->end_ns)
		k += snprintf(text + k, n - (size_t)k, " (the command ran on for %s, unrecorded)",
			      mt_fmt_duration(b->command_end_ns - b->end_ns, c, sizeof(c)));
	if (b->left_out && b->left_out_from_ns && b->left_out_from_ns < b->end_ns)
		snprintf(text + k, n - (size_t)k,
			 "; %s events left out, the earliest timed +%s (handed over after the "
			 "end: from there on some may be missing)",
			 mt_fmt_count(b->left_out, c, sizeof(c)),
			 mt_fmt_duration(b->left_out_from_ns > t0 ? b->left_out_from_ns - t0 : 0, m,
					 sizeof(m)));
	else if (b->left_out)
		snprintf(text + k, n - (size_t)k, "; %s events after it left out",
			 mt_fmt_count(b->left_out, c, sizeof(c)));
}

static void json_run(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_run *run = &rep->run;

	mt_json_key(j, "run");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "command", run->command ? run->command : "");
	mt_json_key(j, "argv");
	mt_json_begin_array(j);
	for (int i = 0; i < run->argc; i++)
		mt_json_str(j, run->argv[i]);
	mt_json_end_array(j);
	if (run->has_exit)
		mt_json_kv_i64(j, "exit_status", run->exit_status);
	else
		mt_json_kv_null(j, "exit_status");
	mt_json_kv_bool(j, "system_wide", run->system_wide);
	if (run->attach_pid || run->system_wide) { /* every collector ran in the exact window */
		if (run->attach_pid)
			mt_json_kv_u64(j, "attached_pid", (uint64_t)run->attach_pid);
		else
			mt_json_kv_null(j, "attached_pid");
		mt_json_key(j,
			    "attached_pids"); /* every one (--pid A,B): the first is attached_pid */
		mt_json_begin_array(j);
		for (const char *p = run->attach_pids; p && *p;
		     p += strcspn(p, ","), p += *p == ',')
			mt_json_u64(j, strtoull(p, NULL, 10));
		if (!run->attach_pids && run->attach_pid)
			mt_json_u64(j, (uint64_t)run->attach_pid);
		mt_json_end_array(j);
		mt_json_key(j, "exact_window_ns");
		mt_json_begin_array(j);
		mt_json_u64(j, run->exact_from_ns);
		mt_json_u64(j, run->exact_until_ns);
		mt_json_end_array(j);
	} else {
		mt_json_kv_null(j, "attached_pid");
		mt_json_kv_null(j, "attached_pids");
		mt_json_kv_null(j, "exact_window_ns");
	}
	if (run->alloc_exact_from_ns) /* the runtime was loaded into the attached process */
		mt_json_kv_u64(j, "alloc_exact_from_ns", run->alloc_exact_from_ns);
	else
		mt_json_kv_null(j, "alloc_exact_from_ns");
	if (run->stop_reason)
		mt_json_kv_str(j, "stop_reason", run->stop_reason);
	else
		mt_json_kv_null(j, "stop_reason");
	json_budget(j, &run->budget);
	mt_json_kv_u64(j, "start_ns", run->start_ns);
	mt_json_kv_u64(j, "end_ns", run->end_ns);
	mt_json_kv_u64(j, "duration_ns", run->duration_ns);
	mt_json_kv_str(j, "recorded_by", run->memtap_version ? run->memtap_version : "");
	mt_report_json_collectors(j, run);
	mt_json_kv_u64(j, "lost_events", run->lost_events);
	mt_json_kv_bool(j, "complete", mt_reader_integrity(rep->r)->complete);
	mt_json_end_object(j);
}

void mt_report_fold_note(const struct mt_report *rep, bool md, FILE *f)
{
	const struct mt_alloc_stats *st = &rep->alloc.st;
	char t[32], k[32];

	if (!st->folded)
		return;
	fprintf(f,
		"%s(--max-size: from +%s the blocks below %s are counted by site without rows, so "
		"the samples, faults and page writes inside them count to their mapping, not to "
		"their sites: those sites' figures are lower bounds)\n",
		md ? "" : "  ",
		mt_fmt_duration(st->folded_from_ns > rep->run.start_ns
					? st->folded_from_ns - rep->run.start_ns
					: 0,
				t, sizeof(t)),
		mt_fmt_bytes(mt_ra_kv_u64(&rep->alloc, "fold_keep_bytes"), k, sizeof(k)));
}

static void print_json(const struct mt_report *rep, int sections, FILE *f)
{
	const struct mt_file_info *fi = mt_reader_file(rep->r);
	struct mt_json j;
	char v[32];

	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "memtap_version", MEMTAP_VERSION);
	snprintf(v, sizeof(v), "%u.%u", fi->major, fi->minor);
	mt_json_kv_str(&j, "schema_version", v);
	mt_json_kv_str(&j, "trace", rep->path);
	if (sections & MT_SEC_RUN)
		json_run(rep, &j);
	if (sections & MT_SEC_PROCESSES)
		mt_report_procs_json(rep, &j);
	if ((sections & MT_SEC_ALLOC) && rep->alloc.loaded)
		mt_report_alloc_json(rep, &j);
	if ((sections & MT_SEC_ACCESS) && rep->access.loaded)
		mt_report_access_json(rep, &j);
	if ((sections & MT_SEC_FAULTS) && rep->access.faults_loaded)
		mt_report_faults_json(rep, &j);
	if ((sections & MT_SEC_RSS) && rep->rss.loaded)
		mt_report_rss_json(rep, &j);
	if ((sections & MT_SEC_SYSCALLS) && rep->syscalls.loaded)
		mt_report_syscalls_json(rep, &j);
	if ((sections & MT_SEC_EVENTS) && rep->events.loaded)
		mt_report_events_json(rep, &j);
	if ((sections & MT_SEC_METRICS) && rep->access.metrics_loaded)
		mt_report_metrics_json(rep, &j);
	if ((sections & MT_SEC_CANDIDATES) && rep->access.metrics_loaded)
		mt_report_candidates_json(rep, &j);
	if ((sections & MT_SEC_PLACEMENT) && rep->access.metrics_loaded)
		mt_report_placement_json(rep, &j);
	if ((sections & (MT_SEC_ACCESS | MT_SEC_FAULTS | MT_SEC_METRICS)) &&
	    (rep->access.loaded || rep->access.faults_loaded || rep->access.metrics_loaded))
		mt_report_regions_json(rep, &j);
	mt_json_end_object(&j);
	fputc('\n', f);
}

/* An attached or system-wide recording's line in the run section: its label and text. */
static bool attach_line(const struct mt_run *run, char *label, size_t lsize, char *text,
			size_t tsize)
{
	const char *why = run->stop_reason ? run->stop_reason : "cut short";

	if (run->system_wide) {
		snprintf(label, lsize, "recorded");
		snprintf(text, tsize,
			 "the whole system (every process but memtap's) from the start on; %s",
			 why);
	} else if (run->attach_pid) {
		snprintf(label, lsize, "attached");
		snprintf(text, tsize, "%s %s: figures from the attach on (before it: not seen); %s",
			 run->attach_pids ? "pids" : "pid",
			 run->attach_pids ? run->attach_pids : "", why);
		if (!run->attach_pids)
			snprintf(text, tsize,
				 "pid %d: figures from the attach on (before it: not seen); %s",
				 run->attach_pid, why);
	}
	return run->system_wide || run->attach_pid;
}

static void print_text(const struct mt_report *rep, int sections, bool md, FILE *f)
{
	const struct mt_run *run = &rep->run;
	struct mt_table t;
	char a[64], e[8192];

	if (sections & MT_SEC_RUN) {
		fprintf(f, md ? "# memtap report: `%s`\n\n" : "memtap report: %s\n\n",
			run->command ? mt_escape_ctl(run->command, e, sizeof(e)) : "?");
		if (md) {
			fprintf(f, "| | |\n|---|---|\n| trace | `%s` |\n",
				mt_escape_ctl(rep->path, e, sizeof(e)));
			fprintf(f, "| duration | %s |\n",
				mt_fmt_duration(run->duration_ns, a, sizeof(a)));
			if (attach_line(run, a, sizeof(a), e, sizeof(e)))
				fprintf(f, "| %s | %s |\n", a, e);
			if (run->has_exit)
				fprintf(f, "| exit status | %d |\n", run->exit_status);
			if (run->budget.max) {
				mt_report_budget_line(run, e, sizeof(e));
				fprintf(f, "| trace budget | %s |\n", e);
			}
			fprintf(f, "| lost events | %" PRIu64 " |\n\n", run->lost_events);
		} else {
			fprintf(f, "  %-12s %s\n", "trace", mt_escape_ctl(rep->path, e, sizeof(e)));
			fprintf(f, "  %-12s %s\n", "duration",
				mt_fmt_duration(run->duration_ns, a, sizeof(a)));
			if (attach_line(run, a, sizeof(a), e, sizeof(e)))
				fprintf(f, "  %-12s %s\n", a, e);
			else if (run->has_exit)
				fprintf(f, "  %-12s %d\n", "exit status", run->exit_status);
			else
				fprintf(f, "  %-12s unknown (the trace has no end record)\n",
					"exit status");
			if (run->budget.max) {
				mt_report_budget_line(run, e, sizeof(e));
				fprintf(f, "  %-12s %s\n", "trace budget", e);
			}
			fprintf(f, "  %-12s %s\n\n", "lost events",
				mt_fmt_count(run->lost_events, a, sizeof(a)));
		}
		mt_report_collector_table(run, &t);
		if (md) {
			fprintf(f, "## Collectors\n\n");
			mt_report_md_table(&t, f);
		} else {
			fprintf(f, "collectors\n");
			mt_table_print(&t, f, 2, true);
			fputc('\n', f);
		}
		mt_table_release(&t);
	}
	if (sections & MT_SEC_PROCESSES) {
		mt_report_process_table(&rep->procs, run->start_ns, false, &t);
		if (md) {
			fprintf(f, "## Processes (%zu)\n\n", rep->procs.n);
			mt_report_md_table(&t, f);
		} else {
			fprintf(f, "processes (%zu)\n", rep->procs.n);
			mt_table_print(&t, f, 2, true);
		}
		mt_table_release(&t);
		if (run->attach_pid || run->system_wide)
			mt_report_top_processes_text(rep, md, f);
	}
	if ((sections & MT_SEC_ALLOC) && rep->alloc.loaded)
		mt_report_alloc_text(rep, md, f);
	if ((sections & MT_SEC_ACCESS) && rep->access.loaded)
		mt_report_access_text(rep, md, f);
	if ((sections & MT_SEC_FAULTS) && rep->access.faults_loaded)
		mt_report_faults_text(rep, md, f);
	if ((sections & MT_SEC_RSS) && rep->rss.loaded)
		mt_report_rss_text(rep, md, f);
	if ((sections & MT_SEC_SYSCALLS) && rep->syscalls.loaded)
		mt_report_syscalls_text(rep, md, f);
	if ((sections & MT_SEC_EVENTS) && rep->events.loaded)
		mt_report_events_text(rep, md, f);
	if ((sections & MT_SEC_METRICS) && rep->access.metrics_loaded)
		mt_report_metrics_text(rep, md, f);
	if ((sections & MT_SEC_CANDIDATES) && rep->access.metrics_loaded)
		mt_report_candidates_text(rep, md, f);
	if ((sections & MT_SEC_PLACEMENT) && rep->access.metrics_loaded)
		mt_report_placement_text(rep, md, f);
}

static void print_csv(const struct mt_report *rep, int sections, FILE *f)
{
	struct mt_table t;

	if (!(sections & MT_SEC_PROCESSES) && (sections & MT_SEC_ALLOC) && rep->alloc.loaded)
		mt_report_alloc_sites_table(rep, &t);
	else if (!(sections & MT_SEC_PROCESSES) && (sections & MT_SEC_ACCESS) && rep->access.loaded)
		mt_report_access_regions_table(rep, &t);
	else if (!(sections & MT_SEC_PROCESSES) && (sections & MT_SEC_METRICS) &&
		 rep->access.metrics_loaded)
		mt_report_metrics_table(rep, &t);
	else
		mt_report_process_table(&rep->procs, rep->run.start_ns, true, &t);
	mt_table_csv(&t, f);
	mt_table_release(&t);
}

int mt_report_print(const struct mt_report *rep, enum mt_report_format fmt, int sections, FILE *f)
{
	switch (fmt) {
	case MT_REPORT_JSON:
		print_json(rep, sections, f);
		break;
	case MT_REPORT_CSV:
		print_csv(rep, sections, f);
		break;
	case MT_REPORT_MD:
		print_text(rep, sections, true, f);
		break;
	default:
		print_text(rep, sections, false, f);
		break;
	}
	return 0;
}
