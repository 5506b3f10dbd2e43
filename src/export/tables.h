/* SPDX-License-Identifier: MIT */
/* memtap export --to parquet|csv|jsonl|sqlite: the analysis' tables, one per file or one per
 * table of a database that holds many runs. */
#ifndef MEMTAP_EXPORT_TABLES_H
#define MEMTAP_EXPORT_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "export/report.h"
#include "export/sink.h"

#define MT_EXPORT_SCHEMA_VERSION \
	"1.7" /* 1.2: the spans table; 1.3: processes' figures; 1.4: their cgroup; 1.5: rss
	       * peak_ns nullable (a peak from the kernel's high-water mark has no time); 1.6:
	       * censored lifetimes (region_map, metrics, mrm_candidates: censored, mrm_note);
	       * 1.7: the placement table (what-if placement) */

enum mt_export_layout {
	MT_LAYOUT_FLAT, /* the tables in OUT */
	MT_LAYOUT_MRM, /* mrm-trace's run directory: + metrics.csv, metadata.json, raw/, manifest */
	MT_LAYOUT_HIVE, /* OUT/workload=W/config=C/rep=R/ */
};

struct mt_export_opts {
	enum mt_sink_format format;
	const char *out; /* a directory, or the SQLite database */
	bool force; /* replace existing files */
	enum mt_export_layout layout;
	const char *workload, *config, *rep; /* Hive keys; NULL: defaults (see below) */
	const struct mt_access_opts *ao; /* working-set window, MRM thresholds, rules */
};

struct mt_export_result {
	char dir[4096]; /* where the files went (Hive: the run's directory) */
	char run_id[40];
	unsigned tables;
	uint64_t rows; /* over every table */
	uint64_t trace_rows;
	bool replaced; /* SQLite: the run was there and has been replaced */
};

/* The names of the tables, in the order they are written. */
extern const char *const mt_export_table_names[];

/*
 * Runs the analysis of trace r (path: its file name) and writes its tables:
 *   runs, collectors, processes (one row per run, collector, process),
 *   trace (every access sample, page fault and allocation call with its region; not in
 *     SQLite, whose role is the index of many runs, not bulk rows),
 *   region_map, kv_block_lifecycle (the per-object lifecycle, the seed's name), metrics (per
 *     region type), sites (heap bytes joined with samples and faults per allocation site),
 *   phases, syscalls, faults and rss (per process).
 * Files: every table in its own file, each appearing only when complete, existing ones kept
 * unless force (-EEXIST). Hive: workload defaults to the command's base name, config to
 * "default", rep to the first N >= 1 without a directory. SQLite: one transaction; a run
 * already present is replaced. 0 or -errno; *res filled as far as it got.
 */
int mt_export_tables(struct mt_reader *r, const char *path, const struct mt_export_opts *o,
		     struct mt_export_result *res);

#endif
