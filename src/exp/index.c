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
#include "common/hash.h"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	" workload TEXT NOT NULL, config TEXT NOT NULL, kind TEXT NOT NULL, rep INTEGER NOT NULL,"
	" run_index INTEGER, status TEXT NOT NULL, exit_status INTEGER, wall_ns INTEGER,"
	" user_ns INTEGER, sys_ns INTEGER, max_rss_bytes INTEGER, start_ns INTEGER,"
	" directory TEXT NOT NULL,"
	" PRIMARY KEY (workload, config, kind, rep));";

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
	static const char sql[] = "INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
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
	static const char sql[] = "SELECT workload, config, kind, rep, run_index, status, "
				  "exit_status, wall_ns, user_ns, sys_ns, max_rss_bytes, start_ns, "
				  "directory FROM runs ORDER BY run_index";
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
	}
	free(rows);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(q / (double)(n - 1)) : NAN;
}

/* The ratio of means' 95 % percentile interval over resamples of both sides. */
static void bootstrap(const double *t, size_t nt, const double *b, size_t nb, double *lo,
		      double *hi)
{
	enum { B = 2000 };
	double *r = malloc(B * sizeof(*r));
	uint64_t s = 1;

	*lo = *hi = NAN;
	if (!r)
		return;
	for (int k = 0; k < B; k++) {
		double st = 0, sb = 0;

		for (size_t i = 0; i < nt; i++)
			st += t[mt_splitmix64(&s) % nt];
		for (size_t i = 0; i < nb; i++)
			sb += b[mt_splitmix64(&s) % nb];
		r[k] = (st / (double)nt) / (sb / (double)nb);
	}
	qsort(r, B, sizeof(*r), cmp_double);
	*lo = r[(int)(0.025 * B)];
	*hi = r[(int)(0.975 * B) - 1];
	free(r);
}

/* The ok runs of one group and kind: wall seconds and peak RSS. */
static size_t gather(const struct mt_exp_index_row *rows, size_t n, const char *w, const char *c,
		     const char *kind, double *wall, double *rss)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].workload, w) && !strcmp(rows[i].config, c) &&
		    !strcmp(rows[i].kind, kind) && !strcmp(rows[i].status, "ok")) {
			wall[k] = (double)rows[i].wall_ns / 1e9;
			rss[k++] = (double)rows[i].max_rss_bytes;
		}
	return k;
}

static void stat_group(const struct mt_exp_index_row *rows, size_t n, struct mt_exp_stat *st,
		       double *tw, double *tr, double *bw, double *br)
{
	double sd;

	st->traced = gather(rows, n, st->workload, st->config, "traced", tw, tr);
	st->baseline = gather(rows, n, st->workload, st->config, "baseline", bw, br);
	for (size_t i = 0; i < n; i++)
		st->failed += !strcmp(rows[i].workload, st->workload) &&
			      !strcmp(rows[i].config, st->config) && strcmp(rows[i].status, "ok");
	mean_sd(st->traced ? tw : bw, st->traced ? st->traced : st->baseline, &st->wall_mean_s,
		&st->wall_sd_s);
	mean_sd(bw, st->baseline, &st->base_mean_s, &st->base_sd_s);
	mean_sd(st->traced ? tr : br, st->traced ? st->traced : st->baseline, &st->rss_mean, &sd);
	mean_sd(br, st->baseline, &st->base_rss_mean, &sd);
	st->observer = st->observer_lo = st->observer_hi = NAN;
	if (st->traced && st->baseline) {
		st->observer = st->wall_mean_s / st->base_mean_s;
		bootstrap(tw, st->traced, bw, st->baseline, &st->observer_lo, &st->observer_hi);
	}
}

int mt_exp_stats(const struct mt_exp_index_row *rows, size_t n, struct mt_exp_stat **stats,
		 size_t *nstats)
{
	double *buf = malloc(4 * (n ? n : 1) * sizeof(*buf));
	struct mt_exp_stat *v = NULL;
	size_t nv = 0, cap = 0;

	*stats = NULL;
	*nstats = 0;
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!strcmp(rows[i].kind, "warmup"))
			continue;
		for (k = 0; k < nv; k++)
			if (!strcmp(v[k].workload, rows[i].workload) &&
			    !strcmp(v[k].config, rows[i].config))
				break;
		if (k < nv)
			continue;
		if (mt_grow_array(&v, &cap, nv + 1, sizeof(*v)) < 0) {
			free(buf);
			free(v);
			return -ENOMEM;
		}
		memset(&v[nv], 0, sizeof(v[nv]));
		v[nv].workload = rows[i].workload;
		v[nv].config = rows[i].config;
		stat_group(rows, n, &v[nv++], buf, buf + n, buf + 2 * n, buf + 3 * n);
	}
	free(buf);
	*stats = v;
	*nstats = nv;
	return 0;
}
