/* SPDX-License-Identifier: MIT */
/* Tables for other tools, written row by row through one interface: Parquet, CSV, JSON lines
 * or a table of an SQLite database. */
#ifndef MEMTAP_EXPORT_SINK_H
#define MEMTAP_EXPORT_SINK_H

#include <stdbool.h>
#include <stdint.h>

enum mt_col_type {
	MT_COL_I64, /* signed 64-bit */
	MT_COL_U64, /* unsigned 64-bit: addresses (Parquet UINT_64; CSV/JSON decimal) */
	MT_COL_DOUBLE,
	MT_COL_STRING, /* UTF-8 */
};

struct mt_col {
	const char *name;
	enum mt_col_type type;
	bool optional; /* may hold nulls */
};

struct mt_sink;

struct mt_sink_ops {
	void (*i64)(struct mt_sink *s, unsigned col, int64_t v);
	void (*u64)(struct mt_sink *s, unsigned col, uint64_t v);
	void (*dbl)(struct mt_sink *s, unsigned col, double v);
	void (*str)(struct mt_sink *s, unsigned col, const char *v);
	int (*end_row)(struct mt_sink *s);
	int (*close)(struct mt_sink *s, bool commit);
};

/* One table being written. Values of the current row are set per column in any order; a
 * column not set is null (an error for a REQUIRED one, caught at end_row). */
struct mt_sink {
	const struct mt_sink_ops *ops;
};

static inline void mt_sink_i64(struct mt_sink *s, unsigned col, int64_t v)
{
	s->ops->i64(s, col, v);
}

static inline void mt_sink_u64(struct mt_sink *s, unsigned col, uint64_t v)
{
	s->ops->u64(s, col, v);
}

/* NaN (a figure nothing backs) is null: the column must be optional. */
static inline void mt_sink_dbl(struct mt_sink *s, unsigned col, double v)
{
	if (v == v)
		s->ops->dbl(s, col, v);
}

/* NULL: null. */
static inline void mt_sink_str(struct mt_sink *s, unsigned col, const char *v)
{
	s->ops->str(s, col, v);
}

/* A nanosecond time that is null when 0 (never seen). */
static inline void mt_sink_ns(struct mt_sink *s, unsigned col, uint64_t ns)
{
	if (ns)
		s->ops->i64(s, col, (int64_t)ns);
}

/* Ends the row. 0 or -errno (then the table is failed: close it without commit). */
static inline int mt_sink_end_row(struct mt_sink *s)
{
	return s->ops->end_row(s);
}

/* commit: complete the table (files are renamed into place); else remove what was written.
 * The first error of the table's life, or 0. NULL is a no-op. */
static inline int mt_sink_close(struct mt_sink *s, bool commit)
{
	return s ? s->ops->close(s, commit) : 0;
}

enum mt_sink_format { MT_SINK_PARQUET, MT_SINK_CSV, MT_SINK_JSONL, MT_SINK_SQLITE };

struct sqlite3;

/* Where a set of tables goes. */
struct mt_sink_set {
	enum mt_sink_format format;
	const char *dir; /* files: DIR/TABLE.parquet|csv|jsonl */
	bool force; /* files: replace existing ones */
	const char *const *meta_keys, *const *meta_values; /* Parquet key/value metadata */
	unsigned nmeta;
	struct sqlite3 *db; /* SQLite: rows go to table TABLE, run_id first */
	const char *run_id;
};

/* The extension of a format's files (".parquet", ...; "" for SQLite). */
const char *mt_sink_ext(enum mt_sink_format f);

/* Opens table in set. Files are written under a temporary name beside DIR/TABLE.EXT and
 * renamed at a committing close, so a failed or killed export never leaves one that looks
 * complete; an existing file is -EEXIST unless force. SQLite: the table is created if
 * missing (columns run_id TEXT, then cols) and must match if present (-EPROTO). 0 or -errno. */
int mt_sink_open(const struct mt_sink_set *set, const char *table, const struct mt_col *cols,
		 unsigned ncols, struct mt_sink **ret);

/* The message of an SQLite failure behind the last -EPROTO or -EIO of the SQLite sink; note
 * sets it. */
const char *mt_sink_sqlite_error(void);
/* The SQLite library's version (the sqlite export). */
const char *mt_sink_sqlite_version(void);
void mt_sink_sqlite_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Backends (sink-text.c, sink-sqlite.c; Parquet: parquet.c). */
int mt_sink_text_open(const char *path, bool force, bool jsonl, const struct mt_col *cols,
		      unsigned ncols, struct mt_sink **ret);
int mt_sink_sqlite_open(struct sqlite3 *db, const char *run_id, const char *table,
			const struct mt_col *cols, unsigned ncols, struct mt_sink **ret);

#endif
