/* SPDX-License-Identifier: MIT */
/* Allocation profiles for pprof and speedscope (export/profile.h). */
#include "export/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <memtap/trace-format.h>

#include "analysis/alloc.h"
#include "analysis/pass.h"
#include "analysis/procs.h"
#include "analysis/symbols.h"
#include "common/array.h"
#include "common/buf.h"
#include "common/hash.h"
#include "export/json.h"
#include "export/pb.h"
#include "format/reader.h"

#define MAX_FRAMES 512
#define OUT_MAX (4ull << 30) /* a profile's protobuf, before compression */

/* One code address of one process, and its source frames (innermost first). */
struct loc {
	uint32_t pid;
	uint64_t ip;
	uint32_t frame, nframes; /* into prof.frames */
};

/* One allocation site written: its locations, innermost first. */
struct site_ref {
	size_t site; /* into st.sites */
	uint32_t loc, nlocs; /* into prof.site_locs */
};

/* Strings interned: index 0 is "" (pprof's rule). */
struct strtab {
	const char **v;
	size_t n, cap;
	struct mt_map64 ix; /* hash, probed -> index + 1 */
};

struct prof {
	struct mt_reader *r;
	struct mt_alloc_stats st;
	struct mt_procs procs;
	struct mt_symbolizer *sym;
	struct mt_frame *frames;
	size_t nframes, frames_cap;
	struct loc *locs;
	size_t nlocs, locs_cap;
	struct mt_map64 loc_of; /* hash(pid, ip), probed -> index + 1 */
	uint32_t *site_locs;
	size_t nsl, sl_cap;
	struct site_ref *sites;
	size_t nsites, sites_cap;
	struct strtab strs;
	char **owned; /* strings made here (module+0xoffset, "comm pid", frame keys) */
	size_t nowned, owned_cap;
	uint64_t nfunctions;
};

/* ---- strings ---- */

static const char *own(struct prof *p, const char *s);

struct str_want {
	const struct strtab *t;
	const char *s;
};

static bool str_same(const void *ctx, uint64_t v)
{
	const struct str_want *w = ctx;

	return !strcmp(w->t->v[v - 1], w->s);
}

/* s's index in t; a new s is kept as is, or copied when owner is given (s is transient). */
static int intern(struct prof *owner, struct strtab *t, const char *s, uint64_t *ix)
{
	struct str_want w = { t, s };
	uint64_t *v, h;

	if (mt_map64_put_by(&t->ix, mt_hash64(s, strlen(s), 0x5bd1e995), str_same, &w, &v, &h) < 0)
		return -ENOMEM;
	if (!*v) {
		if (mt_grow_array(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0 ||
		    (owner && !(s = own(owner, s)))) {
			mt_map64_del(&t->ix, h);
			return -ENOMEM;
		}
		t->v[t->n] = s;
		*v = ++t->n;
	}
	*ix = *v - 1;
	return 0;
}

static int str_ix(struct strtab *t, const char *s, uint64_t *ix)
{
	return intern(NULL, t, s, ix);
}

/* A string made here, kept until the end. */
static const char *own(struct prof *p, const char *s)
{
	char *c = strdup(s);

	if (!c || mt_grow_array(&p->owned, &p->owned_cap, p->nowned + 1, sizeof(*p->owned)) < 0) {
		free(c);
		return NULL;
	}
	p->owned[p->nowned++] = c;
	return c;
}

/* A frame's name as the profile shows it: the function, else module+0xoffset, else 0xip
 * (then made in buf). */
static const char *frame_name(const struct mt_frame *f, char *buf, size_t size)
{
	const char *mod;

	if (f->function)
		return f->function;
	mod = f->module ? strrchr(f->module, '/') : NULL;
	if (f->module)
		snprintf(buf, size, "%s+0x%llx", mod ? mod + 1 : f->module,
			 (unsigned long long)f->offset);
	else
		snprintf(buf, size, "0x%llx", (unsigned long long)f->ip);
	return buf;
}

/* ---- the sites and their locations ---- */

struct loc_want {
	const struct prof *p;
	uint32_t pid;
	uint64_t ip;
};

static bool loc_same(const void *ctx, uint64_t v)
{
	const struct loc_want *w = ctx;

	return w->p->locs[v - 1].pid == w->pid && w->p->locs[v - 1].ip == w->ip;
}

static int loc_get(struct prof *p, uint32_t pid, uint64_t ip, uint64_t t, uint32_t *idx)
{
	struct loc_want w = { p, pid, ip };
	const struct mt_frame *fr;
	uint64_t *v, h;
	int n;

	if (mt_map64_put_by(&p->loc_of, ip ^ mt_hash_u64(pid), loc_same, &w, &v, &h) < 0)
		return -ENOMEM;
	if (*v) {
		*idx = (uint32_t)(*v - 1);
		return 0;
	}
	n = mt_sym_resolve(p->sym, pid, t, ip, true, &fr);
	if (n < 0)
		return n;
	if (mt_grow_array(&p->locs, &p->locs_cap, p->nlocs + 1, sizeof(*p->locs)) < 0 ||
	    mt_grow_array(&p->frames, &p->frames_cap, p->nframes + (size_t)n, sizeof(*p->frames)) <
		    0)
		return -ENOMEM;
	memcpy(&p->frames[p->nframes], fr, (size_t)n * sizeof(*fr));
	p->locs[p->nlocs] = (struct loc){
		.pid = pid, .ip = ip, .frame = (uint32_t)p->nframes, .nframes = (uint32_t)n
	};
	p->nframes += (size_t)n;
	*v = p->nlocs + 1;
	*idx = (uint32_t)p->nlocs++;
	return 0;
}

static int collect(struct prof *p)
{
	uint64_t *ips = malloc(MAX_FRAMES * sizeof(*ips));
	int rc = ips ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < p->st.nsites; i++) {
		const struct mt_alloc_site *s = &p->st.sites[i];
		int depth = s->stack ? mt_reader_stack(p->r, s->stream, s->stack, ips, MAX_FRAMES)
				     : 0;
		struct site_ref *sr;

		if (!s->calls && !s->bytes)
			continue;
		if (mt_grow_array(&p->sites, &p->sites_cap, p->nsites + 1, sizeof(*p->sites)) < 0) {
			rc = -ENOMEM;
			break;
		}
		sr = &p->sites[p->nsites++];
		*sr = (struct site_ref){ .site = i, .loc = (uint32_t)p->nsl };
		for (int d = 0; d < depth && rc == 0; d++) {
			uint32_t l;

			rc = loc_get(p, s->pid, ips[d], s->first_ns, &l);
			if (rc == 0 && mt_grow_array(&p->site_locs, &p->sl_cap, p->nsl + 1,
						     sizeof(*p->site_locs)) < 0)
				rc = -ENOMEM;
			if (rc == 0)
				p->site_locs[p->nsl++] = l;
		}
		sr->nlocs = (uint32_t)(p->nsl - sr->loc);
	}
	free(ips);
	return rc;
}

/* ---- pprof ---- */

/* Field numbers of profile.proto (github.com/google/pprof/proto/profile.proto). */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE };
enum { P_TIME_NANOS = 9, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13, P_DEFAULT_TYPE = 14 };

struct ids {
	struct mt_map64 fn; /* name << 32 | file (string indices) -> function id */
	struct mt_map64 map; /* module string index -> mapping id */
	uint64_t nfn, nmap;
};

static int value_type(struct prof *p, struct mt_buf *b, unsigned field, const char *type,
		      const char *unit, struct mt_buf *m)
{
	uint64_t t, u;
	int rc = str_ix(&p->strs, type, &t);

	if (rc == 0)
		rc = str_ix(&p->strs, unit, &u);
	mt_buf_reset(m);
	if (rc == 0)
		rc = mt_pb_u64(m, 1, t);
	if (rc == 0)
		rc = mt_pb_u64(m, 2, u);
	return rc < 0 ? rc : mt_pb_msg(b, field, m);
}

static int pp_samples(struct prof *p, struct mt_buf *b, struct mt_buf *m, struct mt_buf *s)
{
	uint64_t *ids = malloc(MAX_FRAMES * sizeof(*ids)), kpid, kcomm, comm;
	int rc = ids ? 0 : -ENOMEM;

	if (rc == 0)
		rc = str_ix(&p->strs, "pid", &kpid);
	if (rc == 0)
		rc = str_ix(&p->strs, "comm", &kcomm);
	for (size_t i = 0; rc == 0 && i < p->nsites; i++) {
		const struct site_ref *sr = &p->sites[i];
		const struct mt_alloc_site *a = &p->st.sites[sr->site];
		uint64_t v[4] = { a->calls, a->bytes, a->leaked_blocks, a->leaked_bytes };

		for (uint32_t k = 0; k < sr->nlocs; k++)
			ids[k] = (uint64_t)p->site_locs[sr->loc + k] + 1;
		mt_buf_reset(m);
		rc = mt_pb_packed(m, 1, ids, sr->nlocs, s);
		if (rc == 0)
			rc = mt_pb_packed(m, 2, v, 4, s);
		mt_buf_reset(s);
		if (rc == 0 && (rc = mt_pb_u64(s, 1, kpid)) == 0 &&
		    (rc = mt_pb_u64(s, 3, a->pid)) == 0)
			rc = mt_pb_msg(m, 3, s);
		if (rc == 0)
			rc = str_ix(&p->strs, mt_procs_comm_at(&p->procs, a->pid, a->first_ns),
				    &comm);
		mt_buf_reset(s);
		if (rc == 0 && (rc = mt_pb_u64(s, 1, kcomm)) == 0 &&
		    (rc = mt_pb_u64(s, 2, comm)) == 0)
			rc = mt_pb_msg(m, 3, s);
		if (rc == 0)
			rc = mt_pb_msg(b, P_SAMPLE, m);
	}
	free(ids);
	return rc;
}

/* The id of a function (name, file), written when new. */
static int pp_function(struct prof *p, struct ids *ids, struct mt_buf *fns, struct mt_buf *m,
		       const struct mt_frame *f, uint64_t *id)
{
	char buf[512];
	const char *name = frame_name(f, buf, sizeof(buf));
	uint64_t n, file = 0, *v;
	int rc = intern(p, &p->strs, name, &n);

	if (rc == 0 && f->file)
		rc = str_ix(&p->strs, f->file, &file);
	if (rc == 0 && mt_map64_put(&ids->fn, n << 32 | file, &v) < 0)
		rc = -ENOMEM;
	if (rc < 0 || *v) {
		*id = rc < 0 ? 0 : *v;
		return rc;
	}
	*v = *id = ++ids->nfn;
	p->nfunctions = ids->nfn;
	mt_buf_reset(m);
	if ((rc = mt_pb_u64(m, 1, *id)) == 0 && (rc = mt_pb_u64(m, 2, n)) == 0 &&
	    (rc = mt_pb_u64(m, 3, n)) == 0 && (rc = mt_pb_u64(m, 4, file)) == 0)
		rc = mt_pb_msg(fns, P_FUNCTION, m);
	return rc;
}

/* The id of the mapping of module (a path), written when new. */
static int pp_mapping(struct prof *p, struct ids *ids, struct mt_buf *b, struct mt_buf *m,
		      const char *module, uint64_t *id)
{
	uint64_t s, *v;
	int rc = str_ix(&p->strs, module, &s);

	if (rc == 0 && mt_map64_put(&ids->map, s, &v) < 0)
		rc = -ENOMEM;
	if (rc < 0 || *v) {
		*id = rc < 0 ? 0 : *v;
		return rc;
	}
	*v = *id = ++ids->nmap;
	mt_buf_reset(m);
	/* where it was mapped is not kept per module: the file and its symbols are */
	if ((rc = mt_pb_u64(m, 1, *id)) == 0 && (rc = mt_pb_u64(m, 5, s)) == 0 &&
	    (rc = mt_pb_u64(m, 7, 1)) == 0 && (rc = mt_pb_u64(m, 8, 1)) == 0 &&
	    (rc = mt_pb_u64(m, 9, 1)) == 0 && (rc = mt_pb_u64(m, 10, 1)) == 0)
		rc = mt_pb_msg(b, P_MAPPING, m);
	return rc;
}

static int pp_locations(struct prof *p, struct mt_buf *b, struct mt_buf *fns, struct mt_buf *m,
			struct mt_buf *line, struct mt_buf *fm)
{
	struct ids ids = { 0 };
	int rc = 0;

	mt_map64_init(&ids.fn);
	mt_map64_init(&ids.map);
	for (size_t i = 0; rc == 0 && i < p->nlocs; i++) {
		const struct loc *l = &p->locs[i];
		const struct mt_frame *f0 = &p->frames[l->frame];
		bool py = mt_frame_is_python(f0);
		uint64_t map = 0;

		if (!py && f0->module)
			rc = pp_mapping(p, &ids, b, fm, f0->module, &map);
		mt_buf_reset(m);
		if (rc == 0 && (rc = mt_pb_u64(m, 1, i + 1)) == 0 &&
		    (rc = mt_pb_u64(m, 2, map)) == 0)
			rc = mt_pb_u64(m, 3, py ? 0 : l->ip);
		for (uint32_t k = 0; rc == 0 && k < l->nframes; k++) {
			const struct mt_frame *f = &p->frames[l->frame + k];
			uint64_t fn;

			rc = pp_function(p, &ids, fns, fm, f, &fn);
			mt_buf_reset(line);
			if (rc == 0 && (rc = mt_pb_u64(line, 1, fn)) == 0 &&
			    (rc = mt_pb_u64(line, 2, f->line)) == 0)
				rc = mt_pb_msg(m, 4, line);
		}
		if (rc == 0)
			rc = mt_pb_msg(b, P_LOCATION, m);
	}
	mt_map64_release(&ids.fn);
	mt_map64_release(&ids.map);
	return rc;
}

/* The message, gzipped (as pprof writes it; it reads either). */
static int gzip_out(const struct mt_buf *b, FILE *out)
{
	unsigned char chunk[65536];
	z_stream z = { 0 };
	int zr, rc = 0;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = b->data;
	z.avail_in = (uInt)b->len; /* OUT_MAX keeps it below 4 GiB */
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR || fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) !=
						    sizeof(chunk) - z.avail_out)
			rc = -EIO;
	} while (rc == 0 && zr != Z_STREAM_END);
	deflateEnd(&z);
	return rc;
}

static int pprof_write(struct prof *p, FILE *out, struct mt_profile_stats *stats)
{
	static const char *const types[4][2] = { { "alloc_objects", "count" },
						 { "alloc_space", "bytes" },
						 { "inuse_objects", "count" },
						 { "inuse_space", "bytes" } };
	struct mt_buf b, fns, m, s, line;
	uint64_t comment, def;
	int rc = 0;

	mt_buf_init(&b, OUT_MAX);
	mt_buf_init(&fns, OUT_MAX);
	mt_buf_init(&m, OUT_MAX);
	mt_buf_init(&s, OUT_MAX);
	mt_buf_init(&line, 1 << 20);
	for (int t = 0; t < 4 && rc == 0; t++)
		rc = value_type(p, &b, P_SAMPLE_TYPE, types[t][0], types[t][1], &m);
	if (rc == 0)
		rc = pp_samples(p, &b, &m, &s);
	if (rc == 0)
		rc = pp_locations(p, &b, &fns, &m, &line, &s);
	if (rc == 0)
		rc = mt_buf_append(&b, fns.data, fns.len);
	if (rc == 0)
		rc = value_type(p, &b, P_PERIOD_TYPE, "space", "bytes", &m);
	if (rc == 0 && (rc = mt_pb_u64(&b, P_TIME_NANOS, mt_reader_file(p->r)->realtime_ns)) == 0)
		rc = mt_pb_u64(&b, P_PERIOD, 1); /* every call recorded: nothing sampled */
	if (rc == 0)
		rc = str_ix(&p->strs,
			    p->st.sites_mode ? "memtap " MEMTAP_VERSION ": every allocation call "
					       "counted (record --alloc=sites); inuse = live when "
					       "the recording ended"
					     : "memtap " MEMTAP_VERSION ": every allocation call "
					       "recorded; inuse = live when the recording ended",
			    &comment);
	if (rc == 0 && (rc = mt_pb_u64(&b, P_COMMENT, comment)) == 0 &&
	    (rc = str_ix(&p->strs, "alloc_space", &def)) == 0)
		rc = mt_pb_u64(&b, P_DEFAULT_TYPE, def);
	for (size_t i = 0; rc == 0 && i < p->strs.n; i++)
		rc = mt_pb_str(&b, P_STRING_TABLE, p->strs.v[i]);
	if (rc == 0)
		rc = gzip_out(&b, out);
	stats->functions = p->nfunctions;
	mt_buf_release(&b);
	mt_buf_release(&fns);
	mt_buf_release(&m);
	mt_buf_release(&s);
	mt_buf_release(&line);
	return rc;
}

/* ---- speedscope ---- */

/* Speedscope frame of source frame f (by name, file and line), made when new. */
static int ss_frame(struct prof *p, struct strtab *keys, const struct mt_frame *f, uint32_t *ix)
{
	char key[1200], buf[512];
	const char *name = frame_name(f, buf, sizeof(buf));
	uint64_t i;
	int rc;

	snprintf(key, sizeof(key), "%s%s\x1f%s\x1f%u", name, f->inlined ? " [inlined]" : "",
		 f->file ? f->file : "", f->file ? f->line : 0);
	rc = intern(p, keys, key, &i);
	*ix = (uint32_t)i;
	return rc;
}

static void ss_frames_json(struct mt_json *j, const struct strtab *keys)
{
	mt_json_key(j, "frames");
	mt_json_begin_array(j);
	for (size_t i = 0; i < keys->n; i++) {
		const char *k = keys->v[i], *f = strchr(k, '\x1f'),
			   *l = f ? strchr(f + 1, '\x1f') : NULL;

		mt_json_begin_object(j);
		mt_json_key(j, "name");
		mt_json_strn(j, k, f ? (size_t)(f - k) : strlen(k));
		if (f && l && l > f + 1) {
			mt_json_key(j, "file");
			mt_json_strn(j, f + 1, (size_t)(l - f - 1));
			mt_json_kv_u64(j, "line", strtoull(l + 1, NULL, 10));
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

/* Each site's stack as speedscope frame indices, outermost (the process) first. */
static int ss_stacks(struct prof *p, struct strtab *keys, uint32_t **out, size_t **start)
{
	size_t n = 0, cap = 0;
	int rc = 0;

	*out = NULL;
	*start = calloc(p->nsites + 1, sizeof(**start));
	if (!*start)
		return -ENOMEM;
	for (size_t i = 0; rc == 0 && i < p->nsites; i++) {
		const struct site_ref *sr = &p->sites[i];
		const struct mt_alloc_site *a = &p->st.sites[sr->site];
		struct mt_frame root = { 0 };
		char name[128];
		uint32_t ix;

		(*start)[i] = n;
		snprintf(name, sizeof(name), "%s %u",
			 mt_procs_comm_at(&p->procs, a->pid, a->first_ns), a->pid);
		root.function = name;
		rc = ss_frame(p, keys, &root, &ix);
		for (size_t k = sr->nlocs + 1; rc == 0 && k-- > 0;) {
			const struct loc *l = k < sr->nlocs ? &p->locs[p->site_locs[sr->loc + k]]
							    : NULL;

			for (uint32_t q = l ? l->nframes : 1; rc == 0 && q-- > 0;) {
				if (l)
					rc = ss_frame(p, keys, &p->frames[l->frame + q], &ix);
				if (rc == 0 && mt_grow_array(out, &cap, n + 1, sizeof(**out)) < 0)
					rc = -ENOMEM;
				if (rc == 0)
					(*out)[n++] =
						ix; /* the root first, then outermost to innermost */
			}
		}
	}
	if (rc == 0)
		(*start)[p->nsites] = n;
	return rc;
}

static void ss_profile(struct mt_json *j, const struct prof *p, const char *name, const char *unit,
		       int what, const uint32_t *st, const size_t *start)
{
	uint64_t total = 0;

	for (size_t i = 0; i < p->nsites; i++) {
		const struct mt_alloc_site *a = &p->st.sites[p->sites[i].site];

		total += what == 0   ? a->bytes
			 : what == 1 ? a->calls
			 : what == 2 ? a->leaked_bytes
				     : a->peak_bytes;
	}
	mt_json_begin_object(j);
	mt_json_kv_str(j, "type", "sampled");
	mt_json_kv_str(j, "name", name);
	mt_json_kv_str(j, "unit", unit);
	mt_json_kv_u64(j, "startValue", 0);
	mt_json_kv_u64(j, "endValue", total);
	for (int pass = 0; pass < 2; pass++) {
		mt_json_key(j, pass ? "weights" : "samples");
		mt_json_begin_array(j);
		for (size_t i = 0; i < p->nsites; i++) {
			const struct mt_alloc_site *a = &p->st.sites[p->sites[i].site];
			uint64_t w = what == 0	 ? a->bytes
				     : what == 1 ? a->calls
				     : what == 2 ? a->leaked_bytes
						 : a->peak_bytes;

			if (!w)
				continue;
			if (pass) {
				mt_json_u64(j, w);
				continue;
			}
			mt_json_begin_array(j);
			for (size_t k = start[i]; k < start[i + 1]; k++)
				mt_json_u64(j, st[k]);
			mt_json_end_array(j);
		}
		mt_json_end_array(j);
	}
	mt_json_end_object(j);
}

static int speedscope_write(struct prof *p, FILE *out, struct mt_profile_stats *stats)
{
	struct strtab keys = { 0 };
	struct mt_json j;
	uint32_t *st = NULL;
	size_t *start = NULL;
	int rc;

	mt_map64_init(&keys.ix);
	rc = ss_stacks(p, &keys, &st, &start);
	if (rc == 0) {
		mt_json_init(&j, out, false);
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "$schema", "https://www.speedscope.app/file-format-schema.json");
		mt_json_kv_str(&j, "exporter", "memtap " MEMTAP_VERSION);
		mt_json_kv_str(&j, "name", "memtap allocations");
		mt_json_kv_u64(&j, "activeProfileIndex", 0);
		mt_json_key(&j, "shared");
		mt_json_begin_object(&j);
		ss_frames_json(&j, &keys);
		mt_json_end_object(&j);
		mt_json_key(&j, "profiles");
		mt_json_begin_array(&j);
		ss_profile(&j, p, "allocated bytes", "bytes", 0, st, start);
		ss_profile(&j, p, "allocation calls", "none", 1, st, start);
		ss_profile(&j, p, "leaked bytes (live at the end)", "bytes", 2, st, start);
		if (!p->st.sites_mode) /* --alloc=sites keeps no site's heap at the peak */
			ss_profile(&j, p, "heap at the peak", "bytes", 3, st, start);
		mt_json_end_array(&j);
		mt_json_end_object(&j);
		fputc('\n', out);
		stats->functions = keys.n;
	}
	free(st);
	free(start);
	free(keys.v);
	mt_map64_release(&keys.ix);
	return rc;
}

/* ---- the export ---- */

int mt_export_profile(struct mt_reader *r, enum mt_profile_format fmt, FILE *out,
		      struct mt_profile_stats *stats)
{
	struct prof *p = calloc(1, sizeof(*p));
	struct mt_passes ps;
	struct mt_pass pass;
	uint64_t empty;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if (!p)
		return -ENOMEM;
	p->r = r;
	mt_map64_init(&p->loc_of);
	mt_map64_init(&p->strs.ix);
	/* one read: the allocations, the process tree and the symbolizer's index */
	mt_passes_init(&ps);
	mt_passes_add(&ps, mt_alloc_pass(r, &p->st, &pass), &pass);
	mt_passes_add(&ps, mt_procs_pass(r, &p->procs, &pass), &pass);
	mt_passes_add(&ps, mt_sym_pass(r, &p->sym, &pass), &pass);
	rc = mt_passes_run(r, &ps);
	if (rc == 0 && !p->st.present)
		rc = -ENODATA;
	if (rc == 0)
		rc = str_ix(&p->strs, "", &empty);
	if (rc == 0)
		rc = collect(p);
	if (rc == 0)
		rc = fmt == MT_PROFILE_PPROF ? pprof_write(p, out, stats)
					     : speedscope_write(p, out, stats);
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = -EIO;
	stats->sites = p->nsites;
	stats->locations = p->nlocs;
	for (size_t i = 0; i < p->nsites; i++) {
		stats->calls += p->st.sites[p->sites[i].site].calls;
		stats->bytes += p->st.sites[p->sites[i].site].bytes;
	}
	mt_sym_close(p->sym);
	mt_procs_release(&p->procs);
	mt_alloc_release(&p->st);
	for (size_t i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->frames);
	free(p->locs);
	free(p->site_locs);
	free(p->sites);
	free(p->strs.v);
	mt_map64_release(&p->strs.ix);
	mt_map64_release(&p->loc_of);
	free(p);
	return rc;
}
