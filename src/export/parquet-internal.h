/* SPDX-License-Identifier: MIT */
/* The Parquet writer's state, shared by export/parquet.c and export/parquet-thrift.c. */
#ifndef MEMTAP_EXPORT_PARQUET_INTERNAL_H
#define MEMTAP_EXPORT_PARQUET_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/outfile.h"
#include "export/parquet.h"

/*
 * File layout: "PAR1", then per row group and column one DATA_PAGE (v1: definition levels
 * for OPTIONAL columns, then the non-null values, PLAIN) compressed as one ZSTD frame — or,
 * for a column with few distinct values in the group, a DICTIONARY_PAGE (PLAIN) and a
 * DATA_PAGE of RLE_DICTIONARY indices — then
 * the FileMetaData in Thrift's compact protocol, its length (u32 LE) and "PAR1" again.
 * Row groups hold ROWS_PER_GROUP rows, so a page stays near 1 MiB for 8-byte values and the
 * writer's memory is bounded whatever the table's length.
 */

/* Parquet physical types, and Thrift compact protocol field types. */
enum { PQ_INT64 = 2, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6 };
enum {
	T_TRUE = 1,
	T_FALSE = 2,
	T_BYTE = 3,
	T_I32 = 5,
	T_I64 = 6,
	T_BINARY = 8,
	T_LIST = 9,
	T_STRUCT = 12
};

#define ROWS_PER_GROUP 131072

#define MAX_BUF (256u << 20)

struct chunk_meta {
	uint64_t offset, uncompressed, compressed, num_values;
	uint64_t data_offset, dict_offset; /* the data page's, the dictionary page's */
	bool dict; /* RLE_DICTIONARY encoded */
};

/* A column's data for one row group: two sets take turns, one filled by the caller while a
 * worker thread compresses and writes the other. */
struct col {
	struct mt_col def;
	struct mt_buf values[2]; /* PLAIN, non-null values of the row group */
	uint8_t *defs[2]; /* OPTIONAL: 1 (value) or 0 (null) per row of the group */
	bool set; /* the current row has a value */
	unsigned no_dict; /* row groups still to write PLAIN after a dictionary overflowed */
};

struct group {
	uint64_t rows, bytes;
	struct chunk_meta *cols;
};

struct mt_pq {
	struct mt_sink sink; /* first: a struct mt_pq is a table sink */
	struct mt_outfile of; /* the new file, renamed into place at commit */
	int fd; /* of's */
	uint64_t off; /* bytes written */
	int err;
	struct col *cols;
	unsigned ncols;
	uint64_t rows; /* in the current group */
	uint64_t total_rows;
	struct group *groups;
	size_t ngroups, groups_cap;
	char **meta_k, **meta_v;
	unsigned nmeta;
	ZSTD_CCtx *zc;
	struct mt_buf page, out, dict; /* scratch (the writer's) */
	struct dict_slot *slots;
	uint32_t *idx;
	unsigned cur; /* the set being filled */
	/* The worker, started at the first full row group: it writes set job_set of job_rows
	 * rows while job is true; the caller waits for it before handing over the next. */
	bool threaded, job, stop;
	unsigned job_set;
	uint64_t job_rows;
	int werr; /* the worker's first error */
	pthread_t th;
	pthread_mutex_t lk;
	pthread_cond_t cv;
};

/* ---- Thrift compact protocol, write-only ---- */

struct tw {
	struct mt_buf *b;
	int16_t last[16];
	int depth;
	int err;
};

/* parquet-thrift.c */
void mt_pq_footer(struct mt_pq *pq);
void mt_pq_t_begin(struct tw *w, int16_t id);
void mt_pq_t_byte(struct tw *w, uint8_t c);
void mt_pq_t_end(struct tw *w);
void mt_pq_t_i32(struct tw *w, int16_t id, int32_t v);

/* parquet.c */
int mt_pq_pq_type(enum mt_col_type t);
void mt_pq_wr(struct mt_pq *pq, int *err, const void *p, size_t n);

#endif
