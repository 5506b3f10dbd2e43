/* SPDX-License-Identifier: MIT */
/* memtap runs list|stat|show|compare DIR: an experiment's results, from its index. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "exp/index.h"
#include "exp/stats.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

enum { F_TEXT, F_MD, F_JSON, F_CSV };

static struct {
	int format;
	bool contaminated;
	int kind;
} o;

static const char *const formats[] = { "text", "md", "json", "csv", NULL };
static const char *const kinds[] = { "auto", "traced", "baseline", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ', so "
	  "that a spreadsheet never evaluates them)" },
	{ "include-contaminated", 0, MT_OPT_FLAG, &o.contaminated, NULL,
	  "stat, compare: aggregate contaminated runs too" },
	{ "kind", 0, MT_OPT_CHOICE, &o.kind, "KIND",
	  "compare: the runs compared (auto: traced when both have them)", kinds },
	{ NULL },
};

const struct mt_command_spec mt_runs_spec = {
	.name = "runs",
	.usage = "list|stat|show|compare DIR [RUN | CONFIG_A CONFIG_B] [options]",
	.summary = "an experiment's results: its runs, figures per workload and configuration, "
		   "one run, two configurations side by side",
	.description =
		"DIR is an experiment's results directory (memtap run writes index.sqlite\n"
		"there, one row per completed run).\n"
		"list: every run: configuration, workload, kind, repetition, status, validity\n"
		"class, wall time, CPU time, peak RSS and directory.\n"
		"stat: per workload x configuration, over the runs that succeeded (warm-ups\n"
		"and contaminated runs left out, unless --include-contaminated): how many,\n"
		"mean and standard deviation of the wall time (traced runs; baseline runs\n"
		"for a baseline configuration), the baselines' mean, the observer effect\n"
		"(traced / baseline mean wall time, with a 95% bootstrap interval over 2000\n"
		"seeded resamples), mean peak RSS, peak heap, page faults and memtap's own\n"
		"CPU time, marginal, contaminated and failed runs.\n"
		"show RUN: one run (its number in list, or its directory): status, validity\n"
		"and why, telemetry, memtap's own cost, headline figures; --format json prints\n"
		"its metadata.json.\n"
		"compare CONFIG_A CONFIG_B: per workload, each figure's mean under both\n"
		"configurations and B/A with its 95% bootstrap interval.\n",
	.opts = options,
	.min_args = 2,
	.max_args = 4,
};

static void emit(struct mt_table *t)
{
	if (o.format == F_CSV)
		mt_table_csv(t, stdout);
	else if (o.format == F_MD)
		mt_report_md_table(t, stdout);
	else
		mt_table_print(t, stdout, 0, true);
	mt_table_release(t);
}

/* v / scale with dec decimals (-1: 6 significant digits) and a suffix; "-" for NaN. */
static void add_num(struct mt_table *t, double v, double scale, int dec, const char *suffix)
{
	if (isnan(v))
		mt_table_add(t, "-");
	else if (dec < 0)
		mt_table_addf(t, "%.6g%s", v / scale, suffix);
	else
		mt_table_addf(t, "%.*f%s", dec, v / scale, suffix);
}

static void kv_opt(struct mt_json *j, const char *key, int64_t v)
{
	if (v < 0)
		mt_json_kv_null(j, key);
	else
		mt_json_kv_i64(j, key, v);
}

static void row_json(struct mt_json *j, const struct mt_exp_index_row *r)
{
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "index", r->index);
	mt_json_kv_str(j, "configuration", r->config);
	mt_json_kv_str(j, "workload", r->workload);
	mt_json_kv_str(j, "kind", r->kind);
	mt_json_kv_u64(j, "rep", r->rep);
	mt_json_kv_str(j, "status", r->status);
	mt_json_kv_i64(j, "exit_status", r->exit_status);
	mt_json_kv_u64(j, "wall_ns", r->wall_ns);
	mt_json_kv_u64(j, "user_ns", r->user_ns);
	mt_json_kv_u64(j, "sys_ns", r->sys_ns);
	mt_json_kv_u64(j, "max_rss_bytes", r->max_rss_bytes);
	if (r->validity)
		mt_json_kv_str(j, "validity", r->validity);
	else
		mt_json_kv_null(j, "validity");
	mt_json_kv_str(j, "validity_reason", r->reason ? r->reason : "");
	mt_json_kv_double(j, "background_cpu_pct", r->background_pct);
	mt_json_kv_double(j, "observer_cpu_pct", r->observer_cpu_pct);
	mt_json_kv_double(j, "observer_mem_pct", r->observer_mem_pct);
	kv_opt(j, "recorder_cpu_ns", r->recorder_cpu_ns);
	kv_opt(j, "recorder_max_rss_bytes", r->recorder_max_rss);
	kv_opt(j, "peak_rss_bytes", r->peak_rss);
	kv_opt(j, "peak_heap_bytes", r->peak_heap);
	kv_opt(j, "faults_minor", r->faults_minor);
	kv_opt(j, "faults_major", r->faults_major);
	kv_opt(j, "working_set_peak_pages", r->wss_peak_pages);
	kv_opt(j, "lost_events", r->lost_events);
	kv_opt(j, "data_read_bytes", r->data_read_bytes);
	kv_opt(j, "reread_bytes", r->reread_bytes);
	mt_json_kv_str(j, "directory", r->directory);
	mt_json_end_object(j);
}

static int list(const struct mt_exp_index_row *r, size_t n)
{
	static const char *const heads[] = { ">run",	 "configuration", "workload",
					     "kind",	 ">rep",	  "status",
					     "validity", ">exit",	  ">wall s",
					     ">cpu s",	 ">peak RSS MiB", "directory" };
	struct mt_table t;

	if (o.format == F_JSON) {
		struct mt_json j;

		mt_json_init(&j, stdout, true);
		mt_json_begin_array(&j);
		for (size_t i = 0; i < n; i++)
			row_json(&j, &r[i]);
		mt_json_end_array(&j);
		putchar('\n');
		return 0;
	}
	if (mt_table_init(&t, 12, heads) < 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		mt_table_addf(&t, "%zu", r[i].index);
		mt_table_add(&t, r[i].config);
		mt_table_add(&t, r[i].workload);
		mt_table_add(&t, r[i].kind);
		mt_table_addf(&t, "%u", r[i].rep);
		mt_table_add(&t, r[i].status);
		mt_table_add(&t, r[i].validity ? r[i].validity : "-");
		mt_table_addf(&t, "%d", r[i].exit_status);
		mt_table_addf(&t, "%.3f", (double)r[i].wall_ns / 1e9);
		mt_table_addf(&t, "%.3f", (double)(r[i].user_ns + r[i].sys_ns) / 1e9);
		add_num(&t, mt_exp_fig(&r[i], MT_FIG_RSS), 1048576.0, 1, "");
		mt_table_add(&t, r[i].directory);
	}
	emit(&t);
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
		mt_json_kv_str(&j, "kind", s[i].kind);
		mt_json_kv_u64(&j, "traced_runs", s[i].traced);
		mt_json_kv_u64(&j, "baseline_runs", s[i].baseline);
		mt_json_kv_u64(&j, "failed_runs", s[i].failed);
		mt_json_kv_u64(&j, "contaminated_runs", s[i].contaminated);
		mt_json_kv_u64(&j, "marginal_runs", s[i].marginal);
		mt_json_kv_double(&j, "wall_mean_s", s[i].mean[MT_FIG_WALL]);
		mt_json_kv_double(&j, "wall_sd_s", s[i].sd[MT_FIG_WALL]);
		mt_json_kv_double(&j, "baseline_wall_mean_s", s[i].base_mean_s);
		mt_json_kv_double(&j, "baseline_wall_sd_s", s[i].base_sd_s);
		mt_json_kv_double(&j, "observer_effect", s[i].observer);
		mt_json_kv_double(&j, "observer_effect_ci_low", s[i].observer_lo);
		mt_json_kv_double(&j, "observer_effect_ci_high", s[i].observer_hi);
		mt_json_kv_double(&j, "peak_rss_mean_bytes", s[i].mean[MT_FIG_RSS]);
		mt_json_kv_double(&j, "baseline_peak_rss_mean_bytes", s[i].base_rss_mean);
		mt_json_key(&j, "figures");
		mt_json_begin_object(&j);
		for (int f = 0; f < MT_NFIGS; f++) {
			mt_json_key(&j, mt_exp_fig_name(f));
			mt_json_begin_object(&j);
			mt_json_kv_u64(&j, "runs", s[i].count[f]);
			mt_json_kv_double(&j, "mean", s[i].mean[f]);
			mt_json_kv_double(&j, "sd", s[i].sd[f]);
			mt_json_end_object(&j);
		}
		mt_json_end_object(&j);
		mt_json_end_object(&j);
	}
	mt_json_end_array(&j);
	putchar('\n');
}

static int stat(const struct mt_exp_index_row *r, size_t n)
{
	static const char *const heads[] = {
		"workload",	 "configuration", ">runs",	  ">wall s",	   ">sd",
		">baseline s",	 ">observer",	  ">95% CI",	  ">peak RSS MiB", ">heap MiB",
		">faults",	 ">read MiB",	  ">re-read MiB", ">memtap cpu s", ">marginal",
		">contaminated", ">failed",
	};
	struct mt_exp_stat *s;
	struct mt_table t;
	size_t ns;

	if (mt_exp_stats(r, n, o.contaminated, &s, &ns) < 0)
		return 1;
	if (o.format == F_JSON) {
		stat_json(s, ns);
		free(s);
		return 0;
	}
	if (mt_table_init(&t, 17, heads) < 0) {
		free(s);
		return 1;
	}
	for (size_t i = 0; i < ns; i++) {
		mt_table_add(&t, s[i].workload);
		mt_table_add(&t, s[i].config);
		mt_table_addf(&t, "%zu+%zu", s[i].traced, s[i].baseline);
		add_num(&t, s[i].mean[MT_FIG_WALL], 1, 3, "");
		add_num(&t, s[i].sd[MT_FIG_WALL], 1, 3, "");
		add_num(&t, s[i].base_mean_s, 1, 3, "");
		add_num(&t, s[i].observer, 1, 3, "x");
		if (isnan(s[i].observer_lo))
			mt_table_add(&t, "-");
		else
			mt_table_addf(&t, "%.3f-%.3f", s[i].observer_lo, s[i].observer_hi);
		add_num(&t, s[i].mean[MT_FIG_RSS], 1048576.0, 1, "");
		add_num(&t, s[i].mean[MT_FIG_HEAP], 1048576.0, 1, "");
		add_num(&t, s[i].mean[MT_FIG_FAULTS], 1, 0, "");
		add_num(&t, s[i].mean[MT_FIG_DATA_READ], 1048576.0, 1, "");
		add_num(&t, s[i].mean[MT_FIG_REREAD], 1048576.0, 1, "");
		add_num(&t, s[i].mean[MT_FIG_RECORDER_CPU], 1, 3, "");
		mt_table_addf(&t, "%zu", s[i].marginal);
		mt_table_addf(&t, "%zu", s[i].contaminated);
		mt_table_addf(&t, "%zu", s[i].failed);
	}
	emit(&t);
	free(s);
	return 0;
}

/* The run named by its number in list or by its directory; NULL when none is. */
static const struct mt_exp_index_row *find_run(const struct mt_exp_index_row *r, size_t n,
					       const char *name)
{
	char *end;
	unsigned long long k = strtoull(name, &end, 10);
	size_t len = strlen(name);

	while (len > 1 && name[len - 1] == '/')
		len--;
	for (size_t i = 0; i < n; i++)
		if ((!*end && *name && r[i].index == k) ||
		    (strlen(r[i].directory) == len && !strncmp(r[i].directory, name, len)))
			return &r[i];
	return NULL;
}

static int cat_file(const char *path)
{
	char buf[8192];
	size_t k;
	FILE *f = fopen(path, "re");

	if (!f) {
		mt_err("%s: %s", path, strerror(errno));
		return 1;
	}
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, k, stdout);
	fclose(f);
	return 0;
}

static double opt_d(int64_t v)
{
	return v < 0 ? NAN : (double)v;
}

static void show_row(const char *label, double v, double scale, int dec, const char *unit)
{
	char b[96];

	if (isnan(v))
		snprintf(b, sizeof(b), "not measured");
	else
		snprintf(b, sizeof(b), "%.*f%s", dec, v / scale, unit);
	mt_summary_row(stdout, o.format == F_MD, label, "%s", b);
}

static int show(const char *dir, const struct mt_exp_index_row *r, size_t n, const char *name)
{
	const struct mt_exp_index_row *x = find_run(r, n, name);
	char path[4200];
	bool md = o.format == F_MD;

	if (!x) {
		mt_err("%s: no run '%s' (memtap runs list %s names them)", dir, name, dir);
		return 2;
	}
	if (o.format == F_JSON) {
		snprintf(path, sizeof(path), "%s/%s/metadata.json", dir, x->directory);
		return cat_file(path);
	}
	if (o.format == F_CSV) {
		fprintf(stderr, "memtap: runs show: --format text, md or json\n");
		return 2;
	}
	printf(md ? "### Run %zu: %s\n\n| | |\n|---|---|\n" : "run %zu: %s\n", x->index,
	       x->directory);
	mt_summary_row(stdout, md, "status", "%s (exit status %d)", x->status, x->exit_status);
	mt_summary_row(stdout, md, "validity", "%s%s%s", x->validity ? x->validity : "not measured",
		       x->reason && *x->reason ? ": " : "", x->reason ? x->reason : "");
	show_row("wall time", (double)x->wall_ns / 1e9, 1, 3, " s");
	show_row("CPU time (run's processes)", (double)(x->user_ns + x->sys_ns) / 1e9, 1, 3, " s");
	show_row("background CPU", x->background_pct, 1, 1, " % of all CPUs");
	show_row("memtap record's CPU", opt_d(x->recorder_cpu_ns), 1e9, 3, " s");
	show_row("memtap record's peak RSS", opt_d(x->recorder_max_rss), 1048576.0, 1, " MiB");
	show_row("observer CPU", x->observer_cpu_pct, 1, 1, " % of one CPU");
	show_row("observer memory", x->observer_mem_pct, 1, 1, " % of peak RSS");
	show_row("peak RSS", mt_exp_fig(x, MT_FIG_RSS), 1048576.0, 1, " MiB");
	show_row("peak heap", mt_exp_fig(x, MT_FIG_HEAP), 1048576.0, 1, " MiB");
	show_row("page faults", mt_exp_fig(x, MT_FIG_FAULTS), 1, 0, "");
	show_row("working set (peak pages)", mt_exp_fig(x, MT_FIG_WSS), 1, 0, "");
	show_row("data files read", opt_d(x->data_read_bytes), 1048576.0, 1, " MiB");
	show_row("read more than once", opt_d(x->reread_bytes), 1048576.0, 1, " MiB");
	show_row("lost events", opt_d(x->lost_events), 1, 0, "");
	mt_summary_row(stdout, md, "files", "%s/%s", dir, x->directory);
	return 0;
}

/* A figure's value: in people's units for text and Markdown, as measured for CSV. */
static void fig_cell(struct mt_table *t, int f, double v)
{
	if (o.format == F_CSV)
		add_num(t, v, 1, -1, "");
	else if (f == MT_FIG_RSS || f == MT_FIG_HEAP || f == MT_FIG_REREAD || f == MT_FIG_DATA_READ)
		add_num(t, v, 1048576.0, 1, " MiB");
	else if (f == MT_FIG_WALL || f == MT_FIG_RECORDER_CPU)
		add_num(t, v, 1, 3, " s");
	else
		add_num(t, v, 1, 0, "");
}

static int compare(const struct mt_exp_index_row *r, size_t n, const char *a, const char *b)
{
	char ha[80], hb[80];
	const char *heads[] = { "workload", "figure", ha, hb, ">B/A", ">95% CI" };
	const char *kind = o.kind == 1 ? "traced" : "baseline";
	struct mt_exp_cmp *c;
	struct mt_table t;
	size_t nc;

	if (!o.kind) { /* auto: traced when both configurations have traced runs */
		if (mt_exp_compare(r, n, a, b, "traced", o.contaminated, &c, &nc) < 0)
			return 1;
		free(c);
		kind = nc ? "traced" : "baseline";
	}
	if (mt_exp_compare(r, n, a, b, kind, o.contaminated, &c, &nc) < 0)
		return 1;
	if (!nc) {
		mt_err("runs compare: no workload has %s runs under both '%s' and '%s'", kind, a,
		       b);
		free(c);
		return 2;
	}
	if (o.format == F_JSON) {
		struct mt_json j;

		mt_json_init(&j, stdout, true);
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "a", a);
		mt_json_kv_str(&j, "b", b);
		mt_json_kv_str(&j, "kind", kind);
		mt_json_key(&j, "workloads");
		mt_json_begin_array(&j);
		for (size_t i = 0; i < nc; i++) {
			mt_json_begin_object(&j);
			mt_json_kv_str(&j, "workload", c[i].workload);
			mt_json_kv_u64(&j, "runs_a", c[i].na);
			mt_json_kv_u64(&j, "runs_b", c[i].nb);
			for (int f = 0; f < MT_NFIGS; f++) {
				mt_json_key(&j, mt_exp_fig_name(f));
				mt_json_begin_object(&j);
				mt_json_kv_double(&j, "a", c[i].a[f]);
				mt_json_kv_double(&j, "b", c[i].b[f]);
				mt_json_kv_double(&j, "ratio", c[i].ratio[f]);
				mt_json_kv_double(&j, "ci_low", c[i].lo[f]);
				mt_json_kv_double(&j, "ci_high", c[i].hi[f]);
				mt_json_end_object(&j);
			}
			mt_json_end_object(&j);
		}
		mt_json_end_array(&j);
		mt_json_end_object(&j);
		putchar('\n');
		free(c);
		return 0;
	}
	snprintf(ha, sizeof(ha), ">A: %s", a);
	snprintf(hb, sizeof(hb), ">B: %s", b);
	if (mt_table_init(&t, 6, heads) < 0) {
		free(c);
		return 1;
	}
	for (size_t i = 0; i < nc; i++)
		for (int f = 0; f < MT_NFIGS; f++) {
			if (isnan(c[i].a[f]) && isnan(c[i].b[f]))
				continue;
			mt_table_add(&t, c[i].workload);
			mt_table_add(&t, mt_exp_fig_name(f));
			fig_cell(&t, f, c[i].a[f]);
			fig_cell(&t, f, c[i].b[f]);
			add_num(&t, c[i].ratio[f], 1, 3, "x");
			if (isnan(c[i].lo[f]))
				mt_table_add(&t, "-");
			else
				mt_table_addf(&t, "%.3f-%.3f", c[i].lo[f], c[i].hi[f]);
		}
	if (o.format == F_TEXT)
		printf("A: %s, B: %s (%s runs; B/A with a 95%% bootstrap interval)\n", a, b, kind);
	emit(&t);
	free(c);
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	static const char *const subs[] = { "list", "stat", "show", "compare" };
	static const int nargs_of[] = { 2, 2, 3, 4 };
	struct mt_exp_index_row *rows;
	size_t n, sub = 0;
	int nargs, r = mt_opts_parse(&mt_runs_spec, argc, argv, &nargs);

	if (r)
		return r == 1 ? 0 : r;
	while (sub < 4 && strcmp(argv[0], subs[sub]))
		sub++;
	if (sub == 4)
		return mt_usage_error(&mt_runs_spec, "'%s': list, stat, show or compare", argv[0]);
	if (nargs != nargs_of[sub])
		return mt_usage_error(&mt_runs_spec, "runs %s takes %s", subs[sub],
				      sub < 2	 ? "DIR"
				      : sub == 2 ? "DIR RUN"
						 : "DIR CONFIG_A CONFIG_B");
	r = mt_exp_index_read(argv[1], &rows, &n);
	if (r < 0) {
		mt_err("%s: %s", argv[1],
		       r == -ENOENT ? "no index.sqlite: not an experiment's results directory"
				    : "index.sqlite is not an experiment's index");
		return 2;
	}
	switch (sub) {
	case 0:
		r = list(rows, n);
		break;
	case 1:
		r = stat(rows, n);
		break;
	case 2:
		r = show(argv[1], rows, n, argv[2]);
		break;
	default:
		r = compare(rows, n, argv[2], argv[3]);
	}
	mt_exp_index_free(rows, n);
	return r;
}
