/* SPDX-License-Identifier: MIT */
/* memtap validate | plan EXP.yaml: an experiment's file checked, and its runs in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/log.h"
#include "cli/util.h"
#include "common/strutil.h"
#include "exp/experiment.h"
#include "exp/run.h"
#include "exp/slurm.h"
#include "export/json.h"
#include "export/table.h"

static struct {
	int format;
	bool retry_failed;
	bool slurm;
	uint64_t task, parallel;
	struct mt_optlist sbatch;
} o;

static const char *const formats[] = { "text", "json", NULL };

static const struct mt_option validate_options[] = {
	{ NULL },
};

static const struct mt_option plan_options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ NULL },
};

static const struct mt_option run_options[] = {
	{ "retry-failed", 0, MT_OPT_FLAG, &o.retry_failed, NULL,
	  "run again the runs that failed before (complete ones are always skipped)" },
	{ "slurm", 0, MT_OPT_FLAG, &o.slurm, NULL,
	  "submit the runs not complete as one Slurm job array (a task per run) and return" },
	{ "slurm-parallel", 0, MT_OPT_U64, &o.parallel, "K",
	  "--slurm: tasks at once, each on a node of its own (default 1: the plan's order)" },
	{ "sbatch", 0, MT_OPT_LIST, &o.sbatch, "OPTION",
	  "--slurm: an sbatch option (--sbatch=--partition=P; repeatable)" },
	{ "task", 0, MT_OPT_U64, &o.task, "N", "run only run N of the plan (a Slurm array task)" },
	{ NULL },
};

#define EXP_DESCRIPTION                                                                  \
	"An experiment (docs/experiments.md) runs workloads x configurations x\n"        \
	"repetitions: configurations in sequence (order: by-config) or all shuffled\n"   \
	"(order: shuffle), each one's runs in an order shuffled with the file's seed,\n" \
	"untraced baseline runs interleaved with the traced ones (baselines:\n"          \
	"interleaved), warm-up runs first. A problem in the file is one line\n"          \
	"FILE:LINE:COLUMN: problem and exit status 2.\n\n"

const struct mt_command_spec mt_validate_spec = {
	.name = "validate",
	.usage = "EXPERIMENT.yaml",
	.summary = "check an experiment file, and that this machine can run it",
	.description = EXP_DESCRIPTION
	"validate also checks what the experiment asks of this machine: the knobs it sets\n"
	"(transparent huge pages, perf's sample-rate limits), its CPUs and NUMA nodes,\n"
	"the PMEM directory, the programs it runs, and each configuration's memtap\n"
	"record options.\n",
	.opts = validate_options,
	.min_args = 1,
	.max_args = 1,
};

const struct mt_command_spec mt_run_spec = {
	.name = "run",
	.usage = "EXPERIMENT.yaml [options]",
	.summary = "run an experiment: its runs in the plan's order, into its results directory",
	.description = EXP_DESCRIPTION
	"run checks the file and the machine as validate does, then runs the plan (memtap\n"
	"plan prints it): each run in its directory under the results directory, with\n"
	"its stdout, stderr, trace (traced runs), metadata.json (command, status, times,\n"
	"CPU, peak RSS, knobs as applied, host; the machine around the run, memtap's own\n"
	"cost, the trace's headline figures, and the run's class: clean, marginal or\n"
	"contaminated, with the reasons), manifest.sha256 and, written last, run.json;\n"
	"index.sqlite holds every run (memtap runs reads it). Before the first run,\n"
	"the machine's idle CPU is measured (validity: idle_seconds). Running it again\n"
	"resumes: a run whose run.json and manifest hold is\n"
	"skipped. Knobs (transparent huge pages, perf's limits) are set per configuration,\n"
	"the workload and memtap placed on their CPUs and NUMA node, and knobs restored\n"
	"at the end, after a failed run and on SIGINT or SIGTERM, which also stop the\n"
	"current run (it runs again next time). Exit status: 0 when every run succeeded,\n"
	"1 when a run failed (each says why on stderr), 130 when interrupted.\n\n"
	"--slurm submits the runs not complete yet as one job array (sbatch), a task per\n"
	"run whose id is its number in the plan, at most --slurm-parallel at once (1: in\n"
	"the plan's order); each task runs memtap run EXPERIMENT.yaml --task N into the\n"
	"results directory, which must be on a filesystem the nodes share. memtap runs\n"
	"reads the results as they arrive.\n",
	.opts = run_options,
	.min_args = 1,
	.max_args = 1,
};

const struct mt_command_spec mt_plan_spec = {
	.name = "plan",
	.usage = "EXPERIMENT.yaml [options]",
	.summary = "print an experiment's runs in the order they run, and their commands",
	.description = EXP_DESCRIPTION
	"plan runs nothing: it prints every run (index, configuration, workload,\n"
	"repetition, kind: warmup, traced or baseline), the directory its results go to\n"
	"(workload=W/config=C/kind=K/rep=R under the results directory) and the command\n"
	"run. The same file gives the same plan on every machine.\n",
	.opts = plan_options,
	.min_args = 1,
	.max_args = 1,
};

/* "--name", "--name=value" or "--no-name" of memtap record's options; the runner sets the
 * output itself. */
static const char *bad_record_option(const char *arg)
{
	const char *name = arg + 2, *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	bool negated = false;

	if (strncmp(arg, "--", 2) || !n)
		return "is not a long option (--NAME or --NAME=VALUE)";
	for (int pass = 0; pass < 2; pass++) {
		for (const struct mt_option *op = mt_record_spec.opts; op->name; op++) {
			if (strlen(op->name) != n || strncmp(op->name, name, n))
				continue;
			if (!strcmp(op->name, "output") || !strcmp(op->name, "force") ||
			    !strcmp(op->name, "quiet"))
				return "is set by memtap run itself";
			/* each run launches its workload: nothing to attach to, no time limit
			 * but the workload's own (its timeout) */
			if (!strcmp(op->name, "all") || !strcmp(op->name, "pid") ||
			    !strcmp(op->name, "duration"))
				return "records running processes, and memtap run launches the "
				       "workload (a workload's time limit is its timeout)";
			if (negated && !(op->flags & MT_OPTF_NEGATABLE))
				return "cannot be negated";
			if (op->type == MT_OPT_FLAG && eq)
				return "takes no value";
			if (op->type != MT_OPT_FLAG && !eq && !(op->flags & MT_OPTF_OPTIONAL_ARG))
				return "needs =VALUE";
			return NULL;
		}
		if (n <= 3 || strncmp(name, "no-", 3))
			break;
		name += 3;
		n -= 3;
		negated = true;
	}
	return "is not an option of memtap record";
}

static int load(const char *path, struct mt_experiment *x, bool machine)
{
	char err[1024];
	int rc = mt_exp_load(path, x, err, sizeof(err));

	if (rc == 0 && machine)
		rc = mt_exp_check_machine(x, err, sizeof(err));
	for (size_t i = 0; rc == 0 && i < x->nconfigs; i++)
		for (size_t k = 0; k < x->configs[i].nrecord; k++) {
			const char *why = bad_record_option(x->configs[i].record[k]);

			if (why) {
				snprintf(err, sizeof(err),
					 "%s:%u:%u: configuration '%s': record option "
					 "'%s' %s",
					 path, x->configs[i].at.line, x->configs[i].at.col,
					 x->configs[i].name, x->configs[i].record[k], why);
				rc = -1;
				break;
			}
		}
	if (rc != 0) {
		mt_err("%s", err);
		if (x->path)
			mt_exp_release(x);
		return 2;
	}
	if (machine && mt_exp_interference(x, err, sizeof(err)) > 0)
		mt_warn("%s: %s", path, err);
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	struct mt_experiment x;
	size_t nruns;
	struct mt_exp_run *runs;
	int nargs, r = mt_opts_parse(&mt_validate_spec, argc, argv, &nargs);

	if (r)
		return r == 1 ? 0 : r;
	if ((r = load(argv[0], &x, true)) != 0)
		return r;
	if (mt_exp_plan(&x, &runs, &nruns) < 0) {
		mt_exp_release(&x);
		return 1;
	}
	printf("%s: experiment %s: %zu workload%s x %zu configuration%s x %u repetition%s, %zu "
	       "runs; this machine can run it\n",
	       argv[0], x.name, x.nworkloads, x.nworkloads == 1 ? "" : "s", x.nconfigs,
	       x.nconfigs == 1 ? "" : "s", x.repetitions, x.repetitions == 1 ? "" : "s", nruns);
	free(runs);
	mt_exp_release(&x);
	return 0;
}

static char *cmd_line(char **argv)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	for (size_t i = 0; argv && argv[i]; i++) {
		if (i)
			fputc(' ', f);
		mt_fputs_sh(f, argv[i]);
	}
	fclose(f);
	return buf;
}

/* The results directory and run r's directory and trace under it. */
static int run_paths(const struct mt_experiment *x, const struct mt_exp_run *r, char *dir,
		     size_t dsize, char *trace, size_t tsize)
{
	char rel[512];

	if (mt_exp_run_dir(x, r, rel, sizeof(rel)) < 0)
		return -1;
	if (snprintf(dir, dsize, "%s/%s", x->results, rel) >= (int)dsize ||
	    snprintf(trace, tsize, "%s/trace.mtap", dir) >= (int)tsize)
		return -1;
	return 0;
}

static void plan_json_run(const struct mt_experiment *x, const struct mt_exp_run *r,
			  struct mt_json *j)
{
	char dir[1024], trace[1100], **argv = NULL;

	mt_json_begin_object(j);
	mt_json_kv_u64(j, "index", r->index);
	mt_json_kv_str(j, "configuration", x->configs[r->config].name);
	mt_json_kv_str(j, "workload", x->workloads[r->workload].name);
	mt_json_kv_u64(j, "rep", r->rep);
	mt_json_kv_str(j, "kind", mt_exp_kind_name(r->kind));
	if (run_paths(x, r, dir, sizeof(dir), trace, sizeof(trace)) == 0 &&
	    mt_exp_run_argv(x, r, "memtap", trace, &argv) == 0) {
		mt_json_kv_str(j, "directory", dir);
		mt_json_key(j, "argv");
		mt_json_begin_array(j);
		for (size_t i = 0; argv[i]; i++)
			mt_json_str(j, argv[i]);
		mt_json_end_array(j);
	}
	mt_exp_argv_free(argv);
	mt_json_end_object(j);
}

static void plan_json(const struct mt_experiment *x, const struct mt_exp_run *runs, size_t n)
{
	struct mt_json j;

	mt_json_init(&j, stdout, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "experiment", x->name);
	mt_json_kv_str(&j, "file", x->path);
	mt_json_kv_u64(&j, "seed", x->seed);
	mt_json_kv_u64(&j, "repetitions", x->repetitions);
	mt_json_kv_str(&j, "order", x->order == MT_EXP_SHUFFLE ? "shuffle" : "by-config");
	mt_json_kv_str(&j, "baselines", x->baselines ? "interleaved" : "none");
	mt_json_kv_str(&j, "results", x->results);
	mt_json_key(&j, "runs");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < n; i++)
		plan_json_run(x, &runs[i], &j);
	mt_json_end_array(&j);
	mt_json_end_object(&j);
	fputc('\n', stdout);
}

static void plan_service(const struct mt_exp_service *sv, const char *what, const char *when)
{
	char *line = cmd_line(sv->cmd.argv);

	printf("; %s %s: %s, %s ", what, sv->name, line ? line : "?", when);
	free(line);
	if (sv->ready_tcp) {
		printf("127.0.0.1:%d accepts", sv->ready_tcp);
	} else if ((line = cmd_line(sv->ready_cmd.argv))) {
		printf("'%s' succeeds", line);
		free(line);
	}
	printf(" (within %g s)", sv->timeout_s);
}

static void plan_workloads(const struct mt_experiment *x)
{
	for (size_t i = 0; i < x->nworkloads; i++) {
		const struct mt_exp_workload *w = &x->workloads[i];
		char *line;

		printf("workload %s: cwd %s", w->name, w->cwd ? w->cwd : x->dir ? x->dir : ".");
		for (size_t k = 0; k < w->nenv; k++)
			printf("%s%s=%s", k ? " " : "; env ", w->env[k].key, w->env[k].value);
		if (w->setup.argv && (line = cmd_line(w->setup.argv))) {
			printf("; setup: %s", line);
			free(line);
		}
		for (size_t k = 0; k < w->nservices; k++)
			plan_service(&w->services[k], "service", "ready when");
		if (w->driver)
			plan_service(w->driver, "driver",
				     "started once the command is ready: when");
		if (w->teardown.argv && (line = cmd_line(w->teardown.argv))) {
			printf("; teardown: %s", line);
			free(line);
		}
		printf("; %u warm-up runs", w->warmup);
		if (w->timeout_s > 0)
			printf("; killed after %g s\n", w->timeout_s);
		else
			printf("; no timeout\n");
	}
}

static void plan_configs(const struct mt_experiment *x)
{
	for (size_t i = 0; i < x->nconfigs; i++) {
		const struct mt_exp_config *c = &x->configs[i];

		printf("configuration %s: %s", c->name,
		       c->baseline ? "untraced (baseline)" : "traced");
		for (size_t k = 0; k < c->nrecord; k++)
			printf("%s%s", k ? " " : ", record ", c->record[k]);
		if (c->thp_enabled || c->thp_defrag)
			printf("; transparent huge pages enabled=%s defrag=%s",
			       c->thp_enabled ? c->thp_enabled : "(as is)",
			       c->thp_defrag ? c->thp_defrag : "(as is)");
		if (c->cpus)
			printf("; workload on CPUs %s", c->cpus);
		if (c->memtap_cpus)
			printf("; memtap on CPUs %s", c->memtap_cpus);
		if (c->numa_node >= 0)
			printf("; NUMA node %d", c->numa_node);
		if (c->heap_numa_node >= 0)
			printf("; heap on NUMA node %d", c->heap_numa_node);
		if (c->heap_pmem_dir)
			printf("; heap in PMEM directory %s", c->heap_pmem_dir);
		if (c->perf_max_sample_rate >= 0)
			printf("; perf_event_max_sample_rate %lld",
			       (long long)c->perf_max_sample_rate);
		if (c->perf_cpu_time_max_percent >= 0)
			printf("; perf_cpu_time_max_percent %lld",
			       (long long)c->perf_cpu_time_max_percent);
		putchar('\n');
	}
}

static int plan_text(const struct mt_experiment *x, const struct mt_exp_run *runs, size_t n)
{
	static const char *const heads[] = { ">run", "configuration", "workload", ">rep",
					     "kind", "directory",     "command" };
	struct mt_table t;

	printf("experiment %s (%s): %zu workload%s x %zu configuration%s x %u repetition%s, seed "
	       "%llu, order %s, baselines %s: %zu runs\nresults: %s\n",
	       x->name, x->path, x->nworkloads, x->nworkloads == 1 ? "" : "s", x->nconfigs,
	       x->nconfigs == 1 ? "" : "s", x->repetitions, x->repetitions == 1 ? "" : "s",
	       (unsigned long long)x->seed, x->order == MT_EXP_SHUFFLE ? "shuffle" : "by-config",
	       x->baselines ? "interleaved" : "none", n, x->results);
	plan_workloads(x);
	plan_configs(x);
	putchar('\n');
	if (mt_table_init(&t, 7, heads) < 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		const struct mt_exp_run *r = &runs[i];
		char dir[1024], trace[1100], rel[512], **argv = NULL, *line;

		if (run_paths(x, r, dir, sizeof(dir), trace, sizeof(trace)) < 0 ||
		    mt_exp_run_dir(x, r, rel, sizeof(rel)) < 0 ||
		    mt_exp_run_argv(x, r, "memtap", trace, &argv) < 0 || !(line = cmd_line(argv))) {
			mt_exp_argv_free(argv);
			mt_table_release(&t);
			return 1;
		}
		mt_table_addf(&t, "%zu", r->index);
		mt_table_add(&t, x->configs[r->config].name);
		mt_table_add(&t, x->workloads[r->workload].name);
		mt_table_addf(&t, "%u", r->rep);
		mt_table_add(&t, mt_exp_kind_name(r->kind));
		mt_table_add(&t, rel);
		mt_table_add(&t, line);
		free(line);
		mt_exp_argv_free(argv);
	}
	mt_table_print(&t, stdout, 2, true);
	mt_table_release(&t);
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	struct mt_experiment x;
	struct mt_exp_run *runs;
	size_t n;
	int nargs, r = mt_opts_parse(&mt_plan_spec, argc, argv, &nargs);

	if (r)
		return r == 1 ? 0 : r;
	if ((r = load(argv[0], &x, false)) != 0)
		return r;
	if (mt_exp_plan(&x, &runs, &n) < 0) {
		mt_exp_release(&x);
		return 1;
	}
	if (o.format == 1)
		plan_json(&x, runs, n);
	else
		r = plan_text(&x, runs, n);
	free(runs);
	mt_exp_release(&x);
	return r;
}

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* --slurm: the runs not complete as one job array. */
static int submit(const char *path, const struct mt_experiment *x, const struct mt_exp_run *runs,
		  size_t n, const char *self)
{
	char abs[4096], job[128], err[1024];
	struct mt_exp_slurm_opts so = {
		.memtap = self,
		.exp_path = abs,
		.retry_failed = o.retry_failed,
		.parallel = o.parallel ? (unsigned)o.parallel : 1,
		.sbatch_args = (char **)o.sbatch.v,
		.nsbatch = o.sbatch.n,
	};
	size_t k;

	if (o.parallel > 100000 || !realpath(path, abs)) {
		mt_err("%s: %s", path,
		       o.parallel > 100000 ? "--slurm-parallel: at most 100000"
					   : "cannot resolve its path");
		return 2;
	}
	if (mt_exp_slurm_submit(x, runs, n, &so, job, sizeof(job), &k, err, sizeof(err)) < 0) {
		mt_err("%s: %s", path, err);
		return 1;
	}
	if (!k)
		fprintf(stderr, "memtap: experiment %s: every run is complete: nothing submitted\n",
			x->name);
	else
		mt_info("experiment %s: job array %s submitted: %zu of %zu runs, %u at once "
			"(output in %s/slurm; memtap runs list %s)",
			x->name, job, k, n, so.parallel, x->results, x->results);
	if (k)
		printf("%s\n", job);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct mt_experiment x;
	struct mt_exp_run *runs;
	struct mt_exp_summary sum;
	struct sigaction sa = { .sa_handler = on_stop };
	char self[4096], err[1024];
	ssize_t len;
	size_t n;
	int nargs, r = mt_opts_parse(&mt_run_spec, argc, argv, &nargs);

	if (r)
		return r == 1 ? 0 : r;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		fprintf(stderr, "memtap: cannot find memtap's own binary (/proc/self/exe)\n");
		return 1;
	}
	self[len] = 0;
	if ((r = load(argv[0], &x, true)) != 0)
		return r;

	if (mt_exp_plan(&x, &runs, &n) < 0) {
		mt_exp_release(&x);
		return 1;
	}
	if (o.task > n || (o.slurm && o.task)) {
		mt_err("%s: %s", argv[0],
		       o.slurm ? "--task is for the array's tasks, not with --slurm"
			       : "--task: the plan has fewer runs (memtap plan numbers them)");
		free(runs);
		mt_exp_release(&x);
		return 2;
	}
	if (o.slurm) {
		r = submit(argv[0], &x, runs, n, self);
		free(runs);
		mt_exp_release(&x);
		return r;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r = mt_exp_execute(&x, runs, n,
			   &(struct mt_exp_run_opts){ .memtap = self,
						      .retry_failed = o.retry_failed,
						      .progress = isatty(2),
						      .stop = &stop_flag,
						      .task = (size_t)o.task },
			   &sum, err, sizeof(err));
	if (r < 0)
		mt_err("%s: %s", argv[0], err);
	if (o.task)
		mt_info("experiment %s: run %llu of %zu: %s", x.name, (unsigned long long)o.task, n,
			sum.ok	      ? "ok"
			: sum.failed  ? "failed"
			: sum.skipped ? "complete before (skipped)"
				      : "interrupted");
	else
		mt_info("experiment %s: %zu runs: %zu ok, %zu failed, %zu complete before "
			"(skipped; %zu of them failed: --retry-failed runs them again)%s; results in "
			"%s",
			x.name, n, sum.ok, sum.failed, sum.skipped, sum.failed_before,
			sum.interrupted ? ", interrupted (run it again to go on)" : "", x.results);
	free(runs);
	mt_exp_release(&x);
	if (r < 0)
		return 1;
	return sum.interrupted ? 130 : sum.failed || sum.failed_before ? 1 : 0;
}
