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

void mt_report_proc_figures(const struct mt_report *rep, const struct mt_proc *p,
			    struct mt_proc_figures *f)
{
	const struct mt_access_stats *ac = &rep->access.st;
	const struct mt_rss_stats *rs = &rep->rss.st;

	memset(f, 0, sizeof(*f));
	/* faults and RSS as their passes count them (memtap's own memory left out) */
	f->has_faults = rep->access.faults_loaded;
	for (size_t q = 0; f->has_faults && q < ac->nfault_procs; q++)
		if (ac->fault_procs[q].pid == p->pid) {
			f->minor = ac->fault_procs[q].minor;
			f->major = ac->fault_procs[q].major;
		}
	for (size_t q = 0; rep->rss.loaded && q < rs->nprocs; q++)
		if (rs->procs[q].pid == p->pid) {
			f->has_rss = true;
			f->rss_peak = rs->procs[q].peak;
		}
	f->has_syscalls = mt_report_collector_ran(&rep->run, "syscalls");
	f->syscalls = p->syscalls;
	f->has_samples = mt_report_collector_ran(&rep->run, "access");
	f->samples = p->samples;
}

void mt_report_procs_json(const struct mt_report *rep, struct mt_json *j)
{
	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < rep->procs.n; i++) {
		struct mt_proc_figures f;

		mt_report_proc_figures(rep, &rep->procs.v[i], &f);
		mt_json_begin_object(j);
		mt_report_json_process_fields(j, &rep->procs, i, rep->run.start_ns, false);
		kv_count(j, "faults_minor", f.has_faults, f.minor);
		kv_count(j, "faults_major", f.has_faults, f.major);
		kv_count(j, "rss_peak_bytes", f.has_rss, f.rss_peak);
		kv_count(j, "syscalls", f.has_syscalls, f.syscalls);
		kv_count(j, "access_samples", f.has_samples, f.samples);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

struct ranked {
	const struct mt_proc *p;
	struct mt_proc_figures f;
};

static int by_faults(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	uint64_t fx = x->f.minor + x->f.major, fy = y->f.minor + y->f.major;

	if (fx != fy)
		return fx < fy ? 1 : -1;
	if (x->f.rss_peak != y->f.rss_peak)
		return x->f.rss_peak < y->f.rss_peak ? 1 : -1;
	return x->p->pid < y->p->pid ? -1 : x->p->pid > y->p->pid;
}

#define TOP 15

/* Do the processes shown not all share one cgroup? Then the table says each one's. */
static bool cgroups_differ(const struct ranked *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!v[i].p->cgroup != !v[0].p->cgroup ||
		    (v[i].p->cgroup && strcmp(v[i].p->cgroup, v[0].p->cgroup)))
			return true;
	return false;
}

/* A cgroup as the table shows it: its last component ("redis-server.service"). */
static const char *cgroup_leaf(const char *cg)
{
	const char *slash = cg ? strrchr(cg, '/') : NULL;

	return !cg ? "-" : slash && slash[1] ? slash + 1 : cg;
}

void mt_report_top_processes_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { ">pid",	  "command",   ">faults",  ">major",
					     ">RSS peak", ">syscalls", ">samples", "cgroup" };
	struct ranked *v = malloc((rep->procs.n + 1) * sizeof(*v));
	struct mt_table t;
	char a[64];
	bool cg;

	if (!v)
		return;
	for (size_t i = 0; i < rep->procs.n; i++) {
		v[i].p = &rep->procs.v[i];
		mt_report_proc_figures(rep, v[i].p, &v[i].f);
	}
	qsort(v, rep->procs.n, sizeof(*v), by_faults);
	cg = cgroups_differ(v, rep->procs.n < TOP ? rep->procs.n : TOP);
	mt_table_init(&t, cg ? 8 : 7, heads);
	for (size_t i = 0; i < rep->procs.n && i < TOP; i++) {
		const struct mt_proc_figures *g = &v[i].f;

		snprintf(a, sizeof(a), "%" PRIu32, v[i].p->pid);
		mt_table_add(&t, a);
		mt_table_add(&t, v[i].p->comm ? v[i].p->comm : "?");
		mt_table_add(&t,
			     g->has_faults ? mt_fmt_count(g->minor + g->major, a, sizeof(a)) : "-");
		mt_table_add(&t, g->has_faults ? mt_fmt_count(g->major, a, sizeof(a)) : "-");
		mt_table_add(&t, g->has_rss ? mt_fmt_bytes(g->rss_peak, a, sizeof(a)) : "-");
		mt_table_add(&t, g->has_syscalls ? mt_fmt_count(g->syscalls, a, sizeof(a)) : "-");
		mt_table_add(&t, g->has_samples ? mt_fmt_count(g->samples, a, sizeof(a)) : "-");
		if (cg)
			mt_table_add(&t, cgroup_leaf(v[i].p->cgroup));
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
