/* SPDX-License-Identifier: MIT */
/* A small streaming Parquet writer: flat schemas, REQUIRED and OPTIONAL columns, PLAIN
 * values, RLE definition levels, ZSTD pages, key/value metadata (no C Parquet library exists
 * in Debian; the format pieces are in ../shared/research/ecosystem-anchors.md). */
#ifndef MEMTAP_EXPORT_PARQUET_H
#define MEMTAP_EXPORT_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/sink.h"

struct mt_pq;

/*
 * Creates path (refusing an existing file unless force) as a temporary file beside it;
 * mt_pq_close(.., true) renames it into place, so a failed or killed export never leaves a
 * file that looks complete. meta: n key/value pairs for the footer. 0 or -errno.
 */
int mt_pq_open(const char *path, bool force, const struct mt_col *cols, unsigned ncols,
	       const char *const *meta_keys, const char *const *meta_values, unsigned nmeta,
	       struct mt_pq **ret);
/* The same writer as a table sink (the sink's close is mt_pq_close). */
struct mt_sink *mt_pq_sink(struct mt_pq *pq);
/* One value of the current row, per column in any order; a column not set is null (an
 * error for a REQUIRED one, caught at mt_pq_end_row). */
void mt_pq_i64(struct mt_pq *pq, unsigned col, int64_t v);
void mt_pq_u64(struct mt_pq *pq, unsigned col, uint64_t v);
void mt_pq_double(struct mt_pq *pq, unsigned col, double v);
void mt_pq_str(struct mt_pq *pq, unsigned col, const char *s);
/* Ends the row; a full row group is compressed and written. 0 or -errno. */
int mt_pq_end_row(struct mt_pq *pq);
/* commit: write the footer and rename the file into place; else remove it. 0 or -errno. */
int mt_pq_close(struct mt_pq *pq, bool commit);

#endif
