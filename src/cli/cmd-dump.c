/* SPDX-License-Identifier: MIT */
/* memtap dump: options and the read; export/dump.c writes every event with all its fields. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "analysis/tracepoints.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "common/strutil.h"
#include "export/dump.h"
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
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ', so "
	  "that a spreadsheet never evaluates them)" },
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
		uint64_t m = 0, group = 0;
		size_t n = strlen(tok);

		/* A type's own name is that type; another name is a group and matches every type
		 * named "group_..." (task: task_new, task_exec, ...). */
		for (unsigned t = 0; t < _MT_EV_MAX; t++)
			if (mt_type_desc(t) && !strcmp(mt_type_desc(t)->name, tok))
				m |= 1ull << t;
		for (unsigned t = 0; t < _MT_EV_MAX; t++) {
			const struct mt_type_desc *d = mt_type_desc(t);

			if (d && !strncmp(d->name, tok, n) && d->name[n] == '_')
				group |= 1ull << t;
		}
		if (!m)
			m = group;
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

int cmd_dump(int argc, char **argv)
{
	struct mt_tp_infos tps = { 0 };
	struct mt_dump_opts dopt = { 0 };
	struct mt_dump *d;
	struct mt_passes ps;
	struct mt_pass p;
	struct mt_reader *r;
	int nargs, rc;

	rc = mt_opts_parse(&mt_dump_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	rc = parse_types(&dopt.type_mask);
	if (rc)
		return rc;
	dopt.format = o.format;
	dopt.by_pid = o.by_pid;
	dopt.pid = (uint32_t)o.pid;
	dopt.stacks = o.stacks;
	dopt.unresolved = o.unresolved;
	r = mt_cli_open_trace(argv[0]);
	if (!r)
		return 1;
	if ((rc = mt_tp_infos_load(r, &tps)) < 0) {
		mt_err("'%s': the --event descriptions are malformed", argv[0]);
		mt_reader_free(r);
		return 1;
	}
	d = malloc(sizeof(*d));
	if (!d) {
		mt_tp_infos_release(&tps);
		mt_reader_free(r);
		mt_err_code(-ENOMEM, "'%s'", argv[0]);
		return 1;
	}
	mt_passes_init(&ps);
	mt_passes_add(&ps, mt_dump_pass(d, r, &dopt, &tps, stdout, &p), &p);
	rc = mt_passes_run(r, &ps);
	if (rc < 0)
		mt_err("'%s': read error: %s", argv[0], strerror(-rc));
	if (d->unresolved) {
		char extra[160];

		snprintf(extra, sizeof(extra),
			 "%" PRIu64 " string references unresolved (their "
			 "table chunks were lost), printed as empty or null",
			 d->unresolved);
		mt_cli_warn_damage(argv[0], r, extra);
	} else {
		mt_cli_warn_damage(argv[0], r, NULL);
	}
	free(d);
	mt_tp_infos_release(&tps);
	mt_reader_free(r);
	return rc < 0 ? 1 : 0;
}
