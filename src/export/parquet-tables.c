/* SPDX-License-Identifier: MIT */
/* memtap export --to parquet: the analysis' tables as Parquet files, one per table. */
#include "export/parquet-tables.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "export/parquet.h"
#include "format/reader.h"

#define MT_PARQUET_SCHEMA_VERSION "1.0"

struct out {
	const struct mt_report *rep;
	const char *dir;
	bool force;
	char run_id[40];
	struct mt_parquet_stats *stats;
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

static int close_table(struct out *o, struct mt_pq *pq, int rc)
{
	uint64_t rows = mt_pq_rows(pq);
	int c;

	c = mt_pq_close(pq, rc == 0);
	if (rc == 0 && c == 0) {
		o->stats->tables++;
		o->stats->rows += rows;
	}
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
	return close_table(o, pq, rc);
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
	return close_table(o, pq, rc);
}

int mt_export_parquet(const struct mt_report *rep, const char *dir, bool force,
		      struct mt_parquet_stats *stats)
{
	const struct mt_file_info *fi = mt_reader_file(rep->r);
	struct out o = { .rep = rep, .dir = dir, .force = force, .stats = stats };
	int rc;

	memset(stats, 0, sizeof(*stats));
	snprintf(o.run_id, sizeof(o.run_id),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 fi->run_id[0], fi->run_id[1], fi->run_id[2], fi->run_id[3], fi->run_id[4],
		 fi->run_id[5], fi->run_id[6], fi->run_id[7], fi->run_id[8], fi->run_id[9],
		 fi->run_id[10], fi->run_id[11], fi->run_id[12], fi->run_id[13], fi->run_id[14],
		 fi->run_id[15]);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rc = region_map(&o);
	if (rc == 0)
		rc = lifecycle(&o);
	return rc;
}
