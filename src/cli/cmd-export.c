/* SPDX-License-Identifier: MIT */
/* memtap export: a trace in another tool's format. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/rules.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/outfile.h"
#include "common/log.h"
#include "export/table.h"
#include "export/folded.h"
#include "export/perfetto.h"
#include "export/profile.h"
#include "export/tables.h"
#include "format/reader.h"

static struct {
	int to;
	const char *output;
	int weight;
	bool force;
	int layout;
	const char *workload, *config, *rep;
	uint64_t window_ms;
	const char *mrm;
	const char *rules, *profiles;
	const char *tiers;
	uint64_t min_alloc, min_syscall_us;
	bool perfetto_json;
} o = { .window_ms = 100, .min_alloc = 1u << 20, .min_syscall_us = 1000 };

enum { TO_FOLDED, TO_PARQUET, TO_SQLITE, TO_CSV, TO_JSONL, TO_PERFETTO, TO_PPROF, TO_SPEEDSCOPE };
static const char *const formats[] = { "folded",   "parquet", "sqlite",	    "csv", "jsonl",
				       "perfetto", "pprof",   "speedscope", NULL };
static const char *const weights[] = { "bytes", "calls", "peak", "leaked", "temporary", NULL };
static const char *const layouts[] = { "flat", "mrm", "hive", NULL };

static const struct mt_option options[] = {
	{ "to", 0, MT_OPT_CHOICE, &o.to, "FORMAT", "output format", formats },
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ', so "
	  "that a spreadsheet never evaluates them)" },
	{ "output", 'o', MT_OPT_STRING, &o.output, "OUT",
	  "write to OUT: a directory for parquet, csv and jsonl, the database for sqlite, a file "
	  "for folded, pprof, speedscope and perfetto ('-': standard output)" },
	{ "force", 'f', MT_OPT_FLAG, &o.force, NULL, "overwrite existing files" },
	{ "layout", 0, MT_OPT_CHOICE, &o.layout, "LAYOUT",
	  "parquet, csv, jsonl: the tables in OUT; mrm-trace's run directory (+ metrics.csv, "
	  "metadata.json, raw/TRACE, manifest.json with the SHA-256 of every file); or a Hive "
	  "tree OUT/workload=W/config=C/rep=R/",
	  layouts },
	{ "workload", 0, MT_OPT_STRING, &o.workload, "W",
	  "hive: the workload key (default: the command's name)" },
	{ "config", 0, MT_OPT_STRING, &o.config, "C",
	  "hive: the configuration key (default: default)" },
	{ "rep", 0, MT_OPT_STRING, &o.rep, "R",
	  "hive: the repetition key (default: the first number not taken)" },
	{ "weight", 'w', MT_OPT_CHOICE, &o.weight, "WHAT", "folded: what each stack weighs",
	  weights },
	{ "min-alloc", 0, MT_OPT_U64, &o.min_alloc, "BYTES",
	  "perfetto: allocations of at least BYTES are instant events (default 1048576)" },
	{ "perfetto-json", 0, MT_OPT_FLAG, &o.perfetto_json, NULL,
	  "perfetto: Chrome's Trace Event JSON instead of Perfetto's protobuf trace" },
	{ "min-syscall-us", 0, MT_OPT_U64, &o.min_syscall_us, "US",
	  "perfetto: system calls of at least US microseconds are slices (default 1000)" },
	MT_CLI_ANALYSIS_OPTIONS(o.rules, o.profiles, o.window_ms, o.mrm),
	{ "tiers", 0, MT_OPT_STRING, &o.tiers, "FILE",
	  "parquet, csv, jsonl, sqlite: the tier model of the placement table, as in memtap "
	  "report" },
	{ NULL },
};

const struct mt_command_spec mt_export_spec = {
	.name = "export",
	.usage = "FILE [--to FORMAT] -o OUT [options]",
	.summary = "convert a trace for other tools (Parquet, SQLite, CSV, Perfetto, pprof, "
		   "speedscope, folded)",
	.description =
		"parquet, csv, jsonl: one file per table in the directory OUT: runs, collectors,\n"
		"processes, trace (every access sample, page fault and allocation call with its\n"
		"region and phase), region_map (every region and its behaviour: docs/metrics.md),\n"
		"kv_block_lifecycle (every labelled object and large heap block: appeared,\n"
		"first/last write, first/last read, end), metrics (per region type), sites (heap\n"
		"bytes beside samples and faults per allocation site), phases, syscalls, faults,\n"
		"rss (per process), rss_timeline and spans (the workload's memtap_span_begin/end,\n"
		"each with the bytes it allocated and freed and its faults). Parquet: ZSTD pages, typed columns (addresses as unsigned\n"
		"64-bit), memtap_schema_version, memtap_version, run_id and table in each file's\n"
		"key/value metadata. A file appears only when complete.\n"
		"sqlite: adds the run to the database OUT (created if missing), every table but\n"
		"trace, each row with the run_id; a run added again replaces itself; one\n"
		"transaction. docs/exports.md documents every table and column.\n"
		"perfetto: a timeline for ui.perfetto.dev, in Perfetto's own protobuf trace format\n"
		"(--perfetto-json: Chrome's Trace Event JSON): RSS by type, heap bytes, working set\n"
		"and faults as counter tracks, large allocations and major faults as instants,\n"
		"phases and long system calls as slices, process and thread names.\n"
		"pprof: the allocation sites as a gzipped pprof profile (go tool pprof, pprof's\n"
		"web UI): sample types alloc_objects, alloc_space, inuse_objects and inuse_space\n"
		"(in use: live when the recording ended), functions, files and lines, inlined\n"
		"frames, labels pid and comm; every call recorded (period 1).\n"
		"speedscope: the allocation sites as a speedscope file, one profile per weight\n"
		"(allocated bytes, calls, leaked bytes, the heap at the peak).\n"
		"folded: one line per allocation site, \"process;outermost;...;innermost weight\",\n"
		"for flamegraph.pl, inferno and speedscope. The weight is the site's allocated\n"
		"bytes, allocation calls, bytes live at the heap peak, bytes leaked, or temporary\n"
		"allocations. Inlined frames carry flamegraph.pl's \"_[i]\" suffix; frames without\n"
		"a symbol are written as module+0xoffset.\n"
		"A trace cut short is exported as far as it is readable, with a warning that says\n"
		"what was lost.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

static int export_tables(const char *path)
{
	struct mt_export_opts eo = { .out = o.output,
				     .force = o.force,
				     .layout = (enum mt_export_layout)o.layout,
				     .workload = o.workload,
				     .config = o.config,
				     .rep = o.rep };
	struct mt_access_opts ao = { 0 };
	static struct mt_tiers tiers;
	struct mt_rules rules = { 0 };
	struct mt_export_result res;
	struct mt_reader *r;
	int rc;

	switch (o.to) {
	case TO_PARQUET:
		eo.format = MT_SINK_PARQUET;
		break;
	case TO_CSV:
		eo.format = MT_SINK_CSV;
		break;
	case TO_JSONL:
		eo.format = MT_SINK_JSONL;
		break;
	default:
		eo.format = MT_SINK_SQLITE;
		break;
	}
	if (!strcmp(o.output, "-"))
		return mt_usage_error(&mt_export_spec, "%s writes %s: -o %s", formats[o.to],
				      o.to == TO_SQLITE ? "a database" : "a directory of tables",
				      o.to == TO_SQLITE ? "FILE.db" : "DIR");
	if (o.to == TO_SQLITE && o.layout)
		return mt_usage_error(&mt_export_spec, "--layout is for parquet, csv and jsonl");
	if (o.layout != MT_LAYOUT_HIVE && (o.workload || o.config || o.rep))
		return mt_usage_error(&mt_export_spec,
				      "--workload, --config and --rep name a Hive tree: add "
				      "--layout hive");
	rc = mt_cli_analysis_opts(&mt_export_spec, o.window_ms, o.mrm, o.rules, o.profiles, &ao,
				  &rules);
	if (rc)
		return rc;
	if (mt_cli_load_tiers(o.tiers, &tiers, &ao)) {
		mt_rules_release(&rules);
		return 2;
	}
	eo.ao = &ao;
	r = mt_cli_open_trace(path);
	if (!r) {
		mt_rules_release(&rules);
		return 1;
	}
	mt_cli_progress(r, "exporting");
	rc = mt_export_tables(r, path, &eo, &res);
	mt_cli_progress_done();
	if (rc == -EEXIST)
		mt_err("'%s' already holds these tables (hint: use --force to overwrite them)",
		       res.dir[0] ? res.dir : o.output);
	else if ((rc == -EPROTO || rc == -EIO) && o.to == TO_SQLITE)
		mt_err("cannot add '%s' to '%s': %s", path, o.output, mt_sink_sqlite_error());
	else if (rc < 0)
		mt_err_code(rc, "cannot export '%s' to '%s'", path,
			    res.dir[0] ? res.dir : o.output);
	if (rc == 0) {
		mt_cli_warn_damage(path, r, NULL);
		if (res.replaced)
			mt_info("run %s was already in '%s': replaced", res.run_id, o.output);
	}
	mt_reader_free(r);
	mt_rules_release(&rules);
	return rc < 0 ? 1 : 0;
}

/* folded, pprof, speedscope: an allocation profile into one file or standard output. */
static int export_profile(const char *path)
{
	struct mt_folded_stats fs;
	struct mt_profile_stats pst;
	struct mt_outfile of;
	struct mt_reader *r;
	FILE *out;
	bool to_stdout = !strcmp(o.output, "-");
	int rc;

	r = mt_cli_open_trace(path);
	if (!r)
		return 1;
	rc = to_stdout ? 0 : mt_outfile_open(&of, o.output, o.force, 0666);
	out = to_stdout ? stdout : rc < 0 ? NULL : mt_outfile_stream(&of);
	if (!out) {
		if (rc == -EEXIST)
			mt_err("'%s' already exists (hint: use --force to overwrite it)", o.output);
		else
			mt_err("cannot create '%s': %s", o.output, strerror(rc < 0 ? -rc : errno));
		if (rc == 0)
			mt_outfile_abort(&of);
		mt_reader_free(r);
		return 1;
	}
	mt_cli_progress(r, "exporting");
	if (o.to == TO_FOLDED)
		rc = mt_export_folded(r, (enum mt_folded_weight)o.weight, out, &fs);
	else
		rc = mt_export_profile(
			r, o.to == TO_PPROF ? MT_PROFILE_PPROF : MT_PROFILE_SPEEDSCOPE, out, &pst);
	mt_cli_progress_done();
	if (!to_stdout && rc >= 0)
		rc = ferror(out) ? -EIO : mt_outfile_commit(&of);
	else if (!to_stdout)
		mt_outfile_abort(&of);
	if (rc == -ENODATA)
		mt_err("'%s' has no allocation events to %s (recorded with --no-alloc, or no "
		       "process could be traced)",
		       path, o.to == TO_FOLDED ? "fold" : "profile");
	else if (rc == -EOPNOTSUPP)
		mt_err("'%s' was recorded with --alloc=sites, which keeps no heap blocks: no "
		       "weight %s (calls, bytes and leaked are kept)",
		       path, weights[o.weight]);
	else if (rc < 0)
		mt_err_code(rc, "cannot export '%s' to '%s'", path, o.output);
	else
		mt_cli_warn_damage(path, r, NULL);
	mt_reader_free(r);
	return rc < 0 ? 1 : 0;
}

static int export_perfetto(const char *path)
{
	struct mt_perfetto_opts po = { .min_alloc = o.min_alloc,
				       .min_syscall_ns = o.min_syscall_us * 1000,
				       .force = o.force,
				       .json = o.perfetto_json };
	struct mt_access_opts ao = { 0 };
	struct mt_rules rules = { 0 };
	struct mt_perfetto_stats ps;
	struct mt_reader *r;
	int rc = mt_cli_analysis_opts(&mt_export_spec, o.window_ms, o.mrm, o.rules, o.profiles, &ao,
				      &rules);

	if (rc)
		return rc;
	po.ao = &ao;
	r = mt_cli_open_trace(path);
	if (!r) {
		mt_rules_release(&rules);
		return 1;
	}
	mt_cli_progress(r, "exporting");
	rc = mt_export_perfetto(r, path, o.output, &po, &ps);
	mt_cli_progress_done();
	if (rc == -EEXIST)
		mt_err("'%s' already exists (hint: use --force to overwrite it)", o.output);
	else if (rc < 0)
		mt_err_code(rc, "cannot export '%s' to '%s'", path, o.output);
	else
		mt_cli_warn_damage(path, r, NULL);
	mt_reader_free(r);
	mt_rules_release(&rules);
	return rc < 0 ? 1 : 0;
}

int cmd_export(int argc, char **argv)
{
	int nargs, rc;

	rc = mt_opts_parse(&mt_export_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.output)
		return mt_usage_error(&mt_export_spec,
				      "-o OUT is required ('-' for standard output)");
	switch (o.to) {
	case TO_FOLDED:
	case TO_PPROF:
	case TO_SPEEDSCOPE:
		return export_profile(argv[0]);
	case TO_PERFETTO:
		return export_perfetto(argv[0]);
	default:
		return export_tables(argv[0]);
	}
}
