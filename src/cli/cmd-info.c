/* SPDX-License-Identifier: MIT */
/* memtap info: options, the run and process tree read, then export/info.c renders them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "analysis/procs.h"
#include "analysis/run.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "common/strutil.h"
#include "export/info.h"
#include "export/report.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/schema.h"

static struct {
	int format;
	bool quick;
} o;

static const char *const formats[] = { "text", "json", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "quick", 0, MT_OPT_FLAG, &o.quick, NULL,
	  "check chunk headers only, not every payload's checksum" },
	{ NULL },
};

const struct mt_command_spec mt_info_spec = {
	.name = "info",
	.usage = "FILE [options]",
	.summary = "show a trace's header, collectors, process tree, counts and integrity",
	.description =
		"A damaged trace (cut short, or with corrupted chunks) is shown as far as it\n"
		"is readable, with one warning line on stderr saying what was lost; the exit\n"
		"status is then still 0. A file that is not a trace, or whose format major\n"
		"version this memtap does not read, gives one error line and exit status 1.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

int cmd_info(int argc, char **argv)
{
	struct mt_reader *r;
	struct mt_run run = { 0 };
	struct mt_procs ps = { 0 };
	struct mt_passes passes;
	struct mt_pass p;
	int nargs, rc;

	rc = mt_opts_parse(&mt_info_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	r = mt_cli_open_trace(argv[0]);
	if (!r)
		return 1;
	mt_cli_progress(r, "verifying");
	if (!o.quick && (rc = mt_reader_verify(r)) < 0) {
		mt_cli_progress_done();
		mt_err("'%s': read error: %s", argv[0], strerror(-rc));
		mt_reader_free(r);
		return 1;
	}
	mt_cli_progress_done();
	/* the run's losses and the process tree: one read */
	mt_passes_init(&passes);
	mt_passes_add(&passes, mt_run_pass(r, &run, &p), &p);
	mt_passes_add(&passes, mt_procs_pass(r, &ps, &p), &p);
	if ((rc = mt_passes_run(r, &passes)) < 0) {
		mt_err("'%s': %s", argv[0], strerror(-rc));
		mt_procs_release(&ps);
		mt_run_release(&run);
		mt_reader_free(r);
		return 1;
	}
	if (o.format == 1) {
		mt_info_json(argv[0], r, &run, &ps, stdout);
	} else {
		FILE *out = mt_cli_out(true);

		mt_info_text(argv[0], r, &run, &ps, out);
		mt_cli_out_done(out);
	}
	mt_cli_warn_damage(argv[0], r, NULL);
	mt_procs_release(&ps);
	mt_run_release(&run);
	mt_reader_free(r);
	return 0;
}
