/* SPDX-License-Identifier: MIT */
/* memtap events: a JSON-lines file of application events, summarised (analysis/appev.c). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "analysis/appev.h"
#include "analysis/spans.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "decode/instream.h"
#include "export/appev.h"
#include "export/table.h"
#include "format/reader.h"

static struct {
	int format;
	uint64_t slowest, max_line_mb;
	struct mt_optlist group_by, where;
	const char *time_key, *hit_key;
} o = { .slowest = 10, .max_line_mb = 64 };

static const char *const formats[] = { "text", "md", "json", "csv", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ', so "
	  "that a spreadsheet never evaluates them)" },
	{ "slowest", 0, MT_OPT_U64, &o.slowest, "K", "the K slowest calls (default 10; 0: none)" },
	{ "max-line-mb", 0, MT_OPT_U64, &o.max_line_mb, "N",
	  "lines longer than N MiB are skipped and counted (default 64)" },
	{ "group-by", 0, MT_OPT_LIST, &o.group_by, "KEY",
	  "another schema: group by this key's value (repeatable, up to 8: one group per tuple)" },
	{ "time", 0, MT_OPT_STRING, &o.time_key, "KEY",
	  "another schema: the time to sum, with its mean and p50/p90/p99 per group (a span's: "
	  "its duration)" },
	{ "hit", 0, MT_OPT_STRING, &o.hit_key, "KEY", "another schema: the cache hit flag" },
	{ "where", 0, MT_OPT_LIST, &o.where, "KEY=VALUE",
	  "another schema: only events whose str(KEY) is VALUE (repeatable: all must hold)" },
	{ NULL },
};

const struct mt_command_spec mt_events_spec = {
	.name = "events",
	.usage = "FILE.jsonl|TRACE.mtap|- [options]",
	.summary = "summarise application events (JSON lines): per probe, per view, slowest",
	.description =
		"One JSON object per line, one call of the application each, with the sway\n"
		"trace analyzer's fields: ts, probe, view_id, prompt_hash, top_k, op, wall_ms,\n"
		"hit. Fields convert as the analyzer's Python does (float(), int(), str(),\n"
		"bool(); a missing or falsy probe is <unassigned>); a line that is not a JSON\n"
		"object, or whose fields do not convert, is skipped and counted with its\n"
		"reason and first line numbers. Per probe and per view: calls, total wall time\n"
		"(descending) and cache hits; the K slowest calls, hits and misses together.\n"
		"Memory grows with the number of probes and views and K, not with the file.\n"
		"\n"
		"A trace (memtap record) gives the workload's own spans and events\n"
		"(memtap_span_begin/end, memtap_event; Python: memtap.span, memtap.event): each\n"
		"span is a call whose fields are the JSON object it was given, its wall time its\n"
		"duration, its op its name unless a field says otherwise, joined with what it\n"
		"did to memory: bytes allocated and freed (exact: the recorder marks each\n"
		"allocation with the span open on its thread), page faults and access samples\n"
		"of its thread while it was innermost, the process's heap peak and resident\n"
		"memory change over its window.\n"
		"\n"
		"--group-by, --time, --hit and --where read another schema: one table grouped by\n"
		"the tuple of the keys given (a missing key groups as null), with the time's\n"
		"total, mean and p50/p90/p99 (exact up to 4096 events per group, then within\n"
		"1/128) and the hit rate, in place of sway's three views.\n"
		"\n"
		"A gzip or zstd file (or pipe) is decompressed as it is read; damaged or cut\n"
		"short, the lines before the damage are summarised and that is said.\n"
		"Exit status 0 when any line was read, 1 with one line on stderr when the file\n"
		"held no event.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

/* --group-by, --time, --hit, --where: another schema than sway's. */
static int schema(struct mt_appev *a)
{
	struct mt_appev_schema sc = { .ngroup = o.group_by.n,
				      .time_key = o.time_key,
				      .hit_key = o.hit_key,
				      .nwhere = o.where.n };

	if (!o.group_by.n && !o.where.n && !o.time_key && !o.hit_key)
		return 0;
	if (o.group_by.n > MT_AE_MAX_GROUP || o.where.n > MT_AE_MAX_WHERE)
		return mt_usage_error(&mt_events_spec, "at most 8 --group-by and 8 --where");
	for (unsigned i = 0; i < o.group_by.n; i++)
		sc.group_by[i] = o.group_by.v[i];
	for (unsigned i = 0; i < o.where.n; i++) {
		char *eq = strchr(o.where.v[i], '=');

		if (!eq || eq == o.where.v[i])
			return mt_usage_error(&mt_events_spec, "--where wants KEY=VALUE");
		*eq = 0; /* the option's own copy: argv */
		sc.where[i].key = o.where.v[i];
		sc.where[i].value = eq + 1;
	}
	return mt_appev_schema(a, &sc) < 0 ? mt_usage_error(&mt_events_spec, "bad schema") : 0;
}

/* A memtap trace starts with its magic; anything else is read as JSON lines. */
static bool is_trace(int fd)
{
	char b[MT_FILE_MAGIC_LEN];

	return pread(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b) &&
	       !memcmp(b, MT_FILE_MAGIC, sizeof(b));
}

/* The trace's spans and events; a damaged trace is read up to its damage, and said. */
static int read_trace(struct mt_appev *a, const char *path)
{
	struct mt_reader *r = mt_cli_open_trace(path);
	int rc;

	if (!r)
		return -EINVAL;
	mt_cli_warn_damage(path, r, NULL);
	rc = mt_spans_run(r, a);
	if (rc < 0)
		mt_err("'%s': %s", path, strerror(-rc));
	mt_reader_free(r);
	return rc;
}

int cmd_events(int argc, char **argv)
{
	struct mt_appev a;
	int nargs, rc, fd;
	FILE *out;

	rc = mt_opts_parse(&mt_events_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.slowest > 100000 || !o.max_line_mb || o.max_line_mb > 4096)
		return mt_usage_error(&mt_events_spec,
				      "--slowest must be at most 100000, --max-line-mb 1 to 4096");
	fd = strcmp(argv[0], "-") ? open(argv[0], O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		mt_err("cannot open '%s': %s", argv[0], strerror(errno));
		return 1;
	}
	mt_appev_init(&a, (unsigned)o.slowest);
	if ((rc = schema(&a)) != 0) {
		if (fd)
			close(fd);
		mt_appev_release(&a);
		return rc;
	}
	if (fd && is_trace(fd))
		rc = read_trace(&a, argv[0]);
	else if ((rc = mt_appev_read_fd(&a, fd, (size_t)o.max_line_mb << 20)) == -EBADMSG &&
		 a.lines) {
		mt_warn("'%s': the %s data is damaged or cut short after %" PRIu64
			" lines: the summary is of those",
			argv[0], mt_instream_kind_name((enum mt_instream_kind)a.input), a.lines);
		rc = 0;
	} else if (rc < 0) {
		mt_err("'%s': %s", argv[0],
		       rc == -EBADMSG ? "damaged compressed data" : strerror(-rc));
	}
	if (fd)
		close(fd);
	if (rc < 0) {
		mt_appev_release(&a);
		return 1;
	}
	if (!a.total_events) {
		if (a.from_trace)
			mt_err("'%s' holds no ended span and no event of the workload (memtap.h: "
			       "memtap_span_begin/end, memtap_event)",
			       argv[0]);
		else
			mt_err("'%s' holds no event (%" PRIu64
			       " lines read, none a JSON object with "
			       "convertible fields)",
			       argv[0], a.lines);
		mt_appev_release(&a);
		return 1;
	}
	mt_appev_finish(&a);
	out = mt_cli_out(o.format <= 1);
	mt_appev_print(&a, (enum mt_report_format)o.format, out);
	mt_cli_out_done(out);
	mt_appev_release(&a);
	return 0;
}
