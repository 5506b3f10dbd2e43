/* SPDX-License-Identifier: MIT */
/* memtap export --to parquet: the analysis' tables as Parquet files in a directory. */
#ifndef MEMTAP_EXPORT_PARQUET_TABLES_H
#define MEMTAP_EXPORT_PARQUET_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "export/report.h"

struct mt_parquet_stats {
	unsigned tables;
	uint64_t rows;
};

/*
 * Writes DIR/region_map.parquet (one row per region, with its behaviour) and
 * DIR/kv_block_lifecycle.parquet (every labelled object and large heap block) from a report
 * loaded with its metrics; each file carries memtap_schema_version, memtap_version, run_id
 * and table in its key/value metadata. Existing files are kept unless force. 0 or -errno.
 */
int mt_export_parquet(const struct mt_report *rep, const char *dir, bool force,
		      struct mt_parquet_stats *stats);

#endif
