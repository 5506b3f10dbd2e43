/* SPDX-License-Identifier: MIT */
/* memtap export: the analysis' tables through one sink interface (Parquet, CSV, JSON lines,
 * SQLite), and mrm-trace's run directory. */
#include "export/tables.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char *const mt_export_table_names[] = {
	"runs",	 "collectors", "processes", "trace",  "region_map", "kv_block_lifecycle", "metrics",
	"sites", "phases",     "syscalls",  "faults", "rss",	    "rss_timeline",	  NULL,
};

struct rss_rows;

struct out {
	const struct mt_report *rep;
	struct mt_export_result *res;
	struct mt_sink_set set;
	struct mt_sink *trace; /* written during the pass */
	int trace_rc;
	struct rss_rows *rss_rows; /* gathered during the pass */
	char run_id[40];
	char trace_name[256]; /* the trace's base name */
};

const char *mt_sink_ext(enum mt_sink_format f)
{
	static const char *const e[] = { ".parquet", ".csv", ".jsonl", "" };

	return (unsigned)f < 4 ? e[f] : "";
}

int mt_sink_open(const struct mt_sink_set *set, const char *table, const struct mt_col *cols,
		 unsigned ncols, struct mt_sink **ret)
{
	char path[4096];

	if (set->format == MT_SINK_SQLITE)
		return mt_sink_sqlite_open(set->db, set->run_id, table, cols, ncols, ret);
	if (snprintf(path, sizeof(path), "%s/%s%s", set->dir, table, mt_sink_ext(set->format)) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (set->format != MT_SINK_PARQUET)
		return mt_sink_text_open(path, set->force, set->format == MT_SINK_JSONL, cols,
					 ncols, ret);
	return mt_pq_open(path, set->force, cols, ncols, set->meta_keys, set->meta_values,
			  set->nmeta, ret);
}

static int open_table(struct out *o, const char *table, const struct mt_col *cols, unsigned ncols,
		      struct mt_sink **sink)
{
	const char *vals[] = { MT_EXPORT_SCHEMA_VERSION, MEMTAP_VERSION, o->run_id, table };
	struct mt_sink_set set = o->set;

	set.meta_values = vals; /* Parquet: the table's own name too */
	return mt_sink_open(&set, table, cols, ncols, sink);
}

/* Commits the table when rc is 0 (else drops it); the first error. */
static int close_table(struct out *o, struct mt_sink *s, int rc)
{
	int c = mt_sink_close(s, rc == 0);

	if (!rc && !c)
		o->res->tables++;
	return rc ? rc : c;
}

/* Ends a row, counting it. */
static int row(struct out *o, struct mt_sink *s)
{
	int rc = mt_sink_end_row(s);

	if (!rc)
		o->res->rows++;
	return rc;
}

/* runs: the run, one row (in SQLite, one per run of the database). */
static int runs(struct out *o)
{
	enum {
		ID,
		TRACE,
		COMMAND,
		EXIT,
		START,
		DURATION,
		LOST,
		REALTIME,
		RECORDER,
		VERSION,
		SCHEMA,
		HOST,
		KERNEL,
		CPU,
		NCOLS
	};
	static const struct mt_col cols[NCOLS] = {
		[ID] = { "run_id", MT_COL_STRING, false },
		[TRACE] = { "trace", MT_COL_STRING, false },
		[COMMAND] = { "command", MT_COL_STRING, false },
		[EXIT] = { "exit_status", MT_COL_I64, true },
		[START] = { "start_ns", MT_COL_I64, false },
		[DURATION] = { "duration_ns", MT_COL_I64, false },
		[LOST] = { "lost_events", MT_COL_I64, false },
		[REALTIME] = { "recorded_unix_ns", MT_COL_I64, false },
		[RECORDER] = { "recorded_by", MT_COL_STRING, true },
		[VERSION] = { "memtap_version", MT_COL_STRING, false },
		[SCHEMA] = { "schema_version", MT_COL_STRING, false },
		[HOST] = { "hostname", MT_COL_STRING, true },
		[KERNEL] = { "kernel", MT_COL_STRING, true },
		[CPU] = { "cpu", MT_COL_STRING, true },
	};
	const struct mt_report *rep = o->rep;
	const struct mt_file_info *fi = mt_reader_file(rep->r);
	struct mt_sink *s = NULL;
	int rc = open_table(o, "runs", cols, NCOLS, &s);

	if (rc < 0)
		return rc;
	mt_sink_str(s, ID, o->run_id);
	mt_sink_str(s, TRACE, o->trace_name);
	mt_sink_str(s, COMMAND, rep->run.command ? rep->run.command : "");
	if (rep->run.has_exit)
		mt_sink_i64(s, EXIT, rep->run.exit_status);
	mt_sink_i64(s, START, (int64_t)rep->run.start_ns);
	mt_sink_i64(s, DURATION, (int64_t)rep->run.duration_ns);
	mt_sink_i64(s, LOST, (int64_t)rep->run.lost_events);
	mt_sink_i64(s, REALTIME, (int64_t)fi->realtime_ns);
	mt_sink_str(s, RECORDER, rep->run.memtap_version);
	mt_sink_str(s, VERSION, MEMTAP_VERSION);
	mt_sink_str(s, SCHEMA, MT_EXPORT_SCHEMA_VERSION);
	mt_sink_str(s, HOST, mt_reader_meta(rep->r, "hostname"));
	mt_sink_str(s, KERNEL, mt_reader_meta(rep->r, "kernel"));
	mt_sink_str(s, CPU, mt_reader_meta(rep->r, "cpu_model"));
	rc = row(o, s);
	return close_table(o, s, rc);
}

/* collectors: each collector's mechanism, status and counts. */
static int collectors(struct out *o)
{
	enum { NAME, MECH, STATUS, REASON, EVENTS, LOST, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[NAME] = { "collector", MT_COL_STRING, false },
		[MECH] = { "mechanism", MT_COL_STRING, true },
		[STATUS] = { "status", MT_COL_STRING, true },
		[REASON] = { "reason", MT_COL_STRING, true },
		[EVENTS] = { "events", MT_COL_I64, false },
		[LOST] = { "lost", MT_COL_I64, false },
	};
	const struct mt_run *run = &o->rep->run;
	struct mt_sink *s = NULL;
	int rc = open_table(o, "collectors", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < run->ncollectors; i++) {
		const struct mt_collector_info *c = &run->collectors[i];

		mt_sink_str(s, NAME, c->name);
		mt_sink_str(s, MECH, c->mechanism);
		mt_sink_str(s, STATUS, c->status);
		mt_sink_str(s, REASON, c->reason);
		mt_sink_i64(s, EVENTS, (int64_t)c->events);
		mt_sink_i64(s, LOST, (int64_t)c->lost);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

/* processes: the process tree. */
static int processes(struct out *o)
{
	enum { PID, PPID, COMM, EXE, ARGV, START, END, EXIT, SIGNAL, THREADS, EXECS, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[PID] = { "pid", MT_COL_I64, false },
		[PPID] = { "ppid", MT_COL_I64, false },
		[COMM] = { "comm", MT_COL_STRING, false },
		[EXE] = { "exe", MT_COL_STRING, false },
		[ARGV] = { "argv", MT_COL_STRING, false },
		[START] = { "start_ns", MT_COL_I64, false },
		[END] = { "end_ns", MT_COL_I64, true },
		[EXIT] = { "exit_status", MT_COL_I64, true },
		[SIGNAL] = { "signal", MT_COL_I64, true },
		[THREADS] = { "threads", MT_COL_I64, false },
		[EXECS] = { "execs", MT_COL_I64, false },
	};
	const struct mt_procs *ps = &o->rep->procs;
	struct mt_sink *s = NULL;
	char *argv = NULL;
	int rc = open_table(o, "processes", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < ps->n; i++) {
		const struct mt_proc *p = &ps->v[i];
		int st = mt_proc_exit_status(p);
		char *a;

		/* argv, its words separated by spaces (as the run's command) */
		a = realloc(argv, p->argv_len + 1);
		if (!a) {
			rc = -ENOMEM;
			break;
		}
		argv = a;
		for (size_t k = 0; k < p->argv_len; k++)
			argv[k] = p->argv[k] ? p->argv[k] : ' ';
		argv[p->argv_len && !p->argv[p->argv_len - 1] ? p->argv_len - 1 : p->argv_len] = 0;
		mt_sink_i64(s, PID, p->pid);
		mt_sink_i64(s, PPID, p->ppid);
		mt_sink_str(s, COMM, p->comm ? p->comm : "");
		mt_sink_str(s, EXE, p->exe ? p->exe : "");
		mt_sink_str(s, ARGV, argv);
		mt_sink_i64(s, START, (int64_t)p->start_ns);
		if (p->ended)
			mt_sink_i64(s, END, (int64_t)p->end_ns);
		if (st >= 0)
			mt_sink_i64(s, EXIT, st);
		if (p->ended && p->status_known && p->signal)
			mt_sink_i64(s, SIGNAL, p->signal);
		mt_sink_i64(s, THREADS, p->threads);
		mt_sink_i64(s, EXECS, p->execs);
		rc = row(o, s);
	}
	free(argv);
	return close_table(o, s, rc);
}

/* region_map: one row per region, with its behaviour. */
/* The access sampling behind a row's sample-based figures. */
struct sampling {
	uint64_t period, hz;
	const char *unit;
};

/* An MRM label, what decided it, and the sampling: five consecutive columns from col. */
static void sink_mrm(struct mt_sink *s, unsigned col, unsigned label, unsigned by,
		     const struct sampling *smp)
{
	char b[64];

	mt_sink_str(s, col, mt_mrm_name(label));
	if (by)
		mt_sink_str(s, col + 1, mt_mrm_by_name(by, b, sizeof(b)));
	if (smp->period)
		mt_sink_i64(s, col + 2, (int64_t)smp->period);
	if (smp->hz)
		mt_sink_i64(s, col + 3, (int64_t)smp->hz);
	if (smp->unit)
		mt_sink_str(s, col + 4, smp->unit);
}

static int region_map(struct out *o)
{
	enum {
		ID,
		PID,
		TYPE,
		LABEL,
		START,
		END,
		BYTES,
		SITE,
		SAMPLES,
		READS,
		WRITES,
		EREADS,
		EWRITES,
		FMIN,
		FMAJ,
		T_START,
		T_END,
		RET,
		LIFE,
		WO,
		WOB,
		WSS,
		MRM,
		MRMBY,
		SPER,
		SHZ,
		SUNIT,
		NCOLS
	};
	static const struct mt_col cols[NCOLS] = {
		[ID] = { "region_id", MT_COL_I64, false },
		[PID] = { "pid", MT_COL_I64, false },
		[TYPE] = { "region_type", MT_COL_STRING, false },
		[LABEL] = { "label", MT_COL_STRING, false },
		[START] = { "start", MT_COL_U64, true },
		[END] = { "end", MT_COL_U64, true },
		[BYTES] = { "bytes", MT_COL_I64, true },
		[SITE] = { "site_id", MT_COL_I64, true },
		[SAMPLES] = { "samples", MT_COL_I64, false },
		[READS] = { "total_reads", MT_COL_I64, false },
		[WRITES] = { "total_writes", MT_COL_I64, false },
		[EREADS] = { "reads_estimated", MT_COL_I64, false },
		[EWRITES] = { "writes_estimated", MT_COL_I64, false },
		[FMIN] = { "faults_minor", MT_COL_I64, false },
		[FMAJ] = { "faults_major", MT_COL_I64, false },
		[T_START] = { "start_ns", MT_COL_I64, false },
		[T_END] = { "end_ns", MT_COL_I64, true },
		[RET] = { "retention_s", MT_COL_DOUBLE, true },
		[LIFE] = { "lifetime_s", MT_COL_DOUBLE, true },
		[WO] = { "write_once_ratio", MT_COL_DOUBLE, true },
		[WOB] = { "write_once_basis", MT_COL_STRING, false },
		[WSS] = { "wss_peak_pages", MT_COL_I64, false },
		[MRM] = { "mrm", MT_COL_STRING, false },
		[MRMBY] = { "mrm_decided_by", MT_COL_STRING, true },
		[SPER] = { "sample_period", MT_COL_I64, true },
		[SHZ] = { "sample_frequency_hz", MT_COL_I64, true },
		[SUNIT] = { "sample_unit", MT_COL_STRING, true },
	};
	const struct mt_report_access *ra = &o->rep->access;
	struct mt_sink *s = NULL;
	char label[512];
	struct sampling smp;
	int rc = open_table(o, "region_map", cols, NCOLS, &s);

	mt_report_sampling(o->rep, &smp.period, &smp.hz, &smp.unit);
	for (size_t k = 0; rc == 0 && k < ra->nregions; k++) {
		const struct mt_access_region *g = &ra->st.regions[ra->regions[k]];
		const struct mt_region_behavior *b = &g->b;

		mt_sink_i64(s, ID, (int64_t)ra->regions[k]);
		mt_sink_i64(s, PID, g->pid);
		mt_sink_str(s, TYPE, mt_report_region_type(o->rep, g));
		mt_sink_str(s, LABEL, mt_report_region_label(o->rep, g, label, sizeof(label)));
		if (g->end > g->start) {
			mt_sink_u64(s, START, g->start);
			mt_sink_u64(s, END, g->end);
			mt_sink_i64(s, BYTES, (int64_t)(g->end - g->start));
		}
		if (g->site >= 0)
			mt_sink_i64(s, SITE, g->site);
		mt_sink_i64(s, SAMPLES, (int64_t)g->c.samples);
		mt_sink_i64(s, READS, (int64_t)g->c.read_samples);
		mt_sink_i64(s, WRITES, (int64_t)g->c.write_samples);
		mt_sink_i64(s, EREADS, (int64_t)g->c.reads);
		mt_sink_i64(s, EWRITES, (int64_t)g->c.writes);
		mt_sink_i64(s, FMIN, (int64_t)g->faults_minor);
		mt_sink_i64(s, FMAJ, (int64_t)g->faults_major);
		mt_sink_i64(s, T_START, (int64_t)g->t_start);
		mt_sink_ns(s, T_END, b->end_ns);
		mt_sink_dbl(s, RET, b->retention_s);
		mt_sink_dbl(s, LIFE, b->lifetime_s);
		if (b->write_once >= 0)
			mt_sink_dbl(s, WO, b->write_once);
		mt_sink_str(s, WOB, mt_wo_basis_name(b->wo_basis));
		mt_sink_i64(s, WSS, (int64_t)b->wss_peak_pages);
		sink_mrm(s, MRM, b->mrm, b->mrm_by, &smp);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

/* kv_block_lifecycle (the seed's name): every labelled object and large heap block. */
static int lifecycle(struct out *o)
{
	enum { ID, TYPE, LABEL, BYTES, T_START, FW, LW, FR, LR, T_END, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[ID] = { "region_id", MT_COL_I64, false },
		[TYPE] = { "region_type", MT_COL_STRING, false },
		[LABEL] = { "label", MT_COL_STRING, false },
		[BYTES] = { "bytes", MT_COL_I64, false },
		[T_START] = { "start_ns", MT_COL_I64, false },
		[FW] = { "first_write_ns", MT_COL_I64, true },
		[LW] = { "last_write_ns", MT_COL_I64, true },
		[FR] = { "first_read_ns", MT_COL_I64, true },
		[LR] = { "last_read_ns", MT_COL_I64, true },
		[T_END] = { "end_ns", MT_COL_I64, true },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_sink *s = NULL;
	char label[512];
	int rc = open_table(o, "kv_block_lifecycle", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < st->nregions; i++) {
		const struct mt_access_region *g = &st->regions[i];
		const struct mt_region_behavior *b = &g->b;

		if (g->type != MT_REGION_LABEL && g->type != MT_REGION_ALLOCATION)
			continue;
		mt_sink_i64(s, ID, (int64_t)i);
		mt_sink_str(s, TYPE, mt_report_region_type(o->rep, g));
		mt_sink_str(s, LABEL, mt_report_region_label(o->rep, g, label, sizeof(label)));
		mt_sink_i64(s, BYTES, (int64_t)(g->end - g->start));
		mt_sink_i64(s, T_START, (int64_t)g->t_start);
		mt_sink_ns(s, FW, b->first_write_ns);
		mt_sink_ns(s, LW, b->last_write_ns);
		mt_sink_ns(s, FR, b->first_read_ns);
		mt_sink_ns(s, LR, b->last_read_ns);
		mt_sink_ns(s, T_END, b->end_ns);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

enum {
	TR_TS,
	TR_PID,
	TR_TID,
	TR_OP,
	TR_ADDR,
	TR_PAGE,
	TR_IP,
	TR_WEIGHT,
	TR_SIZE,
	TR_REGION,
	TR_TYPE,
	TR_SITE,
	TR_PHASE,
	TR_NCOLS
};

static const struct mt_col trace_cols[TR_NCOLS] = {
	[TR_TS] = { "timestamp_ns", MT_COL_I64, false },
	[TR_PID] = { "pid", MT_COL_I64, false },
	[TR_TID] = { "tid", MT_COL_I64, false },
	[TR_OP] = { "op_type", MT_COL_STRING, false },
	[TR_ADDR] = { "address", MT_COL_U64, false },
	[TR_PAGE] = { "address_page", MT_COL_U64, false },
	[TR_IP] = { "ip", MT_COL_U64, true },
	[TR_WEIGHT] = { "weight", MT_COL_I64, false },
	[TR_SIZE] = { "size", MT_COL_I64, true },
	[TR_REGION] = { "region_id", MT_COL_I64, true },
	[TR_TYPE] = { "region_type", MT_COL_STRING, true },
	[TR_SITE] = { "site_id", MT_COL_I64, true },
	[TR_PHASE] = { "phase", MT_COL_STRING, true },
};

/* trace: every access sample, page fault (with its region) and allocation call, as the pass
 * meets them. */
static void trace_row(void *ctx, const struct mt_access_row *r)
{
	struct out *o = ctx;
	struct mt_sink *s = o->trace;

	if (o->trace_rc)
		return;
	mt_sink_i64(s, TR_TS, (int64_t)r->time_ns);
	mt_sink_i64(s, TR_PID, r->pid);
	mt_sink_i64(s, TR_TID, r->tid);
	mt_sink_str(s, TR_OP, r->op);
	mt_sink_u64(s, TR_ADDR, r->addr);
	mt_sink_u64(s, TR_PAGE, r->addr >> 12);
	if (r->has_region) { /* a sample or a fault */
		mt_sink_u64(s, TR_IP, r->ip);
		mt_sink_i64(s, TR_REGION, (int64_t)r->region_id);
		mt_sink_str(s, TR_TYPE, r->region_type);
	} else { /* an allocation call */
		mt_sink_i64(s, TR_SIZE, (int64_t)r->size);
	}
	mt_sink_i64(s, TR_WEIGHT, (int64_t)r->weight);
	if (r->site >= 0)
		mt_sink_i64(s, TR_SITE, r->site);
	if (r->phase && r->phase[0])
		mt_sink_str(s, TR_PHASE, r->phase);
	o->trace_rc = mt_sink_end_row(s);
	if (!o->trace_rc)
		o->res->trace_rows++;
}

/* metrics: one row per region type, the report's by_type figures. */
static int metrics(struct out *o)
{
	enum {
		TYPE,
		REGIONS,
		READS,
		WRITES,
		RF,
		RPW,
		R50,
		R90,
		R99,
		L50,
		WO,
		MS,
		MDS,
		SP,
		I50,
		I90,
		I99,
		RD50,
		WSS,
		MRM,
		MRMBY,
		SPER,
		SHZ,
		SUNIT,
		NCOLS
	};
	static const struct mt_col cols[NCOLS] = {
		[TYPE] = { "region_type", MT_COL_STRING, false },
		[REGIONS] = { "regions", MT_COL_I64, false },
		[READS] = { "total_reads", MT_COL_I64, false },
		[WRITES] = { "total_writes", MT_COL_I64, false },
		[RF] = { "read_fraction", MT_COL_DOUBLE, true },
		[RPW] = { "reads_per_write", MT_COL_DOUBLE, true },
		[R50] = { "retention_p50_s", MT_COL_DOUBLE, true },
		[R90] = { "retention_p90_s", MT_COL_DOUBLE, true },
		[R99] = { "retention_p99_s", MT_COL_DOUBLE, true },
		[L50] = { "lifetime_p50_s", MT_COL_DOUBLE, true },
		[WO] = { "write_once_ratio", MT_COL_DOUBLE, true },
		[MS] = { "mean_stride_bytes", MT_COL_DOUBLE, true },
		[MDS] = { "median_stride_bytes", MT_COL_DOUBLE, true },
		[SP] = { "same_page_fraction", MT_COL_DOUBLE, true },
		[I50] = { "iai_p50_ns", MT_COL_I64, true },
		[I90] = { "iai_p90_ns", MT_COL_I64, true },
		[I99] = { "iai_p99_ns", MT_COL_I64, true },
		[RD50] = { "reuse_p50_lines", MT_COL_I64, true },
		[WSS] = { "wss_peak_pages", MT_COL_I64, true },
		[MRM] = { "mrm", MT_COL_STRING, false },
		[MRMBY] = { "mrm_decided_by", MT_COL_STRING, true },
		[SPER] = { "sample_period", MT_COL_I64, true },
		[SHZ] = { "sample_frequency_hz", MT_COL_I64, true },
		[SUNIT] = { "sample_unit", MT_COL_STRING, true },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_sink *s = NULL;
	struct sampling smp;
	int rc = open_table(o, "metrics", cols, NCOLS, &s);

	mt_report_sampling(o->rep, &smp.period, &smp.hz, &smp.unit);
	for (size_t i = 0; rc == 0 && i < st->ntypes; i++) {
		const struct mt_type_metrics *m = &st->types[i];

		if (!m->regions)
			continue;
		mt_sink_str(s, TYPE, m->name);
		mt_sink_i64(s, REGIONS, (int64_t)m->regions);
		mt_sink_i64(s, READS, (int64_t)m->read_samples);
		mt_sink_i64(s, WRITES, (int64_t)m->write_samples);
		mt_sink_dbl(s, RF, m->read_fraction);
		mt_sink_dbl(s, RPW, m->reads_per_write);
		mt_sink_dbl(s, R50, m->retention_s[0]);
		mt_sink_dbl(s, R90, m->retention_s[1]);
		mt_sink_dbl(s, R99, m->retention_s[2]);
		mt_sink_dbl(s, L50, m->lifetime_s[0]);
		if (m->write_once >= 0)
			mt_sink_dbl(s, WO, m->write_once);
		mt_sink_dbl(s, MS, m->stride_mean);
		mt_sink_dbl(s, MDS, m->stride_median);
		mt_sink_dbl(s, SP, m->same_page_fraction);
		if (m->iai.n) {
			mt_sink_i64(s, I50, (int64_t)m->iai_ns[0]);
			mt_sink_i64(s, I90, (int64_t)m->iai_ns[1]);
			mt_sink_i64(s, I99, (int64_t)m->iai_ns[2]);
		}
		if (m->reuse.n)
			mt_sink_i64(s, RD50, (int64_t)m->reuse_lines[0]);
		if (m->touches)
			mt_sink_i64(s, WSS, (int64_t)m->wss_peak_pages);
		sink_mrm(s, MRM, m->mrm, m->mrm_by, &smp);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

/* sites: each allocation site's heap bytes beside its samples, faults and touched pages. */
static int sites(struct out *o)
{
	enum {
		ID,
		PID,
		FUNC,
		SAMPLES,
		READS,
		WRITES,
		FAULTS,
		PAGES,
		BYTES,
		PEAK,
		MAXLIVE,
		CALLS,
		NCOLS
	};
	static const struct mt_col cols[NCOLS] = {
		[ID] = { "site_id", MT_COL_I64, false },
		[PID] = { "pid", MT_COL_I64, false },
		[FUNC] = { "function", MT_COL_STRING, false },
		[SAMPLES] = { "samples", MT_COL_I64, false },
		[READS] = { "total_reads", MT_COL_I64, false },
		[WRITES] = { "total_writes", MT_COL_I64, false },
		[FAULTS] = { "faults", MT_COL_I64, false },
		[PAGES] = { "pages_touched", MT_COL_I64, false },
		[BYTES] = { "allocated_bytes", MT_COL_I64, true },
		[PEAK] = { "peak_bytes", MT_COL_I64, true },
		[MAXLIVE] = { "max_live_bytes", MT_COL_I64, true },
		[CALLS] = { "calls", MT_COL_I64, true },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	size_t n, *v = mt_report_ranked_sites(st, &n);
	struct mt_sink *s = NULL;
	char name[512];
	int rc = v ? open_table(o, "sites", cols, NCOLS, &s) : -ENOMEM;

	for (size_t k = 0; rc == 0 && k < n; k++) {
		const struct mt_access_site *as = &st->sites[v[k]];
		const struct mt_alloc_site *a = mt_report_alloc_site(o->rep, as);

		mt_sink_i64(s, ID, (int64_t)v[k]);
		mt_sink_i64(s, PID, as->pid);
		mt_sink_str(s, FUNC, mt_report_site_name(o->rep, v[k], name, sizeof(name)));
		mt_sink_i64(s, SAMPLES, (int64_t)as->c.samples);
		mt_sink_i64(s, READS, (int64_t)as->c.read_samples);
		mt_sink_i64(s, WRITES, (int64_t)as->c.write_samples);
		mt_sink_i64(s, FAULTS, (int64_t)as->faults);
		mt_sink_i64(s, PAGES, (int64_t)as->pages);
		if (a) {
			mt_sink_i64(s, BYTES, (int64_t)a->bytes);
			mt_sink_i64(s, PEAK, (int64_t)a->peak_bytes);
			mt_sink_i64(s, MAXLIVE, (int64_t)a->max_live_bytes);
			mt_sink_i64(s, CALLS, (int64_t)a->calls);
		}
		rc = row(o, s);
	}
	free(v);
	return close_table(o, s, rc);
}

/* phases: time, samples, faults, pages written and working set per phase. */
static int phases(struct out *o)
{
	enum { NAME, SOURCE, VISITS, DURATION, SAMPLES, ER, EW, FAULTS, PW, WSSP, WSSM, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[NAME] = { "phase", MT_COL_STRING, true },
		[SOURCE] = { "source", MT_COL_STRING, false },
		[VISITS] = { "visits", MT_COL_I64, false },
		[DURATION] = { "duration_ns", MT_COL_I64, true },
		[SAMPLES] = { "samples", MT_COL_I64, false },
		[ER] = { "reads_estimated", MT_COL_I64, false },
		[EW] = { "writes_estimated", MT_COL_I64, false },
		[FAULTS] = { "faults", MT_COL_I64, false },
		[PW] = { "pages_written", MT_COL_I64, false },
		[WSSP] = { "wss_peak_pages", MT_COL_I64, false },
		[WSSM] = { "wss_mean_pages", MT_COL_DOUBLE, false },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_sink *s = NULL;
	int rc = open_table(o, "phases", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < st->nphases; i++) {
		const struct mt_phase_stats *p = &st->phases[i];

		if (!i && !p->samples && !p->faults && !p->pages_written)
			continue;
		if (i)
			mt_sink_str(s, NAME, p->name);
		mt_sink_str(s, SOURCE,
			    !i			      ? "none"
			    : p->by_rule && p->visits ? "memtap_phase+rule"
			    : p->by_rule	      ? "rule"
						      : "memtap_phase");
		mt_sink_i64(s, VISITS, (int64_t)p->visits);
		if (i && p->visits)
			mt_sink_i64(s, DURATION, (int64_t)p->ns);
		mt_sink_i64(s, SAMPLES, (int64_t)p->samples);
		mt_sink_i64(s, ER, (int64_t)p->reads);
		mt_sink_i64(s, EW, (int64_t)p->writes);
		mt_sink_i64(s, FAULTS, (int64_t)p->faults);
		mt_sink_i64(s, PW, (int64_t)p->pages_written);
		mt_sink_i64(s, WSSP, (int64_t)p->wss_peak_pages);
		mt_sink_dbl(s, WSSM, p->wss_windows ? p->wss_sum / (double)p->wss_windows : 0);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

/* syscalls: the strace -c table, the workload's calls and the runtime's own apart. */
static int syscalls(struct out *o)
{
	enum { NAME, BY, CALLS, ERRORS, NORET, TOTAL, MIN, MAX, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[NAME] = { "name", MT_COL_STRING, false },
		[BY] = { "caller", MT_COL_STRING, false },
		[CALLS] = { "calls", MT_COL_I64, false },
		[ERRORS] = { "errors", MT_COL_I64, false },
		[NORET] = { "no_return", MT_COL_I64, false },
		[TOTAL] = { "total_ns", MT_COL_I64, false },
		[MIN] = { "min_ns", MT_COL_I64, true },
		[MAX] = { "max_ns", MT_COL_I64, true },
	};
	const struct mt_report_syscalls *rs = &o->rep->syscalls;
	struct mt_sink *s = NULL;
	char name[32];
	int rc = open_table(o, "syscalls", cols, NCOLS, &s);

	for (int t = 0; rc == 0 && rs->loaded && t < 2; t++) {
		const struct mt_syscall_table *tab = t ? &rs->st.rt : &rs->st.work;

		for (size_t i = 0; rc == 0 && i < tab->n; i++) {
			const struct mt_syscall_stat *c = &tab->v[i];

			mt_sink_str(s, NAME, mt_syscall_name(c->nr, name, sizeof(name)));
			mt_sink_str(s, BY, t ? "memtap-runtime" : "workload");
			mt_sink_i64(s, CALLS, (int64_t)c->calls);
			mt_sink_i64(s, ERRORS, (int64_t)c->errors);
			mt_sink_i64(s, NORET, (int64_t)c->no_return);
			mt_sink_i64(s, TOTAL, (int64_t)c->total_ns);
			if (c->calls) {
				mt_sink_i64(s, MIN, (int64_t)c->min_ns);
				mt_sink_i64(s, MAX, (int64_t)c->max_ns);
			}
			rc = row(o, s);
		}
	}
	return close_table(o, s, rc);
}

/* faults and rss: per process. */
static int faults(struct out *o)
{
	enum { PID, MINOR, MAJOR, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[PID] = { "pid", MT_COL_I64, false },
		[MINOR] = { "minor", MT_COL_I64, false },
		[MAJOR] = { "major", MT_COL_I64, false },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_sink *s = NULL;
	int rc = open_table(o, "faults", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < st->nfault_procs; i++) {
		mt_sink_i64(s, PID, st->fault_procs[i].pid);
		mt_sink_i64(s, MINOR, (int64_t)st->fault_procs[i].minor);
		mt_sink_i64(s, MAJOR, (int64_t)st->fault_procs[i].major);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

static int rss(struct out *o)
{
	enum { PID, PEAK, PEAK_NS, FILE_, ANON, SHMEM, SWAP, EVENTS, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[PID] = { "pid", MT_COL_I64, false },
		[PEAK] = { "peak_bytes", MT_COL_I64, false },
		[PEAK_NS] = { "peak_ns", MT_COL_I64, false },
		[FILE_] = { "file_max_bytes", MT_COL_I64, false },
		[ANON] = { "anon_max_bytes", MT_COL_I64, false },
		[SHMEM] = { "shmem_max_bytes", MT_COL_I64, false },
		[SWAP] = { "swap_max_bytes", MT_COL_I64, false },
		[EVENTS] = { "records", MT_COL_I64, false },
	};
	const struct mt_report_rss *rr = &o->rep->rss;
	struct mt_sink *s = NULL;
	int rc = open_table(o, "rss", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && rr->loaded && i < rr->st.nprocs; i++) {
		const struct mt_rss_proc *p = &rr->st.procs[i];

		mt_sink_i64(s, PID, p->pid);
		mt_sink_i64(s, PEAK, (int64_t)p->peak);
		mt_sink_i64(s, PEAK_NS, (int64_t)p->peak_ns);
		for (int k = 0; k < 4; k++)
			mt_sink_i64(s, FILE_ + (unsigned)k, (int64_t)p->max[k]);
		mt_sink_i64(s, EVENTS, (int64_t)p->events);
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

/* rss_timeline: every resident-memory record of every process, the workload's part (memtap's
 * own taken out, and given apart), in time order; gathered by a pass of the shared read. */
struct rss_row {
	uint64_t time, v[4], own;
	uint32_t pid;
	uint8_t source;
};

struct rss_rows {
	struct mt_own own;
	struct rss_row *v;
	size_t n, cap;
};

static int rss_rows_event(void *ctx, const struct mt_event *ev)
{
	struct rss_rows *rr = ctx;
	struct rss_row *x;
	uint64_t v[4], *ix;

	mt_own_event(&rr->own, ev);
	if (ev->type != MT_EV_RSS || !mt_own_rss(&rr->own, ev, v))
		return 0;
	if (mt_grow_array(&rr->v, &rr->cap, rr->n + 1, sizeof(*rr->v)) < 0)
		return -ENOMEM;
	ix = mt_map64_get(&rr->own.by_pid, ev->v[MT_F_PID]);
	x = &rr->v[rr->n++];
	x->pid = (uint32_t)ev->v[MT_F_PID];
	x->time = ev->v[MT_F_TIME];
	memcpy(x->v, v, sizeof(v));
	x->own = ix ? rr->own.v[*ix - 1].anon + rr->own.v[*ix - 1].shmem : 0;
	x->source = (uint8_t)ev->v[MT_F_RSS_SOURCE];
	return 0;
}

static int rss_rows_finish(void *ctx, int status)
{
	struct rss_rows *rr = ctx;

	mt_own_release(&rr->own);
	return status;
}

static void rss_rows_pass(struct rss_rows *rr, struct mt_reader *r, struct mt_pass *p)
{
	memset(rr, 0, sizeof(*rr));
	mt_own_init(&rr->own, r);
	*p = (struct mt_pass){ .name = "rss_timeline",
			       .types = 1ull << MT_EV_RSS | MT_OWN_EVENTS,
			       .ctx = rr,
			       .event = rss_rows_event,
			       .finish = rss_rows_finish };
}

static int rss_timeline(struct out *o)
{
	enum { PID, TIME, FILE_, ANON, SHMEM, SWAP, OWN, SOURCE, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[PID] = { "pid", MT_COL_I64, false },
		[TIME] = { "time_ns", MT_COL_I64, false },
		[FILE_] = { "file_bytes", MT_COL_I64, false },
		[ANON] = { "anon_bytes", MT_COL_I64, false },
		[SHMEM] = { "shmem_bytes", MT_COL_I64, false },
		[SWAP] = { "swap_bytes", MT_COL_I64, false },
		[OWN] = { "memtap_own_bytes", MT_COL_I64, false },
		[SOURCE] = { "source", MT_COL_STRING, false },
	};
	const struct mt_type_desc *d = mt_type_desc(MT_EV_RSS);
	struct mt_sink *s = NULL;
	int rc = open_table(o, "rss_timeline", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < o->rss_rows->n; i++) {
		const struct rss_row *x = &o->rss_rows->v[i];

		mt_sink_i64(s, PID, x->pid);
		mt_sink_i64(s, TIME, (int64_t)x->time);
		for (int k = 0; k < 4; k++)
			mt_sink_i64(s, FILE_ + (unsigned)k, (int64_t)x->v[k]);
		mt_sink_i64(s, OWN, (int64_t)x->own);
		mt_sink_str(s, SOURCE, mt_field_enum_name(&d->fields[MT_F_RSS_SOURCE], x->source));
		rc = row(o, s);
	}
	return close_table(o, s, rc);
}

/* DIR/NAME for writing, refusing an existing file unless force. */
static FILE *create(struct out *o, const char *name, char *path, size_t size)
{
	FILE *f;

	if (snprintf(path, size, "%s/%s", o->set.dir, name) >= (int)size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	f = fopen(path, o->set.force ? "we" : "wxe");
	return f;
}

/* metrics.csv: the report's per-type table (memtap report --section metrics --format csv). */
static int metrics_csv(struct out *o)
{
	struct mt_report *rep = (struct mt_report *)o->rep;
	struct mt_table t;
	char path[4096];
	FILE *f = create(o, "metrics.csv", path, sizeof(path));
	int rc = 0;

	if (!f)
		return -errno;
	rep->by = MT_BY_TYPE;
	mt_report_metrics_table(rep, &t);
	mt_table_csv(&t, f);
	mt_table_release(&t);
	if (fclose(f) != 0)
		rc = -errno;
	return rc;
}

/* metadata.json: the run, its collectors (mechanisms, observer cost) and the recording's
 * environment (the trace's META keys: kernel, CPU, memtap's options). */
static int metadata_json(struct out *o, const char *trace)
{
	const struct mt_report *rep = o->rep;
	const char **keys, **vals;
	size_t n = mt_reader_meta_all(rep->r, &keys, &vals);
	struct mt_json j;
	char path[4096];
	FILE *f = create(o, "metadata.json", path, sizeof(path));

	if (!f)
		return -errno;
	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "memtap_version", MEMTAP_VERSION);
	mt_json_kv_str(&j, "memtap_schema_version", MT_EXPORT_SCHEMA_VERSION);
	mt_json_kv_str(&j, "run_id", o->run_id);
	mt_json_kv_str(&j, "trace", trace);
	mt_json_key(&j, "run");
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "command", rep->run.command ? rep->run.command : "");
	if (rep->run.has_exit)
		mt_json_kv_i64(&j, "exit_status", rep->run.exit_status);
	else
		mt_json_kv_null(&j, "exit_status");
	mt_json_kv_u64(&j, "duration_ns", rep->run.duration_ns);
	mt_json_kv_u64(&j, "lost_events", rep->run.lost_events);
	mt_report_json_collectors(&j, &rep->run);
	mt_json_end_object(&j);
	mt_json_key(&j, "recording");
	mt_json_begin_object(&j);
	for (size_t i = 0; i < n; i++)
		mt_json_kv_str(&j, keys[i], vals[i]);
	mt_json_end_object(&j);
	mt_json_end_object(&j);
	fputc('\n', f);
	return fclose(f) != 0 ? -errno : 0;
}

/* raw/NAME: the trace itself. */
static int copy_raw(struct out *o, const char *trace, const char *name)
{
	char path[4096], buf[65536];
	FILE *in, *out;
	size_t n;
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s/raw", o->set.dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (snprintf(path, sizeof(path), "%s/raw/%s", o->set.dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	in = fopen(trace, "re");
	if (!in)
		return -errno;
	out = fopen(path, o->set.force ? "we" : "wxe");
	if (!out) {
		rc = -errno;
		fclose(in);
		return rc;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			rc = -EIO;
			break;
		}
	if (ferror(in))
		rc = -EIO;
	fclose(in);
	if (fclose(out) != 0 && !rc)
		rc = -errno;
	return rc;
}

/* manifest.json: the SHA-256 and size of every file of the run directory (written last). */
static int manifest(struct out *o, const char *const *files, size_t nfiles)
{
	struct mt_json j;
	char path[4096], file[4096], hex[65];
	FILE *f = create(o, "manifest.json", path, sizeof(path));
	int rc = 0;

	if (!f)
		return -errno;
	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "algorithm", "sha256");
	mt_json_kv_str(&j, "run_id", o->run_id);
	mt_json_key(&j, "files");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < nfiles && !rc; i++) {
		uint64_t bytes = 0;

		snprintf(file, sizeof(file), "%s/%s", o->set.dir, files[i]);
		rc = mt_sha256_file(file, hex, &bytes);
		if (rc)
			break;
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "path", files[i]);
		mt_json_kv_str(&j, "sha256", hex);
		mt_json_kv_u64(&j, "bytes", bytes);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	mt_json_end_object(&j);
	fputc('\n', f);
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	return rc;
}

/* mkdir -p: a Hive tree's directories (workload=W/config=C/rep=R) are made as needed. */
static int mkdir_p(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		p[i] = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		p[i] = i < n ? '/' : 0;
	}
	return 0;
}

/* A Hive key's value: path-safe (no '/', '=', NUL or leading '.'), at most 64 bytes. */
static void hive_value(char *dst, size_t size, const char *v)
{
	size_t n = 0;

	for (; *v && n + 1 < size && n < 64; v++) {
		bool bad = *v == '/' || *v == '=' || *v == ' ' || (unsigned char)*v < 0x20 ||
			   (n == 0 && *v == '.');

		dst[n] = bad ? '_' : *v;
		n++;
	}
	dst[n] = 0;
	if (!n)
		snprintf(dst, size, "unknown");
}

#define RUN_MARK ".memtap-run-id" /* in each Hive leaf: the run it holds */

/* The rep=* directory under parent that already holds run_id, into dir; false if none. */
static bool hive_find_run(const char *parent, const char *run_id, char *dir, size_t size)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[4096], id[64] = "";
		FILE *f;

		if (strncmp(e->d_name, "rep=", 4) ||
		    snprintf(path, sizeof(path), "%s/%s/" RUN_MARK, parent, e->d_name) >=
			    (int)sizeof(path))
			continue;
		f = fopen(path, "re");
		if (f && fgets(id, sizeof(id), f) && !strncmp(id, run_id, strlen(run_id)) &&
		    snprintf(dir, size, "%s/%s", parent, e->d_name) < (int)size)
			found = true;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* OUT/workload=W/config=C/rep=R: W defaults to the command's base name, C to "default", R to
 * the first N >= 1 whose directory does not exist yet. A run already in the tree is not
 * added twice: -EEXIST with dir naming where it is, unless force (then it is replaced). */
static int hive_dir(const struct mt_export_opts *eo, const struct mt_report *rep,
		    const char *run_id, char *dir, size_t size)
{
	char w[80], c[80], r[80], cmd[256], parent[4096];
	const char *base;
	struct stat sb;

	snprintf(cmd, sizeof(cmd), "%s", rep->run.argc ? rep->run.argv[0] : "run");
	base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	hive_value(w, sizeof(w), eo->workload ? eo->workload : base);
	hive_value(c, sizeof(c), eo->config ? eo->config : "default");
	if (snprintf(parent, sizeof(parent), "%s/workload=%s/config=%s", eo->out, w, c) <
		    (int)sizeof(parent) &&
	    hive_find_run(parent, run_id, dir, size))
		return eo->force ? 0 : -EEXIST;
	if (eo->rep) {
		hive_value(r, sizeof(r), eo->rep);
		if (snprintf(dir, size, "%s/workload=%s/config=%s/rep=%s", eo->out, w, c, r) >=
		    (int)size)
			return -ENAMETOOLONG;
		return 0;
	}
	for (unsigned k = 1; k < 100000; k++) {
		if (snprintf(dir, size, "%s/workload=%s/config=%s/rep=%u", eo->out, w, c, k) >=
		    (int)size)
			return -ENAMETOOLONG;
		if (stat(dir, &sb) < 0)
			return 0;
	}
	return -EEXIST;
}

/* The database: created when missing, its schema version checked, a transaction begun. */
static int open_db(const char *path, sqlite3 **db)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		mt_sink_sqlite_note("%s", sqlite3_errmsg(*db));
		return -EIO;
	}
	sqlite3_busy_timeout(*db, 10000);
	if (sqlite3_exec(*db,
			 "BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS memtap_schema (key TEXT "
			 "PRIMARY KEY, value TEXT NOT NULL); INSERT OR IGNORE INTO memtap_schema "
			 "VALUES ('schema_version', '" MT_EXPORT_SCHEMA_VERSION "');",
			 NULL, NULL, NULL) != SQLITE_OK) {
		mt_sink_sqlite_note("%s", sqlite3_errmsg(*db));
		return -EIO;
	}
	if (sqlite3_prepare_v2(*db, "SELECT value FROM memtap_schema WHERE key = 'schema_version'",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		if (!v || strtoul(v, NULL, 10) != strtoul(MT_EXPORT_SCHEMA_VERSION, NULL, 10)) {
			snprintf((char *)mt_sink_sqlite_error(), 512,
				 "the database has memtap schema %s; this memtap writes %s",
				 v ? v : "?", MT_EXPORT_SCHEMA_VERSION);
			rc = -EPROTO;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* Whether the run is already in the database. */
static bool db_has_run(sqlite3 *db, const char *run_id)
{
	sqlite3_stmt *st;
	bool has = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE run_id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return false; /* no runs table yet */
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

int mt_export_tables(struct mt_reader *r, const char *path, const struct mt_export_opts *eo,
		     struct mt_export_result *res)
{
	/* after the trace table, written during the pass, in mt_export_table_names' order */
	static int (*const writers[])(struct out *) = { runs,	    collectors, processes,
							region_map, lifecycle,	metrics,
							sites,	    phases,	syscalls,
							faults,	    rss,	rss_timeline };
	static const char *const keys[] = { "memtap_schema_version", "memtap_version", "run_id",
					    "table" };
	const struct mt_file_info *fi = mt_reader_file(r);
	struct mt_access_opts ao = eo->ao ? *eo->ao : (struct mt_access_opts){ 0 };
	bool files = eo->format != MT_SINK_SQLITE;
	struct mt_report rep;
	struct rss_rows rss_rows = { 0 };
	struct out o = { .rep = &rep, .res = res, .rss_rows = &rss_rows };
	struct mt_passes ps;
	struct mt_pass p;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	sqlite3 *db = NULL;
	bool loaded = false;
	int rc;

	memset(res, 0, sizeof(*res));
	mt_fmt_uuid(fi->run_id, o.run_id, sizeof(o.run_id));
	snprintf(res->run_id, sizeof(res->run_id), "%s", o.run_id);
	snprintf(o.trace_name, sizeof(o.trace_name), "%s", base);
	o.set = (struct mt_sink_set){ .format = eo->format,
				      .force = eo->force,
				      .meta_keys = keys,
				      .nmeta = 4,
				      .run_id = o.run_id };
	if (files && eo->layout == MT_LAYOUT_HIVE) {
		/* the workload's name comes from the run: read it first */
		struct mt_run run;

		rc = mt_run_summary(r, &run);
		if (rc < 0)
			return rc;
		rep.run = run;
		rc = hive_dir(eo, &rep, o.run_id, res->dir, sizeof(res->dir));
		mt_run_release(&run);
		if (rc < 0)
			return rc;
	} else {
		snprintf(res->dir, sizeof(res->dir), "%s", eo->out);
	}
	o.set.dir = res->dir;
	if (files) {
		rc = mkdir_p(res->dir);
		if (rc < 0)
			return rc;
		/* the trace table is written during the analysis pass */
		rc = open_table(&o, "trace", trace_cols, TR_NCOLS, &o.trace);
		if (rc < 0)
			return rc;
		ao.row = trace_row;
		ao.row_ctx = &o;
	} else {
		rc = open_db(eo->out, &db);
		if (rc < 0)
			goto out;
		o.set.db = db;
		res->replaced = db_has_run(db, o.run_id);
	}
	/* one read: the report's passes, the trace table's rows and the RSS timeline's */
	mt_passes_init(&ps);
	mt_report_setup(&rep, r, path, MT_SEC_ALL & ~MT_SEC_EVENTS, 10, &ao, &ps);
	rss_rows_pass(&rss_rows, r, &p);
	mt_passes_add(&ps, 0, &p);
	rc = mt_report_done(&rep, MT_SEC_ALL & ~MT_SEC_EVENTS, mt_passes_run(r, &ps));
	if (rc < 0) {
		mt_sink_close(o.trace, false);
		goto out;
	}
	loaded = true;
	if (o.trace)
		rc = close_table(&o, o.trace, o.trace_rc);
	for (size_t i = 0; rc == 0 && i < sizeof(writers) / sizeof(writers[0]); i++)
		rc = writers[i](&o);
	if (rc == 0 && files && eo->layout == MT_LAYOUT_MRM) { /* the seed's run directory */
		const char *ext = mt_sink_ext(eo->format);
		char names[16][64], raw[4096];
		const char *list[20];
		size_t n = 0;

		for (size_t i = 0; mt_export_table_names[i] && n < 16; i++) {
			snprintf(names[n], sizeof(names[n]), "%s%s", mt_export_table_names[i], ext);
			list[n] = names[n];
			n++;
		}
		snprintf(raw, sizeof(raw), "raw/%s", base);
		list[n++] = "metrics.csv";
		list[n++] = "metadata.json";
		list[n++] = raw;
		rc = metrics_csv(&o);
		if (rc == 0)
			rc = metadata_json(&o, base);
		if (rc == 0)
			rc = copy_raw(&o, path, base);
		if (rc == 0)
			rc = manifest(&o, list, n);
	}
	if (rc == 0 && files && eo->layout == MT_LAYOUT_HIVE) {
		/* which run this leaf holds: the same run is never added twice */
		char mark[4200];
		FILE *f;

		snprintf(mark, sizeof(mark), "%s/" RUN_MARK, res->dir);
		f = fopen(mark, "we");
		if (!f || fprintf(f, "%s\n", o.run_id) < 0)
			rc = -errno;
		if (f && fclose(f) && rc == 0)
			rc = -errno;
	}
out:
	if (db) {
		if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) !=
			    SQLITE_OK &&
		    rc == 0) {
			mt_sink_sqlite_note("commit: %s", sqlite3_errmsg(db));
			rc = -EIO;
		}
		sqlite3_close(db);
	}
	if (loaded)
		mt_report_release(&rep);
	free(rss_rows.v);
	return rc;
}
