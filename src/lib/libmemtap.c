/* SPDX-License-Identifier: MIT */
/* libmemtap: the public C interface (include/memtap/libmemtap.h) over the reader, the
 * analysis and the exports; the only symbols the shared library exports. */
#include <memtap/libmemtap.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/mrm.h"
#include "common/outfile.h"
#include "common/error.h"
#include "export/folded.h"
#include "export/perfetto.h"
#include "export/report.h"
#include "export/tables.h"
#include "format/reader.h"
#include "format/schema.h"

#define API __attribute__((visibility("default")))

struct memtap_trace {
	struct mt_reader *r;
	char *path;
};

struct memtap_cursor {
	struct mt_cursor *c;
};

struct memtap_report {
	struct mt_report rep;
};

API const char *memtap_version(void)
{
	return MEMTAP_VERSION;
}

API const char *memtap_strerror(int err)
{
	if (err == -MT_ERR_FORMAT || err == -MT_ERR_VERSION || err == -MT_ERR_TRUNCATED ||
	    err == -MT_ERR_CORRUPT)
		return mt_reader_errmsg(err);
	return mt_strerror(err);
}

API int memtap_trace_open(const char *path, memtap_trace **out)
{
	memtap_trace *t = calloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if (!t || !(t->path = strdup(path))) {
		free(t);
		return -ENOMEM;
	}
	rc = mt_reader_open(path, &t->r);
	if (rc < 0) {
		free(t->path);
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

API void memtap_trace_close(memtap_trace *t)
{
	if (!t)
		return;
	mt_reader_free(t->r);
	free(t->path);
	free(t);
}

API uint64_t memtap_trace_event_count(const memtap_trace *t, unsigned type)
{
	return type < _MT_EV_MAX ? mt_reader_event_count(t->r, type) : 0;
}

API const char *memtap_trace_string(const memtap_trace *t, uint32_t stream, uint64_t id)
{
	return mt_reader_str(t->r, stream, id, NULL);
}

API const char *memtap_trace_meta(const memtap_trace *t, const char *key)
{
	return mt_reader_meta(t->r, key);
}

API int memtap_cursor_open(memtap_trace *t, uint64_t type_mask, memtap_cursor **out)
{
	struct mt_cursor_opts o = { .type_mask = type_mask };
	memtap_cursor *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	rc = mt_cursor_new(t->r, &o, &c->c);
	if (rc < 0) {
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

API int memtap_cursor_next(memtap_cursor *c, struct memtap_event *ev)
{
	struct mt_event e;
	int rc = mt_cursor_next(c->c, &e);

	if (rc != 1)
		return rc;
	memset(ev, 0, sizeof(*ev));
	ev->type = e.type;
	ev->stream = e.stream;
	ev->time_ns = e.v[MT_F_TIME];
	ev->pid = (uint32_t)e.v[MT_F_PID];
	ev->tid = (uint32_t)e.v[MT_F_TID];
	ev->nfields = e.desc ? e.desc->nfields : 0;
	memcpy(ev->v, e.v, ev->nfields * sizeof(ev->v[0]));
	return 1;
}

API void memtap_cursor_close(memtap_cursor *c)
{
	if (!c)
		return;
	mt_cursor_free(c->c);
	free(c);
}

API const char *memtap_event_type_name(unsigned type)
{
	const struct mt_type_desc *d = mt_type_desc(type);

	return d ? d->name : NULL;
}

API const char *memtap_event_field_name(unsigned type, unsigned f)
{
	const struct mt_type_desc *d = mt_type_desc(type);

	return d && f < d->nfields ? d->fields[f].name : NULL;
}

API int memtap_report_load(memtap_trace *t, memtap_report **out)
{
	memtap_report *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	rc = mt_report_load(&r->rep, t->r, t->path, MT_SEC_ALL, 10, NULL);
	if (rc < 0) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

API void memtap_report_free(memtap_report *r)
{
	if (!r)
		return;
	mt_report_release(&r->rep);
	free(r);
}

API int memtap_report_write_json(const memtap_report *r, FILE *f)
{
	return mt_report_print(&r->rep, MT_REPORT_JSON, MT_SEC_ALL, f);
}

API void memtap_report_summary(const memtap_report *r, struct memtap_summary *s)
{
	const struct mt_report *rep = &r->rep;
	const struct mt_access_stats *as = &rep->access.st;

	memset(s, 0, sizeof(*s));
	s->duration_ns = rep->run.duration_ns;
	s->has_exit = rep->run.has_exit;
	s->exit_status = rep->run.exit_status;
	s->processes = rep->procs.n;
	s->has_alloc = rep->alloc.loaded;
	s->alloc_calls = rep->alloc.st.calls;
	s->alloc_bytes = rep->alloc.st.bytes;
	s->heap_peak_bytes = rep->alloc.st.peak_bytes;
	s->leaked_bytes = rep->alloc.st.leaked_bytes;
	s->has_access = rep->access.loaded;
	s->access_samples = as->samples;
	s->has_faults = rep->access.faults_loaded;
	s->faults_minor = as->faults_minor;
	s->faults_major = as->faults_major;
	s->has_rss = rep->rss.loaded;
	s->rss_tree_peak_bytes = rep->rss.st.tree_peak;
	s->regions = as->nregions;
}

API size_t memtap_report_nregions(const memtap_report *r)
{
	return r->rep.access.st.nregions;
}

API int memtap_report_region(const memtap_report *r, size_t i, struct memtap_region *out)
{
	const struct mt_access_region *g;

	if (i >= r->rep.access.st.nregions)
		return -EINVAL;
	g = &r->rep.access.st.regions[i];
	*out = (struct memtap_region){
		.pid = g->pid,
		.type = mt_report_region_type(&r->rep, g),
		.start = g->start,
		.end = g->end,
		.samples = g->c.samples,
		.reads = g->c.reads,
		.writes = g->c.writes,
		.faults_minor = g->faults_minor,
		.faults_major = g->faults_major,
		.mrm = g->b.mrm <= MT_MRM_HIGH ? mt_mrm_name(g->b.mrm) : NULL,
		.write_once = g->b.write_once,
		.retention_s = g->b.retention_s,
	};
	return 0;
}

static int export_tables(memtap_trace *t, enum mt_sink_format fmt, const char *out, int force)
{
	struct mt_export_opts o = { .format = fmt, .out = out, .force = force != 0 };
	struct mt_export_result res;

	return mt_export_tables(t->r, t->path, &o, &res);
}

API int memtap_export(memtap_trace *t, const char *format, const char *out, int force)
{
	static const struct {
		const char *name;
		enum mt_sink_format fmt;
	} tables[] = { { "parquet", MT_SINK_PARQUET },
		       { "csv", MT_SINK_CSV },
		       { "jsonl", MT_SINK_JSONL },
		       { "sqlite", MT_SINK_SQLITE } };

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (!strcmp(format, tables[i].name))
			return export_tables(t, tables[i].fmt, out, force);
	if (!strcmp(format, "perfetto")) {
		struct mt_perfetto_opts o = {
			.min_alloc = 1u << 20,
			.min_syscall_ns = 1000000,
			.force = force != 0,
			.json = true
		}; /* libmemtap's "perfetto": the JSON form */
		struct mt_perfetto_stats st;

		return mt_export_perfetto(t->r, t->path, out, &o, &st);
	}
	if (!strcmp(format, "folded")) {
		struct mt_folded_stats st;
		struct mt_outfile of;
		FILE *f;
		int rc = mt_outfile_open(&of, out, force != 0, 0666);

		if (rc < 0)
			return rc;
		if (!(f = mt_outfile_stream(&of))) {
			mt_outfile_abort(&of);
			return -ENOMEM;
		}
		rc = mt_export_folded(t->r, MT_FOLD_BYTES, f, &st);
		if (rc < 0 || ferror(f)) {
			mt_outfile_abort(&of);
			return rc < 0 ? rc : -EIO;
		}
		return mt_outfile_commit(&of);
	}
	return -EINVAL;
}
