/* SPDX-License-Identifier: MIT */
/* memtap report: what the trace says, section by section. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "export/report.h"
#include "format/reader.h"

static struct {
	int format;
	const char *sections;
	uint64_t top;
} o = { .top = 10 };

static const char *const formats[] = { "text", "md", "json", "csv", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "section", 's', MT_OPT_STRING, &o.sections, "LIST",
	  "only these sections: run, processes, alloc, access, faults, rss, syscalls, events (default: all the trace has data for)" },
	{ "top", 'n', MT_OPT_U64, &o.top, "N",
	  "sites in each ranking of the alloc section (default 10)" },
	{ NULL },
};

const struct mt_command_spec mt_report_spec = {
	.name = "report",
	.usage = "FILE [options]",
	.summary = "summarise a trace: run, collectors, processes, allocations",
	.description =
		"JSON output is one object whose keys are a stable contract for scripts\n"
		"(memtap_version, schema_version, run, processes, alloc, ...). CSV prints the\n"
		"processes table, or with --section alloc the ranked allocation sites.\n"
		"Allocation sites are symbolized from the recorded mappings with libdw (function,\n"
		"file:line, inlined frames) when the mapped files are still on this machine.\n"
		"Every figure names the collector and mechanism behind it.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

int cmd_report(int argc, char **argv)
{
	struct mt_report rep;
	struct mt_reader *r;
	const char *bad = NULL;
	int nargs, rc, sections;

	rc = mt_opts_parse(&mt_report_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.top || o.top > 100000)
		return mt_usage_error(&mt_report_spec, "--top must be between 1 and 100000");
	sections = mt_report_sections(o.sections, &bad);
	if (sections < 0)
		return mt_usage_error(&mt_report_spec, "unknown section '%s' (sections: %s)", bad,
				      mt_report_section_names());
	r = mt_cli_open_trace(argv[0]);
	if (!r)
		return 1;
	mt_cli_progress(r, "reading");
	rc = mt_report_load(&rep, r, argv[0], sections, (unsigned)o.top);
	mt_cli_progress_done();
	if (rc < 0) {
		mt_err_code(rc, "'%s'", argv[0]);
		mt_reader_free(r);
		return 1;
	}
	mt_report_print(&rep, (enum mt_report_format)o.format, sections, stdout);
	mt_cli_warn_damage(argv[0], r, NULL);
	mt_report_release(&rep);
	mt_reader_free(r);
	return 0;
}
