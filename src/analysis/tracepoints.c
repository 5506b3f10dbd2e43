/* SPDX-License-Identifier: MIT */
/* The --event tracepoints: descriptions from the collector's keys, hit counts per value. */
#include "common/array.h"
#include "analysis/tracepoints.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "format/chunk.h"
#include "analysis/pass.h"
#include "format/reader.h"

static const struct mt_kvlist *events_collector(const struct mt_reader *r)
{
	return mt_reader_collector_named(r, "events");
}

/* "name:kind,name:kind" into info. */
static int parse_fields(const char *s, struct mt_tp_info *info)
{
	while (*s) {
		const char *colon = strchr(s, ':'), *end = strchr(s, ',');
		size_t nl;

		if (!end)
			end = s + strlen(s);
		if (!colon || colon > end || info->nfields == MT_TPF_MAX_FIELDS)
			return -EBADMSG;
		nl = (size_t)(colon - s);
		if (!nl || nl >= MT_TPF_NAME_MAX)
			return -EBADMSG;
		memcpy(info->f[info->nfields].name, s, nl);
		info->f[info->nfields].name[nl] = 0;
		colon++;
		if (!strncmp(colon, "i64", 3))
			info->f[info->nfields].kind = MT_TPF_INT;
		else if (!strncmp(colon, "hex", 3))
			info->f[info->nfields].kind = MT_TPF_PTR;
		else if (!strncmp(colon, "str", 3))
			info->f[info->nfields].kind = MT_TPF_STR;
		else
			info->f[info->nfields].kind = MT_TPF_UINT;
		info->nfields++;
		s = *end ? end + 1 : end;
	}
	return 0;
}

int mt_tp_infos_load(const struct mt_reader *r, struct mt_tp_infos *out)
{
	const struct mt_kvlist *kv = events_collector(r);

	memset(out, 0, sizeof(*out));
	if (!kv)
		return 0;
	for (size_t i = 0; i < 64; i++) {
		char key[160];
		const char *name, *fields;
		struct mt_tp_info *info, *nv;

		snprintf(key, sizeof(key), "event.%zu", i);
		name = mt_kvlist_get(kv, key);
		if (!name)
			break;
		snprintf(key, sizeof(key), "event.%zu.fields", i);
		fields = mt_kvlist_get(kv, key);
		nv = realloc(out->v, (out->n + 1) * sizeof(*out->v));
		if (!nv) {
			mt_tp_infos_release(out);
			return -ENOMEM;
		}
		out->v = nv;
		info = &out->v[out->n++];
		memset(info, 0, sizeof(*info));
		info->event = name;
		if (fields && parse_fields(fields, info) < 0) {
			mt_tp_infos_release(out);
			return -EBADMSG;
		}
		for (unsigned f = 0; f < info->nfields; f++) {
			snprintf(key, sizeof(key), "event.%zu.symbols.%s", i, info->f[f].name);
			info->f[f].symbols = mt_kvlist_get(kv, key);
		}
	}
	return 0;
}

void mt_tp_infos_release(struct mt_tp_infos *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

const struct mt_tp_info *mt_tp_info_find(const struct mt_tp_infos *t, const char *event, size_t len)
{
	for (size_t i = 0; event && i < t->n; i++)
		if (strlen(t->v[i].event) == len && !memcmp(t->v[i].event, event, len))
			return &t->v[i];
	return NULL;
}

static int cmp_count(const void *a, const void *b)
{
	const struct mt_tp_count *x = a, *y = b;

	if (x->tp != y->tp)
		return x->tp < y->tp ? -1 : 1;
	if (x->field != y->field) /* the tracepoint's total first, then field by field */
		return x->field == ~0u ? -1 : y->field == ~0u ? 1 : (x->field < y->field ? -1 : 1);
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* The counter for (tp, field, value): a linear table, as symbolic fields have few values. */
static struct mt_tp_count *counter(struct mt_tp_counts *c, size_t *cap, const struct mt_tp_info *tp,
				   unsigned field, uint64_t value)
{
	for (size_t i = c->n; i-- > 0;)
		if (c->v[i].tp == tp && c->v[i].field == field && c->v[i].value == value)
			return &c->v[i];
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct mt_tp_count *nv;

		if (ncap > (1u << 20))
			return NULL; /* bounded: a million distinct values is not a summary */
		nv = realloc(c->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		c->v = nv;
		*cap = ncap;
	}
	c->v[c->n] = (struct mt_tp_count){ .tp = tp, .field = field, .value = value };
	return &c->v[c->n++];
}

struct tp_pass {
	struct mt_reader *r;
	const struct mt_tp_infos *t;
	struct mt_tp_counts *out;
	size_t cap;
};

static int tp_event(void *ctx, const struct mt_event *ev)
{
	struct tp_pass *p = ctx;
	struct mt_tp_counts *out = p->out;
	size_t len;
	const char *name = mt_reader_str(p->r, ev->stream, ev->v[MT_F_TP_EVENT], &len);
	const struct mt_tp_info *tp = mt_tp_info_find(p->t, name, len);
	struct mt_tp_count *k;

	out->events++;
	if (!tp) {
		out->undescribed++;
		return 0;
	}
	if (!(k = counter(out, &p->cap, tp, ~0u, 0)))
		return -ENOMEM;
	k->hits++;
	for (unsigned f = 0; f < tp->nfields; f++) {
		if (!tp->f[f].symbols)
			continue;
		if (!(k = counter(out, &p->cap, tp, f, ev->v[MT_F_TP_V0 + f])))
			return -ENOMEM;
		k->hits++;
	}
	return 0;
}

static int tp_finish(void *ctx, int status)
{
	struct tp_pass *p = ctx;
	struct mt_tp_counts *out = p->out;

	free(p);
	if (status < 0) {
		mt_tp_counts_release(out);
		return status;
	}
	mt_qsort(out->v, out->n, sizeof(*out->v), cmp_count);
	return 0;
}

int mt_tp_count_pass(struct mt_reader *r, const struct mt_tp_infos *t, struct mt_tp_counts *out,
		     struct mt_pass *pass)
{
	struct tp_pass *p;

	memset(out, 0, sizeof(*out));
	*pass = (struct mt_pass){ .name = "tracepoints" };
	if (!mt_reader_event_count(r, MT_EV_TRACEPOINT))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct tp_pass){ .r = r, .t = t, .out = out };
	*pass = (struct mt_pass){ .name = "tracepoints",
				  .types = 1ull << MT_EV_TRACEPOINT,
				  .ctx = p,
				  .event = tp_event,
				  .finish = tp_finish };
	return 0;
}

int mt_tp_count(struct mt_reader *r, const struct mt_tp_infos *t, struct mt_tp_counts *out)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_tp_count_pass(r, t, out, &p), &p);
}

void mt_tp_counts_release(struct mt_tp_counts *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}
