/* SPDX-License-Identifier: MIT */
/* memtap dump: every event in time order with all its fields, as JSON lines or CSV. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/tracepoints.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/schema.h"

static struct {
	const char *types;
	uint64_t pid;
	bool by_pid;
	int format;
	bool stacks;
	bool unresolved;
} o;

static const char *const formats[] = { "jsonl", "csv", NULL };

static const struct mt_option options[] = {
	{ "type", 't', MT_OPT_STRING, &o.types, "TYPE,...",
	  "only these event types or groups (e.g. mmap, task, task_exit)" },
	{ "pid", 'p', MT_OPT_U64, &o.pid, "PID", "only events of this process", NULL, 0,
	  &o.by_pid },
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "stacks", 0, MT_OPT_FLAG, &o.stacks, NULL,
	  "print each stack id's frames (return addresses, innermost first)" },
	{ "unresolved", 0, MT_OPT_FLAG, &o.unresolved, NULL,
	  "also print access samples that gave no data address (kind unresolved, with reason)" },
	{ NULL },
};

const struct mt_command_spec mt_dump_spec = {
	.name = "dump",
	.usage = "FILE [options]",
	.summary = "print every event in time order with all its fields",
	.description =
		"Times are CLOCK_MONOTONIC nanoseconds, directly comparable with\n"
		"clock_gettime(CLOCK_MONOTONIC) inside the workload. Addresses are printed as\n"
		"0x... strings. CSV has one column per field of the selected types (empty where\n"
		"a type lacks it). A damaged trace is dumped as far as it is readable, with one\n"
		"warning line on stderr; the exit status is then still 0.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

/* Parses --type into a mask; returns 0, or 2 after a usage error. */
static int parse_types(uint64_t *mask)
{
	char *list, *save = NULL, *tok;

	*mask = 0;
	if (!o.types)
		return 0;
	list = strdup(o.types);
	if (!list)
		return 1;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t m = 0;
		size_t n = strlen(tok);

		for (unsigned t = 0; t < _MT_EV_MAX; t++) {
			const struct mt_type_desc *d = mt_type_desc(t);

			/* A group name matches every type named "group_..." */
			if (d && (!strcmp(d->name, tok) ||
				  (!strncmp(d->name, tok, n) && d->name[n] == '_')))
				m |= 1ull << t;
		}
		if (!m) {
			char names[512] = "";
			size_t len = 0;

			for (unsigned t = 0; t < _MT_EV_MAX; t++)
				if (mt_type_desc(t))
					len += (size_t)snprintf(names + len, sizeof(names) - len,
								"%s%s", len ? ", " : "",
								mt_type_desc(t)->name);
			n = (size_t)mt_usage_error(
				&mt_dump_spec, "unknown event type '%s' (types: %s)", tok, names);
			free(list);
			return (int)n;
		}
		*mask |= m;
	}
	free(list);
	return 0;
}

/* CSV columns: common fields, then each selected type's own fields, merged by name. */
struct column {
	const char *name;
	int field[_MT_EV_MAX]; /* field id in each type, or -1 */
};

static size_t build_columns(uint64_t mask, struct column *cols, size_t max)
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

static uint64_t unresolved;

static const char *str_of(struct mt_reader *r, const struct mt_event *ev, unsigned f, size_t *len)
{
	const char *s = mt_reader_str(r, ev->stream, ev->v[f], len);

	if (!s) {
		unresolved++;
		*len = 0;
	}
	return s;
}

static void csv_field(struct mt_reader *r, const struct mt_event *ev, unsigned f)
{
	const struct mt_field_desc *fd = &ev->desc->fields[f];
	uint64_t v = ev->v[f];
	char buf[1024], p[4];
	const char *s;
	size_t len;

	switch (fd->kind) {
	case MT_FK_U64:
		printf("%" PRIu64, v);
		break;
	case MT_FK_I64:
		printf("%" PRId64, (int64_t)v);
		break;
	case MT_FK_HEX:
		printf("0x%" PRIx64, v);
		break;
	case MT_FK_STACK:
		printf("%" PRIu64, v);
		if (o.stacks) {
			uint64_t ips[256];
			int n = mt_reader_stack(r, ev->stream, v, ips, 256);

			/* frames follow the id in the same cell, separated by ';' */
			for (int k = 0; k < n; k++)
				printf(";0x%" PRIx64, ips[k]);
			if (n < 0)
				unresolved++;
		}
		break;
	case MT_FK_ENUM:
		fputs(mt_field_enum_name(fd, v), stdout);
		break;
	case MT_FK_PROT:
		fputs(mt_prot_str(v, p), stdout);
		break;
	case MT_FK_STR:
		s = str_of(r, ev, f, &len);
		if (s)
			mt_csv_cell(stdout, s, len, true);
		break;
	case MT_FK_ARGV:
		s = str_of(r, ev, f, &len);
		if (s) {
			mt_fmt_argv(s, len, buf, sizeof(buf));
			mt_csv_cell(stdout, buf, strlen(buf), true);
		}
		break;
	}
}

static void json_field(struct mt_json *j, struct mt_reader *r, const struct mt_event *ev,
		       unsigned f)
{
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
		if (o.stacks) {
			uint64_t ips[256];
			char key[64];
			int n = mt_reader_stack(r, ev->stream, v, ips, 256);

			snprintf(key, sizeof(key), "%s_frames", fd->name);
			mt_json_key(j, key);
			if (n < 0) {
				unresolved++;
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
		s = str_of(r, ev, f, &len);
		if (s)
			mt_json_strn(j, s, len);
		else
			mt_json_null(j);
		break;
	case MT_FK_ARGV:
		s = str_of(r, ev, f, &len);
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
static void json_tracepoint(struct mt_json *j, struct mt_reader *r, const struct mt_event *ev,
			    const struct mt_tp_infos *tps)
{
	size_t len;
	const char *name = mt_reader_str(r, ev->stream, ev->v[MT_F_TP_EVENT], &len);
	const struct mt_tp_info *tp = mt_tp_info_find(tps, name, len);

	if (!tp) { /* no description (its collector chunk was lost): the raw columns */
		for (unsigned f = MT_F_PID; f < ev->desc->nfields; f++)
			json_field(j, r, ev, f);
		return;
	}
	for (unsigned f = MT_F_PID; f <= MT_F_TP_EVENT; f++)
		json_field(j, r, ev, f);
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

int cmd_dump(int argc, char **argv)
{
	struct mt_tp_infos tps = { 0 };
	struct mt_cursor_opts co = { 0 };
	struct column cols[160];
	struct mt_reader *r;
	struct mt_cursor *c;
	struct mt_event ev;
	size_t ncols = 0;
	int nargs, rc;

	rc = mt_opts_parse(&mt_dump_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	rc = parse_types(&co.type_mask);
	if (rc)
		return rc;
	co.by_pid = o.by_pid;
	co.pid = (uint32_t)o.pid;
	r = mt_cli_open_trace(argv[0]);
	if (!r)
		return 1;
	if ((rc = mt_tp_infos_load(r, &tps)) < 0) {
		mt_err("'%s': the --event descriptions are malformed", argv[0]);
		mt_reader_free(r);
		return 1;
	}
	if ((rc = mt_cursor_new(r, &co, &c)) < 0) {
		mt_tp_infos_release(&tps);
		mt_reader_free(r);
		mt_err_code(rc, "'%s'", argv[0]);
		return 1;
	}
	if (o.format == 1) {
		ncols = build_columns(co.type_mask, cols, sizeof(cols) / sizeof(cols[0]));
		for (size_t k = 0; k < ncols; k++)
			mt_csv_cell(stdout, cols[k].name, strlen(cols[k].name), k == 0);
		fputc('\n', stdout);
	}
	while ((rc = mt_cursor_next(c, &ev)) == 1) {
		if (ev.type == MT_EV_ACCESS && !o.unresolved &&
		    ev.v[MT_F_ACCESS_KIND] == MT_ACCESS_UNRESOLVED)
			continue;
		if (o.format == 1) {
			for (size_t k = 0; k < ncols; k++) {
				int f = cols[k].field[ev.type];

				if (k)
					fputc(',', stdout);
				if (k == 1)
					fputs(ev.desc->name, stdout);
				else if (f >= 0)
					csv_field(r, &ev, (unsigned)f);
			}
			fputc('\n', stdout);
		} else {
			struct mt_json j;

			mt_json_init(&j, stdout, false);
			mt_json_begin_object(&j);
			mt_json_kv_u64(&j, "time_ns", ev.v[MT_F_TIME]);
			mt_json_kv_str(&j, "type", ev.desc->name);
			if (ev.type == MT_EV_TRACEPOINT)
				json_tracepoint(&j, r, &ev, &tps);
			else
				for (unsigned f = MT_F_PID; f < ev.desc->nfields; f++)
					json_field(&j, r, &ev, f);
			mt_json_end_object(&j);
			fputc('\n', stdout);
		}
	}
	mt_cursor_free(c);
	if (rc < 0)
		mt_err("'%s': read error: %s", argv[0], strerror(-rc));
	if (unresolved) {
		char extra[160];

		snprintf(extra, sizeof(extra),
			 "%" PRIu64 " string references unresolved (their "
			 "table chunks were lost), printed as empty or null",
			 unresolved);
		mt_cli_warn_damage(argv[0], r, extra);
	} else {
		mt_cli_warn_damage(argv[0], r, NULL);
	}
	mt_tp_infos_release(&tps);
	mt_reader_free(r);
	return rc < 0 ? 1 : 0;
}
