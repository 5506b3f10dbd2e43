/* SPDX-License-Identifier: MIT */
/* memtap view: the trace's report as one self-contained HTML page. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/access.h"
#include "analysis/rules.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "common/strutil.h"
#include "export/view.h"
#include "format/reader.h"

extern char **environ;

static struct {
	const char *output;
	bool open, force;
	uint64_t max_points, top, window_ms;
	const char *mrm, *rules, *profiles;
} o = { .max_points = MT_VIEW_MAX_POINTS, .top = 50, .window_ms = 100 };

static const struct mt_option options[] = {
	{ "output", 'o', MT_OPT_STRING, &o.output, "FILE",
	  "write the page to FILE ('-': standard output; default: the trace's name with .html)" },
	{ "open", 0, MT_OPT_FLAG, &o.open, NULL,
	  "open the page in a browser (xdg-open, or $BROWSER)" },
	{ "force", 'f', MT_OPT_FLAG, &o.force, NULL, "overwrite FILE if it exists" },
	{ "max-points", 0, MT_OPT_U64, &o.max_points, "N",
	  "samples and faults drawn in the address view, at most (default 250000; more are "
	  "drawn 1 in k, evenly)" },
	{ "top", 'n', MT_OPT_U64, &o.top, "N", "allocation sites and files listed (default 50)" },
	MT_CLI_ANALYSIS_OPTIONS(o.rules, o.profiles, o.window_ms, o.mrm),
	{ NULL },
};

const struct mt_command_spec mt_view_spec = {
	.name = "view",
	.usage = "FILE [-o report.html] [--open] [options]",
	.summary = "write a self-contained interactive HTML report of a trace",
	.description =
		"One HTML file that works offline (it loads nothing: script, styles and data are\n"
		"inside): the run and its collectors (mechanisms, sampling periods, losses);\n"
		"timelines of resident memory by type, live heap bytes, working set and page faults\n"
		"with phases as bands; the address x time view of sampled loads and stores and\n"
		"page faults with region overlays (zoom by dragging, subsets by time, address\n"
		"range and region); tables of regions and their metrics and MRM labels, region\n"
		"types, allocation sites with stacks, system calls, re-read files and processes.\n"
		"Every string from the trace is escaped. Long traces are drawn 1 sample in k, said\n"
		"on the page, so the file stays small.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

/* The trace's name with .html for .mtap (or added), in the current directory. */
static void default_output(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".mtap"))
		n -= 5;
	snprintf(buf, size, "%.*s.html", (int)n, base);
}

/* Hands the page to the desktop's opener, its chatter silenced; 0, or -1 after one line
 * saying why not. */
static int open_page(const char *file)
{
	const char *browser = getenv("BROWSER");
	char *argv[] = { (char *)(browser && browser[0] ? browser : "xdg-open"), (char *)file,
			 NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0, rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		mt_err("cannot open '%s': %s is not available (hint: open the file in a browser, or "
		       "set BROWSER)",
		       file, argv[0]);
		return -1;
	}
	/* xdg-open returns once the browser has it (or fails at once) */
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		mt_err("cannot open '%s': %s failed (exit status %d; hint: no desktop here? open "
		       "the file in a browser, or set BROWSER)",
		       file, argv[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return 0;
}

int cmd_view(int argc, char **argv)
{
	struct mt_view_opts vo = { 0 };
	struct mt_access_opts ao = { 0 };
	struct mt_rules rules = { 0 };
	struct mt_view_stats vs;
	struct mt_reader *r;
	char out[4096], b[32];
	int nargs, rc;

	rc = mt_opts_parse(&mt_view_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.max_points || o.max_points > 10000000)
		return mt_usage_error(&mt_view_spec, "--max-points must be between 1 and 10000000");
	if (!o.top || o.top > 100000)
		return mt_usage_error(&mt_view_spec, "--top must be between 1 and 100000");
	if (o.open && o.output && !strcmp(o.output, "-"))
		return mt_usage_error(&mt_view_spec, "--open needs a file, not standard output");
	rc = mt_cli_analysis_opts(&mt_view_spec, o.window_ms, o.mrm, o.rules, o.profiles, &ao,
				  &rules);
	if (rc)
		return rc;
	if (o.output)
		snprintf(out, sizeof(out), "%s", o.output);
	else
		default_output(argv[0], out, sizeof(out));
	vo.force = o.force;
	vo.max_points = (unsigned)o.max_points;
	vo.top = (unsigned)o.top;
	vo.ao = &ao;
	r = mt_cli_open_trace(argv[0]);
	if (!r) {
		mt_rules_release(&rules);
		return 1;
	}
	mt_cli_progress(r, "reading");
	rc = mt_export_view(r, argv[0], out, &vo, &vs);
	mt_cli_progress_done();
	if (rc == -EEXIST)
		mt_err("'%s' already exists (hint: use --force to overwrite it)", out);
	else if (rc < 0)
		mt_err_code(rc, "cannot write the report of '%s' to '%s'", argv[0], out);
	if (rc == 0) {
		mt_cli_warn_damage(argv[0], r, NULL);
		if (strcmp(out, "-"))
			mt_info("wrote %s to '%s' (%" PRIu64 " of %" PRIu64
				" samples and faults drawn, %u address bands)",
				mt_fmt_bytes(vs.bytes, b, sizeof(b)), out, vs.points,
				vs.points_total, vs.segments);
		if (o.open && open_page(out) < 0)
			rc = -1; /* the page is written; opening it failed, and said so */
	}
	mt_reader_free(r);
	mt_rules_release(&rules);
	return rc < 0 ? 1 : 0;
}
