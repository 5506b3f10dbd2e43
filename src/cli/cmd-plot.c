/* SPDX-License-Identifier: MIT */
/* memtap plot: figures for papers, from one or more traces. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/access.h"
#include "analysis/rules.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/outfile.h"
#include "common/log.h"
#include "exp/index.h"
#include "export/plot.h"
#include "format/reader.h"

extern char **environ;

static struct {
	int kind;
	const char *output, *labels, *title;
	bool script, force, by_type;
	uint64_t width, height, window_ms;
	const char *mrm, *rules, *profiles;
	int by;
	bool contaminated;
} o = { .width = 900, .height = 540, .window_ms = 100 };

static const char *const bys[] = { "run", "config", NULL };

static const char *const kinds[] = { "heatmap", "rss", "wss", "faults", "retention-cdf", NULL };

static const struct mt_option options[] = {
	{ "kind", 'k', MT_OPT_CHOICE, &o.kind, "KIND",
	  "the figure: address x time density, resident memory, working set, faults per second, "
	  "or the CDF of region retention",
	  kinds },
	{ "output", 'o', MT_OPT_STRING, &o.output, "FIG",
	  "write the figure to FIG: .svg (drawn by memtap), .png or .pdf (drawn by gnuplot)" },
	{ "labels", 'l', MT_OPT_STRING, &o.labels, "A,B,...",
	  "the runs' names in the legend (default: the traces' file names)" },
	{ "title", 0, MT_OPT_STRING, &o.title, "TEXT", "the figure's title" },
	{ "by-type", 0, MT_OPT_FLAG, &o.by_type, NULL,
	  "retention-cdf: one curve per region type (the default for a single trace)" },
	{ "script", 0, MT_OPT_FLAG, &o.script, NULL,
	  "also write FIG's data (.tsv) and an editable gnuplot script (.gp) beside it" },
	{ "by", 0, MT_OPT_CHOICE, &o.by, "WHAT",
	  "an experiment's results: a line per traced run, or per configuration (the mean "
	  "of its runs)",
	  bys },
	{ "include-contaminated", 0, MT_OPT_FLAG, &o.contaminated, NULL,
	  "an experiment's results: draw contaminated runs too" },
	{ "force", 'f', MT_OPT_FLAG, &o.force, NULL, "overwrite existing files" },
	{ "width", 0, MT_OPT_U64, &o.width, "PX", "SVG width (default 900)" },
	{ "height", 0, MT_OPT_U64, &o.height, "PX", "SVG height (default 540)" },
	MT_CLI_ANALYSIS_OPTIONS(o.rules, o.profiles, o.window_ms, o.mrm),
	{ NULL },
};

const struct mt_command_spec mt_plot_spec = {
	.name = "plot",
	.usage = "FILE... --kind KIND -o FIG.svg|FIG.png|FIG.pdf [options]",
	.summary = "draw a figure of one or more traces for a paper (SVG, or PNG/PDF via gnuplot)",
	.description =
		"rss, wss and faults draw one line per trace, so runs under different\n"
		"configurations compare on one figure (e.g. THP never, madvise, always);\n"
		"retention-cdf draws one curve per trace, or per region type of a single trace;\n"
		"heatmap (one trace) bins the sampled accesses and faults by time and compacted\n"
		"address, on a log colour scale. SVG is written by memtap itself; PNG and PDF need\n"
		"gnuplot (Debian: gnuplot-nox). --script keeps the figure's data as a table and a\n"
		"gnuplot script that draws it, to edit for publication.\n\n"
		"A FILE that is an experiment's results directory (memtap run) stands for its\n"
		"traced runs that succeeded (contaminated ones left out unless\n"
		"--include-contaminated): a line per run, or with --by config a line per\n"
		"workload and configuration, the mean of its runs at each time (e.g. RSS over\n"
		"time under THP never, madvise and always).\n",
	.opts = options,
	.min_args = 1,
	.max_args = 32,
};

/* "FIG.ext" -> "FIG" + suffix. */
static void sibling(const char *fig, const char *suffix, char *buf, size_t size)
{
	const char *dot = strrchr(fig, '.'), *slash = strrchr(fig, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - fig) : strlen(fig);

	snprintf(buf, size, "%.*s%s", (int)n, fig, suffix);
}

/* An output's new file (outfile.h); NULL after saying why not. */
static FILE *create(struct mt_outfile *of, const char *path)
{
	int r = mt_outfile_open(of, path, o.force, 0666);
	FILE *f = r < 0 ? NULL : mt_outfile_stream(of);

	if (r == -EEXIST)
		mt_err("'%s' already exists (hint: use --force to overwrite it)", path);
	else if (!f)
		mt_err("cannot create '%s': %s", path, strerror(r < 0 ? -r : errno));
	if (r == 0 && !f)
		mt_outfile_abort(of);
	return f;
}

/* Puts a complete output into place; 0, or 1 after saying why not. */
static int commit(struct mt_outfile *of, const char *path, bool ok)
{
	int r;

	if (!ok) {
		mt_outfile_abort(of);
		mt_err("cannot write '%s'", path);
		return 1;
	}
	r = mt_outfile_commit(of);
	if (r < 0)
		mt_err("cannot write '%s': %s", path, strerror(-r));
	return r < 0;
}

/* Runs gnuplot on script; 0, or 1 after saying why not. */
static int run_gnuplot(const char *script)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	pid_t pid;
	int st;

	if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0) {
		mt_err("PNG and PDF figures are drawn by gnuplot, which is not installed (hint: "
		       "apt-get install gnuplot-nox, or write .svg)");
		return 1;
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		mt_err("gnuplot failed on '%s'", script);
		return 1;
	}
	return 0;
}

/* --script: the data and the gnuplot script beside the figure, for the user to edit. */
static int write_script(struct mt_plot *p)
{
	char data[4096], script[4096];
	struct mt_outfile od, os;
	FILE *f;

	sibling(o.output, ".tsv", data, sizeof(data));
	sibling(o.output, ".gp", script, sizeof(script));
	if (!(f = create(&od, data)))
		return 1;
	mt_plot_data(p, f);
	if (commit(&od, data, !ferror(f)) || !(f = create(&os, script)))
		return 1;
	mt_plot_script(p, f, data, o.output, NULL);
	return commit(&os, script, !ferror(f));
}

static int write_figure(struct mt_plot *p)
{
	const char *ext = strrchr(o.output, '.');
	bool svg = ext && !strcmp(ext, ".svg");
	char data[4096], script[4096], tmpdir[] = "/tmp/memtap-plot-XXXXXX";
	struct mt_outfile of;
	FILE *f;
	int rc;

	if (o.script && write_script(p))
		return 1;
	if (svg) { /* drawn here */
		if (!(f = create(&of, o.output)))
			return 1;
		mt_plot_svg(p, f, (int)o.width, (int)o.height);
		return commit(&of, o.output, !ferror(f));
	}
	/* gnuplot draws into the new file; its inputs live in a private directory meanwhile */
	if (!create(&of, o.output))
		return 1;
	if (!mkdtemp(tmpdir)) {
		mt_err("cannot make a temporary directory: %s", strerror(errno));
		mt_outfile_abort(&of);
		return 1;
	}
	snprintf(data, sizeof(data), "%s/fig.tsv", tmpdir);
	snprintf(script, sizeof(script), "%s/fig.gp", tmpdir);
	rc = 1;
	if ((f = fopen(data, "wxe"))) {
		mt_plot_data(p, f);
		rc = fclose(f) != 0;
	}
	if (!rc && (f = fopen(script, "wxe"))) {
		mt_plot_script(p, f, data, o.output, of.tmp);
		rc = fclose(f) != 0;
	} else {
		rc = 1;
	}
	if (rc)
		mt_err("cannot write gnuplot's input in '%s'", tmpdir);
	else
		rc = run_gnuplot(script);
	unlink(data);
	unlink(script);
	rmdir(tmpdir);
	if (rc) { /* gnuplot said why */
		mt_outfile_abort(&of);
		return 1;
	}
	return commit(&of, o.output, true);
}

/* One trace into the figure; 0, or 1 after saying why not. */
static int add_one(struct mt_plot *p, const char *path, const char *label,
		   const struct mt_access_opts *ao, bool split)
{
	struct mt_reader *r = mt_cli_open_trace(path);
	int e;

	if (!r)
		return 1;
	mt_cli_progress(r, "reading");
	e = mt_plot_add(p, r, label, ao, split);
	mt_cli_progress_done();
	if (e == -ENODATA)
		mt_err("'%s' holds nothing for a %s figure (its collector was off or found "
		       "nothing; see memtap info)",
		       path, kinds[o.kind]);
	else if (e < 0)
		mt_err_code(e, "'%s'", path);
	else
		mt_cli_warn_damage(path, r, NULL);
	mt_reader_free(r);
	return e < 0;
}

/* An experiment's results directory (it has an index)? */
static bool is_results(const char *path)
{
	char idx[4200];
	struct stat st;

	snprintf(idx, sizeof(idx), "%s/index.sqlite", path);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(idx, R_OK) == 0;
}

static bool plotted(const struct mt_exp_index_row *r)
{
	return !strcmp(r->kind, "traced") && !strcmp(r->status, "ok") &&
	       (o.contaminated || !r->validity || strcmp(r->validity, "contaminated"));
}

/* The traced runs of an experiment's results: a line each, or per workload and
 * configuration (--by config) the mean of its runs. */
static int add_results(struct mt_plot *p, const char *dir, const struct mt_access_opts *ao)
{
	struct mt_exp_index_row *rows;
	size_t n, shown = 0;
	bool many_workloads = false;
	int rc = mt_exp_index_read(dir, &rows, &n);

	if (rc < 0) {
		mt_err("'%s': its index.sqlite is not an experiment's index", dir);
		return 1;
	}
	for (size_t i = 1; i < n; i++)
		many_workloads |= strcmp(rows[i].workload, rows[0].workload) != 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t from = p->nseries, count = 0;
		char label[512], path[4200];
		bool first = true;

		/* the group of row i, unless an earlier row began it */
		for (size_t j = 0; j < i && first; j++)
			first = !(plotted(&rows[j]) &&
				  !strcmp(rows[j].workload, rows[i].workload) &&
				  !strcmp(rows[j].config, rows[i].config));
		if (!plotted(&rows[i]) || !first)
			continue;
		for (size_t j = i; j < n && !rc; j++) {
			if (!plotted(&rows[j]) || strcmp(rows[j].workload, rows[i].workload) ||
			    strcmp(rows[j].config, rows[i].config))
				continue;
			snprintf(path, sizeof(path), "%s/%s/trace.mtap", dir, rows[j].directory);
			snprintf(label, sizeof(label), "%s%s%s rep %u",
				 many_workloads ? rows[j].workload : "", many_workloads ? " " : "",
				 rows[j].config, rows[j].rep);
			rc = add_one(p, path, label, ao, false);
			count++;
		}
		if (!rc && o.by == 1) {
			snprintf(label, sizeof(label), "%s%s%s (mean of %zu run%s)",
				 many_workloads ? rows[i].workload : "", many_workloads ? " " : "",
				 rows[i].config, count, count == 1 ? "" : "s");
			rc = mt_plot_merge(p, from, label) < 0;
		}
		shown += count;
	}
	mt_exp_index_free(rows, n);
	if (!rc && !shown) {
		mt_err("'%s': no traced run that succeeded%s", dir,
		       o.contaminated ? "" : " and is not contaminated (--include-contaminated)");
		return 1;
	}
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct mt_access_opts ao = { 0 };
	struct mt_rules rules = { 0 };
	struct mt_plot p = { 0 };
	const char *ext;
	char labels[4096], *save = NULL, *lab;
	int nargs, rc;

	rc = mt_opts_parse(&mt_plot_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.output)
		return mt_usage_error(&mt_plot_spec, "-o FIG is required (.svg, .png or .pdf)");
	ext = strrchr(o.output, '.');
	if (!ext || (strcmp(ext, ".svg") && strcmp(ext, ".png") && strcmp(ext, ".pdf")))
		return mt_usage_error(&mt_plot_spec,
				      "the figure '%s' must end in .svg, .png or .pdf", o.output);
	{
		bool dirs = false;

		for (int i = 0; i < nargs; i++)
			dirs |= is_results(argv[i]);
		if (o.by == 1 && !dirs)
			return mt_usage_error(&mt_plot_spec, "--by config draws an experiment's "
							     "results directory (memtap run)");
		if (o.kind == MT_PLOT_HEATMAP && dirs)
			return mt_usage_error(&mt_plot_spec, "a heatmap shows one trace, not an "
							     "experiment's runs");
	}
	if (o.kind == MT_PLOT_HEATMAP && nargs > 1)
		return mt_usage_error(&mt_plot_spec, "a heatmap shows one trace (%d given)", nargs);
	if (o.width < 200 || o.width > 10000 || o.height < 150 || o.height > 10000)
		return mt_usage_error(&mt_plot_spec, "--width 200..10000 and --height 150..10000");
	rc = mt_cli_analysis_opts(&mt_plot_spec, o.window_ms, o.mrm, o.rules, o.profiles, &ao,
				  &rules);
	if (rc)
		return rc;
	snprintf(labels, sizeof(labels), "%s", o.labels ? o.labels : "");
	lab = o.labels ? strtok_r(labels, ",", &save) : NULL;
	p.kind = (enum mt_plot_kind)o.kind;
	rc = 0;
	for (int i = 0; i < nargs && !rc; i++) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];

		if (is_results(argv[i])) {
			rc = add_results(&p, argv[i], &ao);
			continue;
		}
		rc = add_one(&p, argv[i], lab ? lab : base, &ao, o.by_type || nargs == 1);
		if (lab)
			lab = strtok_r(NULL, ",", &save);
	}
	if (!rc && o.title)
		snprintf(p.title, sizeof(p.title), "%s", o.title);
	if (!rc)
		rc = write_figure(&p);
	mt_plot_release(&p);
	mt_rules_release(&rules);
	return rc;
}
