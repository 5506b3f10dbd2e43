/* SPDX-License-Identifier: MIT */
/* The run loop: each run of the plan into its directory, with metadata and a manifest. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "exp/index.h"
#include "exp/run-internal.h"
#include "exp/telemetry.h"
#include "export/json.h"

/* The files a run leaves, in the order the manifest lists them. */
static const char *const run_files[] = { "stdout",    "stderr",	      "trace.mtap", "metadata.json",
					 "setup.log", "teardown.log", "driver.log", NULL };

/* manifest.sha256 (sha256sum's format) over the run's files that exist. */
static int write_manifest(const char *dir)
{
	char path[4200], hex[65];
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest.sha256", dir);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	for (size_t i = 0; run_files[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, run_files[i]);
		if (access(path, F_OK) == 0 && mt_sha256_file(path, hex, NULL) == 0)
			fprintf(f, "%s  %s\n", hex, run_files[i]);
	}
	return fclose(f) == 0 ? 0 : -EIO;
}

/* Does every file of the manifest still hash to what it says? */
static bool manifest_holds(const char *dir)
{
	char path[4200], line[4200], hex[65];
	FILE *f;
	bool ok = true;

	snprintf(path, sizeof(path), "%s/manifest.sha256", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (ok && fgets(line, sizeof(line), f)) {
		char *name = strstr(line, "  ");

		if (!name || name - line != 64) {
			ok = false;
			break;
		}
		name += 2;
		name[strcspn(name, "\n")] = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		ok = strchr(name, '/') == NULL && mt_sha256_file(path, hex, NULL) == 0 &&
		     !memcmp(hex, line, 64);
	}
	fclose(f);
	return ok;
}

/* A run's state from its run.json: 1 complete and ok, 2 complete and failed, 0 not done. */
static int run_state(const char *dir)
{
	char path[4200], buf[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (!manifest_holds(dir))
		return 0;
	return strstr(buf, "\"status\": \"ok\"") ? 1 : 2;
}

/* The experiment's idle baseline, measured before its first run that runs. */
struct idle {
	bool done;
	double pct;
};

struct outcome {
	const char *status; /* ok, failed, timeout, interrupted */
	char reason[512];
	int exit_status, signal;
	uint64_t t0, t1;
	struct rusage ru;
	struct mt_exp_snap before, after; /* the machine around the measured command */
	struct mt_exp_telemetry tel;
	uint64_t driver_cpu_ns; /* the driver's CPU time: the run's own */
};

static void write_metadata(const struct mt_experiment *x, const struct mt_exp_run *r,
			   char *const *argv, const char *cwd, const struct mt_exp_knobs *k,
			   const struct outcome *oc, FILE *f)
{
	const struct mt_exp_config *c = &x->configs[r->config];
	struct mt_json j;
	struct utsname u;

	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "experiment", x->name);
	mt_json_kv_str(&j, "workload", x->workloads[r->workload].name);
	mt_json_kv_str(&j, "config", x->configs[r->config].name);
	mt_json_kv_str(&j, "kind", mt_exp_kind_name(r->kind));
	mt_json_kv_u64(&j, "rep", r->rep);
	mt_json_kv_u64(&j, "index", r->index);
	mt_json_key(&j, "argv");
	mt_json_begin_array(&j);
	for (size_t i = 0; argv[i]; i++)
		mt_json_str(&j, argv[i]);
	mt_json_end_array(&j);
	mt_json_kv_str(&j, "cwd", cwd);
	mt_json_kv_str(&j, "status", oc->status);
	if (oc->reason[0])
		mt_json_kv_str(&j, "reason", oc->reason);
	mt_json_kv_i64(&j, "exit_status", oc->exit_status);
	mt_json_kv_i64(&j, "signal", oc->signal);
	mt_json_kv_u64(&j, "start_ns", oc->t0); /* CLOCK_MONOTONIC */
	mt_json_kv_u64(&j, "wall_ns", oc->t1 - oc->t0);
	/* the run's process tree (memtap and the workload for a traced run) */
	mt_json_kv_u64(&j, "user_ns", mt_timeval_ns(oc->ru.ru_utime));
	mt_json_kv_u64(&j, "sys_ns", mt_timeval_ns(oc->ru.ru_stime));
	mt_json_kv_u64(&j, "max_rss_bytes", (uint64_t)oc->ru.ru_maxrss * 1024);
	mt_exp_telemetry_json(&j, &oc->tel);
	mt_json_key(&j, "knobs");
	mt_json_begin_object(&j);
	if (k->thp_enabled.cur[0])
		mt_json_kv_str(&j, "thp_enabled", k->thp_enabled.cur);
	if (k->thp_defrag.cur[0])
		mt_json_kv_str(&j, "thp_defrag", k->thp_defrag.cur);
	if (k->perf_rate.cur[0])
		mt_json_kv_u64(&j, "perf_max_sample_rate", strtoull(k->perf_rate.cur, NULL, 10));
	if (k->perf_pct.cur[0])
		mt_json_kv_u64(&j, "perf_cpu_time_max_percent",
			       strtoull(k->perf_pct.cur, NULL, 10));
	if (c->cpus)
		mt_json_kv_str(&j, "cpus", c->cpus);
	if (c->memtap_cpus && r->kind == MT_EXP_TRACED)
		mt_json_kv_str(&j, "memtap_cpus", c->memtap_cpus);
	if (c->numa_node >= 0)
		mt_json_kv_i64(&j, "numa_node", c->numa_node);
	if (c->heap_pmem_dir)
		mt_json_kv_str(&j, "heap_pmem_dir", c->heap_pmem_dir);
	if (c->heap_numa_node >= 0)
		mt_json_kv_i64(&j, "heap_numa_node", c->heap_numa_node);
	mt_json_end_object(&j);
	if (uname(&u) == 0) {
		mt_json_kv_str(&j, "host", u.nodename);
		mt_json_kv_str(&j, "kernel", u.release);
	}
	mt_json_end_object(&j);
	fputc('\n', f);
}

/* metadata.json, the manifest, then run.json (renamed into place: the run is complete). */
static int finish_run(const struct mt_experiment *x, const struct mt_exp_run *r, const char *dir,
		      char *const *argv, const char *cwd, const struct mt_exp_knobs *k,
		      const struct outcome *oc)
{
	char path[4200];
	struct mt_outfile of;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/metadata.json", dir);
	if (!(f = fopen(path, "we")))
		return -errno;
	write_metadata(x, r, argv, cwd, k, oc, f);
	if (fclose(f) != 0 || (rc = write_manifest(dir)) < 0)
		return -EIO;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	/* written last, whole or not at all: a run without it runs again */
	if ((rc = mt_outfile_open(&of, path, true, 0666)) < 0)
		return rc;
	if (!(f = mt_outfile_stream(&of))) {
		mt_outfile_abort(&of);
		return -ENOMEM;
	}
	fprintf(f, "{\n  \"status\": \"%s\",\n  \"exit_status\": %d,\n  \"wall_ns\": %llu\n}\n",
		oc->status, oc->exit_status, (unsigned long long)(oc->t1 - oc->t0));
	if (ferror(f)) {
		mt_outfile_abort(&of);
		return -EIO;
	}
	return mt_outfile_commit(&of);
}

/* The run's row in the experiment's index. */
static int index_run(const struct mt_experiment *x, const struct mt_exp_run *r, const char *base,
		     const char *rel, const struct outcome *oc)
{
	struct mt_exp_index_row row = {
		.workload = x->workloads[r->workload].name,
		.config = x->configs[r->config].name,
		.kind = mt_exp_kind_name(r->kind),
		.status = oc->status,
		.directory = rel,
		.rep = r->rep,
		.index = r->index,
		.exit_status = oc->exit_status,
		.wall_ns = oc->t1 - oc->t0,
		.user_ns = mt_timeval_ns(oc->ru.ru_utime),
		.sys_ns = mt_timeval_ns(oc->ru.ru_stime),
		.max_rss_bytes = (uint64_t)oc->ru.ru_maxrss * 1024,
		.start_ns = oc->t0,
		.validity = oc->tel.validity,
		.reason = oc->tel.reason,
		.background_pct = oc->tel.background_pct,
		.observer_cpu_pct = oc->tel.observer_cpu_pct,
		.observer_mem_pct = oc->tel.observer_mem_pct,
	};
	const struct mt_exp_telemetry *t = &oc->tel;

	row.recorder_cpu_ns = t->has_recorder ? (int64_t)t->recorder_cpu_ns : -1;
	row.recorder_max_rss = t->has_recorder ? (int64_t)t->recorder_max_rss : -1;
	row.peak_rss = t->has_rss ? (int64_t)t->peak_rss : -1;
	row.peak_heap = t->has_heap ? (int64_t)t->peak_heap : -1;
	row.faults_minor = t->has_faults ? (int64_t)t->faults_minor : -1;
	row.faults_major = t->has_faults ? (int64_t)t->faults_major : -1;
	row.wss_peak_pages = t->has_wss ? (int64_t)t->wss_peak_pages : -1;
	row.lost_events = t->trace_read ? (int64_t)t->lost_events : -1;
	row.data_read_bytes = t->has_rereads ? (int64_t)t->data_read_bytes : -1;
	row.reread_bytes = t->has_rereads ? (int64_t)t->reread_bytes : -1;
	return mt_exp_index_put(base, &row);
}

#define DRIVER_GRACE_S 10 /* for the command to exit after its driver ended */

/* The workload's driver: started once the command (pid) is ready, waited for. 0 when it
 * exited 0; else -1 with the reason in why, and *gone when the command exited (and was
 * reaped) before it was ready. */
static int drive(const struct mt_exp_workload *w, const char *cwd, const char *dir, pid_t pid,
		 const struct mt_exp_run_opts *o, char *why, size_t size, bool *gone,
		 uint64_t *cpu_ns)
{
	const struct mt_exp_service *d = w->driver;
	char log[4200];
	const char *w2 = NULL;
	struct rusage ru;
	int st = 0, rc = mt_exp_wait_ready(d, pid, w, cwd, "the command", why, size);
	pid_t dp;

	*gone = rc == -2;
	if (rc < 0)
		return -1;
	snprintf(log, sizeof(log), "%s/driver.log", dir);
	dp = mt_exp_spawn(d->cmd.argv, w, cwd, log, log);
	if (dp < 0 || mt_exp_wait(dp, w->timeout_s, o->stop, &st, &ru, &w2) < 0) {
		snprintf(why, size, "driver %s: cannot run: %s", d->name, strerror(errno));
		return -1;
	}
	*cpu_ns = mt_timeval_ns(ru.ru_utime) +
		  mt_timeval_ns(ru.ru_stime); /* the run's, not the background's */
	if (w2) {
		snprintf(why, size, "driver %s: %s", d->name, w2);
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, size, "driver %s: exit status %d (driver.log)", d->name,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -1;
	}
	return 0;
}

/* The measured command itself, with its services and setup/teardown around it. */
static void execute_one(const struct mt_experiment *x, const struct mt_exp_run *r, const char *dir,
			char *const *argv, const char *cwd, const struct mt_exp_run_opts *o,
			struct outcome *oc)
{
	const struct mt_exp_workload *w = &x->workloads[r->workload];
	const struct mt_exp_config *c = &x->configs[r->config];
	pid_t services[64] = { 0 }, pid;
	char out[4200], errp[4200];
	const char *why = NULL;
	bool gone = false, driven = true;
	int st = 0;

	oc->status = "failed";
	oc->t0 = oc->t1 = mt_now_ns();
	if (mt_exp_step(&w->setup, w, cwd, dir, "setup") < 0) {
		snprintf(oc->reason, sizeof(oc->reason), "setup failed (setup.log)");
		goto teardown;
	}
	if (mt_exp_start_services(w, cwd, dir, services, oc->reason, sizeof(oc->reason)) < 0)
		goto stop;
	snprintf(out, sizeof(out), "%s/stdout", dir);
	snprintf(errp, sizeof(errp), "%s/stderr", dir);
	mt_exp_snap(&oc->before, services, w->nservices);
	oc->t0 = mt_now_ns();
	/* traced: memtap on its own CPUs, the command placed by memtap record (its --cpus and
	 * --numa-node); untraced: the command placed here */
	if (r->kind == MT_EXP_TRACED)
		pid = mt_exp_spawn_placed(argv, w, cwd, out, errp, c->memtap_cpus, -1, NULL);
	else
		pid = mt_exp_spawn_placed(argv, w, cwd, out, errp, c->cpus, c->numa_node, c);
	if (pid >= 0 && w->driver &&
	    drive(w, cwd, dir, pid, o, oc->reason, sizeof(oc->reason), &gone, &oc->driver_cpu_ns) <
		    0) {
		driven = false;
		if (gone) { /* nothing to wait for */
			oc->t1 = mt_now_ns();
			oc->exit_status = -1;
			goto stop;
		}
	}
	/* after a driver, the command has a grace period to exit (the driver stops it) */
	if (pid < 0 || mt_exp_wait(pid, w->driver ? DRIVER_GRACE_S : w->timeout_s, o->stop, &st,
				   &oc->ru, &why) < 0) {
		snprintf(oc->reason, sizeof(oc->reason), "cannot run: %s", strerror(errno));
		goto stop;
	}
	oc->t1 = mt_now_ns();
	mt_exp_snap(&oc->after, services, w->nservices);
	oc->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	oc->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (why && !strcmp(why, "interrupted")) {
		oc->status = why;
		snprintf(oc->reason, sizeof(oc->reason), "interrupted after %.3f s",
			 (double)(oc->t1 - oc->t0) / 1e9);
	} else if (!driven) {
		/* the driver's reason stands */
	} else if (why && w->driver) {
		snprintf(oc->reason, sizeof(oc->reason),
			 "the command did not exit within %d s after its driver ended",
			 DRIVER_GRACE_S);
	} else if (why) {
		oc->status = why;
		snprintf(oc->reason, sizeof(oc->reason), "%s after %.3f s", why,
			 (double)(oc->t1 - oc->t0) / 1e9);
	} else if (oc->exit_status == 0) {
		oc->status = "ok";
	} else {
		snprintf(oc->reason, sizeof(oc->reason), "exit status %d (stderr)",
			 oc->exit_status);
	}
stop:
	for (size_t i = w->nservices; i-- > 0;)
		mt_exp_stop_group(services[i], 5000);
teardown:
	if (mt_exp_step(&w->teardown, w, cwd, dir, "teardown") < 0 && !strcmp(oc->status, "ok")) {
		oc->status = "failed";
		snprintf(oc->reason, sizeof(oc->reason), "teardown failed (teardown.log)");
	}
}

int mt_exp_run_state(const struct mt_experiment *x, const struct mt_exp_run *r)
{
	char rel[1024], dir[5200];

	if (mt_exp_run_dir(x, r, rel, sizeof(rel)) < 0)
		return 0;
	snprintf(dir, sizeof(dir), "%s/%s", x->results, rel);
	return run_state(dir);
}

static void progress(const struct mt_exp_run_opts *o, const struct mt_experiment *x,
		     const struct mt_exp_run *r, size_t n, uint64_t t_start, size_t done)
{
	uint64_t el = mt_now_ns() - t_start;

	if (!o->progress)
		return;
	/* the raw stream: the line moves the cursor on purpose (names are checked: letters,
	 * digits, '.', '_', '-') */
	fprintf(mt_stderr_raw(), "\r\033[Krun %zu of %zu: %s/%s %s %u", r->index, n,
		x->configs[r->config].name, x->workloads[r->workload].name,
		mt_exp_kind_name(r->kind), r->rep);
	if (done)
		fprintf(mt_stderr_raw(), ", about %.0f s left",
			(double)el / 1e9 / (double)done * (double)(n - r->index + 1));
	fflush(mt_stderr_raw());
}

/* One run: skipped when complete, else run and recorded. 1: interrupted. */
/* The run's telemetry and class, from the snapshots around it and, traced, its trace. */
static void assess(const struct mt_experiment *x, const struct mt_exp_run *r, const char *trace,
		   struct idle *idle, struct outcome *oc)
{
	mt_exp_telemetry_init(&oc->tel);
	if (!oc->after.t_ns)
		return; /* the command never ran */
	mt_exp_telemetry_from(&oc->tel, &oc->before, &oc->after,
			      mt_timeval_ns(oc->ru.ru_utime) + mt_timeval_ns(oc->ru.ru_stime) +
				      oc->driver_cpu_ns,
			      idle->pct);
	if (r->kind == MT_EXP_TRACED && !strcmp(oc->status, "ok") &&
	    !mt_exp_telemetry_trace(&oc->tel, trace))
		fprintf(stderr, "memtap: run %zu: cannot read its trace %s\n", r->index, trace);
	mt_exp_classify(&oc->tel, &x->validity);
}

static int one_run(const struct mt_experiment *x, const struct mt_exp_run *r, const char *base,
		   const struct mt_exp_run_opts *o, struct mt_exp_knobs *k, struct idle *idle,
		   struct mt_exp_summary *sum, char *err, size_t errsize)
{
	char rel[1024], dir[4096], trace[4200], path[4200], **argv = NULL;
	const char *cwd = x->workloads[r->workload].cwd ? x->workloads[r->workload].cwd : x->dir;
	struct outcome oc = { 0 };
	int state, rc;

	if ((rc = mt_exp_run_dir(x, r, rel, sizeof(rel))) < 0 ||
	    snprintf(dir, sizeof(dir), "%s/%s", base, rel) >= (int)sizeof(dir))
		return rc < 0 ? rc : -ENAMETOOLONG;
	state = run_state(dir);
	if (state == 1 || (state == 2 && !o->retry_failed)) {
		sum->skipped++;
		sum->failed_before += state == 2;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/run.json", dir);
	unlink(path);
	if ((rc = mt_mkdir_p(dir)) < 0) {
		snprintf(err, errsize, "cannot create %s: %s", dir, strerror(-rc));
		return rc;
	}
	if ((rc = mt_exp_apply_knobs(k, &x->configs[r->config], err, errsize)) < 0)
		return rc;
	if (!idle->done) { /* before the first run that runs: the machine doing nothing */
		idle->done = true;
		if (x->validity.idle_seconds > 0)
			idle->pct = mt_exp_idle_baseline(x->validity.idle_seconds);
	}
	snprintf(trace, sizeof(trace), "%s/trace.mtap", dir);
	if ((rc = mt_exp_run_argv(x, r, o->memtap, trace, &argv)) < 0)
		return rc;
	execute_one(x, r, dir, argv, cwd, o, &oc);
	if (!strcmp(oc.status, "interrupted")) {
		mt_exp_argv_free(argv);
		sum->interrupted++;
		return 1; /* no run.json: run again on resume */
	}
	assess(x, r, trace, idle, &oc);
	rc = finish_run(x, r, dir, argv, cwd, k, &oc);
	if (rc == 0)
		rc = index_run(x, r, base, rel, &oc);
	mt_exp_argv_free(argv);
	if (rc < 0) {
		snprintf(err, errsize, "cannot write the results of %s: %s", dir, strerror(-rc));
		return rc;
	}
	if (!strcmp(oc.status, "ok")) {
		sum->ok++;
	} else {
		sum->failed++;
		if (o->progress)
			fputs("\r\033[K", mt_stderr_raw());
		fprintf(stderr, "memtap: run %zu (%s): %s\n", r->index, rel, oc.reason);
	}
	return 0;
}

int mt_exp_execute(const struct mt_experiment *x, const struct mt_exp_run *runs, size_t n,
		   const struct mt_exp_run_opts *o, struct mt_exp_summary *sum, char *err,
		   size_t errsize)
{
	struct mt_exp_knobs k = {
		.thp_enabled = { .file = "/sys/kernel/mm/transparent_hugepage/enabled" },
		.thp_defrag = { .file = "/sys/kernel/mm/transparent_hugepage/defrag" },
		.perf_rate = { .file = "/proc/sys/kernel/perf_event_max_sample_rate",
			       .number = true },
		.perf_pct = { .file = "/proc/sys/kernel/perf_cpu_time_max_percent",
			      .number = true },
	};
	uint64_t t_start = mt_now_ns();
	struct idle idle = { false, NAN };
	char base[4096];
	size_t done = 0;
	int rc = 0;

	memset(sum, 0, sizeof(*sum));
	/* absolute: a workload runs in its own cwd, and memtap record writes there */
	if ((rc = mt_mkdir_p(x->results)) < 0 || !realpath(x->results, base)) {
		rc = rc < 0 ? rc : -errno;
		snprintf(err, errsize, "cannot create %s: %s", x->results, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t before = sum->ok + sum->failed;

		if (o->task && runs[i].index != o->task)
			continue;
		if (o->stop && *o->stop) {
			sum->interrupted++;
			break;
		}
		progress(o, x, &runs[i], n, t_start, done);
		rc = one_run(x, &runs[i], base, o, &k, &idle, sum, err, errsize);
		done += sum->ok + sum->failed - before;
	}
	mt_exp_restore_knobs(&k);
	if (o->progress)
		fputs("\r\033[K", mt_stderr_raw());
	return rc < 0 ? rc : 0;
}
