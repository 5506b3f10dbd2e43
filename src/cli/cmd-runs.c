/* SPDX-License-Identifier: MIT */
/* memtap runs list|stat DIR: an experiment's results, from its index. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "exp/index.h"
#include "export/json.h"
#include "export/table.h"

static struct {
	int format;
} o;

static const char *const formats[] = { "text", "json", "csv", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ NULL },
};

const struct mt_command_spec mt_runs_spec = {
	.name = "runs",
	.usage = "list|stat DIR [options]",
	.summary = "an experiment's results: its runs, or figures per workload and configuration",
	.description =
		"DIR is an experiment's results directory (memtap run writes index.sqlite\n"
		"there, one row per completed run). list prints every run: configuration,\n"
		"workload, kind, repetition, status, exit status, wall time, CPU time, peak RSS\n"
		"and directory. stat aggregates, per workload x configuration, the runs that\n"
		"succeeded (warm-ups left out): how many, mean and standard deviation of the\n"
		"wall time (traced runs; baseline runs for a baseline configuration), the\n"
		"baselines' mean, the observer effect (traced / baseline mean wall time, with a\n"
		"95% bootstrap interval over 2000 seeded resamples), mean peak RSS of the run's\n"
		"process tree (traced and baseline), and failed runs.\n",
	.opts = options,
	.min_args = 2,
	.max_args = 2,
};

static void fmt_s(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.3f", v);
}

static int list(const struct mt_exp_index_row *r, size_t n)
{
	static const char *const heads[] = { ">run",   "configuration", "workload", "kind",
					     ">rep",   "status",	">exit",    ">wall s",
					     ">cpu s", ">peak RSS MiB", "directory" };
	struct mt_table t;

	if (o.format == 1) {
		struct mt_json j;

		mt_json_init(&j, stdout, true);
		mt_json_begin_array(&j);
		for (size_t i = 0; i < n; i++) {
			mt_json_begin_object(&j);
			mt_json_kv_u64(&j, "index", r[i].index);
			mt_json_kv_str(&j, "configuration", r[i].config);
			mt_json_kv_str(&j, "workload", r[i].workload);
			mt_json_kv_str(&j, "kind", r[i].kind);
			mt_json_kv_u64(&j, "rep", r[i].rep);
			mt_json_kv_str(&j, "status", r[i].status);
			mt_json_kv_i64(&j, "exit_status", r[i].exit_status);
			mt_json_kv_u64(&j, "wall_ns", r[i].wall_ns);
			mt_json_kv_u64(&j, "user_ns", r[i].user_ns);
			mt_json_kv_u64(&j, "sys_ns", r[i].sys_ns);
			mt_json_kv_u64(&j, "max_rss_bytes", r[i].max_rss_bytes);
			mt_json_kv_str(&j, "directory", r[i].directory);
			mt_json_end_object(&j);
		}
		mt_json_end_array(&j);
		putchar('\n');
		return 0;
	}
	if (mt_table_init(&t, 11, heads) < 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		mt_table_addf(&t, "%zu", r[i].index);
		mt_table_add(&t, r[i].config);
		mt_table_add(&t, r[i].workload);
		mt_table_add(&t, r[i].kind);
		mt_table_addf(&t, "%u", r[i].rep);
		mt_table_add(&t, r[i].status);
		mt_table_addf(&t, "%d", r[i].exit_status);
		mt_table_addf(&t, "%.3f", (double)r[i].wall_ns / 1e9);
		mt_table_addf(&t, "%.3f", (double)(r[i].user_ns + r[i].sys_ns) / 1e9);
		mt_table_addf(&t, "%.1f", (double)r[i].max_rss_bytes / 1048576.0);
		mt_table_add(&t, r[i].directory);
	}
	if (o.format == 2)
		mt_table_csv(&t, stdout);
	else
		mt_table_print(&t, stdout, 0, true);
	mt_table_release(&t);
	return 0;
}

static void stat_json(const struct mt_exp_stat *s, size_t n)
{
	struct mt_json j;

	mt_json_init(&j, stdout, true);
	mt_json_begin_array(&j);
	for (size_t i = 0; i < n; i++) {
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "workload", s[i].workload);
		mt_json_kv_str(&j, "configuration", s[i].config);
		mt_json_kv_u64(&j, "traced_runs", s[i].traced);
		mt_json_kv_u64(&j, "baseline_runs", s[i].baseline);
		mt_json_kv_u64(&j, "failed_runs", s[i].failed);
		mt_json_kv_double(&j, "wall_mean_s", s[i].wall_mean_s);
		mt_json_kv_double(&j, "wall_sd_s", s[i].wall_sd_s);
		mt_json_kv_double(&j, "baseline_wall_mean_s", s[i].base_mean_s);
		mt_json_kv_double(&j, "baseline_wall_sd_s", s[i].base_sd_s);
		mt_json_kv_double(&j, "observer_effect", s[i].observer);
		mt_json_kv_double(&j, "observer_effect_ci_low", s[i].observer_lo);
		mt_json_kv_double(&j, "observer_effect_ci_high", s[i].observer_hi);
		mt_json_kv_double(&j, "peak_rss_mean_bytes", s[i].rss_mean);
		mt_json_kv_double(&j, "baseline_peak_rss_mean_bytes", s[i].base_rss_mean);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	putchar('\n');
}

static int stat(const struct mt_exp_index_row *r, size_t n)
{
	static const char *const heads[] = { "workload",	 "configuration", ">runs",
					     ">wall s",		 ">sd",		  ">baseline s",
					     ">observer effect", ">95% CI",	  ">peak RSS MiB",
					     ">baseline MiB",	 ">failed" };
	struct mt_exp_stat *s;
	struct mt_table t;
	size_t ns;
	char b[4][32];

	if (mt_exp_stats(r, n, &s, &ns) < 0)
		return 1;
	if (o.format == 1) {
		stat_json(s, ns);
		free(s);
		return 0;
	}
	if (mt_table_init(&t, 11, heads) < 0) {
		free(s);
		return 1;
	}
	for (size_t i = 0; i < ns; i++) {
		mt_table_add(&t, s[i].workload);
		mt_table_add(&t, s[i].config);
		mt_table_addf(&t, "%zu+%zu", s[i].traced, s[i].baseline);
		fmt_s(b[0], 32, s[i].wall_mean_s);
		fmt_s(b[1], 32, s[i].wall_sd_s);
		fmt_s(b[2], 32, s[i].base_mean_s);
		mt_table_add(&t, b[0]);
		mt_table_add(&t, b[1]);
		mt_table_add(&t, b[2]);
		if (isnan(s[i].observer)) {
			mt_table_add(&t, "-");
			mt_table_add(&t, "-");
		} else {
			mt_table_addf(&t, "%.3fx", s[i].observer);
			mt_table_addf(&t, "%.3f-%.3f", s[i].observer_lo, s[i].observer_hi);
		}
		mt_table_addf(&t, "%.1f", s[i].rss_mean / 1048576.0);
		if (isnan(s[i].base_rss_mean))
			mt_table_add(&t, "-");
		else
			mt_table_addf(&t, "%.1f", s[i].base_rss_mean / 1048576.0);
		mt_table_addf(&t, "%zu", s[i].failed);
	}
	if (o.format == 2)
		mt_table_csv(&t, stdout);
	else
		mt_table_print(&t, stdout, 0, true);
	mt_table_release(&t);
	free(s);
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	struct mt_exp_index_row *rows;
	size_t n;
	int nargs, r = mt_opts_parse(&mt_runs_spec, argc, argv, &nargs);

	if (r)
		return r == 1 ? 0 : r;
	if (strcmp(argv[0], "list") && strcmp(argv[0], "stat"))
		return mt_usage_error(&mt_runs_spec, "'%s': list or stat", argv[0]);
	r = mt_exp_index_read(argv[1], &rows, &n);
	if (r < 0) {
		fprintf(stderr, "memtap: %s: %s\n", argv[1],
			r == -ENOENT ? "no index.sqlite: not an experiment's results directory"
				     : "index.sqlite is not an experiment's index");
		return 2;
	}
	r = !strcmp(argv[0], "list") ? list(rows, n) : stat(rows, n);
	mt_exp_index_free(rows, n);
	return r;
}
