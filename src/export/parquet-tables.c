/* SPDX-License-Identifier: MIT */
/* memtap export --to parquet: the analysis' tables as Parquet files, one per table. */
#include "export/parquet-tables.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sha256.h"
#include "export/json.h"
#include "export/parquet.h"
#include "export/table.h"
#include "format/reader.h"

#define MT_PARQUET_SCHEMA_VERSION "1.0"

struct out {
	const struct mt_report *rep;
	struct mt_pq *trace; /* written during the pass */
	int trace_rc;
	const char *dir;
	bool force;
	char run_id[40];
};

static int open_table(struct out *o, const char *table, const struct mt_pq_col *cols,
		      unsigned ncols, struct mt_pq **pq)
{
	static const char *const keys[] = { "memtap_schema_version", "memtap_version", "run_id",
					    "table" };
	const char *vals[] = { MT_PARQUET_SCHEMA_VERSION, MEMTAP_VERSION, o->run_id, table };
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s.parquet", o->dir, table) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return mt_pq_open(path, o->force, cols, ncols, keys, vals, 4, pq);
}

/* Commits the table when rc is 0 (else removes it); the first error. */
static int close_table(struct mt_pq *pq, int rc)
{
	int c = mt_pq_close(pq, rc == 0);

	return rc ? rc : c;
}

static void opt_ns(struct mt_pq *pq, unsigned col, uint64_t ns)
{
	if (ns)
		mt_pq_i64(pq, col, (int64_t)ns);
}

/* region_map: one row per region, with its behaviour. */
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
		NCOLS
	};
	static const struct mt_pq_col cols[NCOLS] = {
		[ID] = { "region_id", MT_PQ_I64, false },
		[PID] = { "pid", MT_PQ_I64, false },
		[TYPE] = { "region_type", MT_PQ_STRING, false },
		[LABEL] = { "label", MT_PQ_STRING, false },
		[START] = { "start", MT_PQ_U64, true },
		[END] = { "end", MT_PQ_U64, true },
		[BYTES] = { "bytes", MT_PQ_I64, true },
		[SITE] = { "site_id", MT_PQ_I64, true },
		[SAMPLES] = { "samples", MT_PQ_I64, false },
		[READS] = { "total_reads", MT_PQ_I64, false },
		[WRITES] = { "total_writes", MT_PQ_I64, false },
		[EREADS] = { "reads_estimated", MT_PQ_I64, false },
		[EWRITES] = { "writes_estimated", MT_PQ_I64, false },
		[FMIN] = { "faults_minor", MT_PQ_I64, false },
		[FMAJ] = { "faults_major", MT_PQ_I64, false },
		[T_START] = { "start_ns", MT_PQ_I64, false },
		[T_END] = { "end_ns", MT_PQ_I64, true },
		[RET] = { "retention_s", MT_PQ_DOUBLE, false },
		[LIFE] = { "lifetime_s", MT_PQ_DOUBLE, false },
		[WO] = { "write_once_ratio", MT_PQ_DOUBLE, true },
		[WOB] = { "write_once_basis", MT_PQ_STRING, false },
		[WSS] = { "wss_peak_pages", MT_PQ_I64, false },
		[MRM] = { "mrm", MT_PQ_STRING, false },
	};
	const struct mt_report_access *ra = &o->rep->access;
	struct mt_pq *pq;
	char label[512];
	int rc = open_table(o, "region_map", cols, NCOLS, &pq);

	if (rc < 0)
		return rc;
	for (size_t k = 0; k < ra->nregions && rc == 0; k++) {
		const struct mt_access_region *g = &ra->st.regions[ra->regions[k]];
		const struct mt_region_behavior *b = &g->b;

		mt_pq_i64(pq, ID, (int64_t)ra->regions[k]);
		mt_pq_i64(pq, PID, g->pid);
		mt_pq_str(pq, TYPE, mt_report_region_type(o->rep, g));
		mt_pq_str(pq, LABEL, mt_report_region_label(o->rep, g, label, sizeof(label)));
		if (g->end > g->start) {
			mt_pq_u64(pq, START, g->start);
			mt_pq_u64(pq, END, g->end);
			mt_pq_i64(pq, BYTES, (int64_t)(g->end - g->start));
		}
		if (g->site >= 0)
			mt_pq_i64(pq, SITE, g->site);
		mt_pq_i64(pq, SAMPLES, (int64_t)g->c.samples);
		mt_pq_i64(pq, READS, (int64_t)g->c.read_samples);
		mt_pq_i64(pq, WRITES, (int64_t)g->c.write_samples);
		mt_pq_i64(pq, EREADS, (int64_t)g->c.reads);
		mt_pq_i64(pq, EWRITES, (int64_t)g->c.writes);
		mt_pq_i64(pq, FMIN, (int64_t)g->faults_minor);
		mt_pq_i64(pq, FMAJ, (int64_t)g->faults_major);
		mt_pq_i64(pq, T_START, (int64_t)g->t_start);
		opt_ns(pq, T_END, b->end_ns);
		mt_pq_double(pq, RET, (double)b->retention_ns / 1e9);
		mt_pq_double(pq, LIFE, (double)b->lifetime_ns / 1e9);
		if (b->write_once >= 0)
			mt_pq_double(pq, WO, b->write_once);
		mt_pq_str(pq, WOB, mt_wo_basis_name(b->wo_basis));
		mt_pq_i64(pq, WSS, (int64_t)b->wss_peak_pages);
		mt_pq_str(pq, MRM, mt_mrm_name(b->mrm));
		rc = mt_pq_end_row(pq);
	}
	return close_table(pq, rc);
}

/* kv_block_lifecycle (the seed's name): every labelled object and large heap block. */
static int lifecycle(struct out *o)
{
	enum { ID, TYPE, LABEL, BYTES, T_START, FW, LW, FR, LR, T_END, NCOLS };
	static const struct mt_pq_col cols[NCOLS] = {
		[ID] = { "region_id", MT_PQ_I64, false },
		[TYPE] = { "region_type", MT_PQ_STRING, false },
		[LABEL] = { "label", MT_PQ_STRING, false },
		[BYTES] = { "bytes", MT_PQ_I64, false },
		[T_START] = { "start_ns", MT_PQ_I64, false },
		[FW] = { "first_write_ns", MT_PQ_I64, true },
		[LW] = { "last_write_ns", MT_PQ_I64, true },
		[FR] = { "first_read_ns", MT_PQ_I64, true },
		[LR] = { "last_read_ns", MT_PQ_I64, true },
		[T_END] = { "end_ns", MT_PQ_I64, true },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_pq *pq;
	char label[512];
	int rc = open_table(o, "kv_block_lifecycle", cols, NCOLS, &pq);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < st->nregions && rc == 0; i++) {
		const struct mt_access_region *g = &st->regions[i];
		const struct mt_region_behavior *b = &g->b;

		if (g->type != MT_REGION_LABEL && g->type != MT_REGION_ALLOCATION)
			continue;
		mt_pq_i64(pq, ID, (int64_t)i);
		mt_pq_str(pq, TYPE, mt_report_region_type(o->rep, g));
		mt_pq_str(pq, LABEL, mt_report_region_label(o->rep, g, label, sizeof(label)));
		mt_pq_i64(pq, BYTES, (int64_t)(g->end - g->start));
		mt_pq_i64(pq, T_START, (int64_t)g->t_start);
		opt_ns(pq, FW, b->first_write_ns);
		opt_ns(pq, LW, b->last_write_ns);
		opt_ns(pq, FR, b->first_read_ns);
		opt_ns(pq, LR, b->last_read_ns);
		opt_ns(pq, T_END, b->end_ns);
		rc = mt_pq_end_row(pq);
	}
	return close_table(pq, rc);
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

static const struct mt_pq_col trace_cols[TR_NCOLS] = {
	[TR_TS] = { "timestamp_ns", MT_PQ_I64, false },
	[TR_PID] = { "pid", MT_PQ_I64, false },
	[TR_TID] = { "tid", MT_PQ_I64, false },
	[TR_OP] = { "op_type", MT_PQ_STRING, false },
	[TR_ADDR] = { "address", MT_PQ_U64, false },
	[TR_PAGE] = { "address_page", MT_PQ_U64, false },
	[TR_IP] = { "ip", MT_PQ_U64, true },
	[TR_WEIGHT] = { "weight", MT_PQ_I64, false },
	[TR_SIZE] = { "size", MT_PQ_I64, true },
	[TR_REGION] = { "region_id", MT_PQ_I64, true },
	[TR_TYPE] = { "region_type", MT_PQ_STRING, true },
	[TR_SITE] = { "site_id", MT_PQ_I64, true },
	[TR_PHASE] = { "phase", MT_PQ_STRING, true },
};

/* trace: every access sample, page fault (with its region) and allocation call, as the pass
 * meets them. */
static void trace_row(void *ctx, const struct mt_access_row *r)
{
	struct out *o = ctx;
	struct mt_pq *pq = o->trace;

	if (o->trace_rc)
		return;
	mt_pq_i64(pq, TR_TS, (int64_t)r->time_ns);
	mt_pq_i64(pq, TR_PID, r->pid);
	mt_pq_i64(pq, TR_TID, r->tid);
	mt_pq_str(pq, TR_OP, r->op);
	mt_pq_u64(pq, TR_ADDR, r->addr);
	mt_pq_u64(pq, TR_PAGE, r->addr >> 12);
	if (r->has_region) { /* a sample or a fault */
		mt_pq_u64(pq, TR_IP, r->ip);
		mt_pq_i64(pq, TR_REGION, (int64_t)r->region_id);
		mt_pq_str(pq, TR_TYPE, r->region_type);
	} else { /* an allocation call */
		mt_pq_i64(pq, TR_SIZE, (int64_t)r->size);
	}
	mt_pq_i64(pq, TR_WEIGHT, (int64_t)r->weight);
	if (r->site >= 0)
		mt_pq_i64(pq, TR_SITE, r->site);
	if (r->phase && r->phase[0])
		mt_pq_str(pq, TR_PHASE, r->phase);
	o->trace_rc = mt_pq_end_row(pq);
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
		NCOLS
	};
	static const struct mt_pq_col cols[NCOLS] = {
		[TYPE] = { "region_type", MT_PQ_STRING, false },
		[REGIONS] = { "regions", MT_PQ_I64, false },
		[READS] = { "total_reads", MT_PQ_I64, false },
		[WRITES] = { "total_writes", MT_PQ_I64, false },
		[RF] = { "read_fraction", MT_PQ_DOUBLE, false },
		[RPW] = { "reads_per_write", MT_PQ_DOUBLE, false },
		[R50] = { "retention_p50_s", MT_PQ_DOUBLE, false },
		[R90] = { "retention_p90_s", MT_PQ_DOUBLE, false },
		[R99] = { "retention_p99_s", MT_PQ_DOUBLE, false },
		[L50] = { "lifetime_p50_s", MT_PQ_DOUBLE, false },
		[WO] = { "write_once_ratio", MT_PQ_DOUBLE, true },
		[MS] = { "mean_stride_bytes", MT_PQ_DOUBLE, false },
		[MDS] = { "median_stride_bytes", MT_PQ_DOUBLE, false },
		[SP] = { "same_page_fraction", MT_PQ_DOUBLE, false },
		[I50] = { "iai_p50_ns", MT_PQ_I64, false },
		[I90] = { "iai_p90_ns", MT_PQ_I64, false },
		[I99] = { "iai_p99_ns", MT_PQ_I64, false },
		[RD50] = { "reuse_p50_lines", MT_PQ_I64, false },
		[WSS] = { "wss_peak_pages", MT_PQ_I64, false },
		[MRM] = { "mrm", MT_PQ_STRING, false },
	};
	const struct mt_access_stats *st = &o->rep->access.st;
	struct mt_pq *pq;
	int rc = open_table(o, "metrics", cols, NCOLS, &pq);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < st->ntypes && rc == 0; i++) {
		const struct mt_type_metrics *m = &st->types[i];

		if (!m->regions)
			continue;
		mt_pq_str(pq, TYPE, m->name);
		mt_pq_i64(pq, REGIONS, (int64_t)m->regions);
		mt_pq_i64(pq, READS, (int64_t)m->read_samples);
		mt_pq_i64(pq, WRITES, (int64_t)m->write_samples);
		mt_pq_double(pq, RF, m->read_fraction);
		mt_pq_double(pq, RPW, m->reads_per_write);
		mt_pq_double(pq, R50, m->retention_s[0]);
		mt_pq_double(pq, R90, m->retention_s[1]);
		mt_pq_double(pq, R99, m->retention_s[2]);
		mt_pq_double(pq, L50, m->lifetime_s[0]);
		if (m->write_once >= 0)
			mt_pq_double(pq, WO, m->write_once);
		mt_pq_double(pq, MS, m->stride_mean);
		mt_pq_double(pq, MDS, m->stride_median);
		mt_pq_double(pq, SP, m->same_page_fraction);
		mt_pq_i64(pq, I50, (int64_t)m->iai_ns[0]);
		mt_pq_i64(pq, I90, (int64_t)m->iai_ns[1]);
		mt_pq_i64(pq, I99, (int64_t)m->iai_ns[2]);
		mt_pq_i64(pq, RD50, (int64_t)m->reuse_lines[0]);
		mt_pq_i64(pq, WSS, (int64_t)m->wss_peak_pages);
		mt_pq_str(pq, MRM, mt_mrm_name(m->mrm));
		rc = mt_pq_end_row(pq);
	}
	return close_table(pq, rc);
}

/* DIR/NAME for writing, refusing an existing file unless force. */
static FILE *create(struct out *o, const char *name, char *path, size_t size)
{
	FILE *f;

	if (snprintf(path, size, "%s/%s", o->dir, name) >= (int)size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	f = fopen(path, o->force ? "we" : "wxe");
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
	mt_json_kv_str(&j, "memtap_schema_version", MT_PARQUET_SCHEMA_VERSION);
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

	if (snprintf(path, sizeof(path), "%s/raw", o->dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (snprintf(path, sizeof(path), "%s/raw/%s", o->dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	in = fopen(trace, "re");
	if (!in)
		return -errno;
	out = fopen(path, o->force ? "we" : "wxe");
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

		snprintf(file, sizeof(file), "%s/%s", o->dir, files[i]);
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

int mt_export_parquet(struct mt_reader *r, const char *path, const char *dir, bool force, bool mrm)
{
	const struct mt_file_info *fi = mt_reader_file(r);
	struct mt_access_opts ao = { 0 };
	struct mt_report rep;
	struct out o = { .rep = &rep, .dir = dir, .force = force };
	int rc;

	snprintf(o.run_id, sizeof(o.run_id),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 fi->run_id[0], fi->run_id[1], fi->run_id[2], fi->run_id[3], fi->run_id[4],
		 fi->run_id[5], fi->run_id[6], fi->run_id[7], fi->run_id[8], fi->run_id[9],
		 fi->run_id[10], fi->run_id[11], fi->run_id[12], fi->run_id[13], fi->run_id[14],
		 fi->run_id[15]);
	rc = mkdir_p(dir);
	if (rc < 0)
		return rc;
	rc = open_table(&o, "trace", trace_cols, TR_NCOLS, &o.trace);
	if (rc < 0)
		return rc;
	ao.row = trace_row;
	ao.row_ctx = &o;
	rc = mt_report_load(&rep, r, path, MT_SEC_ACCESS | MT_SEC_FAULTS | MT_SEC_METRICS, 10, &ao);
	if (rc < 0) {
		mt_pq_close(o.trace, false);
		return rc;
	}
	rc = close_table(o.trace, o.trace_rc);
	if (rc == 0)
		rc = region_map(&o);
	if (rc == 0)
		rc = lifecycle(&o);
	if (rc == 0)
		rc = metrics(&o);
	if (rc == 0 && mrm) { /* the seed's run directory */
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		char raw[4096];
		const char *files[] = { "trace.parquet",
					"region_map.parquet",
					"kv_block_lifecycle.parquet",
					"metrics.parquet",
					"metrics.csv",
					"metadata.json",
					raw };

		snprintf(raw, sizeof(raw), "raw/%s", base);
		rc = metrics_csv(&o);
		if (rc == 0)
			rc = metadata_json(&o, base);
		if (rc == 0)
			rc = copy_raw(&o, path, base);
		if (rc == 0)
			rc = manifest(&o, files, sizeof(files) / sizeof(files[0]));
	}
	mt_report_release(&rep);
	return rc;
}
