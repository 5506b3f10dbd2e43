/* SPDX-License-Identifier: MIT */
/* Report rendering: each section once as data, printed in four formats. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/strutil.h"
#include "export/json.h"
#include "export/table.h"
#include "format/reader.h"

static const struct {
	const char *name;
	int bit;
} section_names[] = {
	{ "run", MT_SEC_RUN },
	{ "processes", MT_SEC_PROCESSES },
};

const char *mt_report_section_names(void)
{
	return "run, processes";
}

int mt_report_sections(const char *list, const char **bad)
{
	static char tok[64];
	int bits = 0;

	if (!list || !*list)
		return MT_SEC_ALL;
	while (*list) {
		size_t n = strcspn(list, ","), k;

		for (k = 0; k < sizeof(section_names) / sizeof(section_names[0]); k++)
			if (strlen(section_names[k].name) == n &&
			    !strncmp(section_names[k].name, list, n))
				break;
		if (k == sizeof(section_names) / sizeof(section_names[0])) {
			snprintf(tok, sizeof(tok), "%.*s", (int)(n < 60 ? n : 60), list);
			*bad = tok;
			return -1;
		}
		bits |= section_names[k].bit;
		list += n;
		if (*list)
			list++;
	}
	return bits;
}

int mt_report_load(struct mt_report *rep, struct mt_reader *r, const char *path)
{
	int rc;

	memset(rep, 0, sizeof(*rep));
	rep->r = r;
	rep->path = path;
	rc = mt_run_load(r, &rep->run);
	if (rc < 0)
		return rc;
	rc = mt_procs_build(r, &rep->procs);
	if (rc < 0) {
		mt_run_release(&rep->run);
		return rc;
	}
	return 0;
}

void mt_report_release(struct mt_report *rep)
{
	mt_procs_release(&rep->procs);
	mt_run_release(&rep->run);
}

/* The arguments of a process as one display string. */
static const char *proc_cmdline(const struct mt_proc *p, char *buf, size_t size)
{
	if (!p->argv_len) {
		snprintf(buf, size, "[%s]", p->comm && *p->comm ? p->comm : "?");
		return buf;
	}
	return mt_fmt_argv(p->argv, p->argv_len, buf, size);
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
	mt_json_kv_u64(j, "start_ns", run->start_ns);
	mt_json_kv_u64(j, "end_ns", run->end_ns);
	mt_json_kv_u64(j, "duration_ns", run->duration_ns);
	mt_json_kv_str(j, "recorded_by", run->memtap_version ? run->memtap_version : "");
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
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_kv_u64(j, "lost_events", run->lost_events);
	mt_json_kv_bool(j, "complete", mt_reader_integrity(rep->r)->complete);
	mt_json_end_object(j);
}

static void json_processes(const struct mt_report *rep, struct mt_json *j)
{
	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < rep->procs.n; i++) {
		const struct mt_proc *p = &rep->procs.v[i];
		int st = mt_proc_exit_status(p);

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", p->pid);
		mt_json_kv_u64(j, "ppid", p->ppid);
		mt_json_kv_str(j, "comm", p->comm ? p->comm : "");
		mt_json_kv_str(j, "exe", p->exe ? p->exe : "");
		mt_json_kv_u64(j, "start_ns", p->start_ns);
		if (p->ended)
			mt_json_kv_u64(j, "end_ns", p->end_ns);
		else
			mt_json_kv_null(j, "end_ns");
		if (st >= 0)
			mt_json_kv_i64(j, "exit_status", st);
		else
			mt_json_kv_null(j, "exit_status");
		mt_json_kv_u64(j, "threads", p->threads);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
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
		json_processes(rep, &j);
	mt_json_end_object(&j);
	fputc('\n', f);
}

static void fill_process_table(const struct mt_report *rep, struct mt_table *t, bool raw)
{
	static const char *const raw_heads[] = { ">pid",      ">ppid",	      ">exit",	">threads",
						 ">start_ns", ">duration_ns", "command" };
	static const char *const heads[] = { ">pid",   ">ppid",	    ">exit",  ">threads",
					     ">start", ">duration", "command" };
	char a[32], cmd[512];

	mt_table_init(t, 7, raw ? raw_heads : heads);
	for (size_t i = 0; i < rep->procs.n; i++) {
		const struct mt_proc *p = &rep->procs.v[i];
		int st = mt_proc_exit_status(p);
		uint64_t off = p->start_ns > rep->run.start_ns ? p->start_ns - rep->run.start_ns
							       : 0;

		mt_table_addf(t, "%u", p->pid);
		mt_table_addf(t, "%u", p->ppid);
		if (st >= 0)
			mt_table_addf(t, "%d", st);
		else
			mt_table_add(t, raw ? "" : "-");
		mt_table_addf(t, "%u", p->threads);
		if (raw) {
			mt_table_addf(t, "%" PRIu64, p->start_ns);
			if (p->ended)
				mt_table_addf(t, "%" PRIu64, p->end_ns - p->start_ns);
			else
				mt_table_add(t, "");
		} else {
			mt_table_addf(t, "+%s", mt_fmt_duration(off, a, sizeof(a)));
			mt_table_add(t, p->ended ? mt_fmt_duration(p->end_ns - p->start_ns, a,
								   sizeof(a))
						 : "running");
		}
		mt_table_add(t, proc_cmdline(p, cmd, sizeof(cmd)));
	}
}

static void print_text(const struct mt_report *rep, int sections, bool md, FILE *f)
{
	const struct mt_run *run = &rep->run;
	char a[64], b[64];

	if (sections & MT_SEC_RUN) {
		fprintf(f, md ? "# memtap report: `%s`\n\n" : "memtap report: %s\n\n",
			run->command ? run->command : "?");
		if (md)
			fprintf(f, "| | |\n|---|---|\n");
		fprintf(f, md ? "| trace | `%s` |\n" : "  %-12s %s\n", md ? rep->path : "trace",
			rep->path);
		if (md) {
			fprintf(f, "| duration | %s |\n",
				mt_fmt_duration(run->duration_ns, a, sizeof(a)));
			if (run->has_exit)
				fprintf(f, "| exit status | %d |\n", run->exit_status);
			fprintf(f, "| lost events | %" PRIu64 " |\n\n", run->lost_events);
		} else {
			fprintf(f, "  %-12s %s\n", "duration",
				mt_fmt_duration(run->duration_ns, a, sizeof(a)));
			if (run->has_exit)
				fprintf(f, "  %-12s %d\n", "exit status", run->exit_status);
			else
				fprintf(f, "  %-12s unknown (the trace has no end record)\n",
					"exit status");
			fprintf(f, "  %-12s %s\n\n", "lost events",
				mt_fmt_count(run->lost_events, a, sizeof(a)));
		}
		fprintf(f,
			md ? "## Collectors\n\n| collector | mechanism | status | events | lost |\n"
			     "|---|---|---|---:|---:|\n"
			   : "collectors\n");
		for (size_t i = 0; i < run->ncollectors; i++) {
			const struct mt_collector_info *c = &run->collectors[i];

			fprintf(f,
				md ? "| %s | %s | %s | %s | %s |\n"
				   : "  %-10s %-20s %-10s %10s %6s\n",
				c->name, c->mechanism, c->status,
				mt_fmt_count(c->events, a, sizeof(a)),
				mt_fmt_count(c->lost, b, sizeof(b)));
		}
		fputc('\n', f);
	}
	if (sections & MT_SEC_PROCESSES) {
		struct mt_table t;

		fill_process_table(rep, &t, false);
		if (md) {
			fprintf(f, "## Processes (%zu)\n\n|", rep->procs.n);
			for (size_t c = 0; c < t.ncols; c++)
				fprintf(f, " %s |", t.heads[c]);
			fprintf(f, "\n|");
			for (size_t c = 0; c < t.ncols; c++)
				fprintf(f, "%s|", t.align[c] == MT_RIGHT ? "---:" : "---");
			fputc('\n', f);
			for (size_t r = 0; r < t.nrows; r++) {
				fputc('|', f);
				for (size_t c = 0; c < t.ncols; c++) {
					const char *cell = t.cells[r * t.ncols + c];

					fputc(' ', f);
					for (; *cell; cell++)
						fputs(*cell == '|' ? "\\|" : (char[]){ *cell, 0 },
						      f);
					fputs(" |", f);
				}
				fputc('\n', f);
			}
			fputc('\n', f);
		} else {
			fprintf(f, "processes (%zu)\n", rep->procs.n);
			mt_table_print(&t, f, 2, true);
		}
		mt_table_release(&t);
	}
}

static void print_csv(const struct mt_report *rep, FILE *f)
{
	struct mt_table t;

	fill_process_table(rep, &t, true);
	for (size_t c = 0; c < t.ncols; c++)
		mt_csv_cell(f, t.heads[c], strlen(t.heads[c]), c == 0);
	fputc('\n', f);
	for (size_t r = 0; r < t.nrows; r++) {
		for (size_t c = 0; c < t.ncols; c++) {
			const char *cell = t.cells[r * t.ncols + c];

			mt_csv_cell(f, cell, strlen(cell), c == 0);
		}
		fputc('\n', f);
	}
	mt_table_release(&t);
}

int mt_report_print(const struct mt_report *rep, enum mt_report_format fmt, int sections, FILE *f)
{
	switch (fmt) {
	case MT_REPORT_JSON:
		print_json(rep, sections, f);
		break;
	case MT_REPORT_CSV:
		print_csv(rep, f);
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
