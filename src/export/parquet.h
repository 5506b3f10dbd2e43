/* SPDX-License-Identifier: MIT */
/* A small streaming Parquet writer: flat schemas, REQUIRED and OPTIONAL columns, PLAIN or
 * dictionary-encoded values, RLE definition levels, ZSTD pages, key/value metadata (no C
 * Parquet library exists in Debian; the format is Apache's parquet-format specification and
 * its Thrift compact protocol). */
#ifndef MEMTAP_EXPORT_PARQUET_H
#define MEMTAP_EXPORT_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/sink.h"

/*
 * Opens a Parquet file as a table sink: path is created (an existing file refused unless
 * force) as a temporary file beside it, renamed into place by a committing close, so a
 * failed or killed export never leaves a file that looks complete. meta: n key/value pairs
 * for the footer. Values of a column may be set in any order within a row; a full row group
 * is compressed and written by a worker thread while the next fills. 0 or -errno.
 */
int mt_pq_open(const char *path, bool force, const struct mt_col *cols, unsigned ncols,
	       const char *const *meta_keys, const char *const *meta_values, unsigned nmeta,
	       struct mt_sink **ret);

#endif
