/* SPDX-License-Identifier: MIT */
/* `memtap dump` rendered: each event's fields as a JSON object or a CSV row. */
#include "export/dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "export/json.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/schema.h"

size_t mt_dump_columns(uint64_t mask, struct column *cols, size_t max)
{
	size_t n = 0;

	cols[n].name = "time_ns";
	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		cols[n].field[t] = MT_F_TIME;
	n++;
	cols[n].name = "type";
	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		cols[n].field[t] = -1;
	n++;
	for (unsigned f = MT_F_PID; f <= MT_F_TID; f++, n++) {
		cols[n].name = f == MT_F_PID ? "pid" : "tid";
		for (unsigned t = 0; t < _MT_EV_MAX; t++)
			cols[n].field[t] = (int)f;
	}
	for (unsigned t = 0; t < _MT_EV_MAX; t++) {
		const struct mt_type_desc *d = mt_type_desc(t);

		if (!d || (mask && !(mask & (1ull << t))))
			continue;
		for (unsigned f = MT_F_COMMON_MAX; f < d->nfields; f++) {
			size_t k;

			for (k = 4; k < n && strcmp(cols[k].name, d->fields[f].name); k++)
				;
			if (k == n) {
				if (n == max)
					break;
				cols[n].name = d->fields[f].name;
				for (unsigned u = 0; u < _MT_EV_MAX; u++)
					cols[n].field[u] = -1;
				n++;
			}
			cols[k].field[t] = (int)f;
		}
	}
	return n;
}

static const char *str_of(struct mt_dump *d, const struct mt_event *ev, unsigned f, size_t *len)
{
	struct mt_reader *r = d->r;
	const char *s = mt_reader_str(r, ev->stream, ev->v[f], len);

	if (!s) {
		d->unresolved++;
		*len = 0;
	}
	return s;
}

static void csv_field(struct mt_dump *d, const struct mt_event *ev, unsigned f)
{
	struct mt_reader *r = d->r;
	const struct mt_field_desc *fd = &ev->desc->fields[f];
	uint64_t v = ev->v[f];
	char buf[1024], p[4];
	const char *s;
	size_t len;

	switch (fd->kind) {
	case MT_FK_U64:
		fprintf(d->f, "%" PRIu64, v);
		break;
	case MT_FK_I64:
		fprintf(d->f, "%" PRId64, (int64_t)v);
		break;
	case MT_FK_HEX:
		fprintf(d->f, "0x%" PRIx64, v);
		break;
	case MT_FK_STACK:
		fprintf(d->f, "%" PRIu64, v);
		if (d->o.stacks) {
			uint64_t ips[256];
			int n = mt_reader_stack(r, ev->stream, v, ips, 256);

			/* frames follow the id in the same cell, separated by ';' */
			for (int k = 0; k < n; k++)
				fprintf(d->f, ";0x%" PRIx64, ips[k]);
			if (n < 0)
				d->unresolved++;
		}
		break;
	case MT_FK_ENUM:
		fputs(mt_field_enum_name(fd, v), d->f);
		break;
	case MT_FK_PROT:
		fputs(mt_prot_str(v, p), d->f);
		break;
	case MT_FK_STR:
		s = str_of(d, ev, f, &len);
		if (s)
			mt_csv_cell(d->f, s, len, true);
		break;
	case MT_FK_ARGV:
		s = str_of(d, ev, f, &len);
		if (s) {
			mt_fmt_argv(s, len, buf, sizeof(buf));
			mt_csv_cell(d->f, buf, strlen(buf), true);
		}
		break;
	}
}

static void json_field(struct mt_dump *d, struct mt_json *j, const struct mt_event *ev, unsigned f)
{
	struct mt_reader *r = d->r;
	const struct mt_field_desc *fd = &ev->desc->fields[f];
	uint64_t v = ev->v[f];
	const char *s;
	char p[4];
	size_t len;

	mt_json_key(j, fd->name);
	switch (fd->kind) {
	case MT_FK_U64:
		mt_json_u64(j, v);
		break;
	case MT_FK_STACK:
		mt_json_u64(j, v);
		if (d->o.stacks) {
			uint64_t ips[256];
			char key[64];
			int n = mt_reader_stack(r, ev->stream, v, ips, 256);

			snprintf(key, sizeof(key), "%s_frames", fd->name);
			mt_json_key(j, key);
			if (n < 0) {
				d->unresolved++;
				mt_json_null(j);
				break;
			}
			mt_json_begin_array(j);
			for (int k = 0; k < n; k++)
				mt_json_hex(j, ips[k]);
			mt_json_end_array(j);
		}
		break;
	case MT_FK_I64:
		mt_json_i64(j, (int64_t)v);
		break;
	case MT_FK_HEX:
		mt_json_hex(j, v);
		break;
	case MT_FK_ENUM:
		mt_json_str(j, mt_field_enum_name(fd, v));
		break;
	case MT_FK_PROT:
		mt_json_str(j, mt_prot_str(v, p));
		break;
	case MT_FK_STR:
		s = str_of(d, ev, f, &len);
		if (s)
			mt_json_strn(j, s, len);
		else
			mt_json_null(j);
		break;
	case MT_FK_ARGV:
		s = str_of(d, ev, f, &len);
		if (!s) {
			mt_json_null(j);
			break;
		}
		mt_json_begin_array(j);
		for (size_t i = 0; i < len;) {
			size_t n = strnlen(s + i, len - i);

			mt_json_strn(j, s + i, n);
			i += n + 1;
		}
		mt_json_end_array(j);
		break;
	}
}

/* A tracepoint event's value columns under the names its description gives. */
static void json_tracepoint(struct mt_dump *d, struct mt_json *j, const struct mt_event *ev)
{
	struct mt_reader *r = d->r;
	const struct mt_tp_infos *tps = d->tps;
	size_t len;
	const char *name = mt_reader_str(r, ev->stream, ev->v[MT_F_TP_EVENT], &len);
	const struct mt_tp_info *tp = mt_tp_info_find(tps, name, len);

	if (!tp) { /* no description (its collector chunk was lost): the raw columns */
		for (unsigned f = MT_F_PID; f < ev->desc->nfields; f++)
			json_field(d, j, ev, f);
		return;
	}
	for (unsigned f = MT_F_PID; f <= MT_F_TP_EVENT; f++)
		json_field(d, j, ev, f);
	/* Nested: tracepoints have fields named pid, comm, ... of their own. */
	mt_json_key(j, "fields");
	mt_json_begin_object(j);
	for (unsigned f = 0; f < tp->nfields; f++) {
		uint64_t v = ev->v[MT_F_TP_V0 + f];
		char sym[128];

		mt_json_key(j, tp->f[f].name);
		switch (tp->f[f].kind) {
		case MT_TPF_STR:
		case MT_TPF_DYNSTR: {
			size_t sl;
			const char *s = mt_reader_str(r, ev->stream, v, &sl);

			if (s)
				mt_json_strn(j, s, sl);
			else
				mt_json_null(j);
			break;
		}
		case MT_TPF_PTR:
			mt_json_hex(j, v);
			break;
		case MT_TPF_INT:
			mt_json_i64(j, (int64_t)v);
			break;
		default:
			if (tp->f[f].symbols &&
			    mt_tpf_symbol(tp->f[f].symbols, v, sym, sizeof(sym)))
				mt_json_str(j, sym);
			else
				mt_json_u64(j, v);
			break;
		}
	}
	mt_json_end_object(j);
}

static int dump_event(void *ctx, const struct mt_event *ev)
{
	struct mt_dump *d = ctx;

	if (d->o.by_pid && ev->v[MT_F_PID] != d->o.pid)
		return 0;
	if (ev->type == MT_EV_ACCESS && !d->o.unresolved &&
	    ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_UNRESOLVED)
		return 0;
	if (d->o.format == 1) {
		for (size_t k = 0; k < d->ncols; k++) {
			int f = d->cols[k].field[ev->type];

			if (k)
				fputc(',', d->f);
			if (k == 1)
				fputs(ev->desc->name, d->f);
			else if (f >= 0)
				csv_field(d, ev, (unsigned)f);
		}
		fputc('\n', d->f);
	} else {
		struct mt_json j;

		mt_json_init(&j, d->f, false);
		mt_json_begin_object(&j);
		mt_json_kv_u64(&j, "time_ns", ev->v[MT_F_TIME]);
		mt_json_kv_str(&j, "type", ev->desc->name);
		if (ev->type == MT_EV_TRACEPOINT)
			json_tracepoint(d, &j, ev);
		else
			for (unsigned f = MT_F_PID; f < ev->desc->nfields; f++)
				json_field(d, &j, ev, f);
		mt_json_end_object(&j);
		fputc('\n', d->f);
	}
	return 0;
}

int mt_dump_pass(struct mt_dump *d, struct mt_reader *r, const struct mt_dump_opts *o,
		 const struct mt_tp_infos *tps, FILE *f, struct mt_pass *pass)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
	d->r = r;
	d->tps = tps;
	d->f = f;
	if (o->format == 1) {
		d->ncols = mt_dump_columns(o->type_mask, d->cols,
					   sizeof(d->cols) / sizeof(d->cols[0]));
		for (size_t k = 0; k < d->ncols; k++)
			mt_csv_cell(f, d->cols[k].name, strlen(d->cols[k].name), k == 0);
		fputc('\n', f);
	}
	*pass = (struct mt_pass){ .name = "dump",
				  .types = o->type_mask ? o->type_mask : ~0ull,
				  .ctx = d,
				  .event = dump_event };
	return 0;
}
