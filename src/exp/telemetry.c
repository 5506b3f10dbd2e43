/* SPDX-License-Identifier: MIT */
/* A run's telemetry (the machine around it, memtap's own cost) and its validity class. */
#include "exp/telemetry.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis/model.h"
#include "analysis/rereads.h"
#include "common/clock.h"
#include "common/strutil.h"
#include "export/json.h"
#include "format/reader.h"

static uint64_t tick_ns(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? 1000000000ull / (uint64_t)hz : 10000000ull;
}

/* A file holding one number (sysfs, procfs); -1 when absent or not one. */
static int64_t read_i64(const char *path)
{
	char buf[64], *end;
	long long v;

	if (mt_read_line_file(path, buf, sizeof(buf)) < 0)
		return -1;
	v = strtoll(buf, &end, 10);
	return end != buf && v >= 0 ? (int64_t)v : -1;
}

/* /proc/stat's first line: every CPU's busy time (user, nice, system, irq, softirq; guest
 * time is inside user) and steal. */
static bool read_cpu(uint64_t *busy, uint64_t *steal)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return false;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7)
		return false;
	*busy = (v[0] + v[1] + v[2] + v[5] + v[6]) * tick_ns();
	*steal = (n >= 8 ? v[7] : 0) * tick_ns();
	return true;
}

/* For each /sys/devices/system/cpu/cpuN: f(path of the CPU's directory, ctx). */
static void each_cpu(void (*f)(const char *dir, void *ctx), void *ctx)
{
	DIR *d = opendir("/sys/devices/system/cpu");
	struct dirent *e;
	char dir[300];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "cpu", 3) && e->d_name[3] >= '0' && e->d_name[3] <= '9') {
			snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/%s", e->d_name);
			f(dir, ctx);
		}
	closedir(d);
}

struct sum {
	int64_t total;
	size_t n;
};

static void add_throttle(const char *dir, void *ctx)
{
	static const char *const files[] = { "core_throttle_count", "package_throttle_count" };
	struct sum *s = ctx;
	char path[400];

	for (size_t i = 0; i < 2; i++) {
		int64_t v;

		snprintf(path, sizeof(path), "%s/thermal_throttle/%s", dir, files[i]);
		if ((v = read_i64(path)) >= 0) {
			s->total += v;
			s->n++;
		}
	}
}

static void add_freq(const char *dir, void *ctx)
{
	struct sum *s = ctx;
	char path[400];
	int64_t v;

	snprintf(path, sizeof(path), "%s/cpufreq/scaling_cur_freq", dir);
	if ((v = read_i64(path)) > 0) {
		s->total += v;
		s->n++;
	}
}

/* A process's CPU time and that of its reaped children (/proc/PID/stat, fields 14-17). */
static uint64_t proc_cpu_ns(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return 0;
	return (ut + st + cut + cst) * tick_ns();
}

void mt_exp_snap(struct mt_exp_snap *s, const pid_t *pids, size_t n)
{
	struct sum th = { 0 };
	struct rusage ru;

	memset(s, 0, sizeof(*s));
	s->t_ns = mt_now_ns();
	s->cpu_ok = read_cpu(&s->busy_ns, &s->steal_ns);
	each_cpu(add_throttle, &th);
	s->throttle = th.n ? th.total : -1;
	s->perf_rate = read_i64("/proc/sys/kernel/perf_event_max_sample_rate");
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		s->self_cpu_ns = mt_timeval_ns(ru.ru_utime) + mt_timeval_ns(ru.ru_stime);
	for (size_t i = 0; i < n; i++)
		if (pids[i] > 0)
			s->others_cpu_ns += proc_cpu_ns(pids[i]);
}

static double ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (double)n : 1.0;
}

double mt_exp_idle_baseline(double seconds)
{
	struct mt_exp_snap a, b;
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	double cap;

	mt_exp_snap(&a, NULL, 0);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	mt_exp_snap(&b, NULL, 0);
	cap = ncpus() * (double)(b.t_ns - a.t_ns);
	if (!a.cpu_ok || !b.cpu_ok || cap <= 0)
		return NAN;
	return 100.0 *
	       (double)(b.busy_ns - a.busy_ns + b.steal_ns - a.steal_ns -
			(b.self_cpu_ns - a.self_cpu_ns < b.busy_ns - a.busy_ns
				 ? b.self_cpu_ns - a.self_cpu_ns
				 : 0)) /
	       cap;
}

void mt_exp_telemetry_init(struct mt_exp_telemetry *t)
{
	memset(t, 0, sizeof(*t));
	t->idle_pct = t->freq_mhz = NAN;
	t->background_pct = t->background_err_pct = t->steal_pct = NAN;
	t->observer_cpu_pct = t->observer_mem_pct = NAN;
	t->throttle_events = t->perf_rate_before = t->perf_rate_after = -1;
}

void mt_exp_telemetry_from(struct mt_exp_telemetry *t, const struct mt_exp_snap *a,
			   const struct mt_exp_snap *b, uint64_t tree_cpu_ns, double idle_pct)
{
	double wall = (double)(b->t_ns - a->t_ns), cap = ncpus() * wall;
	struct sum fq = { 0 };

	mt_exp_telemetry_init(t);
	t->idle_pct = idle_pct;
	if (a->cpu_ok && b->cpu_ok && cap > 0) {
		double busy = (double)(b->busy_ns - a->busy_ns),
		       steal = (double)(b->steal_ns - a->steal_ns);
		double mine = (double)tree_cpu_ns + (double)(b->self_cpu_ns - a->self_cpu_ns) +
			      (double)(b->others_cpu_ns - a->others_cpu_ns);
		double others = busy > mine ? busy - mine : 0;

		t->background_pct = 100.0 * (others + steal) / cap;
		t->steal_pct = 100.0 * steal / cap;
		/* each CPU's counters are whole ticks at both ends */
		t->background_err_pct = 100.0 * 2.0 * (double)tick_ns() / wall;
	}
	t->throttle_events =
		a->throttle >= 0 && b->throttle >= a->throttle ? b->throttle - a->throttle : -1;
	t->perf_rate_before = a->perf_rate;
	t->perf_rate_after = b->perf_rate;
	each_cpu(add_freq, &fq);
	t->freq_mhz = fq.n ? (double)fq.total / (double)fq.n / 1000.0 : NAN;
	t->validity = "clean";
}

/* The headline figures of the trace, read once. */
static void headline(struct mt_exp_telemetry *t, const struct mt_report *rep)
{
	const struct mt_run *run = &rep->run;

	t->lost_events = run->lost_events;
	if ((t->has_recorder = run->has_recorder_cost)) {
		t->recorder_cpu_ns = run->recorder_cpu_ns;
		t->recorder_max_rss = run->recorder_max_rss;
		t->recorder_run_cpu_ns = run->recorder_run_cpu_ns;
		t->command_wall_ns = run->command_wall_ns;
	}
	if ((t->has_heap = rep->alloc.loaded && rep->alloc.st.present)) {
		t->peak_heap = rep->alloc.st.peak_bytes;
		t->alloc_calls = rep->alloc.st.calls;
	}
	if ((t->has_faults = rep->access.st.faults_present)) {
		t->faults_minor = rep->access.st.faults_minor;
		t->faults_major = rep->access.st.faults_major;
	}
	if ((t->has_wss = rep->access.st.present && rep->access.st.samples))
		t->wss_peak_pages = rep->access.st.wss_peak_pages;
	if ((t->has_rss = rep->rss.loaded && rep->rss.st.tree_peak)) {
		t->peak_rss = rep->rss.st.tree_peak;
		t->has_own = rep->rss.st.own_measured;
		t->own_peak = t->has_own ? rep->rss.st.own_peak : 0;
	}
}

bool mt_exp_telemetry_trace(struct mt_exp_telemetry *t, const char *trace)
{
	const int sections = MT_SEC_RUN | MT_SEC_ALLOC | MT_SEC_ACCESS | MT_SEC_FAULTS | MT_SEC_RSS;
	struct mt_access_opts ao = { 0 };
	struct mt_reader *r = NULL;
	struct mt_rereads rr = { 0 };
	struct mt_passes ps;
	struct mt_report rep;
	struct mt_pass p;
	bool have_rr;
	int rc;

	if (mt_reader_open(trace, &r) < 0)
		return false;
	/* one read: the report's sections and, with system calls recorded, the re-reads */
	mt_passes_init(&ps);
	mt_report_setup(&rep, r, trace, sections, 1, &ao, &ps);
	have_rr = mt_reader_event_count(r, MT_EV_SYSCALL) != 0;
	if (have_rr)
		mt_passes_add(&ps, mt_rereads_pass(r, 0, &rr, &p), &p);
	rc = mt_report_done(&rep, sections, mt_passes_run(r, &ps));
	if (rc == 0) {
		t->trace_read = true;
		headline(t, &rep);
		mt_report_release(&rep);
		if ((t->has_rereads = have_rr))
			for (size_t i = 0; i < rr.nfiles; i++)
				if (rr.files[i].kind == MT_RR_DATA) {
					t->data_read_bytes += rr.files[i].bytes_read;
					t->reread_bytes += rr.files[i].reread_bytes;
				}
	}
	if (have_rr)
		mt_rereads_release(&rr);
	mt_reader_free(r);
	if (!t->trace_read)
		return false;
	/* the recorder's CPU while the workload ran: its start-up and finish compete with
	 * nothing of the workload's */
	if (t->has_recorder && t->command_wall_ns)
		t->observer_cpu_pct =
			100.0 * (double)t->recorder_run_cpu_ns / (double)t->command_wall_ns;
	/* memtap's memory inside the workload's processes, which shares their caches and
	 * limits; the recorder's own process is shown apart (docs/experiments.md) */
	if (t->has_own)
		t->observer_mem_pct = 100.0 * (double)t->own_peak / (double)t->peak_rss;
	return true;
}

/* ---- the class ---- */

struct verdict {
	int level; /* 0 clean, 1 marginal, 2 contaminated */
	size_t k;
	char *buf;
	size_t size;
};

static void judge(struct verdict *v, const char *what, double x, const struct mt_exp_bounds *b,
		  bool at_most, const char *unit)
{
	int level;

	if (isnan(x))
		return;
	if (at_most)
		level = x <= b->clean ? 0 : x <= b->marginal ? 1 : 2;
	else
		level = x < b->clean ? 0 : x < b->marginal ? 1 : 2;
	if (!level)
		return;
	if (level > v->level)
		v->level = level;
	if (v->k < v->size)
		v->k += (size_t)snprintf(v->buf + v->k, v->size - v->k, "%s%s %.1f%s (%s %s %g)",
					 v->k ? "; " : "", what, x, unit,
					 level == 1 ? "marginal:" : "contaminated:",
					 at_most ? ">" : ">=", level == 1 ? b->clean : b->marginal);
}

void mt_exp_classify(struct mt_exp_telemetry *t, const struct mt_exp_validity *b)
{
	static const char *const names[] = { "clean", "marginal", "contaminated" };
	struct verdict v = { 0, 0, t->reason, sizeof(t->reason) };
	double bg = t->background_pct - t->background_err_pct;

	t->reason[0] = 0;
	judge(&v, "background CPU", bg < 0 ? 0 : bg, &b->background_cpu, false,
	      " % of all CPUs at least");
	judge(&v, "idle baseline CPU", t->idle_pct, &b->idle_cpu, false, " % of all CPUs");
	judge(&v, "observer CPU", t->observer_cpu_pct, &b->observer_cpu, false, " % of one CPU");
	judge(&v, "observer memory", t->observer_mem_pct, &b->observer_mem, false,
	      " % of the workload's peak RSS");
	judge(&v, "thermal throttling", t->throttle_events >= 0 ? (double)t->throttle_events : NAN,
	      &b->throttle, true, " events");
	/* the access rates changed during the run, or events were lost: at least marginal */
	if (t->perf_rate_before > 0 && t->perf_rate_after >= 0 &&
	    t->perf_rate_after < t->perf_rate_before) {
		if (!v.level)
			v.level = 1;
		if (v.k < v.size)
			v.k += (size_t)snprintf(v.buf + v.k, v.size - v.k,
						"%sthe kernel lowered perf_event_max_sample_rate "
						"from %lld to %lld (marginal)",
						v.k ? "; " : "", (long long)t->perf_rate_before,
						(long long)t->perf_rate_after);
	}
	if (t->lost_events) {
		if (!v.level)
			v.level = 1;
		if (v.k < v.size)
			v.k += (size_t)snprintf(v.buf + v.k, v.size - v.k,
						"%s%llu events lost (marginal)", v.k ? "; " : "",
						(unsigned long long)t->lost_events);
	}
	t->validity = names[v.level];
}

static void kv_opt(struct mt_json *j, const char *key, bool has, uint64_t v)
{
	if (has)
		mt_json_kv_u64(j, key, v);
	else
		mt_json_kv_null(j, key);
}

void mt_exp_telemetry_json(struct mt_json *j, const struct mt_exp_telemetry *t)
{
	mt_json_key(j, "telemetry");
	mt_json_begin_object(j);
	mt_json_kv_double(j, "idle_baseline_cpu_pct", t->idle_pct);
	mt_json_kv_double(j, "background_cpu_pct", t->background_pct);
	mt_json_kv_double(j, "background_cpu_error_pct", t->background_err_pct);
	mt_json_kv_double(j, "steal_pct", t->steal_pct);
	mt_json_kv_double(j, "cpu_freq_mhz", t->freq_mhz);
	kv_opt(j, "throttle_events", t->throttle_events >= 0, (uint64_t)t->throttle_events);
	kv_opt(j, "perf_max_sample_rate_before", t->perf_rate_before >= 0,
	       (uint64_t)t->perf_rate_before);
	kv_opt(j, "perf_max_sample_rate_after", t->perf_rate_after >= 0,
	       (uint64_t)t->perf_rate_after);
	mt_json_end_object(j);
	mt_json_key(j, "observer");
	mt_json_begin_object(j);
	kv_opt(j, "recorder_cpu_ns", t->has_recorder, t->recorder_cpu_ns);
	kv_opt(j, "recorder_max_rss_bytes", t->has_recorder, t->recorder_max_rss);
	kv_opt(j, "recorder_cpu_while_command_ran_ns", t->command_wall_ns != 0,
	       t->recorder_run_cpu_ns);
	kv_opt(j, "command_wall_ns", t->command_wall_ns != 0, t->command_wall_ns);
	kv_opt(j, "memtap_own_peak_bytes", t->has_own, t->own_peak);
	mt_json_kv_double(j, "cpu_pct", t->observer_cpu_pct);
	mt_json_kv_double(j, "memory_pct", t->observer_mem_pct);
	mt_json_end_object(j);
	mt_json_key(j, "figures");
	mt_json_begin_object(j);
	kv_opt(j, "peak_rss_bytes", t->has_rss, t->peak_rss);
	kv_opt(j, "peak_heap_bytes", t->has_heap, t->peak_heap);
	kv_opt(j, "alloc_calls", t->has_heap, t->alloc_calls);
	kv_opt(j, "faults_minor", t->has_faults, t->faults_minor);
	kv_opt(j, "faults_major", t->has_faults, t->faults_major);
	kv_opt(j, "working_set_peak_pages", t->has_wss, t->wss_peak_pages);
	kv_opt(j, "data_read_bytes", t->has_rereads, t->data_read_bytes);
	kv_opt(j, "reread_bytes", t->has_rereads, t->reread_bytes);
	kv_opt(j, "lost_events", t->trace_read, t->lost_events);
	mt_json_end_object(j);
	mt_json_key(j, "validity");
	mt_json_begin_object(j);
	if (t->validity)
		mt_json_kv_str(j, "class", t->validity);
	else
		mt_json_kv_null(j, "class");
	mt_json_kv_str(j, "reason", t->reason);
	mt_json_end_object(j);
}
