/* SPDX-License-Identifier: MIT */
/*
 * Application events by a schema of the caller's (memtap events --group-by KEY ..., --time,
 * --hit, --where): one grouping by a tuple of keys, with the time's total, mean and
 * percentiles per group. Values convert as the sway schema's do (str(), float(), bool());
 * a group key that is a dict or a list skips the line (Python could not hash it).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/appev-internal.h"

static unsigned intern(struct mt_appev *a, const char *key)
{
	for (unsigned i = 0; i < a->nkeys; i++)
		if (!strcmp(a->keys[i], key))
			return i;
	a->keys[a->nkeys] = key;
	return a->nkeys++;
}

int mt_appev_schema(struct mt_appev *a, const struct mt_appev_schema *sc)
{
	if (sc->ngroup > MT_AE_MAX_GROUP || sc->nwhere > MT_AE_MAX_WHERE ||
	    (!sc->ngroup && !sc->time_key && !sc->hit_key && !sc->nwhere))
		return -EINVAL;
	a->generic = true;
	a->sc = *sc;
	for (unsigned i = 0; i < sc->ngroup; i++)
		a->kgroup[i] = intern(a, sc->group_by[i]);
	a->ktime = sc->time_key ? intern(a, sc->time_key) : UINT_MAX;
	a->khit = sc->hit_key ? intern(a, sc->hit_key) : UINT_MAX;
	for (unsigned i = 0; i < sc->nwhere; i++)
		a->kwhere[i] = intern(a, sc->where[i].key);
	mt_jsonl_keys_init(&a->jk, a->keys, a->nkeys);
	return 0;
}

/* Does every --where hold? str(value) == VALUE; an absent key or a dict or list never does. */
static bool wanted(struct mt_appev *a, const struct mt_jv *v)
{
	for (unsigned i = 0; i < a->sc.nwhere; i++) {
		const struct mt_jv *x = &v[a->kwhere[i]];
		const char *want = a->sc.where[i].value;
		struct mt_ae_sv s;
		char tmp[64];

		if (x->type == MT_JV_MISSING || !mt_ae_py_str(x, "", tmp, sizeof(tmp), &s) ||
		    s.len != strlen(want) || memcmp(s.s, want, s.len))
			return false;
	}
	return true;
}

/* Appends one length-prefixed component (a tag byte, 4 bytes of length, the bytes). */
static bool put(char **buf, size_t *n, size_t *cap, char tag, const char *s, size_t len)
{
	uint32_t l = (uint32_t)len;

	if (len > UINT32_MAX)
		return false;
	if (*n + 5 + len > *cap) {
		size_t c = (*n + 5 + len) * 2;
		char *p = realloc(*buf, c);

		if (!p)
			return false;
		*buf = p;
		*cap = c;
	}
	(*buf)[(*n)++] = tag;
	memcpy(*buf + *n, &l, 4);
	memcpy(*buf + *n + 4, s, len);
	*n += 4 + len;
	return true;
}

/*
 * The group's identity (how Python's dict would tell the tuples apart: numbers and booleans
 * by their value, 1 == 1.0 == true) and its shown key (the JSON text as written: 'r' raw, 's'
 * a string, 'n' none) for the tuple of v. 1: a dict or a list among them; -ENOMEM.
 */
static int tuple(struct mt_appev *a, const struct mt_jv *v, size_t *idn, size_t *sn)
{
	char **id = &a->tbuf[0], **shown = &a->tbuf[1];
	size_t *idcap = &a->tcap[0], *scap = &a->tcap[1];

	*idn = *sn = 0;
	for (unsigned i = 0; i < a->sc.ngroup; i++) {
		const struct mt_jv *x = &v[a->kgroup[i]];
		char num[64];
		bool ok;

		switch (x->type) {
		case MT_JV_MISSING:
		case MT_JV_NULL:
			ok = put(id, idn, idcap, 'n', "", 0) && put(shown, sn, scap, 'n', "", 0);
			break;
		case MT_JV_STRING:
			ok = put(id, idn, idcap, 's', x->s, x->len) &&
			     put(shown, sn, scap, 's', x->s, x->len);
			break;
		case MT_JV_NUMBER:
		case MT_JV_TRUE:
		case MT_JV_FALSE:
			mt_py_float_repr(x->type == MT_JV_NUMBER ? x->num : x->type == MT_JV_TRUE,
					 num, sizeof(num));
			ok = put(id, idn, idcap, 'f', num, strlen(num)) &&
			     put(shown, sn, scap, 'r',
				 x->type == MT_JV_NUMBER ? x->s
				 : x->type == MT_JV_TRUE ? "true"
							 : "false",
				 x->type == MT_JV_NUMBER ? x->len
				 : x->type == MT_JV_TRUE ? 4
							 : 5);
			break;
		default:
			return 1;
		}
		if (!ok)
			return -ENOMEM;
	}
	if (!*idn && !put(id, idn, idcap, 'n', "", 0)) /* no --group-by: one group */
		return -ENOMEM;
	return 0;
}

/* A time in ns for the percentiles; false for a negative or NaN one (not in them). */
static bool time_ns(double ms, uint64_t *ns)
{
	if (!(ms >= 0))
		return false;
	*ns = ms * 1e6 >= 9.2e18 ? UINT64_C(9200000000000000000) : (uint64_t)llround(ms * 1e6);
	return true;
}

int mt_ae_add_generic(struct mt_appev *a, struct mt_jv *v, uint64_t lineno,
		      const struct mt_appev_span *sp)
{
	struct mt_appev_event e = { .line = lineno };
	struct mt_appev_group *g;
	size_t idn, sn;
	uint64_t ns;
	int r;

	if (!wanted(a, v)) {
		a->filtered++;
		return 0;
	}
	if (a->ktime != UINT_MAX && !mt_ae_py_float(&v[a->ktime], 0.0, &e.wall_ms)) {
		mt_ae_skip(a, MT_AE_TYPES, lineno);
		return 0;
	}
	if (sp && sp->mem && a->ktime == UINT_MAX)
		e.wall_ms = sp->wall_ms; /* a span without --time: its duration */
	e.hit = a->khit != UINT_MAX && mt_ae_py_truth(&v[a->khit]);
	if ((r = tuple(a, v, &idn, &sn)) != 0) {
		if (r < 0)
			return r;
		mt_ae_skip(a, MT_AE_TYPES, lineno);
		return 0;
	}
	g = mt_ae_group(&a->groups, false, a->tbuf[0], idn,
			(struct mt_ae_sv){ sn ? a->tbuf[1] : "", sn }, lineno);
	if (!g || (time_ns(e.wall_ms, &ns) && mt_qs_add(&g->qs, ns) < 0))
		return -ENOMEM;
	a->total_events++;
	a->total_ms += e.wall_ms;
	a->hits += e.hit;
	g->n++;
	g->ms += e.wall_ms;
	if (e.hit)
		g->hits++;
	else
		g->misses++;
	if (sp && sp->mem) {
		e.mem = *sp->mem;
		a->memory = true;
		mt_ae_mem_add(&g->mem, sp->mem, &g->rss_spans);
		mt_ae_mem_add(&a->mem, sp->mem, &a->rss_spans);
	}
	if (sp) {
		e.pid = sp->pid;
		e.tid = sp->tid;
	}
	if (!mt_ae_would_keep(a, &e))
		return 0;
	if (!a->slow && !(a->slow = calloc(a->slowest_k, sizeof(*a->slow))))
		return -ENOMEM;
	if (sn && !(e.gkey = malloc(sn)))
		return -ENOMEM;
	if (sn)
		memcpy(e.gkey, a->tbuf[1], sn);
	e.gkey_len = sn;
	mt_ae_keep_slow(a, &e);
	return 0;
}

/* The percentiles of every group, once read. */
void mt_ae_group_finish(struct mt_appev *a)
{
	static const double p[3] = { 0.5, 0.9, 0.99 };

	for (size_t i = 0; i < a->groups.n; i++) {
		struct mt_appev_group *g = &a->groups.v[i];

		for (int k = 0; k < 3; k++)
			g->pct[k] = g->qs.n ? mt_qs_quantile(&g->qs, p[k]) / 1e6 : NAN;
		g->pct_exact = mt_qs_exact(&g->qs);
	}
}
