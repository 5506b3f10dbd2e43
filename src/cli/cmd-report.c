/* SPDX-License-Identifier: MIT */
/* memtap report: what the trace says, section by section. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "analysis/rules.h"
#include "cli/util.h"
#include "common/log.h"
#include "export/table.h"
#include "export/report.h"
#include "format/reader.h"

static struct {
	int format;
	const char *sections;
	uint64_t top;
	uint64_t window_ms;
	const char *mrm;
	const char *rules, *profiles;
	const char *tiers;
	int by;
} o = { .top = 10, .window_ms = 100 };

static const char *const formats[] = { "text", "md", "json", "csv", NULL };
static const char *const bys[] = { "type", "region", "site", "phase", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ', so "
	  "that a spreadsheet never evaluates them)" },
	{ "section", 's', MT_OPT_STRING, &o.sections, "LIST",
	  "only these sections: run, processes, alloc, access, faults, rss, syscalls, events, "
	  "metrics, candidates, placement (default: all the trace has data for)" },
	{ "top", 'n', MT_OPT_U64, &o.top, "N",
	  "sites in each ranking of the alloc section, rows of the metrics tables by region and "
	  "site (default 10)" },
	{ "by", 0, MT_OPT_CHOICE, &o.by, "WHAT",
	  "the metrics section's table (and its CSV): per region type, region, allocation site "
	  "(heap bytes joined with pages touched, faults and samples) or phase",
	  bys },
	{ "rules", 0, MT_OPT_STRING, &o.rules, "FILE",
	  "region types (allocation-stack symbol regexes, mapping path globs) and phases "
	  "(symbol regexes) from a YAML rules file, tried before the profiles' (see "
	  "docs/metrics.md)" },
	{ "profiles", 0, MT_OPT_STRING, &o.profiles, "LIST",
	  "built-in engine profiles whose rules type regions: all (default), none, or names "
	  "separated by commas (memtap rules --list)" },
	{ "window-ms", 0, MT_OPT_U64, &o.window_ms, "MS",
	  "working-set window: distinct pages touched per MS milliseconds (default 100)" },
	{ "mrm", 0, MT_OPT_STRING, &o.mrm, "W1,R99,W2,R50",
	  "MRM suitability thresholds: high_mrm needs write-once >= W1 and retention p99 >= R99 "
	  "s, medium_mrm write-once >= W2 and retention p50 >= R50 s (default 0.8,10,0.5,1)" },
	{ "tiers", 0, MT_OPT_STRING, &o.tiers, "FILE",
	  "the tier model of what-if placement, in YAML: tiers, each with name, "
	  "read_latency_ns, write_latency_ns and, for a retention-limited memory, retention_s; "
	  "the first is where the memory is now (default: dram 90/90 ns, cxl 250/250 ns, mrm "
	  "90/500 ns with a retention of 3600 s; docs/metrics.md)" },
	{ NULL },
};

const struct mt_command_spec mt_report_spec = {
	.name = "report",
	.usage = "FILE [options]",
	.summary = "summarise a trace: run, processes, allocations, accesses, memory behaviour",
	.description =
		"JSON output is one object whose keys are a stable contract for scripts\n"
		"(memtap_version, schema_version, run, processes, alloc, ..., metrics, regions).\n"
		"CSV prints the processes table, or with --section alloc the ranked allocation\n"
		"sites, with --section access the regions, with --section metrics the table --by\n"
		"chooses. The metrics section (docs/metrics.md) gives retention, lifetime,\n"
		"write-once ratio, read frequency, locality, inter-access intervals, reuse\n"
		"distance, working sets and MRM labels per region type, region, site and phase.\n"
		"The placement section puts each MRM candidate on each other tier of a tier model\n"
		"(--tiers): the DRAM it frees, the bandwidth or access time it needs, the rewrites\n"
		"a retention window needs, and a first-order model of the time it adds.\n"
		"Allocation sites are symbolized from the recorded mappings with libdw (function,\n"
		"file:line, inlined frames) when the mapped files are still on this machine.\n"
		"Every figure names the collector and mechanism behind it.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

int cmd_report(int argc, char **argv)
{
	struct mt_access_opts ao = { 0 };
	struct mt_rules rules = { 0 };
	static struct mt_tiers tiers;
	struct mt_report rep;
	struct mt_reader *r;
	const char *bad = NULL;
	int nargs, rc, sections;

	rc = mt_opts_parse(&mt_report_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.top || o.top > 100000)
		return mt_usage_error(&mt_report_spec, "--top must be between 1 and 100000");
	rc = mt_cli_analysis_opts(&mt_report_spec, o.window_ms, o.mrm, o.rules, o.profiles, &ao,
				  &rules);
	if (rc)
		return rc;
	if (mt_cli_load_tiers(o.tiers, &tiers, &ao)) {
		mt_rules_release(&rules);
		return 2;
	}
	sections = mt_report_sections(o.sections, &bad);
	if (sections < 0) {
		mt_rules_release(&rules);
		return mt_usage_error(&mt_report_spec, "unknown section '%s' (sections: %s)", bad,
				      mt_report_section_names());
	}
	r = mt_cli_open_trace(argv[0]);
	if (!r) {
		mt_rules_release(&rules);
		return 1;
	}
	mt_cli_progress(r, "reading");
	rc = mt_report_load(&rep, r, argv[0], sections, (unsigned)o.top, &ao);
	mt_cli_progress_done();
	if (rc < 0) {
		mt_err_code(rc, "'%s'", argv[0]);
		mt_reader_free(r);
		mt_rules_release(&rules);
		return 1;
	}
	rep.by = o.by;
	{
		/* text and Markdown are for people: control characters escaped */
		FILE *out = mt_cli_out(o.format <= 1);

		mt_report_print(&rep, (enum mt_report_format)o.format, sections, out);
		mt_cli_out_done(out);
	}
	mt_cli_warn_damage(argv[0], r, NULL);
	mt_report_release(&rep);
	mt_reader_free(r);
	mt_rules_release(&rules);
	return 0;
}
