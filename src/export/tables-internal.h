/* SPDX-License-Identifier: MIT */
/* What the table writers share (export/tables.c, export/tables-rows.c); not for use outside. */
#ifndef MEMTAP_EXPORT_TABLES_INTERNAL_H
#define MEMTAP_EXPORT_TABLES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/own.h"
#include "analysis/spans.h"
#include "export/report.h"
#include "export/tables.h"

struct out {
	const struct mt_report *rep;
	struct mt_export_result *res;
	struct mt_sink_set set;
	struct mt_sink *trace; /* written during the pass */
	int trace_rc;
	struct rss_rows *rss_rows; /* gathered during the pass */
	const struct mt_span_rows *spans; /* the workload's spans, joined with memory */
	char run_id[40];
	char trace_name[256]; /* the trace's base name */
};

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

/* The access sampling behind a row's sample-based figures. */
struct sampling {
	uint64_t period, hz;
	const char *unit;
};

/* What a table's rows need beside the model: how many may come (a row function may skip
 * some), and scratch that lives while the table is written. */
struct rows {
	size_t n;
	size_t *order; /* sites: the ranked site ids */
	char *buf; /* processes: the argv being joined */
	size_t cap;
	struct sampling smp;
	char text[512]; /* a label or a function name */
};

struct table_def {
	const char *name;
	const struct mt_col *cols;
	unsigned ncols;
	int (*start)(struct out *o, struct rows *r); /* sets r->n; 0 or -errno */
	int (*row)(struct out *o, struct rows *r, struct mt_sink *s, size_t i);
};

#define TABLE(name, cols, start, row)                                  \
	{                                                              \
		name, cols, sizeof(cols) / sizeof(cols[0]), start, row \
	}

/* tables-regions.c: the tables of the region model */
extern const struct table_def mt_table_region_map, mt_table_lifecycle, mt_table_metrics,
	mt_table_sites, mt_table_phases, mt_table_candidates;
/* tables-placement.c */
extern const struct table_def mt_table_placement;

/* tables-rows.c: every table but trace, in mt_export_table_names' order; and the pass that
 * gathers rss_timeline's rows. */
int mt_tables_write_all(struct out *o);
void mt_tables_rss_rows_pass(struct rss_rows *rr, struct mt_reader *r, struct mt_pass *p);

/* tables.c */
int mt_tables_close_table(struct out *o, struct mt_sink *s, int rc);
int mt_tables_open_table(struct out *o, const char *table, const struct mt_col *cols,
			 unsigned ncols, struct mt_sink **sink);
int mt_tables_row(struct out *o, struct mt_sink *s);

#endif
