/* SPDX-License-Identifier: MIT */
/* memtap export: the analysis' tables through one sink interface (Parquet, CSV, JSON lines,
 * SQLite), and mrm-trace's run directory. */
#include "export/tables.h"
#include "export/tables-internal.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outfile.h"
#include "common/array.h"
#include "common/hash.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "export/parquet.h"
#include "export/table.h"
#include "analysis/own.h"
#include "format/reader.h"
#include "format/schema.h"

const char *const mt_export_table_names[] = {
	"runs",		"collectors",	      "processes", "trace",
	"region_map",	"kv_block_lifecycle", "metrics",   "sites",
	"phases",	"syscalls",	      "faults",	   "rss",
	"rss_timeline", "mrm_candidates",     "placement", "spans",
	NULL,
};

struct rss_rows;

const char *mt_sink_ext(enum mt_sink_format f)
{
	static const char *const e[] = { ".parquet", ".csv", ".jsonl", "" };

	return (unsigned)f < 4 ? e[f] : "";
}

int mt_sink_open(const struct mt_sink_set *set, const char *table, const struct mt_col *cols,
		 unsigned ncols, struct mt_sink **ret)
{
	char path[4096];

	if (set->format == MT_SINK_SQLITE)
		return mt_sink_sqlite_open(set->db, set->run_id, table, cols, ncols, ret);
	if (snprintf(path, sizeof(path), "%s/%s%s", set->dir, table, mt_sink_ext(set->format)) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (set->format != MT_SINK_PARQUET)
		return mt_sink_text_open(path, set->force, set->format == MT_SINK_JSONL, cols,
					 ncols, ret);
	return mt_pq_open(path, set->force, cols, ncols, set->meta_keys, set->meta_values,
			  set->nmeta, ret);
}

int mt_tables_open_table(struct out *o, const char *table, const struct mt_col *cols,
			 unsigned ncols, struct mt_sink **sink)
{
	const char *vals[] = { MT_EXPORT_SCHEMA_VERSION, MEMTAP_VERSION, o->run_id, table };
	struct mt_sink_set set = o->set;

	set.meta_values = vals; /* Parquet: the table's own name too */
	return mt_sink_open(&set, table, cols, ncols, sink);
}

/* Commits the table when rc is 0 (else drops it); the first error. */
int mt_tables_close_table(struct out *o, struct mt_sink *s, int rc)
{
	int c = mt_sink_close(s, rc == 0);

	if (!rc && !c)
		o->res->tables++;
	return rc ? rc : c;
}

/* Ends a row, counting it. */
int mt_tables_row(struct out *o, struct mt_sink *s)
{
	int rc = mt_sink_end_row(s);

	if (!rc)
		o->res->rows++;
	return rc;
}

enum {
	TR_TS,
	TR_PID,
	TR_TID,
	TR_OP,
	TR_ADDR,
	TR_PAGE,
	TR_IP,
	TR_WEIGHT,
	TR_SIZE,
	TR_REGION,
	TR_TYPE,
	TR_SITE,
	TR_PHASE,
	TR_NCOLS
};

static const struct mt_col trace_cols[TR_NCOLS] = {
	[TR_TS] = { "timestamp_ns", MT_COL_I64, false },
	[TR_PID] = { "pid", MT_COL_I64, false },
	[TR_TID] = { "tid", MT_COL_I64, false },
	[TR_OP] = { "op_type", MT_COL_STRING, false },
	[TR_ADDR] = { "address", MT_COL_U64, false },
	[TR_PAGE] = { "address_page", MT_COL_U64, false },
	[TR_IP] = { "ip", MT_COL_U64, true },
	[TR_WEIGHT] = { "weight", MT_COL_I64, false },
	[TR_SIZE] = { "size", MT_COL_I64, true },
	[TR_REGION] = { "region_id", MT_COL_I64, true },
	[TR_TYPE] = { "region_type", MT_COL_STRING, true },
	[TR_SITE] = { "site_id", MT_COL_I64, true },
	[TR_PHASE] = { "phase", MT_COL_STRING, true },
};

/* trace: every access sample, page fault (with its region) and allocation call, as the pass
 * meets them. */
static void trace_row(void *ctx, const struct mt_access_row *r)
{
	struct out *o = ctx;
	struct mt_sink *s = o->trace;

	if (o->trace_rc)
		return;
	mt_sink_i64(s, TR_TS, (int64_t)r->time_ns);
	mt_sink_i64(s, TR_PID, r->pid);
	mt_sink_i64(s, TR_TID, r->tid);
	mt_sink_str(s, TR_OP, r->op);
	mt_sink_u64(s, TR_ADDR, r->addr);
	mt_sink_u64(s, TR_PAGE, r->addr >> 12);
	if (r->has_region) { /* a sample or a fault */
		mt_sink_u64(s, TR_IP, r->ip);
		mt_sink_i64(s, TR_REGION, (int64_t)r->region_id);
		mt_sink_str(s, TR_TYPE, r->region_type);
	} else { /* an allocation call */
		mt_sink_i64(s, TR_SIZE, (int64_t)r->size);
	}
	mt_sink_i64(s, TR_WEIGHT, (int64_t)r->weight);
	if (r->site >= 0)
		mt_sink_i64(s, TR_SITE, r->site);
	if (r->phase && r->phase[0])
		mt_sink_str(s, TR_PHASE, r->phase);
	o->trace_rc = mt_sink_end_row(s);
	if (!o->trace_rc)
		o->res->trace_rows++;
}

/* rss_timeline's rows, gathered by a pass of the shared read. */
static int rss_rows_event(void *ctx, const struct mt_event *ev)
{
	struct rss_rows *rr = ctx;
	struct rss_row *x;
	uint64_t v[4], *ix;

	mt_own_event(&rr->own, ev);
	if (ev->type != MT_EV_RSS || !mt_own_rss(&rr->own, ev, v))
		return 0;
	if (mt_grow_array(&rr->v, &rr->cap, rr->n + 1, sizeof(*rr->v)) < 0)
		return -ENOMEM;
	ix = mt_map64_get(&rr->own.by_pid, ev->v[MT_F_PID]);
	x = &rr->v[rr->n++];
	x->pid = (uint32_t)ev->v[MT_F_PID];
	x->time = ev->v[MT_F_TIME];
	memcpy(x->v, v, sizeof(v));
	x->own = ix ? rr->own.v[*ix - 1].anon + rr->own.v[*ix - 1].shmem : 0;
	x->source = (uint8_t)ev->v[MT_F_RSS_SOURCE];
	return 0;
}

static int rss_rows_finish(void *ctx, int status)
{
	struct rss_rows *rr = ctx;

	mt_own_release(&rr->own);
	return status;
}

void mt_tables_rss_rows_pass(struct rss_rows *rr, struct mt_reader *r, struct mt_pass *p)
{
	memset(rr, 0, sizeof(*rr));
	mt_own_init(&rr->own, r);
	*p = (struct mt_pass){ .name = "rss_timeline",
			       .types = 1ull << MT_EV_RSS | MT_OWN_EVENTS,
			       .ctx = rr,
			       .event = rss_rows_event,
			       .finish = rss_rows_finish };
}

/* DIR/NAME's new file (outfile.h: refused when it exists unless force); NULL with errno. */
static FILE *create(struct out *o, const char *name, struct mt_outfile *of)
{
	char path[4096];
	FILE *f;
	int r;

	if (snprintf(path, sizeof(path), "%s/%s", o->set.dir, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if ((r = mt_outfile_open(of, path, o->set.force, 0666)) < 0) {
		errno = -r;
		return NULL;
	}
	if (!(f = mt_outfile_stream(of))) {
		r = errno;
		mt_outfile_abort(of);
		errno = r;
	}
	return f;
}

/* The file complete (rc 0) goes into place, else it goes. */
static int finish(struct mt_outfile *of, int rc)
{
	if (rc == 0 && ferror(of->f))
		rc = -EIO;
	if (rc) {
		mt_outfile_abort(of);
		return rc;
	}
	return mt_outfile_commit(of);
}

/* metrics.csv: the report's per-type table (memtap report --section metrics --format csv). */
static int metrics_csv(struct out *o)
{
	struct mt_report *rep = (struct mt_report *)o->rep;
	struct mt_table t;
	struct mt_outfile of;
	FILE *f = create(o, "metrics.csv", &of);

	if (!f)
		return -errno;
	rep->by = MT_BY_TYPE;
	mt_report_metrics_table(rep, &t);
	mt_table_csv(&t, f);
	mt_table_release(&t);
	return finish(&of, 0);
}

/* metadata.json: the run, its collectors (mechanisms, observer cost) and the recording's
 * environment (the trace's META keys: kernel, CPU, memtap's options). */
static int metadata_json(struct out *o, const char *trace)
{
	const struct mt_report *rep = o->rep;
	const char **keys, **vals;
	size_t n = mt_reader_meta_all(rep->r, &keys, &vals);
	struct mt_json j;
	struct mt_outfile of;
	FILE *f = create(o, "metadata.json", &of);

	if (!f)
		return -errno;
	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "memtap_version", MEMTAP_VERSION);
	mt_json_kv_str(&j, "memtap_schema_version", MT_EXPORT_SCHEMA_VERSION);
	mt_json_kv_str(&j, "run_id", o->run_id);
	mt_json_kv_str(&j, "trace", trace);
	mt_json_key(&j, "run");
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "command", rep->run.command ? rep->run.command : "");
	if (rep->run.has_exit)
		mt_json_kv_i64(&j, "exit_status", rep->run.exit_status);
	else
		mt_json_kv_null(&j, "exit_status");
	mt_json_kv_u64(&j, "duration_ns", rep->run.duration_ns);
	mt_json_kv_u64(&j, "lost_events", rep->run.lost_events);
	mt_report_json_collectors(&j, &rep->run);
	mt_json_end_object(&j);
	mt_json_key(&j, "recording");
	mt_json_begin_object(&j);
	for (size_t i = 0; i < n; i++)
		mt_json_kv_str(&j, keys[i], vals[i]);
	mt_json_end_object(&j);
	mt_json_end_object(&j);
	fputc('\n', f);
	return finish(&of, 0);
}

/* raw/NAME: the trace itself. */
static int copy_raw(struct out *o, const char *trace, const char *name)
{
	char path[4096], buf[65536];
	struct mt_outfile of;
	FILE *in, *out;
	size_t n;
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s/raw", o->set.dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if ((rc = mt_outdir(path)) < 0)
		return rc;
	if (snprintf(path, sizeof(path), "raw/%s", name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	in = fopen(trace, "re");
	if (!in)
		return -errno;
	out = create(o, path, &of);
	if (!out) {
		rc = -errno;
		fclose(in);
		return rc;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			rc = -EIO;
			break;
		}
	if (ferror(in))
		rc = -EIO;
	fclose(in);
	return finish(&of, rc);
}

/* manifest.json: the SHA-256 and size of every file of the run directory (written last). */
static int manifest(struct out *o, const char *const *files, size_t nfiles)
{
	struct mt_json j;
	char file[4096], hex[65];
	struct mt_outfile of;
	FILE *f = create(o, "manifest.json", &of);
	int rc = 0;

	if (!f)
		return -errno;
	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "algorithm", "sha256");
	mt_json_kv_str(&j, "run_id", o->run_id);
	mt_json_key(&j, "files");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < nfiles && !rc; i++) {
		uint64_t bytes = 0;

		snprintf(file, sizeof(file), "%s/%s", o->set.dir, files[i]);
		rc = mt_sha256_file(file, hex, &bytes);
		if (rc)
			break;
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "path", files[i]);
		mt_json_kv_str(&j, "sha256", hex);
		mt_json_kv_u64(&j, "bytes", bytes);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	mt_json_end_object(&j);
	fputc('\n', f);
	return finish(&of, rc);
}

/* A Hive key's value: path-safe (no '/', '=', NUL or leading '.'), at most 64 bytes. */
static void hive_value(char *dst, size_t size, const char *v)
{
	size_t n = 0;

	for (; *v && n + 1 < size && n < 64; v++) {
		bool bad = *v == '/' || *v == '=' || *v == ' ' || (unsigned char)*v < 0x20 ||
			   (n == 0 && *v == '.');

		dst[n] = bad ? '_' : *v;
		n++;
	}
	dst[n] = 0;
	if (!n)
		snprintf(dst, size, "unknown");
}

#define RUN_MARK ".memtap-run-id" /* in each Hive leaf: the run it holds */

/* The rep=* directory under parent that already holds run_id, into dir; false if none. */
static bool hive_find_run(const char *parent, const char *run_id, char *dir, size_t size)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[4096], id[64] = "";
		FILE *f;

		if (strncmp(e->d_name, "rep=", 4) ||
		    snprintf(path, sizeof(path), "%s/%s/" RUN_MARK, parent, e->d_name) >=
			    (int)sizeof(path))
			continue;
		f = fopen(path, "re");
		if (f && fgets(id, sizeof(id), f) && !strncmp(id, run_id, strlen(run_id)) &&
		    snprintf(dir, size, "%s/%s", parent, e->d_name) < (int)size)
			found = true;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* OUT/workload=W/config=C/rep=R: W defaults to the command's base name, C to "default", R to
 * the first N >= 1 whose directory does not exist yet. A run already in the tree is not
 * added twice: -EEXIST with dir naming where it is, unless force (then it is replaced). */
static int hive_dir(const struct mt_export_opts *eo, const struct mt_report *rep,
		    const char *run_id, char *dir, size_t size)
{
	char w[80], c[80], r[80], cmd[256], parent[4096];
	const char *base;
	struct stat sb;

	snprintf(cmd, sizeof(cmd), "%s", rep->run.argc ? rep->run.argv[0] : "run");
	base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	hive_value(w, sizeof(w), eo->workload ? eo->workload : base);
	hive_value(c, sizeof(c), eo->config ? eo->config : "default");
	if (snprintf(parent, sizeof(parent), "%s/workload=%s/config=%s", eo->out, w, c) <
		    (int)sizeof(parent) &&
	    hive_find_run(parent, run_id, dir, size))
		return eo->force ? 0 : -EEXIST;
	if (eo->rep) {
		hive_value(r, sizeof(r), eo->rep);
		if (snprintf(dir, size, "%s/workload=%s/config=%s/rep=%s", eo->out, w, c, r) >=
		    (int)size)
			return -ENAMETOOLONG;
		return 0;
	}
	for (unsigned k = 1; k < 100000; k++) {
		if (snprintf(dir, size, "%s/workload=%s/config=%s/rep=%u", eo->out, w, c, k) >=
		    (int)size)
			return -ENAMETOOLONG;
		if (stat(dir, &sb) < 0)
			return 0;
	}
	return -EEXIST;
}

/* The database: created when missing, its schema version checked, a transaction begun. */
static int open_db(const char *path, sqlite3 **db)
{
	sqlite3_stmt *st;
	struct stat sb;
	int rc = 0;

	/* Never through a symlink (a dangling one would create its target), never into a device,
	 * a FIFO or anything else that is not a database file, as the other writers refuse. */
	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		mt_sink_sqlite_note("it is a symbolic link");
		return -ELOOP;
	}
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		mt_sink_sqlite_note("it is %s, not a regular file",
				    S_ISBLK(sb.st_mode)	   ? "a block device"
				    : S_ISCHR(sb.st_mode)  ? "a character device"
				    : S_ISFIFO(sb.st_mode) ? "a FIFO"
				    : S_ISDIR(sb.st_mode)  ? "a directory"
							   : "a special file");
		return -EIO;
	}
	if (sqlite3_open_v2(path, db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		mt_sink_sqlite_note("%s", sqlite3_errmsg(*db));
		return -EIO;
	}
	sqlite3_busy_timeout(*db, 10000);
	if (sqlite3_exec(*db,
			 "BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS memtap_schema (key TEXT "
			 "PRIMARY KEY, value TEXT NOT NULL); INSERT OR IGNORE INTO memtap_schema "
			 "VALUES ('schema_version', '" MT_EXPORT_SCHEMA_VERSION "');",
			 NULL, NULL, NULL) != SQLITE_OK) {
		mt_sink_sqlite_note("%s", sqlite3_errmsg(*db));
		return -EIO;
	}
	if (sqlite3_prepare_v2(*db, "SELECT value FROM memtap_schema WHERE key = 'schema_version'",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		if (!v || strtoul(v, NULL, 10) != strtoul(MT_EXPORT_SCHEMA_VERSION, NULL, 10)) {
			snprintf((char *)mt_sink_sqlite_error(), 512,
				 "the database has memtap schema %s; this memtap writes %s",
				 v ? v : "?", MT_EXPORT_SCHEMA_VERSION);
			rc = -EPROTO;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* Whether the run is already in the database. */
static bool db_has_run(sqlite3 *db, const char *run_id)
{
	sqlite3_stmt *st;
	bool has = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE run_id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return false; /* no runs table yet */
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

/* mrm-trace's run directory beside the tables: metrics.csv, metadata.json, raw/TRACE and a
 * manifest with the SHA-256 of every file. */
static int mrm_layout(struct out *o, const struct mt_export_opts *eo, const char *path,
		      const char *base)
{
	const char *ext = mt_sink_ext(eo->format);
	char names[16][64], raw[4096];
	const char *list[20];
	size_t n = 0;
	int rc;

	for (size_t i = 0; mt_export_table_names[i] && n < 16; i++) {
		snprintf(names[n], sizeof(names[n]), "%s%s", mt_export_table_names[i], ext);
		list[n] = names[n];
		n++;
	}
	snprintf(raw, sizeof(raw), "raw/%s", base);
	list[n++] = "metrics.csv";
	list[n++] = "metadata.json";
	list[n++] = raw;
	rc = metrics_csv(o);
	if (rc == 0)
		rc = metadata_json(o, base);
	if (rc == 0)
		rc = copy_raw(o, path, base);
	if (rc == 0)
		rc = manifest(o, list, n);
	return rc;
}

/* Which run a Hive leaf holds: the same run is never added twice. */
static int hive_mark(const char *dir, const char *run_id)
{
	char mark[4200];
	struct mt_outfile of;
	FILE *f;
	int rc;

	snprintf(mark, sizeof(mark), "%s/" RUN_MARK, dir);
	if ((rc = mt_outfile_open(&of, mark, true, 0666)) < 0)
		return rc;
	if (!(f = mt_outfile_stream(&of))) {
		mt_outfile_abort(&of);
		return -ENOMEM;
	}
	fprintf(f, "%s\n", run_id);
	return finish(&of, 0);
}

int mt_export_tables(struct mt_reader *r, const char *path, const struct mt_export_opts *eo,
		     struct mt_export_result *res)
{
	static const char *const keys[] = { "memtap_schema_version", "memtap_version", "run_id",
					    "table" };
	const struct mt_file_info *fi = mt_reader_file(r);
	struct mt_access_opts ao = eo->ao ? *eo->ao : (struct mt_access_opts){ 0 };
	bool files = eo->format != MT_SINK_SQLITE;
	struct mt_report rep;
	struct rss_rows rss_rows = { 0 };
	struct mt_span_rows span_rows = { 0 };
	struct mt_appev spans_sum; /* the spans' summary: not exported, the pass needs one */
	struct out o = { .rep = &rep, .res = res, .rss_rows = &rss_rows, .spans = &span_rows };
	struct mt_passes ps;
	struct mt_pass p;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	sqlite3 *db = NULL;
	bool loaded = false;
	int rc;

	memset(res, 0, sizeof(*res));
	mt_appev_init(&spans_sum, 0);
	mt_fmt_uuid(fi->run_id, o.run_id, sizeof(o.run_id));
	snprintf(res->run_id, sizeof(res->run_id), "%s", o.run_id);
	snprintf(o.trace_name, sizeof(o.trace_name), "%s", base);
	o.set = (struct mt_sink_set){ .format = eo->format,
				      .force = eo->force,
				      .meta_keys = keys,
				      .nmeta = 4,
				      .run_id = o.run_id };
	if (files && eo->layout == MT_LAYOUT_HIVE) {
		/* the workload's name comes from the run: read it first */
		struct mt_run run;

		rc = mt_run_summary(r, &run);
		if (rc < 0)
			return rc;
		rep.run = run;
		rc = hive_dir(eo, &rep, o.run_id, res->dir, sizeof(res->dir));
		mt_run_release(&run);
		if (rc < 0)
			return rc;
	} else {
		snprintf(res->dir, sizeof(res->dir), "%s", eo->out);
	}
	o.set.dir = res->dir;
	if (files) {
		/* The output directory is made if missing, never its parent; a Hive layout's
		 * partitions are made inside it. */
		rc = mt_outdir(eo->out);
		if (rc == 0 && eo->layout == MT_LAYOUT_HIVE)
			rc = mt_mkdir_p(res->dir);
		if (rc < 0)
			return rc;
		/* the trace table is written during the analysis pass */
		rc = mt_tables_open_table(&o, "trace", trace_cols, TR_NCOLS, &o.trace);
		if (rc < 0)
			return rc;
		ao.row = trace_row;
		ao.row_ctx = &o;
	} else {
		rc = open_db(eo->out, &db);
		if (rc < 0)
			goto out;
		o.set.db = db;
		res->replaced = db_has_run(db, o.run_id);
	}
	/* one read: the report's passes, the trace table's rows and the RSS timeline's */
	mt_passes_init(&ps);
	mt_report_setup(&rep, r, path, MT_SEC_ALL & ~MT_SEC_EVENTS, 10, &ao, &ps);
	mt_tables_rss_rows_pass(&rss_rows, r, &p);
	mt_passes_add(&ps, 0, &p);
	if (mt_reader_event_count(r, MT_EV_APP))
		mt_passes_add(&ps, mt_spans_pass(r, &spans_sum, &span_rows, &p), &p);
	rc = mt_report_done(&rep, MT_SEC_ALL & ~MT_SEC_EVENTS, mt_passes_run(r, &ps));
	if (rc < 0) {
		mt_sink_close(o.trace, false);
		goto out;
	}
	loaded = true;
	if (o.trace)
		rc = mt_tables_close_table(&o, o.trace, o.trace_rc);
	if (rc == 0)
		rc = mt_tables_write_all(&o);
	if (rc == 0 && files && eo->layout == MT_LAYOUT_MRM)
		rc = mrm_layout(&o, eo, path, base);
	if (rc == 0 && files && eo->layout == MT_LAYOUT_HIVE)
		rc = hive_mark(res->dir, o.run_id);
out:
	if (db) {
		if (sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) !=
			    SQLITE_OK &&
		    rc == 0) {
			mt_sink_sqlite_note("commit: %s", sqlite3_errmsg(db));
			rc = -EIO;
		}
		sqlite3_close(db);
	}
	if (loaded)
		mt_report_release(&rep);
	free(rss_rows.v);
	mt_span_rows_release(&span_rows);
	mt_appev_release(&spans_sum);
	return rc;
}
