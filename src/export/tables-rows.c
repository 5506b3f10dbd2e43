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

/* runs: the run, one row (in SQLite, one per run of the database). */
int mt_tables_runs(struct out *o)
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
	int rc = mt_tables_open_table(o, "runs", cols, NCOLS, &s);

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
	rc = mt_tables_row(o, s);
	return mt_tables_close_table(o, s, rc);
}

/* collectors: each collector's mechanism, status and counts. */
int mt_tables_collectors(struct out *o)
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
	int rc = mt_tables_open_table(o, "collectors", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < run->ncollectors; i++) {
		const struct mt_collector_info *c = &run->collectors[i];

		mt_sink_str(s, NAME, c->name);
		mt_sink_str(s, MECH, c->mechanism);
		mt_sink_str(s, STATUS, c->status);
		mt_sink_str(s, REASON, c->reason);
		mt_sink_i64(s, EVENTS, (int64_t)c->events);
		mt_sink_i64(s, LOST, (int64_t)c->lost);
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

/* processes: the process tree. */
int mt_tables_processes(struct out *o)
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
	int rc = mt_tables_open_table(o, "processes", cols, NCOLS, &s);

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
		rc = mt_tables_row(o, s);
	}
	free(argv);
	return mt_tables_close_table(o, s, rc);
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

int mt_tables_region_map(struct out *o)
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
	int rc = mt_tables_open_table(o, "region_map", cols, NCOLS, &s);

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
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

/* kv_block_lifecycle (the seed's name): every labelled object and large heap block. */
int mt_tables_lifecycle(struct out *o)
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
	int rc = mt_tables_open_table(o, "kv_block_lifecycle", cols, NCOLS, &s);

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
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

/* metrics: one row per region type, the report's by_type figures. */
int mt_tables_metrics(struct out *o)
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
	int rc = mt_tables_open_table(o, "metrics", cols, NCOLS, &s);

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
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

/* sites: each allocation site's heap bytes beside its samples, faults and touched pages. */
int mt_tables_sites(struct out *o)
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
	int rc = v ? mt_tables_open_table(o, "sites", cols, NCOLS, &s) : -ENOMEM;

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
		rc = mt_tables_row(o, s);
	}
	free(v);
	return mt_tables_close_table(o, s, rc);
}

/* phases: time, samples, faults, pages written and working set per phase. */
int mt_tables_phases(struct out *o)
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
	int rc = mt_tables_open_table(o, "phases", cols, NCOLS, &s);

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
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

/* syscalls: the strace -c table, the workload's calls and the runtime's own apart. */
int mt_tables_syscalls(struct out *o)
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
	int rc = mt_tables_open_table(o, "syscalls", cols, NCOLS, &s);

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
			rc = mt_tables_row(o, s);
		}
	}
	return mt_tables_close_table(o, s, rc);
}

/* faults and rss: per process. */
int mt_tables_faults(struct out *o)
{
	enum { PID, MINOR, MAJOR, NCOLS };
	static const struct mt_col cols[NCOLS] = {
		[PID] = { "pid", MT_COL_I64, false },
		[MINOR] = { "minor", MT_COL_I64, false },
		[MAJOR] = { "major", MT_COL_I64, false },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_sink *s = NULL;
	int rc = mt_tables_open_table(o, "faults", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < st->nfault_procs; i++) {
		mt_sink_i64(s, PID, st->fault_procs[i].pid);
		mt_sink_i64(s, MINOR, (int64_t)st->fault_procs[i].minor);
		mt_sink_i64(s, MAJOR, (int64_t)st->fault_procs[i].major);
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

int mt_tables_rss(struct out *o)
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
	int rc = mt_tables_open_table(o, "rss", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && rr->loaded && i < rr->st.nprocs; i++) {
		const struct mt_rss_proc *p = &rr->st.procs[i];

		mt_sink_i64(s, PID, p->pid);
		mt_sink_i64(s, PEAK, (int64_t)p->peak);
		mt_sink_i64(s, PEAK_NS, (int64_t)p->peak_ns);
		for (int k = 0; k < 4; k++)
			mt_sink_i64(s, FILE_ + (unsigned)k, (int64_t)p->max[k]);
		mt_sink_i64(s, EVENTS, (int64_t)p->events);
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}

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

void mt_tables_rss_rows_pass(struct rss_rows *rr, struct mt_reader *r, struct mt_pass *p)
{
	memset(rr, 0, sizeof(*rr));
	mt_own_init(&rr->own, r);
	*p = (struct mt_pass){ .name = "rss_timeline",
			       .types = 1ull << MT_EV_RSS | MT_OWN_EVENTS,
			       .ctx = rr,
			       .event = rss_rows_event,
			       .finish = rss_rows_finish };
}

int mt_tables_rss_timeline(struct out *o)
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
	int rc = mt_tables_open_table(o, "rss_timeline", cols, NCOLS, &s);

	for (size_t i = 0; rc == 0 && i < o->rss_rows->n; i++) {
		const struct rss_row *x = &o->rss_rows->v[i];

		mt_sink_i64(s, PID, x->pid);
		mt_sink_i64(s, TIME, (int64_t)x->time);
		for (int k = 0; k < 4; k++)
			mt_sink_i64(s, FILE_ + (unsigned)k, (int64_t)x->v[k]);
		mt_sink_i64(s, OWN, (int64_t)x->own);
		mt_sink_str(s, SOURCE, mt_field_enum_name(&d->fields[MT_F_RSS_SOURCE], x->source));
		rc = mt_tables_row(o, s);
	}
	return mt_tables_close_table(o, s, rc);
}
