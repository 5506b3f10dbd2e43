/* SPDX-License-Identifier: MIT */
/* memtap diff A.mtap B.mtap: two runs side by side (export/diff.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "export/diff.h"
#include "export/table.h"
#include "format/reader.h"

static struct {
	int format, weight;
	bool folded;
	uint64_t top;
} o = { .top = 20 };

static const char *const formats[] = { "text", "md", "json", "csv", NULL };
static const char *const weights[] = { "bytes", "calls", "peak", "leaked", "temporary", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format (csv: the allocation sites)",
	  formats },
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ')" },
	{ "top", 0, MT_OPT_U64, &o.top, "N", "rows per table for people (default 20)" },
	{ "folded", 0, MT_OPT_FLAG, &o.folded, NULL,
	  "instead, flamegraph.pl's difffolded input: \"stack A B\" per allocation stack" },
	{ "weight", 'w', MT_OPT_CHOICE, &o.weight, "WHAT", "--folded: what each stack weighs",
	  weights },
	{ NULL },
};

const struct mt_command_spec mt_diff_spec = {
	.name = "diff",
	.usage = "A.mtap B.mtap [options]",
	.summary = "two runs side by side: sites, region types, faults, RSS, syscalls",
	.description =
		"Allocation sites are matched by their symbolized call stacks (the process by\n"
		"its name: pids differ between runs), region types and system calls by name.\n"
		"Each row gives A, B, the change and the ratio B/A, sorted by the absolute\n"
		"change (sites by bytes allocated; JSON has calls, peak and leaked bytes too,\n"
		"region types their samples and MRM labels). --folded writes the difference as\n"
		"difffolded.pl does, for flamegraph.pl: \"root;...;leaf A B\" per stack.\n"
		"Both traces must come from one memtap version and trace format; a damaged\n"
		"trace is read up to its damage, and that is said.\n",
	.opts = options,
	.min_args = 2,
	.max_args = 2,
};

static bool load(const char *path, struct mt_reader **r, struct mt_report *rep)
{
	int rc;

	if (!(*r = mt_cli_open_trace(path)))
		return false;
	mt_cli_progress(*r, "reading");
	rc = mt_report_load(rep, *r, path, MT_SEC_ALL & ~MT_SEC_EVENTS, 10, NULL);
	mt_cli_progress_done();
	if (rc < 0) {
		mt_err_code(rc, "'%s'", path);
		mt_reader_free(*r);
		*r = NULL;
		return false;
	}
	mt_cli_warn_damage(path, *r, NULL);
	return true;
}

/* One version and format on both sides: what they count must mean the same. */
static bool comparable(const char *pa, struct mt_reader *a, const char *pb, struct mt_reader *b)
{
	const struct mt_file_info *fa = mt_reader_file(a), *fb = mt_reader_file(b);

	if (fa->major == fb->major && fa->minor == fb->minor && !strcmp(fa->writer, fb->writer))
		return true;
	mt_err("'%s' (%s, format %u.%u) and '%s' (%s, format %u.%u): a diff needs traces of one "
	       "memtap version and format",
	       pa, fa->writer, fa->major, fa->minor, pb, fb->writer, fb->major, fb->minor);
	return false;
}

int cmd_diff(int argc, char **argv)
{
	struct mt_reader *ra = NULL, *rb = NULL;
	struct mt_report a, b;
	struct mt_diff_side sa = { 0 }, sb = { 0 };
	int nargs, rc;
	bool la = false, lb = false;
	FILE *out;

	rc = mt_opts_parse(&mt_diff_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.top || o.top > 100000)
		return mt_usage_error(&mt_diff_spec, "--top must be between 1 and 100000");
	rc = 1;
	if (!(la = load(argv[0], &ra, &a)) || !(lb = load(argv[1], &rb, &b)) ||
	    !comparable(argv[0], ra, argv[1], rb))
		goto out;
	if ((rc = mt_diff_side_load(&sa, &a, argv[0])) == 0)
		rc = mt_diff_side_load(&sb, &b, argv[1]);
	if (rc == 0) {
		out = mt_cli_out(!o.folded && o.format <= 1);
		rc = o.folded ? mt_diff_folded(&sa, &sb, (enum mt_folded_weight)o.weight, out)
			      : mt_diff_print(&sa, &sb, (enum mt_report_format)o.format,
					      (unsigned)o.top, out);
		mt_cli_out_done(out);
	}
	if (rc < 0)
		mt_err("diff: %s", strerror(-rc));
	rc = rc < 0;
out:
	mt_diff_side_release(&sa);
	mt_diff_side_release(&sb);
	if (la)
		mt_report_release(&a);
	if (lb)
		mt_report_release(&b);
	mt_reader_free(ra);
	mt_reader_free(rb);
	return rc;
}
