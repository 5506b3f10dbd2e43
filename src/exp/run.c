/* SPDX-License-Identifier: MIT */
/* memtap run: an experiment's runs executed in the plan's order, resumable, knobs restored. */
#include "common/clock.h"
#include "common/strutil.h"
#include "common/cpulist.h"
#include "exp/run-internal.h"
#include "record/alloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THP "/sys/kernel/mm/transparent_hugepage/"

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- knobs: transparent huge pages, read before, set per configuration, restored ---- */

/* The bracketed choice of a sysfs choice file ("always [madvise] never"). */
static int read_choice(const char *path, char *out, size_t size)
{
	char buf[256];
	FILE *f = fopen(path, "re");
	char *a, *b;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b || (size_t)(b - a - 1) >= size)
		return -EINVAL;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = 0;
	return 0;
}

/* A sysctl's number, as text. */
static int read_number(const char *path, char *out, size_t size)
{
	int rc = mt_read_line_file(path, out, size);

	if (rc < 0)
		return rc;
	out[strcspn(out, " ")] = 0;
	return out[0] && strspn(out, "0123456789") == strlen(out) ? 0 : -EINVAL;
}

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Sets one knob to want (NULL: its original value); saves the original the first time. */
static int set_knob(struct mt_exp_knob *k, const char *want, char *err, size_t errsize)
{
	int rc;

	if (!want && !k->orig[0])
		return 0; /* never touched: nothing to put back */
	if (!k->orig[0]) {
		if ((rc = k->number ? read_number(k->file, k->orig, sizeof(k->orig))
				    : read_choice(k->file, k->orig, sizeof(k->orig))) < 0) {
			snprintf(err, errsize, "cannot read %s: %s", k->file, strerror(-rc));
			return rc;
		}
		snprintf(k->cur, sizeof(k->cur), "%s", k->orig);
	}
	if (!want)
		want = k->orig;
	if (!strcmp(k->cur, want))
		return 0;
	if ((rc = write_str(k->file, want)) < 0) {
		snprintf(err, errsize, "cannot set %s to %s: %s", k->file, want, strerror(-rc));
		return rc;
	}
	snprintf(k->cur, sizeof(k->cur), "%s", want);
	return 0;
}

int mt_exp_apply_knobs(struct mt_exp_knobs *k, const struct mt_exp_config *c, char *err,
		       size_t errsize)
{
	char rate[24], pct[24];
	int rc;

	snprintf(rate, sizeof(rate), "%lld", (long long)c->perf_max_sample_rate);
	snprintf(pct, sizeof(pct), "%lld", (long long)c->perf_cpu_time_max_percent);
	if ((rc = set_knob(&k->thp_enabled, c->thp_enabled, err, errsize)) < 0 ||
	    (rc = set_knob(&k->thp_defrag, c->thp_defrag, err, errsize)) < 0 ||
	    (rc = set_knob(&k->perf_rate, c->perf_max_sample_rate >= 0 ? rate : NULL, err,
			   errsize)) < 0)
		return rc;
	return set_knob(&k->perf_pct, c->perf_cpu_time_max_percent >= 0 ? pct : NULL, err, errsize);
}

void mt_exp_restore_knobs(struct mt_exp_knobs *k)
{
	char err[256];

	if (k->thp_enabled.orig[0])
		(void)set_knob(&k->thp_enabled, NULL, err, sizeof(err));
	if (k->thp_defrag.orig[0])
		(void)set_knob(&k->thp_defrag, NULL, err, sizeof(err));
	if (k->perf_rate.orig[0])
		(void)set_knob(&k->perf_rate, NULL, err, sizeof(err));
	if (k->perf_pct.orig[0])
		(void)set_knob(&k->perf_pct, NULL, err, sizeof(err));
}

/* ---- processes ---- */

/* Starts argv in its own process group, in cwd with env added, output to out and errf
 * (NULL: /dev/null). */
pid_t mt_exp_spawn(char *const *argv, const struct mt_exp_workload *w, const char *cwd,
		   const char *out, const char *errf)
{
	return mt_exp_spawn_placed(argv, w, cwd, out, errf, NULL, -1, NULL);
}

/* In the child: CPUs (a list, or the node's) and memory (the node), checked by validate. */
static void place(const char *cpus, int numa_node)
{
	cpu_set_t set;

	if (numa_node >= 0 && mt_numa_bind(numa_node) < 0)
		_exit(126);
	if ((cpus	      ? mt_cpulist_parse(cpus, &set)
	     : numa_node >= 0 ? mt_numa_node_cpus(numa_node, &set)
			      : -1) == 0 &&
	    CPU_COUNT(&set) && sched_setaffinity(0, sizeof(set), &set) < 0)
		_exit(126);
}

pid_t mt_exp_spawn_placed(char *const *argv, const struct mt_exp_workload *w, const char *cwd,
			  const char *out, const char *errf, const char *cpus, int numa_node,
			  const struct mt_exp_config *heap)
{
	char spec[4200], lib[4200], pre[16384];
	const char *cur;
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	place(cpus, numa_node);
	/* the heap placed by libmemtap-heap.so, preloaded first (checked by validate) */
	if (heap && mt_exp_heap_spec(heap, spec, sizeof(spec))) {
		if (mt_find_lib("libmemtap-heap.so", lib, sizeof(lib)) < 0)
			_exit(126);
		cur = getenv("LD_PRELOAD");
		snprintf(pre, sizeof(pre), "%s%s%s", lib, cur && *cur ? ":" : "", cur ? cur : "");
		setenv("LD_PRELOAD", pre, 1);
		setenv("MEMTAP_HEAP", spec, 1);
	}
	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	for (size_t i = 0; w && i < w->nenv; i++)
		setenv(w->env[i].key, w->env[i].value, 1);
	if (cwd && chdir(cwd) < 0)
		_exit(126);
	for (int fd = 1; fd <= 2; fd++) {
		const char *p = fd == 1 ? out : errf;
		int o = p ? open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
			  : open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (o < 0 || dup2(o, fd) < 0)
			_exit(126);
	}
	execvp(argv[0], argv);
	_exit(127);
}

/*
 * Signals the process group pid leads and the groups of its children: a run under
 * `memtap record` has its command in a group of its own (memtap is no terminal's
 * foreground job here), which a signal to memtap's group alone would not reach.
 */
static void signal_groups(pid_t pid, int sig)
{
	char path[64], buf[4096], *save = NULL;
	pid_t groups[256];
	size_t n = 0;
	FILE *f;

	/* The children's groups first: a leader killed first has no children to list. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if ((f = fopen(path, "re"))) {
		if (fgets(buf, sizeof(buf), f))
			for (char *tok = strtok_r(buf, " \n", &save); tok && n < 256;
			     tok = strtok_r(NULL, " \n", &save)) {
				pid_t c = (pid_t)atoi(tok), g = c > 0 ? getpgid(c) : -1;

				if (g > 0 && g != pid && g != getpgrp())
					groups[n++] = g;
			}
		fclose(f);
	}
	killpg(pid, sig);
	for (size_t i = 0; i < n; i++)
		killpg(groups[i], sig);
}

/* Ends a process group: SIGTERM, then SIGKILL after grace_ms; reaps the leader. */
void mt_exp_stop_group(pid_t pid, long grace_ms)
{
	int st;

	if (pid <= 0)
		return;
	killpg(pid, SIGTERM);
	for (long t = 0; t < grace_ms; t += 10) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			goto gone;
		nap_ms(10);
	}
	signal_groups(pid, SIGKILL);
	waitpid(pid, &st, 0);
gone:
	killpg(pid, SIGKILL); /* what the leader left behind */
}

/* Waits for pid: its status and resources; killed after timeout_s (0: none) or on *stop. */
int mt_exp_wait(pid_t pid, double timeout_s, volatile sig_atomic_t *stop, int *status,
		struct rusage *ru, const char **why)
{
	uint64_t t0 = mt_now_ns();

	*why = NULL;
	for (;;) {
		pid_t r = wait4(pid, status, WNOHANG, ru);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (stop && *stop) {
			*why = "interrupted";
			break;
		}
		if (timeout_s > 0 && (double)(mt_now_ns() - t0) / 1e9 > timeout_s) {
			*why = "timeout";
			break;
		}
		nap_ms(5);
	}
	killpg(pid, SIGTERM);
	for (int i = 0; i < 200 && wait4(pid, status, WNOHANG, ru) != pid; i++)
		nap_ms(10);
	signal_groups(pid, SIGKILL);
	wait4(pid, status, 0, ru);
	return 0;
}

static bool tcp_ready(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return false;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(s, (struct sockaddr *)&a, sizeof(a));
	close(s);
	return rc == 0;
}

/* Starts the workload's services and waits until each is ready; pids[] for stop_group(). */
/* Waits until sv's readiness check passes while pid (the process it is for) lives; 0, or -1
 * with err set. what names it in messages ("service redis-server", "the command"). */
int mt_exp_wait_ready(const struct mt_exp_service *sv, pid_t pid, const struct mt_exp_workload *w,
		      const char *cwd, const char *what, char *err, size_t errsize)
{
	uint64_t t0 = mt_now_ns();
	int st;

	while ((double)(mt_now_ns() - t0) / 1e9 < sv->timeout_s) {
		bool ready;

		if (waitpid(pid, &st, WNOHANG) == pid) {
			snprintf(err, errsize, "%s exited before it was ready", what);
			return -2; /* reaped */
		}
		if (sv->ready_tcp) {
			ready = tcp_ready(sv->ready_tcp);
		} else {
			pid_t c = mt_exp_spawn(sv->ready_cmd.argv, w, cwd, NULL, NULL);

			ready = c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
				WEXITSTATUS(st) == 0;
		}
		if (ready)
			return 0;
		nap_ms(50);
	}
	snprintf(err, errsize, "%s was not ready within %g s", what, sv->timeout_s);
	return -1;
}

int mt_exp_start_services(const struct mt_exp_workload *w, const char *cwd, const char *dir,
			  pid_t *pids, char *err, size_t errsize)
{
	for (size_t i = 0; i < w->nservices; i++) {
		const struct mt_exp_service *sv = &w->services[i];
		char out[1200], what[300], why[300];
		int rc;

		snprintf(out, sizeof(out), "%s/service-%s.log", dir, sv->name);
		pids[i] = mt_exp_spawn(sv->cmd.argv, w, cwd, out, out);
		if (pids[i] < 0) {
			snprintf(err, errsize, "service %s: cannot start: %s", sv->name,
				 strerror(errno));
			return -1;
		}
		snprintf(what, sizeof(what), "service %s", sv->name);
		if ((rc = mt_exp_wait_ready(sv, pids[i], w, cwd, what, why, sizeof(why))) < 0) {
			if (rc == -2)
				pids[i] = 0;
			snprintf(err, errsize, "%s (%s)", why, out);
			return -1;
		}
	}
	return 0;
}

/* A setup or teardown command, to completion: 0 when it exited 0. */
int mt_exp_step(const struct mt_exp_cmd *c, const struct mt_exp_workload *w, const char *cwd,
		const char *dir, const char *name)
{
	char log[1200];
	pid_t pid;
	int st;

	if (!c->argv)
		return 0;
	snprintf(log, sizeof(log), "%s/%s.log", dir, name);
	pid = mt_exp_spawn(c->argv, w, cwd, log, log);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
