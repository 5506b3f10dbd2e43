/* SPDX-License-Identifier: MIT */
/* The rows of each exported table, from the report's model (docs/exports.md). */
#include "export/tables-internal.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/candidates.h"
#include "common/array.h"
#include "common/hash.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "export/parquet.h"
#include "export/table.h"
#include "analysis/own.h"
#include "format/reader.h"
#include "format/schema.h"

/*
 * Each table is one description: its columns (name, type, nullable) and a row function that
 * writes row i's cells from the model (1), skips it (0) or fails (-errno). One writer opens
 * the table, runs the rows and commits it (write_table); mt_tables_write_all keeps the
 * order of mt_export_table_names.
 */

static int write_table(struct out *o, const struct table_def *t)
{
	struct rows r = { 0 };
	struct mt_sink *s = NULL;
	int rc = t->start(o, &r);

	if (rc == 0)
		rc = mt_tables_open_table(o, t->name, t->cols, t->ncols, &s);
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		int k = t->row(o, &r, s, i);

		rc = k < 0 ? k : k ? mt_tables_row(o, s) : 0;
	}
	free(r.order);
	free(r.buf);
	return mt_tables_close_table(o, s, rc);
}

static int one_row(struct out *o, struct rows *r)
{
	(void)o;
	r->n = 1;
	return 0;
}

/* runs: the run, one row (in SQLite, one per run of the database). */
enum {
	RUN_ID,
	RUN_TRACE,
	RUN_COMMAND,
	RUN_EXIT,
	RUN_START,
	RUN_DURATION,
	RUN_LOST,
	RUN_REALTIME,
	RUN_RECORDER,
	RUN_VERSION,
	RUN_SCHEMA,
	RUN_HOST,
	RUN_KERNEL,
	RUN_CPU
};
static const struct mt_col run_cols[] = {
	[RUN_ID] = { "run_id", MT_COL_STRING, false },
	[RUN_TRACE] = { "trace", MT_COL_STRING, false },
	[RUN_COMMAND] = { "command", MT_COL_STRING, false },
	[RUN_EXIT] = { "exit_status", MT_COL_I64, true },
	[RUN_START] = { "start_ns", MT_COL_I64, false },
	[RUN_DURATION] = { "duration_ns", MT_COL_I64, false },
	[RUN_LOST] = { "lost_events", MT_COL_I64, false },
	[RUN_REALTIME] = { "recorded_unix_ns", MT_COL_I64, false },
	[RUN_RECORDER] = { "recorded_by", MT_COL_STRING, true },
	[RUN_VERSION] = { "memtap_version", MT_COL_STRING, false },
	[RUN_SCHEMA] = { "schema_version", MT_COL_STRING, false },
	[RUN_HOST] = { "hostname", MT_COL_STRING, true },
	[RUN_KERNEL] = { "kernel", MT_COL_STRING, true },
	[RUN_CPU] = { "cpu", MT_COL_STRING, true },
};

static int run_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_report *rep = o->rep;

	mt_sink_str(s, RUN_ID, o->run_id);
	mt_sink_str(s, RUN_TRACE, o->trace_name);
	mt_sink_str(s, RUN_COMMAND, rep->run.command ? rep->run.command : "");
	if (rep->run.has_exit)
		mt_sink_i64(s, RUN_EXIT, rep->run.exit_status);
	mt_sink_i64(s, RUN_START, (int64_t)rep->run.start_ns);
	mt_sink_i64(s, RUN_DURATION, (int64_t)rep->run.duration_ns);
	mt_sink_i64(s, RUN_LOST, (int64_t)rep->run.lost_events);
	mt_sink_i64(s, RUN_REALTIME, (int64_t)mt_reader_file(rep->r)->realtime_ns);
	mt_sink_str(s, RUN_RECORDER, rep->run.memtap_version);
	mt_sink_str(s, RUN_VERSION, MEMTAP_VERSION);
	mt_sink_str(s, RUN_SCHEMA, MT_EXPORT_SCHEMA_VERSION);
	mt_sink_str(s, RUN_HOST, mt_reader_meta(rep->r, "hostname"));
	mt_sink_str(s, RUN_KERNEL, mt_reader_meta(rep->r, "kernel"));
	mt_sink_str(s, RUN_CPU, mt_reader_meta(rep->r, "cpu_model"));
	return 1;
}

/* collectors: each collector's mechanism, status and counts. */
enum { COL_NAME, COL_MECH, COL_STATUS, COL_REASON, COL_EVENTS, COL_LOST };
static const struct mt_col collector_cols[] = {
	[COL_NAME] = { "collector", MT_COL_STRING, false },
	[COL_MECH] = { "mechanism", MT_COL_STRING, true },
	[COL_STATUS] = { "status", MT_COL_STRING, true },
	[COL_REASON] = { "reason", MT_COL_STRING, true },
	[COL_EVENTS] = { "events", MT_COL_I64, false },
	[COL_LOST] = { "lost", MT_COL_I64, false },
};

static int collectors_start(struct out *o, struct rows *r)
{
	r->n = o->rep->run.ncollectors;
	return 0;
}

static int collector_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_collector_info *c = &o->rep->run.collectors[i];

	mt_sink_str(s, COL_NAME, c->name);
	mt_sink_str(s, COL_MECH, c->mechanism);
	mt_sink_str(s, COL_STATUS, c->status);
	mt_sink_str(s, COL_REASON, c->reason);
	mt_sink_i64(s, COL_EVENTS, (int64_t)c->events);
	mt_sink_i64(s, COL_LOST, (int64_t)c->lost);
	return 1;
}

/* processes: the process tree. */
enum {
	PR_PID,
	PR_PPID,
	PR_COMM,
	PR_EXE,
	PR_ARGV,
	PR_START,
	PR_END,
	PR_EXIT,
	PR_SIGNAL,
	PR_THREADS,
	PR_EXECS,
	PR_MINOR,
	PR_MAJOR,
	PR_RSS,
	PR_SYSCALLS,
	PR_SAMPLES,
	PR_CGROUP
};
static const struct mt_col process_cols[] = {
	[PR_PID] = { "pid", MT_COL_I64, false },
	[PR_PPID] = { "ppid", MT_COL_I64, false },
	[PR_COMM] = { "comm", MT_COL_STRING, false },
	[PR_EXE] = { "exe", MT_COL_STRING, false },
	[PR_ARGV] = { "argv", MT_COL_STRING, false },
	[PR_START] = { "start_ns", MT_COL_I64, false },
	[PR_END] = { "end_ns", MT_COL_I64, true },
	[PR_EXIT] = { "exit_status", MT_COL_I64, true },
	[PR_SIGNAL] = { "signal", MT_COL_I64, true },
	[PR_THREADS] = { "threads", MT_COL_I64, false },
	[PR_EXECS] = { "execs", MT_COL_I64, false },
	/* its own figures; null where the collector did not run (RSS: no event named it) */
	[PR_MINOR] = { "faults_minor", MT_COL_I64, true },
	[PR_MAJOR] = { "faults_major", MT_COL_I64, true },
	[PR_RSS] = { "rss_peak_bytes", MT_COL_I64, true },
	[PR_SYSCALLS] = { "syscalls", MT_COL_I64, true },
	[PR_SAMPLES] = { "access_samples", MT_COL_I64, true },
	[PR_CGROUP] = { "cgroup", MT_COL_STRING, true }, /* null: unknown (older traces) */
};

static int processes_start(struct out *o, struct rows *r)
{
	r->n = o->rep->procs.n;
	return 0;
}

static int process_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_proc *p = &o->rep->procs.v[i];
	int st = mt_proc_exit_status(p);
	struct mt_proc_figures f;

	/* argv, its words separated by spaces (as the run's command) */
	if (mt_grow_array(&r->buf, &r->cap, p->argv_len + 1, 1) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < p->argv_len; k++)
		r->buf[k] = p->argv[k] ? p->argv[k] : ' ';
	r->buf[p->argv_len && !p->argv[p->argv_len - 1] ? p->argv_len - 1 : p->argv_len] = 0;
	mt_sink_i64(s, PR_PID, p->pid);
	mt_sink_i64(s, PR_PPID, p->ppid);
	mt_sink_str(s, PR_COMM, p->comm ? p->comm : "");
	mt_sink_str(s, PR_EXE, p->exe ? p->exe : "");
	mt_sink_str(s, PR_ARGV, r->buf);
	mt_sink_i64(s, PR_START, (int64_t)p->start_ns);
	if (p->ended)
		mt_sink_i64(s, PR_END, (int64_t)p->end_ns);
	if (st >= 0)
		mt_sink_i64(s, PR_EXIT, st);
	if (p->ended && p->status_known && p->signal)
		mt_sink_i64(s, PR_SIGNAL, p->signal);
	mt_sink_i64(s, PR_THREADS, p->threads);
	mt_sink_i64(s, PR_EXECS, p->execs);
	mt_report_proc_figures(o->rep, p, &f);
	if (f.has_faults) {
		mt_sink_i64(s, PR_MINOR, (int64_t)f.minor);
		mt_sink_i64(s, PR_MAJOR, (int64_t)f.major);
	}
	if (f.has_rss)
		mt_sink_i64(s, PR_RSS, (int64_t)f.rss_peak);
	if (f.has_syscalls)
		mt_sink_i64(s, PR_SYSCALLS, (int64_t)f.syscalls);
	if (f.has_samples)
		mt_sink_i64(s, PR_SAMPLES, (int64_t)f.samples);
	if (p->cgroup)
		mt_sink_str(s, PR_CGROUP, p->cgroup);
	return 1;
}

/* syscalls: the strace -c table, the workload's calls and the runtime's own apart. */
enum { SC_NAME, SC_BY, SC_CALLS, SC_ERRORS, SC_NORET, SC_TOTAL, SC_MIN, SC_MAX };
static const struct mt_col syscall_cols[] = {
	[SC_NAME] = { "name", MT_COL_STRING, false },
	[SC_BY] = { "caller", MT_COL_STRING, false },
	[SC_CALLS] = { "calls", MT_COL_I64, false },
	[SC_ERRORS] = { "errors", MT_COL_I64, false },
	[SC_NORET] = { "no_return", MT_COL_I64, false },
	[SC_TOTAL] = { "total_ns", MT_COL_I64, false },
	[SC_MIN] = { "min_ns", MT_COL_I64, true },
	[SC_MAX] = { "max_ns", MT_COL_I64, true },
};

static int syscalls_start(struct out *o, struct rows *r)
{
	const struct mt_report_syscalls *rs = &o->rep->syscalls;

	r->n = rs->loaded ? rs->st.work.n + rs->st.rt.n : 0;
	return 0;
}

static int syscall_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_syscalls_stats *st = &o->rep->syscalls.st;
	bool rt = i >= st->work.n;
	const struct mt_syscall_stat *c = rt ? &st->rt.v[i - st->work.n] : &st->work.v[i];

	mt_sink_str(s, SC_NAME, mt_syscall_name(c->nr, r->text, sizeof(r->text)));
	mt_sink_str(s, SC_BY, rt ? "memtap-runtime" : "workload");
	mt_sink_i64(s, SC_CALLS, (int64_t)c->calls);
	mt_sink_i64(s, SC_ERRORS, (int64_t)c->errors);
	mt_sink_i64(s, SC_NORET, (int64_t)c->no_return);
	mt_sink_i64(s, SC_TOTAL, (int64_t)c->total_ns);
	if (c->calls) {
		mt_sink_i64(s, SC_MIN, (int64_t)c->min_ns);
		mt_sink_i64(s, SC_MAX, (int64_t)c->max_ns);
	}
	return 1;
}

/* faults: per process, the workload's; page-write tracking's apart (null for a trace that
 * cannot tell them: before format 1.4). */
enum { FA_PID, FA_MINOR, FA_MAJOR, FA_TRACKING };
static const struct mt_col fault_cols[] = {
	[FA_PID] = { "pid", MT_COL_I64, false },
	[FA_MINOR] = { "minor", MT_COL_I64, false },
	[FA_MAJOR] = { "major", MT_COL_I64, false },
	[FA_TRACKING] = { "page_write_tracking", MT_COL_I64, true },
};

static int faults_start(struct out *o, struct rows *r)
{
	r->n = o->rep->access.st.nfault_procs;
	return 0;
}

static int fault_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_access_stats *st = &o->rep->access.st;

	mt_sink_i64(s, FA_PID, st->fault_procs[i].pid);
	mt_sink_i64(s, FA_MINOR, (int64_t)st->fault_procs[i].minor);
	mt_sink_i64(s, FA_MAJOR, (int64_t)st->fault_procs[i].major);
	if (st->tracking_basis != MT_FTB_UNKNOWN)
		mt_sink_i64(s, FA_TRACKING, (int64_t)st->fault_procs[i].tracking);
	return 1;
}

/* rss: per process, the peaks; rss_timeline: every record. The four amounts (file, anon,
 * shmem, swap) are consecutive columns in both. */
enum { RS_PID, RS_PEAK, RS_PEAK_NS, RS_FILE, RS_ANON, RS_SHMEM, RS_SWAP, RS_EVENTS };
static const struct mt_col rss_cols[] = {
	[RS_PID] = { "pid", MT_COL_I64, false },
	[RS_PEAK] = { "peak_bytes", MT_COL_I64, false },
	[RS_PEAK_NS] = { "peak_ns", MT_COL_I64, true }, /* null: the kernel's high-water mark */
	[RS_FILE] = { "file_max_bytes", MT_COL_I64, false },
	[RS_ANON] = { "anon_max_bytes", MT_COL_I64, false },
	[RS_SHMEM] = { "shmem_max_bytes", MT_COL_I64, false },
	[RS_SWAP] = { "swap_max_bytes", MT_COL_I64, false },
	[RS_EVENTS] = { "records", MT_COL_I64, false },
};

static void sink_amounts(struct mt_sink *s, unsigned col, const uint64_t v[4])
{
	for (unsigned k = 0; k < 4; k++)
		mt_sink_i64(s, col + k, (int64_t)v[k]);
}

static int rss_start(struct out *o, struct rows *r)
{
	r->n = o->rep->rss.loaded ? o->rep->rss.st.nprocs : 0;
	return 0;
}

static int rss_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_rss_proc *p = &o->rep->rss.st.procs[i];

	mt_sink_i64(s, RS_PID, p->pid);
	mt_sink_i64(s, RS_PEAK, (int64_t)p->peak);
	mt_sink_ns(s, RS_PEAK_NS, p->peak_ns);
	sink_amounts(s, RS_FILE, p->max);
	mt_sink_i64(s, RS_EVENTS, (int64_t)p->events);
	return 1;
}

enum { RT_PID, RT_TIME, RT_FILE, RT_ANON, RT_SHMEM, RT_SWAP, RT_OWN, RT_SOURCE };
static const struct mt_col rss_timeline_cols[] = {
	[RT_PID] = { "pid", MT_COL_I64, false },
	[RT_TIME] = { "time_ns", MT_COL_I64, false },
	[RT_FILE] = { "file_bytes", MT_COL_I64, false },
	[RT_ANON] = { "anon_bytes", MT_COL_I64, false },
	[RT_SHMEM] = { "shmem_bytes", MT_COL_I64, false },
	[RT_SWAP] = { "swap_bytes", MT_COL_I64, false },
	[RT_OWN] = { "memtap_own_bytes", MT_COL_I64, false },
	[RT_SOURCE] = { "source", MT_COL_STRING, false },
};

static int rss_timeline_start(struct out *o, struct rows *r)
{
	r->n = o->rss_rows->n;
	return 0;
}

static int rss_timeline_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_type_desc *d = mt_type_desc(MT_EV_RSS);
	const struct rss_row *x = &o->rss_rows->v[i];

	mt_sink_i64(s, RT_PID, x->pid);
	mt_sink_i64(s, RT_TIME, (int64_t)x->time);
	sink_amounts(s, RT_FILE, x->v);
	mt_sink_i64(s, RT_OWN, (int64_t)x->own);
	mt_sink_str(s, RT_SOURCE, mt_field_enum_name(&d->fields[MT_F_RSS_SOURCE], x->source));
	return 1;
}

/* spans: the workload's own (memtap_span_begin/end), each with what it did to memory. */
enum {
	SP_PID,
	SP_TID,
	SP_ID,
	SP_PARENT,
	SP_NAME,
	SP_FIELDS,
	SP_BEGIN,
	SP_END,
	SP_DURATION,
	SP_ALLOC,
	SP_ALLOC_CALLS,
	SP_FREED,
	SP_FREE_CALLS,
	SP_FAULTS,
	SP_SAMPLES,
	SP_HEAP_PEAK,
	SP_RSS,
	SP_BY_EXIT,
};
static const struct mt_col span_cols[] = {
	[SP_PID] = { "pid", MT_COL_I64, false },
	[SP_TID] = { "tid", MT_COL_I64, false },
	[SP_ID] = { "span_id", MT_COL_I64, false },
	[SP_PARENT] = { "parent_id", MT_COL_I64, true },
	[SP_NAME] = { "name", MT_COL_STRING, false },
	[SP_FIELDS] = { "fields", MT_COL_STRING, false },
	[SP_BEGIN] = { "begin_ns", MT_COL_I64, false },
	[SP_END] = { "end_ns", MT_COL_I64, false },
	[SP_DURATION] = { "duration_ns", MT_COL_I64, false },
	[SP_ALLOC] = { "alloc_bytes", MT_COL_I64, false },
	[SP_ALLOC_CALLS] = { "alloc_calls", MT_COL_I64, false },
	[SP_FREED] = { "freed_bytes", MT_COL_I64, false },
	[SP_FREE_CALLS] = { "free_calls", MT_COL_I64, false },
	[SP_FAULTS] = { "faults", MT_COL_I64, false },
	[SP_SAMPLES] = { "samples", MT_COL_I64, false },
	[SP_HEAP_PEAK] = { "heap_peak_bytes", MT_COL_I64, false },
	[SP_RSS] = { "rss_change_bytes", MT_COL_I64, true },
	[SP_BY_EXIT] = { "ended_by_exit", MT_COL_I64, false },
};

static int spans_start(struct out *o, struct rows *r)
{
	r->n = o->spans ? o->spans->n : 0;
	return 0;
}

static int span_row(struct out *o, struct rows *r, struct mt_sink *s, size_t i)
{
	const struct mt_span_row *x = &o->spans->v[i];

	mt_sink_i64(s, SP_PID, x->pid);
	mt_sink_i64(s, SP_TID, x->tid);
	mt_sink_i64(s, SP_ID, (int64_t)x->id);
	if (x->parent)
		mt_sink_i64(s, SP_PARENT, (int64_t)x->parent);
	mt_sink_str(s, SP_NAME, x->name);
	mt_sink_str(s, SP_FIELDS, x->fields);
	mt_sink_i64(s, SP_BEGIN, (int64_t)x->begin_ns);
	mt_sink_i64(s, SP_END, (int64_t)x->end_ns);
	mt_sink_i64(s, SP_DURATION, (int64_t)(x->end_ns - x->begin_ns));
	mt_sink_i64(s, SP_ALLOC, (int64_t)x->mem.alloc_bytes);
	mt_sink_i64(s, SP_ALLOC_CALLS, (int64_t)x->mem.alloc_calls);
	mt_sink_i64(s, SP_FREED, (int64_t)x->mem.freed_bytes);
	mt_sink_i64(s, SP_FREE_CALLS, (int64_t)x->mem.free_calls);
	mt_sink_i64(s, SP_FAULTS, (int64_t)x->mem.faults);
	mt_sink_i64(s, SP_SAMPLES, (int64_t)x->mem.samples);
	mt_sink_i64(s, SP_HEAP_PEAK, (int64_t)x->mem.heap_peak);
	if (x->mem.rss_known)
		mt_sink_i64(s, SP_RSS, x->mem.rss_change);
	mt_sink_i64(s, SP_BY_EXIT, x->ended_by_exit);
	return 1;
}

static const struct table_def runs = TABLE("runs", run_cols, one_row, run_row);
static const struct table_def collectors =
	TABLE("collectors", collector_cols, collectors_start, collector_row);
static const struct table_def processes =
	TABLE("processes", process_cols, processes_start, process_row);
static const struct table_def syscalls =
	TABLE("syscalls", syscall_cols, syscalls_start, syscall_row);
static const struct table_def faults = TABLE("faults", fault_cols, faults_start, fault_row);
static const struct table_def rss = TABLE("rss", rss_cols, rss_start, rss_row);
static const struct table_def rss_timeline =
	TABLE("rss_timeline", rss_timeline_cols, rss_timeline_start, rss_timeline_row);
static const struct table_def spans = TABLE("spans", span_cols, spans_start, span_row);

int mt_tables_write_all(struct out *o)
{
	/* after the trace table, written during the pass, in mt_export_table_names' order */
	static const struct table_def *const defs[] = {
		&runs,
		&collectors,
		&processes,
		&mt_table_region_map,
		&mt_table_lifecycle,
		&mt_table_metrics,
		&mt_table_sites,
		&mt_table_phases,
		&syscalls,
		&faults,
		&rss,
		&rss_timeline,
		&mt_table_candidates,
		&mt_table_placement,
		&spans,
	};
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(defs) / sizeof(defs[0]); i++)
		rc = write_table(o, defs[i]);
	return rc;
}
