/* SPDX-License-Identifier: MIT */
/* Each process's own figures in the report: faults, RSS peak, system calls, access samples
 * (JSON for every trace; a "top processes" table for attached and system-wide ones). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

bool mt_report_collector_ran(const struct mt_run *run, const char *name)
{
	for (size_t i = 0; i < run->ncollectors; i++)
		if (!strcmp(run->collectors[i].name, name))
			return !strcmp(run->collectors[i].status, "active") ||
			       !strcmp(run->collectors[i].status, "degraded");
	return false;
}

static void kv_count(struct mt_json *j, const char *key, bool known, uint64_t v)
{
	if (known)
		mt_json_kv_u64(j, key, v);
	else
		mt_json_kv_null(j, key);
}

void mt_report_procs_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_run *run = &rep->run;
	bool faults = mt_report_collector_ran(run, "faults"),
	     sys = mt_report_collector_ran(run, "syscalls"),
	     acc = mt_report_collector_ran(run, "access");

	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < rep->procs.n; i++) {
		const struct mt_proc *p = &rep->procs.v[i];

		mt_json_begin_object(j);
		mt_report_json_process_fields(j, &rep->procs, i, run->start_ns, false);
		kv_count(j, "faults_minor", faults, p->faults_minor);
		kv_count(j, "faults_major", faults, p->faults_major);
		kv_count(j, "rss_peak_bytes", p->has_rss, p->rss_peak);
		kv_count(j, "syscalls", sys, p->syscalls);
		kv_count(j, "access_samples", acc, p->samples);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

static int by_faults(const void *a, const void *b)
{
	const struct mt_proc *x = *(const struct mt_proc *const *)a;
	const struct mt_proc *y = *(const struct mt_proc *const *)b;
	uint64_t fx = x->faults_minor + x->faults_major, fy = y->faults_minor + y->faults_major;

	if (fx != fy)
		return fx < fy ? 1 : -1;
	if (x->rss_peak != y->rss_peak)
		return x->rss_peak < y->rss_peak ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

#define TOP 15

void mt_report_top_processes_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { ">pid",	  "command",   ">faults", ">major",
					     ">RSS peak", ">syscalls", ">samples" };
	const struct mt_run *run = &rep->run;
	bool faults = mt_report_collector_ran(run, "faults"),
	     sys = mt_report_collector_ran(run, "syscalls"),
	     acc = mt_report_collector_ran(run, "access");
	const struct mt_proc **v = malloc((rep->procs.n + 1) * sizeof(*v));
	struct mt_table t;
	char a[64];

	if (!v)
		return;
	for (size_t i = 0; i < rep->procs.n; i++)
		v[i] = &rep->procs.v[i];
	qsort(v, rep->procs.n, sizeof(*v), by_faults);
	mt_table_init(&t, 7, heads);
	for (size_t i = 0; i < rep->procs.n && i < TOP; i++) {
		const struct mt_proc *p = v[i];

		snprintf(a, sizeof(a), "%" PRIu32, p->pid);
		mt_table_add(&t, a);
		mt_table_add(&t, p->comm ? p->comm : "?");
		mt_table_add(&t,
			     faults ? mt_fmt_count(p->faults_minor + p->faults_major, a, sizeof(a))
				    : "-");
		mt_table_add(&t, faults ? mt_fmt_count(p->faults_major, a, sizeof(a)) : "-");
		mt_table_add(&t, p->has_rss ? mt_fmt_bytes(p->rss_peak, a, sizeof(a)) : "-");
		mt_table_add(&t, sys ? mt_fmt_count(p->syscalls, a, sizeof(a)) : "-");
		mt_table_add(&t, acc ? mt_fmt_count(p->samples, a, sizeof(a)) : "-");
	}
	if (md) {
		fprintf(f, "### Top processes (by page faults, of %zu)\n\n", rep->procs.n);
		mt_report_md_table(&t, f);
	} else {
		fprintf(f, "\ntop processes (by page faults, of %zu)\n", rep->procs.n);
		mt_table_print(&t, f, 2, true);
	}
	mt_table_release(&t);
	free(v);
}
