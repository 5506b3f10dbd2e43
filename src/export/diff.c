/* SPDX-License-Identifier: MIT */
/* `memtap diff`: two runs side by side (diff.h). */
#include "export/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/strutil.h"
#include "analysis/mrm.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "export/table.h"

/* One compared thing: its key, and per measure its value in A and in B. */
#define DIFF_MAX_MEASURES 4
#define UNKNOWN UINT64_MAX /* a figure that run's recording cannot give (--alloc=sites) */

struct pair {
	const char *key; /* the stack, the region type, the syscall name */
	uint64_t a[DIFF_MAX_MEASURES], b[DIFF_MAX_MEASURES];
	const char *mrm_a, *mrm_b; /* region types: the MRM labels (NULL: absent there) */
};

struct section {
	const char *name;
	const char *const *measures; /* sorted by the first's absolute change */
	unsigned nmeasures;
	struct pair *v;
	size_t n, cap;
};

int mt_diff_side_load(struct mt_diff_side *s, const struct mt_report *rep, const char *path)
{
	struct mt_folded_stats st;

	s->rep = rep;
	s->path = path;
	memset(&s->lines, 0, sizeof(s->lines));
	if (!rep->alloc.loaded)
		return 0;
	return mt_folded_lines(rep->r, &rep->alloc.st, &rep->procs, rep->alloc.symbolizer, false,
			       &s->lines, &st);
}

void mt_diff_side_release(struct mt_diff_side *s)
{
	mt_folded_lines_release(&s->lines);
}

static struct pair *add(struct section *sec, const char *key)
{
	if (mt_grow_array(&sec->v, &sec->cap, sec->n + 1, sizeof(*sec->v)) < 0)
		return NULL;
	memset(&sec->v[sec->n], 0, sizeof(*sec->v));
	sec->v[sec->n].key = key;
	return &sec->v[sec->n++];
}

static struct pair *find(struct section *sec, const char *key)
{
	for (size_t i = 0; i < sec->n; i++)
		if (!strcmp(sec->v[i].key, key))
			return &sec->v[i];
	return add(sec, key);
}

static uint64_t change(const struct pair *p, unsigned m)
{
	return p->a[m] > p->b[m] ? p->a[m] - p->b[m] : p->b[m] - p->a[m];
}

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	uint64_t ca = change(a, 0), cb = change(b, 0);

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The next stack of the two sorted line lists: its line in A and in B (NULL where absent);
 * false at the end of both. */
static bool merge_next(const struct mt_diff_side *a, const struct mt_diff_side *b, size_t *i,
		       size_t *k, const struct mt_folded_line **la,
		       const struct mt_folded_line **lb)
{
	int c;

	if (*i == a->lines.n && *k == b->lines.n)
		return false;
	c = *i == a->lines.n   ? 1
	    : *k == b->lines.n ? -1
			       : strcmp(a->lines.v[*i].text, b->lines.v[*k].text);
	*la = c <= 0 ? &a->lines.v[(*i)++] : NULL;
	*lb = c >= 0 ? &b->lines.v[(*k)++] : NULL;
	return true;
}

/* The sites: a merge of the two sorted line lists. */
static int sites(const struct mt_diff_side *a, const struct mt_diff_side *b, struct section *sec)
{
	static const int w[] = { MT_FOLD_BYTES, MT_FOLD_CALLS, MT_FOLD_PEAK, MT_FOLD_LEAKED };
	size_t i = 0, k = 0;
	const struct mt_folded_line *la, *lb;

	while (merge_next(a, b, &i, &k, &la, &lb)) {
		struct pair *p = add(sec, la ? la->text : lb->text);

		if (!p)
			return -ENOMEM;
		for (unsigned m = 0; m < 4; m++) {
			p->a[m] = la ? la->w[w[m]] : 0;
			p->b[m] = lb ? lb->w[w[m]] : 0;
		}
		/* a site's heap at the peak: not kept by --alloc=sites */
		if (a->rep->alloc.st.sites_mode)
			p->a[2] = UNKNOWN;
		if (b->rep->alloc.st.sites_mode)
			p->b[2] = UNKNOWN;
	}
	return 0;
}

static int types(const struct mt_report *ra, const struct mt_report *rb, struct section *sec)
{
	for (int side = 0; side < 2; side++) {
		const struct mt_access_stats *st = side ? &rb->access.st : &ra->access.st;

		for (size_t i = 0; i < st->ntypes; i++) {
			const struct mt_type_metrics *t = &st->types[i];
			struct pair *p = find(sec, t->name);
			uint64_t *v = p ? side ? p->b : p->a : NULL;

			if (!p)
				return -ENOMEM;
			v[0] = t->samples;
			v[1] = t->regions;
			v[2] = t->reads;
			v[3] = t->writes;
			*(side ? &p->mrm_b : &p->mrm_a) = mt_mrm_name(t->mrm);
		}
	}
	return 0;
}

static int syscalls(const struct mt_report *ra, const struct mt_report *rb, struct section *sec,
		    char (*names)[32], size_t max)
{
	size_t used = 0;

	for (int side = 0; side < 2; side++) {
		const struct mt_syscall_table *t = side ? &rb->syscalls.st.work
							: &ra->syscalls.st.work;

		for (size_t i = 0; i < t->n && used < max; i++) {
			struct pair *p;
			uint64_t *v;

			mt_syscall_name(t->v[i].nr, names[used], sizeof(names[used]));
			if (!(p = find(sec, names[used])))
				return -ENOMEM;
			if (p->key == names[used])
				used++;
			v = side ? p->b : p->a;
			v[0] = t->v[i].calls;
			v[1] = t->v[i].errors;
			v[2] = t->v[i].total_ns;
		}
	}
	return 0;
}

/* The runs' totals: one pair per figure. */
static int totals(const struct mt_report *ra, const struct mt_report *rb, struct section *sec)
{
	static const char *const names[] = { "alloc_calls",    "alloc_bytes",  "heap_peak_bytes",
					     "leaked_bytes",   "faults_minor", "faults_major",
					     "rss_peak_bytes", "syscalls" };
	for (int side = 0; side < 2; side++) {
		const struct mt_report *r = side ? rb : ra;
		uint64_t v[] = { r->alloc.st.calls,
				 r->alloc.st.bytes,
				 r->alloc.st.peak_known ? r->alloc.st.peak_bytes : UNKNOWN,
				 r->alloc.st.leaked_bytes,
				 r->access.st.faults_minor,
				 r->access.st.faults_major,
				 r->rss.st.tree_peak,
				 r->syscalls.st.work.calls };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			struct pair *p = side ? &sec->v[i] : add(sec, names[i]);

			if (!p)
				return -ENOMEM;
			*(side ? &p->b[0] : &p->a[0]) = v[i];
		}
	}
	return 0;
}

static void jmeasure(struct mt_json *j, const char *name, uint64_t a, uint64_t b)
{
	mt_json_key(j, name);
	mt_json_begin_object(j);
	if (a == UNKNOWN || b == UNKNOWN) {
		a == UNKNOWN ? mt_json_kv_null(j, "a") : mt_json_kv_u64(j, "a", a);
		b == UNKNOWN ? mt_json_kv_null(j, "b") : mt_json_kv_u64(j, "b", b);
		mt_json_kv_null(j, "delta");
		mt_json_kv_null(j, "ratio");
		mt_json_end_object(j);
		return;
	}
	mt_json_kv_u64(j, "a", a);
	mt_json_kv_u64(j, "b", b);
	mt_json_kv_i64(j, "delta", (int64_t)(b - a));
	mt_json_key(j, "ratio");
	if (a)
		mt_json_double(j, (double)b / (double)a);
	else
		mt_json_null(j);
	mt_json_end_object(j);
}

static void json_section(struct mt_json *j, const struct section *s, const char *keyname)
{
	mt_json_key(j, s->name);
	mt_json_begin_array(j);
	for (size_t i = 0; i < s->n; i++) {
		const struct pair *p = &s->v[i];

		mt_json_begin_object(j);
		mt_json_kv_str(j, keyname, p->key);
		for (unsigned m = 0; m < s->nmeasures; m++)
			jmeasure(j, s->measures[m], p->a[m], p->b[m]);
		if (p->mrm_a || p->mrm_b) {
			mt_json_key(j, "mrm");
			mt_json_begin_object(j);
			mt_json_key(j, "a");
			p->mrm_a ? mt_json_str(j, p->mrm_a) : mt_json_null(j);
			mt_json_key(j, "b");
			p->mrm_b ? mt_json_str(j, p->mrm_b) : mt_json_null(j);
			mt_json_kv_bool(j, "changed",
					!p->mrm_a || !p->mrm_b || strcmp(p->mrm_a, p->mrm_b));
			mt_json_end_object(j);
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

static void json_side(struct mt_json *j, const char *key, const struct mt_diff_side *s)
{
	mt_json_key(j, key);
	mt_json_begin_object(j);
	mt_json_kv_str(j, "trace", s->path);
	mt_json_kv_str(j, "command", s->rep->run.command ? s->rep->run.command : "");
	mt_json_end_object(j);
}

/* The innermost frame of a folded line. */
static const char *leaf(const char *stack)
{
	const char *s = strrchr(stack, ';');

	return s ? s + 1 : stack;
}

static const char *ratio_text(uint64_t a, uint64_t b, char *buf, size_t size)
{
	if (!a)
		return b ? "new" : "\u2014";
	snprintf(buf, size, "%.2f", (double)b / (double)a);
	return buf;
}

static void people_section(const struct section *s, const char *title, bool bytes, bool md,
			   unsigned top, FILE *f)
{
	static const char *const h[] = { "what", ">A", ">B", ">change", ">B/A" };
	struct mt_table t;
	char x[32], y[32], r[32];

	if (!s->n)
		return;
	fprintf(f, md ? "## %s\n\n" : "%s\n", title);
	mt_table_init(&t, 5, h);
	for (size_t i = 0; i < s->n && i < top; i++) {
		const struct pair *p = &s->v[i];
		int64_t d = (int64_t)(p->b[0] - p->a[0]);

		mt_table_add(&t, s->name[0] == 's' && s->name[1] == 'i' ? leaf(p->key) : p->key);
		if (p->a[0] == UNKNOWN || p->b[0] == UNKNOWN) {
			mt_table_add(&t, p->a[0] == UNKNOWN ? "unknown" : "");
			mt_table_add(&t, p->b[0] == UNKNOWN ? "unknown" : "");
			mt_table_add(&t, "-");
			mt_table_add(&t, "-");
			continue;
		}
		if (!bytes) {
			snprintf(x, sizeof(x), "%" PRIu64, p->a[0]);
			snprintf(y, sizeof(y), "%" PRIu64, p->b[0]);
		}
		mt_table_add(&t, bytes ? mt_fmt_bytes(p->a[0], x, sizeof(x)) : x);
		mt_table_add(&t, bytes ? mt_fmt_bytes(p->b[0], y, sizeof(y)) : y);
		if (bytes)
			mt_table_addf(&t, "%s%s", d < 0 ? "-" : "+",
				      mt_fmt_bytes(d < 0 ? (uint64_t)-d : (uint64_t)d, r,
						   sizeof(r)));
		else
			mt_table_addf(&t, "%+" PRId64, d);
		mt_table_add(&t, ratio_text(p->a[0], p->b[0], r, sizeof(r)));
	}
	md ? mt_report_md_table(&t, f) : mt_table_print(&t, f, 2, true);
	mt_table_release(&t);
	fputc('\n', f);
}

int mt_diff_print(const struct mt_diff_side *a, const struct mt_diff_side *b,
		  enum mt_report_format fmt, unsigned top, FILE *f)
{
	static const char *const site_m[] = { "bytes", "calls", "peak_bytes", "leaked_bytes" };
	static const char *const type_m[] = { "samples", "regions", "reads_estimated",
					      "writes_estimated" };
	static const char *const sys_m[] = { "calls", "errors", "total_ns" };
	static const char *const tot_m[] = { "value" };
	struct section st = { "sites", site_m, 4 }, ty = { "region_types", type_m, 4 },
		       sy = { "syscalls", sys_m, 3 }, to = { "totals", tot_m, 1 };
	char(*names)[32] = calloc(1024, 32);
	struct mt_json j;
	int rc = names ? 0 : -ENOMEM;

	if (rc == 0)
		rc = sites(a, b, &st);
	if (rc == 0)
		rc = types(a->rep, b->rep, &ty);
	if (rc == 0)
		rc = syscalls(a->rep, b->rep, &sy, names, 1024);
	if (rc == 0)
		rc = totals(a->rep, b->rep, &to);
	if (rc < 0)
		goto out;
	mt_qsort(st.v, st.n, sizeof(*st.v), cmp_pair);
	mt_qsort(ty.v, ty.n, sizeof(*ty.v), cmp_pair);
	mt_qsort(sy.v, sy.n, sizeof(*sy.v), cmp_pair);
	if (fmt == MT_REPORT_JSON) {
		mt_json_init(&j, f, true);
		mt_json_begin_object(&j);
		json_side(&j, "a", a);
		json_side(&j, "b", b);
		json_section(&j, &to, "figure");
		json_section(&j, &st, "stack");
		json_section(&j, &ty, "region_type");
		json_section(&j, &sy, "name");
		mt_json_end_object(&j);
		fputc('\n', f);
	} else if (fmt == MT_REPORT_CSV) {
		fputs("stack,bytes_a,bytes_b,calls_a,calls_b,peak_bytes_a,peak_bytes_b,"
		      "leaked_bytes_a,leaked_bytes_b\n",
		      f);
		for (size_t i = 0; i < st.n; i++) {
			mt_csv_cell(f, st.v[i].key, strlen(st.v[i].key), true);
			for (unsigned m = 0; m < 4; m++)
				for (int side = 0; side < 2; side++) {
					uint64_t v = side ? st.v[i].b[m] : st.v[i].a[m];

					if (v == UNKNOWN)
						fputc(',', f); /* empty: unknown */
					else
						fprintf(f, ",%" PRIu64, v);
				}
			fputc('\n', f);
		}
	} else {
		bool md = fmt == MT_REPORT_MD;

		fprintf(f, "%sA: %s\nB: %s\n\n", md ? "# memtap diff\n\n" : "", a->path, b->path);
		people_section(&to, "totals", false, md, 100, f);
		people_section(&st, "allocation sites by bytes allocated (change, largest first)",
			       true, md, top, f);
		people_section(&ty, "region types by samples", false, md, top, f);
		people_section(&sy, "system calls by calls", false, md, top, f);
	}
	if (fflush(f) != 0 || ferror(f))
		rc = -EIO;
out:
	free(st.v);
	free(ty.v);
	free(sy.v);
	free(to.v);
	free(names);
	return rc;
}

int mt_diff_folded(const struct mt_diff_side *a, const struct mt_diff_side *b,
		   enum mt_folded_weight w, FILE *f)
{
	size_t i = 0, k = 0;
	const struct mt_folded_line *la, *lb;

	while (merge_next(a, b, &i, &k, &la, &lb)) {
		uint64_t wa = la ? la->w[w] : 0, wb = lb ? lb->w[w] : 0;

		if (wa || wb)
			fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", la ? la->text : lb->text, wa,
				wb);
	}
	return fflush(f) != 0 || ferror(f) ? -EIO : 0;
}
