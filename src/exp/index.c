/* SPDX-License-Identifier: MIT */
/* The experiment's index: one SQLite row per completed run (results/index.sqlite). */
#include "exp/index.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	" workload TEXT NOT NULL, config TEXT NOT NULL, kind TEXT NOT NULL, rep INTEGER NOT NULL,"
	" run_index INTEGER, status TEXT NOT NULL, exit_status INTEGER, wall_ns INTEGER,"
	" user_ns INTEGER, sys_ns INTEGER, max_rss_bytes INTEGER, start_ns INTEGER,"
	" directory TEXT NOT NULL, validity TEXT, validity_reason TEXT, background_cpu_pct REAL,"
	" observer_cpu_pct REAL, observer_mem_pct REAL, recorder_cpu_ns INTEGER,"
	" recorder_max_rss_bytes INTEGER, peak_rss_bytes INTEGER, peak_heap_bytes INTEGER,"
	" faults_minor INTEGER, faults_major INTEGER, working_set_peak_pages INTEGER,"
	" lost_events INTEGER, data_read_bytes INTEGER, reread_bytes INTEGER,"
	" PRIMARY KEY (workload, config, kind, rep));";

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static void bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t col_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static int open_db(const char *results, bool create, sqlite3 **db)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/index.sqlite", results);
	if (sqlite3_open_v2(path, db,
			    create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
				   : SQLITE_OPEN_READONLY,
			    NULL) != SQLITE_OK) {
		sqlite3_close(*db);
		*db = NULL;
		return -ENOENT;
	}
	sqlite3_busy_timeout(*db, 5000);
	if (create && sqlite3_exec(*db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_close(*db);
		*db = NULL;
		return -EIO;
	}
	return 0;
}

int mt_exp_index_put(const char *results, const struct mt_exp_index_row *r)
{
	static const char sql[] = "INSERT OR REPLACE INTO runs VALUES "
				  "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	int rc = open_db(results, true, &db);

	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, r->workload, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, r->config, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, r->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, r->rep);
		sqlite3_bind_int64(st, 5, r->index);
		sqlite3_bind_text(st, 6, r->status, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 7, r->exit_status);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)r->wall_ns);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)r->user_ns);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)r->sys_ns);
		sqlite3_bind_int64(st, 11, (sqlite3_int64)r->max_rss_bytes);
		sqlite3_bind_int64(st, 12, (sqlite3_int64)r->start_ns);
		sqlite3_bind_text(st, 13, r->directory, -1, SQLITE_STATIC);
		if (r->validity)
			sqlite3_bind_text(st, 14, r->validity, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 14);
		sqlite3_bind_text(st, 15, r->reason ? r->reason : "", -1, SQLITE_STATIC);
		bind_real(st, 16, r->background_pct);
		bind_real(st, 17, r->observer_cpu_pct);
		bind_real(st, 18, r->observer_mem_pct);
		bind_opt(st, 19, r->recorder_cpu_ns);
		bind_opt(st, 20, r->recorder_max_rss);
		bind_opt(st, 21, r->peak_rss);
		bind_opt(st, 22, r->peak_heap);
		bind_opt(st, 23, r->faults_minor);
		bind_opt(st, 24, r->faults_major);
		bind_opt(st, 25, r->wss_peak_pages);
		bind_opt(st, 26, r->lost_events);
		bind_opt(st, 27, r->data_read_bytes);
		bind_opt(st, 28, r->reread_bytes);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	} else {
		rc = -EIO;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return strdup(s ? (const char *)s : "");
}

int mt_exp_index_read(const char *results, struct mt_exp_index_row **rows, size_t *n)
{
	static const char sql[] =
		"SELECT workload, config, kind, rep, run_index, status, "
		"exit_status, wall_ns, user_ns, sys_ns, max_rss_bytes, start_ns, "
		"directory, validity, validity_reason, background_cpu_pct, "
		"observer_cpu_pct, observer_mem_pct, recorder_cpu_ns, "
		"recorder_max_rss_bytes, peak_rss_bytes, peak_heap_bytes, "
		"faults_minor, faults_major, working_set_peak_pages, lost_events, "
		"data_read_bytes, reread_bytes "
		"FROM runs ORDER BY run_index";
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = open_db(results, false, &db);

	*rows = NULL;
	*n = 0;
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -EINVAL; /* not an experiment's index */
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mt_exp_index_row *r;

		if (mt_grow_array(rows, &cap, *n + 1, sizeof(**rows)) < 0) {
			rc = -ENOMEM;
			break;
		}
		r = &(*rows)[(*n)++];
		r->workload = dup_col(st, 0);
		r->config = dup_col(st, 1);
		r->kind = dup_col(st, 2);
		r->rep = (unsigned)sqlite3_column_int64(st, 3);
		r->index = (size_t)sqlite3_column_int64(st, 4);
		r->status = dup_col(st, 5);
		r->exit_status = (int)sqlite3_column_int64(st, 6);
		r->wall_ns = (uint64_t)sqlite3_column_int64(st, 7);
		r->user_ns = (uint64_t)sqlite3_column_int64(st, 8);
		r->sys_ns = (uint64_t)sqlite3_column_int64(st, 9);
		r->max_rss_bytes = (uint64_t)sqlite3_column_int64(st, 10);
		r->start_ns = (uint64_t)sqlite3_column_int64(st, 11);
		r->directory = dup_col(st, 12);
		r->validity = sqlite3_column_type(st, 13) == SQLITE_NULL ? NULL : dup_col(st, 13);
		r->reason = dup_col(st, 14);
		r->background_pct = col_real(st, 15);
		r->observer_cpu_pct = col_real(st, 16);
		r->observer_mem_pct = col_real(st, 17);
		r->recorder_cpu_ns = col_opt(st, 18);
		r->recorder_max_rss = col_opt(st, 19);
		r->peak_rss = col_opt(st, 20);
		r->peak_heap = col_opt(st, 21);
		r->faults_minor = col_opt(st, 22);
		r->faults_major = col_opt(st, 23);
		r->wss_peak_pages = col_opt(st, 24);
		r->lost_events = col_opt(st, 25);
		r->data_read_bytes = col_opt(st, 26);
		r->reread_bytes = col_opt(st, 27);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (rc != SQLITE_DONE) {
		mt_exp_index_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return rc == -ENOMEM ? rc : -EIO;
	}
	return 0;
}

void mt_exp_index_free(struct mt_exp_index_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)rows[i].workload);
		free((char *)rows[i].config);
		free((char *)rows[i].kind);
		free((char *)rows[i].status);
		free((char *)rows[i].directory);
		free((char *)rows[i].validity);
		free((char *)rows[i].reason);
	}
	free(rows);
}
