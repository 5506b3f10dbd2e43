/* SPDX-License-Identifier: MIT */
/* Application events, summarised with the sway analyzer's semantics (appev.h). */
#include "analysis/appev.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "analysis/appev-internal.h"
#include "decode/instream.h"
#include "decode/jsonl.h"

enum { K_TS, K_PROBE, K_VIEW, K_HASH, K_TOPK, K_OP, K_WALL, K_HIT, NKEYS };
static const char *const keys[NKEYS] = { "ts",	  "probe", "view_id", "prompt_hash",
					 "top_k", "op",	   "wall_ms", "hit" };

const char *mt_appev_skip_name(unsigned why)
{
	static const char *const n[MT_AE_NSKIP] = { "not JSON",
						    "not an object",
						    "invalid UTF-8",
						    "nested too deeply",
						    "fields of the wrong type",
						    "line too long" };

	return why < MT_AE_NSKIP ? n[why] : "?";
}

char *mt_py_float_repr(double d, char *buf, size_t size)
{
	char t[40];
	int prec, exp10;

	if (isnan(d))
		return snprintf(buf, size, "nan"), buf;
	if (isinf(d))
		return snprintf(buf, size, d < 0 ? "-inf" : "inf"), buf;
	/* the shortest digits that read back as d, as Python's repr */
	for (prec = 1; prec < 17; prec++) {
		snprintf(t, sizeof(t), "%.*e", prec - 1, d);
		if (strtod(t, NULL) == d)
			break;
	}
	snprintf(t, sizeof(t), "%.*e", prec - 1, d);
	exp10 = atoi(strchr(t, 'e') + 1);
	if (exp10 < -4 || exp10 >= 16) {
		/* 1e+16, 1.5e-05: the mantissa without a trailing ".0", a two-digit exponent */
		char m[32], *e = strchr(t, 'e');

		snprintf(m, sizeof(m), "%.*s", (int)(e - t), t);
		snprintf(buf, size, "%se%c%02d", m, exp10 < 0 ? '-' : '+', abs(exp10));
	} else {
		int decimals = prec - 1 - exp10;

		int n = snprintf(buf, size, "%.*f", decimals > 0 ? decimals : 0, d);

		if (!strchr(buf, '.') && n > 0 && (size_t)n + 2 < size)
			memcpy(buf + n, ".0", 3);
	}
	return buf;
}

/* ---- Python's conversions ---- */

/* s without its surrounding whitespace, and without the underscores Python allows between
 * digits ("1_000"), into out; false when an underscore is elsewhere. */
static bool py_numtext(const char *s, size_t n, char *out, size_t size)
{
	size_t k = 0;

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n || n >= size)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_') {
			if (!i || i + 1 >= n || !isdigit((unsigned char)s[i - 1]) ||
			    !isdigit((unsigned char)s[i + 1]))
				return false;
			continue;
		}
		out[k++] = s[i];
	}
	out[k] = 0;
	return true;
}

/* float(x) */
bool mt_ae_py_float(const struct mt_jv *v, double dflt, double *out)
{
	char t[128], *end;

	switch (v->type) {
	case MT_JV_MISSING:
		*out = dflt;
		return true;
	case MT_JV_NUMBER:
		*out = v->num;
		return true;
	case MT_JV_TRUE:
	case MT_JV_FALSE:
		*out = v->type == MT_JV_TRUE;
		return true;
	case MT_JV_STRING:
		/* decimal, inf, infinity, nan (any case, signed); never hex */
		if (!py_numtext(v->s, v->len, t, sizeof(t)) || strpbrk(t, "xX("))
			return false;
		*out = strtod(t, &end);
		return *end == 0;
	default:
		return false; /* float(None), float([]) */
	}
}

/* int(x) */
static bool py_int(const struct mt_jv *v, int64_t *out)
{
	char t[128], *end;

	switch (v->type) {
	case MT_JV_MISSING:
		*out = 0;
		return true;
	case MT_JV_TRUE:
	case MT_JV_FALSE:
		*out = v->type == MT_JV_TRUE;
		return true;
	case MT_JV_NUMBER:
		/* int(5.7) is 5; int(nan) a ValueError; beyond int64_t: not followed here */
		if (isnan(v->num) || fabs(v->num) >= 9.2e18)
			return false;
		*out = (int64_t)v->num;
		return true;
	case MT_JV_STRING:
		if (!py_numtext(v->s, v->len, t, sizeof(t)))
			return false;
		errno = 0;
		*out = strtoll(t, &end, 10);
		return *end == 0 && errno == 0 &&
		       (isdigit((unsigned char)t[0]) || t[0] == '-' || t[0] == '+');
	default:
		return false;
	}
}

/* str(x) as Python prints it: into *out (its bytes in the line's scratch, or in tmp);
 * false for a dict or list (whose repr is not followed here: the line is skipped). */
bool mt_ae_py_str(const struct mt_jv *v, const char *dflt, char *tmp, size_t size,
		  struct mt_ae_sv *out)
{
	switch (v->type) {
	case MT_JV_MISSING:
		*out = (struct mt_ae_sv){ dflt, strlen(dflt) };
		return true;
	case MT_JV_STRING:
		*out = (struct mt_ae_sv){ v->s, v->len };
		return true;
	case MT_JV_NULL:
		*out = (struct mt_ae_sv){ "None", 4 };
		return true;
	case MT_JV_TRUE:
		*out = (struct mt_ae_sv){ "True", 4 };
		return true;
	case MT_JV_FALSE:
		*out = (struct mt_ae_sv){ "False", 5 };
		return true;
	case MT_JV_NUMBER:
		if (v->integer)
			*out = v->len == 2 && !memcmp(v->s, "-0", 2)
				       ? (struct mt_ae_sv){ "0", 1 }
				       : (struct mt_ae_sv){ v->s, v->len };
		else
			*out = (struct mt_ae_sv){ mt_py_float_repr(v->num, tmp, size),
						  strlen(mt_py_float_repr(v->num, tmp, size)) };
		return true;
	default:
		return false;
	}
}

/* bool(x) */
bool mt_ae_py_truth(const struct mt_jv *v)
{
	switch (v->type) {
	case MT_JV_TRUE:
		return true;
	case MT_JV_NUMBER:
		return v->num != 0 || isnan(v->num);
	case MT_JV_STRING:
		return v->len > 0;
	case MT_JV_OBJECT:
	case MT_JV_ARRAY:
		for (size_t i = 1; i + 1 < v->len; i++)
			if (!isspace((unsigned char)v->s[i]))
				return true;
		return false;
	default:
		return false;
	}
}

/* ---- groups ---- */

static void groups_release(struct mt_appev_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].key);
		mt_qs_release(&g->v[i].qs);
	}
	free(g->v);
	mt_map64_release(&g->ix);
	memset(g, 0, sizeof(*g));
}

/* The group of (raw, id): id identifies it (a number by its value), key is shown. */
static uint64_t fingerprint(bool raw, const char *id, size_t idlen)
{
	uint64_t w = 0;

	memcpy(&w, id, idlen < 8 ? idlen : 8);
	return w ^ ((uint64_t)idlen << 1 | raw) * 0x9e3779b97f4a7c15ull;
}

static bool same(const struct mt_appev_group *c, uint64_t fp, bool raw, const char *id,
		 size_t idlen)
{
	const char *k = c->key + c->len + 1;

	if (c->fp != fp || c->raw != raw || c->idlen != idlen)
		return false;
	for (size_t i = 0; i < idlen && i < 32; i++) /* short keys, the usual: no call */
		if (k[i] != id[i])
			return false;
	return idlen <= 32 || !memcmp(k + 32, id + 32, idlen - 32);
}

struct mt_appev_group *mt_ae_group(struct mt_appev_groups *g, bool raw, const char *id,
				   size_t idlen, struct mt_ae_sv key, uint64_t line)
{
	uint64_t h, *ix, fp = fingerprint(raw, id, idlen);
	uint32_t *rc = &g->recent[(fp * 0x9e3779b97f4a7c15ull) >> 58];

	if (*rc && same(&g->v[*rc - 1], fp, raw, id, idlen))
		return &g->v[*rc - 1];
	h = mt_hash64(id, idlen, raw);
	for (;;) { /* open addressing over the hash: h, h+1, ... */
		ix = mt_map64_get(&g->ix, h);
		if (!ix)
			break;
		if (same(&g->v[*ix - 1], fp, raw, id, idlen)) {
			*rc = *ix <= UINT32_MAX ? (uint32_t)*ix : 0;
			return &g->v[*ix - 1];
		}
		h++;
	}
	if (mt_grow_array(&g->v, &g->cap, g->n + 1, sizeof(*g->v)) < 0 ||
	    mt_map64_put(&g->ix, h, &ix) < 0)
		return NULL;
	{
		struct mt_appev_group *r = &g->v[g->n];
		size_t kl = key.len;

		memset(r, 0, sizeof(*r));
		/* key, NUL, id, NUL */
		if (!(r->key = malloc(kl + idlen + 2)))
			return NULL;
		memcpy(r->key, key.s, kl);
		r->key[kl] = 0;
		memcpy(r->key + kl + 1, id, idlen);
		r->key[kl + 1 + idlen] = 0;
		r->len = kl;
		r->idlen = idlen;
		r->raw = raw;
		r->fp = fp;
		r->first = line;
		*ix = ++g->n;
		*rc = g->n <= UINT32_MAX ? (uint32_t)g->n : 0;
		return r;
	}
}

/* ---- the slowest calls: a heap whose root is the first to give up its place ---- */

static bool before(const struct mt_appev_event *a, const struct mt_appev_event *b)
{
	/* a ranks before b: slower, or as slow and earlier; NaN ranks last */
	if (isnan(a->wall_ms) != isnan(b->wall_ms))
		return !isnan(a->wall_ms);
	if (a->wall_ms != b->wall_ms)
		return a->wall_ms > b->wall_ms;
	return a->line < b->line;
}

static void event_free(struct mt_appev_event *e)
{
	free(e->probe);
	free(e->view_id);
	free(e->prompt_hash);
	free(e->op);
	free(e->gkey);
}

static void sift(struct mt_appev_event *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		struct mt_appev_event t;

		if (l < n && before(&h[w], &h[l]))
			w = l;
		if (r < n && before(&h[w], &h[r]))
			w = r;
		if (w == i)
			return;
		t = h[i];
		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

bool mt_ae_would_keep(const struct mt_appev *a, const struct mt_appev_event *e)
{
	return a->slowest_k && (a->nslow < a->slowest_k || before(e, &a->slow[0]));
}

void mt_ae_keep_slow(struct mt_appev *a, struct mt_appev_event *e)
{
	size_t i;

	if (!a->slowest_k) {
		event_free(e);
		return;
	}
	if (a->nslow == a->slowest_k) {
		if (!before(e, &a->slow[0])) {
			event_free(e);
			return;
		}
		event_free(&a->slow[0]);
		a->slow[0] = *e;
		sift(a->slow, a->nslow, 0);
		return;
	}
	i = a->nslow++;
	a->slow[i] = *e;
	while (i && before(&a->slow[(i - 1) / 2], &a->slow[i])) {
		struct mt_appev_event t = a->slow[i];

		a->slow[i] = a->slow[(i - 1) / 2];
		a->slow[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* ---- lines ---- */

void mt_appev_init(struct mt_appev *a, unsigned slowest_k)
{
	memset(a, 0, sizeof(*a));
	a->slowest_k = slowest_k;
	mt_map64_init(&a->probes.ix);
	mt_map64_init(&a->views.ix);
	mt_map64_init(&a->groups.ix);
	mt_jsonl_keys_init(&a->jk, keys, NKEYS);
}

void mt_ae_skip(struct mt_appev *a, unsigned why, uint64_t line)
{
	a->skipped[why]++;
	if (a->nfirst < MT_AE_FIRST_SKIPPED)
		a->first_skipped[a->nfirst++] = line;
}

/* The probe's group: "<unassigned>" for a falsy one (None, "", 0, false), else the value
 * (a number identified by its value: 1, 1.0 and true are one key, as in a Python dict). */
static struct mt_appev_group *probe_group(struct mt_appev *a, const struct mt_jv *p,
					  struct mt_ae_sv shown, uint64_t line)
{
	char id[64];

	if (!mt_ae_py_truth(p))
		return mt_ae_group(&a->probes, false, "<unassigned>", 12,
				   (struct mt_ae_sv){ "<unassigned>", 12 }, line);
	if (p->type == MT_JV_STRING)
		return mt_ae_group(&a->probes, false, p->s, p->len, shown, line);
	mt_py_float_repr(p->type == MT_JV_TRUE ? 1.0 : p->num, id, sizeof(id));
	return mt_ae_group(&a->probes, true, id, strlen(id), shown, line);
}

/* The probe as the event keeps it: absent or None (s NULL), else its text (JSON text for a
 * number or a boolean: raw); false for a dict or list (unhashable as a group key). */
static bool probe_text(const struct mt_jv *p, char *tmp, size_t size, struct mt_ae_sv *out,
		       bool *raw)
{
	*raw = p->type != MT_JV_STRING;
	switch (p->type) {
	case MT_JV_MISSING:
	case MT_JV_NULL:
		*out = (struct mt_ae_sv){ NULL, 0 };
		return true;
	case MT_JV_TRUE:
	case MT_JV_FALSE:
		*out = p->type == MT_JV_TRUE ? (struct mt_ae_sv){ "true", 4 }
					     : (struct mt_ae_sv){ "false", 5 };
		return true;
	case MT_JV_STRING:
	case MT_JV_NUMBER:
		return mt_ae_py_str(p, "", tmp, size, out);
	default:
		return false;
	}
}

char *mt_ae_dup(struct mt_ae_sv v)
{
	char *c = malloc(v.len + 1);

	if (c) {
		memcpy(c, v.s, v.len);
		c[v.len] = 0;
	}
	return c;
}

void mt_ae_mem_add(struct mt_appev_mem *to, const struct mt_appev_mem *m, uint64_t *rss_spans)
{
	to->alloc_bytes += m->alloc_bytes;
	to->alloc_calls += m->alloc_calls;
	to->freed_bytes += m->freed_bytes;
	to->free_calls += m->free_calls;
	to->faults += m->faults;
	to->samples += m->samples;
	for (int k = 0; k < MT_AE_STYPES; k++)
		to->samples_by[k] += m->samples_by[k];
	if (m->heap_peak > to->heap_peak)
		to->heap_peak = m->heap_peak;
	if (m->rss_known) {
		/* wrapping, never overflowing, on a damaged trace's figures */
		to->rss_change = (int64_t)((uint64_t)to->rss_change + (uint64_t)m->rss_change);
		to->rss_known = true;
		++*rss_spans;
	}
}

/* One event from its fields (v, by keys[]), of a line or of a span (sp). */
static int add(struct mt_appev *a, struct mt_jv *v, uint64_t lineno, const struct mt_appev_span *sp)
{
	struct mt_appev_event e = { .line = lineno };
	struct mt_ae_sv probe, view, hash, op;
	char tp[64], tv[64], th[64], to[64];
	struct mt_appev_group *gp, *gv;

	e.hit = mt_ae_py_truth(&v[K_HIT]);
	if (!mt_ae_py_float(&v[K_TS], sp ? sp->ts : 0.0, &e.ts) ||
	    !mt_ae_py_float(&v[K_WALL], 0.0, &e.wall_ms) || !py_int(&v[K_TOPK], &e.top_k) ||
	    !probe_text(&v[K_PROBE], tp, sizeof(tp), &probe, &e.probe_raw) ||
	    !mt_ae_py_str(&v[K_VIEW], "", tv, sizeof(tv), &view) ||
	    !mt_ae_py_str(&v[K_HASH], "", th, sizeof(th), &hash) ||
	    !mt_ae_py_str(&v[K_OP], "", to, sizeof(to), &op)) {
		mt_ae_skip(a, MT_AE_TYPES, lineno);
		return 0;
	}
	if (sp) { /* a span or an event of a trace: its name is its op unless it gives one */
		if (v[K_OP].type == MT_JV_MISSING)
			op = (struct mt_ae_sv){ sp->name, sp->name_len };
		e.pid = sp->pid;
		e.tid = sp->tid;
	}
	if (sp && sp->mem) { /* a span: its time is measured (its fields' wall_ms is not used) */
		e.wall_ms = sp->wall_ms;
		e.mem = *sp->mem;
		a->memory = true;
	}
	gp = probe_group(a, &v[K_PROBE], probe.s ? probe : (struct mt_ae_sv){ "<unassigned>", 12 },
			 lineno);
	gv = mt_ae_group(&a->views, false, view.s, view.len, view, lineno);
	if (!gp || !gv)
		return -ENOMEM;
	a->total_events++;
	a->total_ms += e.wall_ms;
	a->hits += e.hit;
	gp->n++;
	gp->ms += e.wall_ms;
	if (e.hit)
		gp->hits++;
	else
		gp->misses++;
	gv->n++;
	gv->ms += e.wall_ms;
	if (sp && sp->mem) {
		mt_ae_mem_add(&gp->mem, sp->mem, &gp->rss_spans);
		mt_ae_mem_add(&gv->mem, sp->mem, &gv->rss_spans);
		mt_ae_mem_add(&a->mem, sp->mem, &a->rss_spans);
	}
	if (!a->slowest_k || (a->nslow == a->slowest_k && !before(&e, &a->slow[0])))
		return 0; /* not among the slowest: nothing of it is kept */
	if (!a->slow && !(a->slow = calloc(a->slowest_k, sizeof(*a->slow))))
		return -ENOMEM;
	e.probe = probe.s ? mt_ae_dup(probe) : NULL;
	e.view_id = mt_ae_dup(view);
	e.prompt_hash = mt_ae_dup(hash);
	e.op = mt_ae_dup(op);
	if ((probe.s && !e.probe) || !e.view_id || !e.prompt_hash || !e.op) {
		event_free(&e);
		return -ENOMEM;
	}
	mt_ae_keep_slow(a, &e);
	return 0;
}

static int parse_failed(struct mt_appev *a, int r, uint64_t lineno)
{
	mt_ae_skip(a,
		   r == MT_JSONL_NOT_OBJECT ? MT_AE_NOT_OBJECT
		   : r == MT_JSONL_UTF8	    ? MT_AE_UTF8
		   : r == MT_JSONL_DEPTH    ? MT_AE_DEPTH
					    : MT_AE_SYNTAX,
		   lineno);
	return 0;
}

int mt_appev_line(struct mt_appev *a, const char *p, size_t n, uint64_t lineno, char *scratch)
{
	struct mt_jv v[MT_AE_MAX_KEYS > NKEYS ? MT_AE_MAX_KEYS : NKEYS];
	int r;

	while (n && isspace((unsigned char)*p))
		p++, n--;
	if (!n)
		return 0; /* a blank line: not an event, not an error */
	a->lines++;
	r = mt_jsonl_object_k(p, n, &a->jk, v, scratch);
	if (r < 0)
		return parse_failed(a, r, lineno);
	return a->generic ? mt_ae_add_generic(a, v, lineno, NULL) : add(a, v, lineno, NULL);
}

int mt_appev_span(struct mt_appev *a, const char *fields, size_t n, uint64_t ordinal, char *scratch,
		  const struct mt_appev_span *sp)
{
	struct mt_jv v[MT_AE_MAX_KEYS > NKEYS ? MT_AE_MAX_KEYS : NKEYS];
	int r;

	a->lines++;
	if (!n) {
		fields = "{}";
		n = 2;
	}
	r = mt_jsonl_object_k(fields, n, &a->jk, v, scratch);
	if (r < 0)
		return parse_failed(a, r, ordinal);
	return a->generic ? mt_ae_add_generic(a, v, ordinal, sp) : add(a, v, ordinal, sp);
}

int mt_appev_read_fd(struct mt_appev *a, int fd, size_t max_line)
{
	size_t cap = 1u << 20, len = 0, start = 0;
	char *buf = malloc(cap), *scratch = malloc(cap);
	uint64_t line = 0;
	bool skipping = false; /* inside a line longer than max_line */
	struct mt_instream *in = NULL;
	int rc = buf && scratch ? mt_instream_open(fd, &in) : -ENOMEM;

	if (rc < 0) {
		free(buf);
		free(scratch);
		return rc;
	}
	a->input = mt_instream_kind(in);
	for (;;) {
		ssize_t got = mt_instream_read(in, buf + len, cap - len);
		char *nl;

		if (got < 0) {
			rc = (int)got;
			break;
		}
		len += (size_t)got;
		while ((nl = memchr(buf + start, '\n', len - start))) {
			line++;
			if (skipping)
				skipping = false;
			else if ((rc = mt_appev_line(a, buf + start, (size_t)(nl - buf) - start,
						     line, scratch)) < 0)
				goto out;
			start = (size_t)(nl - buf) + 1;
		}
		if (got == 0) { /* the last line, without its newline */
			if (start < len && !skipping)
				rc = mt_appev_line(a, buf + start, len - start, line + 1, scratch);
			break;
		}
		/* keep the partial line; grow for it up to max_line, else skip the rest of it */
		memmove(buf, buf + start, len - start);
		len -= start;
		start = 0;
		if (len == cap) {
			if (cap > max_line) {
				if (!skipping)
					mt_ae_skip(a, MT_AE_TOO_LONG, line + 1);
				skipping = true;
				len = 0;
			} else {
				char *nb = realloc(buf, cap * 2),
				     *ns = nb ? realloc(scratch, cap * 2) : NULL;

				if (nb)
					buf = nb;
				if (!nb || !ns) {
					rc = -ENOMEM;
					break;
				}
				scratch = ns;
				cap *= 2;
			}
		}
	}
out:
	mt_instream_close(in);
	free(buf);
	free(scratch);
	return rc;
}

static int cmp_group(const void *x, const void *y)
{
	const struct mt_appev_group *a = x, *b = y;

	/* total wall time, descending; ties in first-seen order (Python's stable sort) */
	if (a->ms != b->ms && !(isnan(a->ms) || isnan(b->ms)))
		return a->ms > b->ms ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_event(const void *x, const void *y)
{
	const struct mt_appev_event *a = x, *b = y;

	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

void mt_appev_finish(struct mt_appev *a)
{
	mt_qsort(a->probes.v, a->probes.n, sizeof(*a->probes.v), cmp_group);
	mt_qsort(a->views.v, a->views.n, sizeof(*a->views.v), cmp_group);
	mt_qsort(a->groups.v, a->groups.n, sizeof(*a->groups.v), cmp_group);
	mt_ae_group_finish(a);
	mt_qsort(a->slow, a->nslow, sizeof(*a->slow), cmp_event);
}

void mt_appev_release(struct mt_appev *a)
{
	groups_release(&a->probes);
	groups_release(&a->views);
	groups_release(&a->groups);
	for (unsigned i = 0; i < a->nstypes; i++)
		free(a->stype_names[i]);
	free(a->tbuf[0]);
	free(a->tbuf[1]);
	for (size_t i = 0; i < a->nslow; i++)
		event_free(&a->slow[i]);
	free(a->slow);
	memset(a, 0, sizeof(*a));
}
