/* SPDX-License-Identifier: MIT */
/* memtap export --to parquet: the analysis' tables as Parquet files in a directory. */
#ifndef MEMTAP_EXPORT_PARQUET_TABLES_H
#define MEMTAP_EXPORT_PARQUET_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "export/report.h"

/*
 * Runs the analysis of trace r (path: its name) and writes DIR/trace.parquet (every access
 * sample and page fault with its region, streamed during the pass), region_map.parquet (one
 * row per region with its behaviour), kv_block_lifecycle.parquet (every labelled object and
 * large heap block) and metrics.parquet (per region type); each file carries
 * memtap_schema_version, memtap_version, run_id and table in its key/value metadata.
 * Existing files are kept unless force. mrm: the seed's run directory besides, with
 * metrics.csv, metadata.json, raw/TRACE and manifest.json (SHA-256 of every file). 0 or -errno.
 */
int mt_export_parquet(struct mt_reader *r, const char *path, const char *dir, bool force, bool mrm);

#endif
