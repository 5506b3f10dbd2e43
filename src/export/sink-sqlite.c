/* SPDX-License-Identifier: MIT */
/* Table sinks into an SQLite database that holds many runs: every table starts with run_id. */
#include "export/sink.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static char last_error[512];

const char *mt_sink_sqlite_error(void)
{
	return last_error;
}

void mt_sink_sqlite_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

static int fail(sqlite3 *db, const char *what, int rc)
{
	snprintf(last_error, sizeof(last_error), "%s: %s", what, db ? sqlite3_errmsg(db) : "");
	return rc;
}

struct sql_sink {
	struct mt_sink s;
	sqlite3 *db;
	sqlite3_stmt *ins;
	const struct mt_col *cols;
	unsigned ncols;
	bool *set;
	char *run_id;
	int base; /* bind index of column 0: 2 after the run_id we add, 1 when it is the table's */
	int err;
};

static bool take(struct sql_sink *q, unsigned col)
{
	if (col >= q->ncols || q->err || q->set[col])
		return false;
	q->set[col] = true;
	return true;
}

static void bound(struct sql_sink *q, int rc)
{
	if (rc != SQLITE_OK && !q->err)
		q->err = fail(q->db, "bind", -EIO);
}

static void q_i64(struct mt_sink *s, unsigned col, int64_t v)
{
	struct sql_sink *q = (struct sql_sink *)s;

	if (take(q, col))
		bound(q, sqlite3_bind_int64(q->ins, (int)col + q->base, v));
}

/* SQLite's INTEGER is signed: addresses above 2^63 (the kernel's) read as negative. */
static void q_u64(struct mt_sink *s, unsigned col, uint64_t v)
{
	q_i64(s, col, (int64_t)v);
}

static void q_dbl(struct mt_sink *s, unsigned col, double v)
{
	struct sql_sink *q = (struct sql_sink *)s;

	if (take(q, col))
		bound(q, sqlite3_bind_double(q->ins, (int)col + q->base, v));
}

static void q_str(struct mt_sink *s, unsigned col, const char *v)
{
	struct sql_sink *q = (struct sql_sink *)s;

	if (v && take(q, col))
		bound(q, sqlite3_bind_text(q->ins, (int)col + q->base, v, -1, SQLITE_TRANSIENT));
}

static int q_end_row(struct mt_sink *s)
{
	struct sql_sink *q = (struct sql_sink *)s;

	for (unsigned i = 0; i < q->ncols && !q->err; i++)
		if (!q->set[i] && !q->cols[i].optional)
			q->err = -EINVAL;
	if (q->err)
		return q->err;
	if (sqlite3_step(q->ins) != SQLITE_DONE)
		q->err = fail(q->db, "insert", -EIO);
	sqlite3_reset(q->ins);
	sqlite3_clear_bindings(q->ins); /* unset columns are NULL */
	if (!q->err && q->base == 2 &&
	    sqlite3_bind_text(q->ins, 1, q->run_id, -1, SQLITE_STATIC) != SQLITE_OK)
		q->err = fail(q->db, "bind", -EIO);
	memset(q->set, 0, q->ncols * sizeof(*q->set));
	return q->err;
}

static int q_close(struct mt_sink *s, bool commit)
{
	struct sql_sink *q = (struct sql_sink *)s;
	int rc = q->err;

	sqlite3_finalize(q->ins);
	free(q->set);
	free(q->run_id);
	free(q);
	return commit ? rc : 0;
}

static const struct mt_sink_ops sql_ops = {
	.i64 = q_i64,
	.u64 = q_u64,
	.dbl = q_dbl,
	.str = q_str,
	.end_row = q_end_row,
	.close = q_close,
};

static const char *sql_type(enum mt_col_type t)
{
	switch (t) {
	case MT_COL_DOUBLE:
		return "REAL";
	case MT_COL_STRING:
		return "TEXT";
	default:
		return "INTEGER";
	}
}

/* Runs one statement built in b. */
static int exec(sqlite3 *db, struct mt_buf *b, const char *what)
{
	char *msg = NULL;

	if (mt_buf_cstr(b) < 0)
		return -ENOMEM;
	if (sqlite3_exec(db, (const char *)b->data, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(last_error, sizeof(last_error), "%s: %s", what, msg ? msg : "?");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* The existing table's columns must be run_id and cols, in order. 1: it exists and matches,
 * 0: it does not exist, or -EPROTO. */
static int check_table(sqlite3 *db, const char *table, const struct mt_col *cols, unsigned ncols,
		       bool own)
{
	sqlite3_stmt *st;
	unsigned i = 0;
	int rc = 0, step;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return fail(db, "table_info", -EIO);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *want = own		? (i < ncols ? cols[i].name : NULL)
				   : i == 0	? "run_id"
				   : i <= ncols ? cols[i - 1].name
						: NULL;

		if (!want || !name || strcmp(name, want)) {
			snprintf(last_error, sizeof(last_error),
				 "table '%s' has column '%s' where memtap writes '%s' (a database "
				 "of another memtap schema?)",
				 table, name ? name : "?", want ? want : "nothing");
			rc = -EPROTO;
			break;
		}
		i++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = fail(db, "table_info", -EIO);
	if (!rc && i && i != ncols + !own) {
		snprintf(last_error, sizeof(last_error),
			 "table '%s' has %u columns where memtap writes %u (a database of another "
			 "memtap schema?)",
			 table, i, ncols + !own);
		rc = -EPROTO;
	}
	sqlite3_finalize(st);
	return rc ? rc : i > 0;
}

int mt_sink_sqlite_open(struct sqlite3 *db, const char *run_id, const char *table,
			const struct mt_col *cols, unsigned ncols, struct mt_sink **ret)
{
	/* a table whose first column is run_id (the runs table) has its own */
	bool own = ncols && !strcmp(cols[0].name, "run_id");
	struct sql_sink *q;
	struct mt_buf b;
	int rc = check_table(db, table, cols, ncols, own);

	if (rc < 0)
		return rc;
	mt_buf_init(&b, 1u << 20);
	if (rc == 0) {
		mt_buf_printf(&b, "CREATE TABLE \"%s\" (", table);
		if (!own)
			mt_buf_printf(&b, "run_id TEXT NOT NULL, ");
		for (unsigned i = 0; i < ncols; i++)
			mt_buf_printf(&b, "%s\"%s\" %s%s%s", i ? ", " : "", cols[i].name,
				      sql_type(cols[i].type), cols[i].optional ? "" : " NOT NULL",
				      own && !i ? " PRIMARY KEY" : "");
		mt_buf_printf(&b, ");\nCREATE INDEX \"%s_run\" ON \"%s\"(run_id);", table, table);
		rc = exec(db, &b, "create table");
		if (rc < 0) {
			mt_buf_release(&b);
			return rc;
		}
		mt_buf_reset(&b);
	}
	/* A run added again replaces its rows (the caller's transaction makes it atomic). */
	q = calloc(1, sizeof(*q));
	if (!q) {
		mt_buf_release(&b);
		return -ENOMEM;
	}
	q->s.ops = &sql_ops;
	q->db = db;
	q->cols = cols;
	q->ncols = ncols;
	q->set = calloc(ncols ? ncols : 1, sizeof(*q->set));
	q->run_id = strdup(run_id);
	q->base = own ? 1 : 2;
	rc = q->set && q->run_id ? 0 : -ENOMEM;
	if (!rc) {
		sqlite3_stmt *del;

		mt_buf_printf(&b, "DELETE FROM \"%s\" WHERE run_id = ?", table);
		rc = mt_buf_cstr(&b);
		if (!rc &&
		    sqlite3_prepare_v2(db, (const char *)b.data, -1, &del, NULL) != SQLITE_OK)
			rc = fail(db, "delete", -EIO);
		if (!rc) {
			sqlite3_bind_text(del, 1, run_id, -1, SQLITE_STATIC);
			if (sqlite3_step(del) != SQLITE_DONE)
				rc = fail(db, "delete", -EIO);
			sqlite3_finalize(del);
		}
	}
	if (!rc) {
		mt_buf_reset(&b);
		mt_buf_printf(&b, "INSERT INTO \"%s\" VALUES (?", table);
		for (unsigned i = 1; i < ncols + !own; i++)
			mt_buf_printf(&b, ", ?");
		mt_buf_printf(&b, ")");
		rc = mt_buf_cstr(&b);
		if (!rc &&
		    sqlite3_prepare_v2(db, (const char *)b.data, -1, &q->ins, NULL) != SQLITE_OK)
			rc = fail(db, "insert", -EIO);
	}
	if (!rc && !own && sqlite3_bind_text(q->ins, 1, q->run_id, -1, SQLITE_STATIC) != SQLITE_OK)
		rc = fail(db, "bind", -EIO);
	mt_buf_release(&b);
	if (rc < 0) {
		q_close(&q->s, false);
		return rc;
	}
	*ret = &q->s;
	return 0;
}

const char *mt_sink_sqlite_version(void)
{
	return sqlite3_libversion();
}
