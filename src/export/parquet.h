/* SPDX-License-Identifier: MIT */
/* A small streaming Parquet writer: flat schemas, REQUIRED and OPTIONAL columns, PLAIN
 * values, RLE definition levels, ZSTD pages, key/value metadata (no C Parquet library exists
 * in Debian; the format pieces are in ../shared/research/ecosystem-anchors.md). */
#ifndef MEMTAP_EXPORT_PARQUET_H
#define MEMTAP_EXPORT_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mt_pq_type {
	MT_PQ_I64, /* INT64 */
	MT_PQ_U64, /* INT64 with the UINT_64 logical type: addresses */
	MT_PQ_DOUBLE, /* DOUBLE */
	MT_PQ_STRING, /* BYTE_ARRAY, UTF8 */
};

struct mt_pq_col {
	const char *name;
	enum mt_pq_type type;
	bool optional; /* may hold nulls */
};

struct mt_pq;

/*
 * Creates path (refusing an existing file unless force) as a temporary file beside it;
 * mt_pq_close(.., true) renames it into place, so a failed or killed export never leaves a
 * file that looks complete. meta: n key/value pairs for the footer. 0 or -errno.
 */
int mt_pq_open(const char *path, bool force, const struct mt_pq_col *cols, unsigned ncols,
	       const char *const *meta_keys, const char *const *meta_values, unsigned nmeta,
	       struct mt_pq **ret);
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
