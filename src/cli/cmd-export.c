/* SPDX-License-Identifier: MIT */
/* memtap export: a trace in another tool's format. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "export/folded.h"
#include "export/parquet-tables.h"
#include "format/reader.h"

static struct {
	int to;
	const char *output;
	int weight;
	bool force;
	int layout;
} o;

static const char *const formats[] = { "folded", "parquet", "sqlite", "csv", "perfetto", NULL };
static const char *const weights[] = { "bytes", "calls", "peak", "leaked", "temporary", NULL };
static const char *const layouts[] = { "flat", "mrm", NULL };

static const struct mt_option options[] = {
	{ "to", 0, MT_OPT_CHOICE, &o.to, "FORMAT", "output format", formats },
	{ "output", 'o', MT_OPT_STRING, &o.output, "OUT", "write to OUT ('-': standard output)" },
	{ "weight", 'w', MT_OPT_CHOICE, &o.weight, "WHAT", "folded: what each stack weighs",
	  weights },
	{ "force", 'f', MT_OPT_FLAG, &o.force, NULL, "overwrite OUT if it exists" },
	{ "layout", 0, MT_OPT_CHOICE, &o.layout, "LAYOUT",
	  "parquet: the tables only, or mrm-trace's run directory (+ metrics.csv, "
	  "metadata.json, raw/TRACE, manifest.json with SHA-256 of every file)",
	  layouts },
	{ NULL },
};

const struct mt_command_spec mt_export_spec = {
	.name = "export",
	.usage = "FILE [--to FORMAT] -o OUT [options]",
	.summary = "convert a trace for other tools (Parquet tables, folded stacks)",
	.description =
		"folded: one line per allocation site, \"process;outermost;...;innermost weight\",\n"
		"for flamegraph.pl, inferno and speedscope. The weight is the site's allocated\n"
		"bytes, allocation calls, bytes live at the heap peak, bytes leaked, or temporary\n"
		"allocations. Inlined frames carry flamegraph.pl's \"_[i]\" suffix; frames without\n"
		"a symbol are written as module+0xoffset.\n"
		"parquet: OUT is a directory that gets trace.parquet (every access sample and page\n"
		"fault with its region), region_map.parquet (one row per region with its\n"
		"behaviour: docs/metrics.md), kv_block_lifecycle.parquet (every labelled object and\n"
		"large heap block: appeared, first/last write, first/last read, end) and\n"
		"metrics.parquet (per region type);\n"
		"ZSTD pages, typed columns (addresses as unsigned 64-bit), and memtap_schema_version,\n"
		"memtap_version, run_id in each file's key/value metadata. A file appears only\n"
		"when complete.\n"
		"sqlite, csv and perfetto are not available in this version yet.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

static int export_parquet(const char *path)
{
	struct mt_reader *r;
	int rc;

	if (!strcmp(o.output, "-"))
		return mt_usage_error(&mt_export_spec, "parquet writes a directory: -o DIR");
	r = mt_cli_open_trace(path);
	if (!r)
		return 1;
	mt_cli_progress(r, "exporting");
	rc = mt_export_parquet(r, path, o.output, o.force, o.layout == 1);
	mt_cli_progress_done();
	if (rc == -EEXIST)
		mt_err("'%s' already holds these tables (hint: use --force to overwrite them)",
		       o.output);
	else if (rc < 0)
		mt_err_code(rc, "cannot export '%s' to '%s'", path, o.output);
	else
		mt_cli_warn_damage(path, r, NULL);
	mt_reader_free(r);
	return rc < 0 ? 1 : 0;
}

int cmd_export(int argc, char **argv)
{
	struct mt_folded_stats fs;
	struct mt_reader *r;
	FILE *out;
	bool to_stdout;
	int nargs, rc;

	rc = mt_opts_parse(&mt_export_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.output)
		return mt_usage_error(&mt_export_spec,
				      "-o OUT is required ('-' for standard output)");
	if (!strcmp(formats[o.to], "parquet"))
		return export_parquet(argv[0]);
	if (strcmp(formats[o.to], "folded")) {
		mt_err("export to %s is not available in memtap %s yet (available: folded, parquet)",
		       formats[o.to], MEMTAP_VERSION);
		return 1;
	}
	to_stdout = !strcmp(o.output, "-");
	r = mt_cli_open_trace(argv[0]);
	if (!r)
		return 1;
	out = to_stdout ? stdout : fopen(o.output, o.force ? "we" : "wxe");
	if (!out) {
		if (errno == EEXIST)
			mt_err("'%s' already exists (hint: use --force to overwrite it)", o.output);
		else
			mt_err("cannot create '%s': %s", o.output, strerror(errno));
		mt_reader_free(r);
		return 1;
	}
	mt_cli_progress(r, "exporting");
	rc = mt_export_folded(r, (enum mt_folded_weight)o.weight, out, &fs);
	mt_cli_progress_done();
	if (!to_stdout && fclose(out) != 0 && rc >= 0)
		rc = -errno;
	if (rc == -ENODATA)
		mt_err("'%s' has no allocation events to fold (recorded with --no-alloc, or no "
		       "process could be traced)",
		       argv[0]);
	else if (rc < 0)
		mt_err_code(rc, "cannot export '%s' to '%s'", argv[0], o.output);
	else
		mt_cli_warn_damage(argv[0], r, NULL);
	mt_reader_free(r);
	return rc < 0 ? 1 : 0;
}
