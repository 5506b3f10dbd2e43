/* SPDX-License-Identifier: MIT */
/* What an experiment asks of this machine: knobs, NUMA nodes, CPUs, directories, programs. */
#include "exp/experiment.h"
#include "record/alloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage/"

static int fail_at(const struct mt_experiment *x, struct mt_exp_mark at, char *err, size_t errsize,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail_at(const struct mt_experiment *x, struct mt_exp_mark at, char *err, size_t errsize,
		   const char *fmt, ...)
{
	int k = snprintf(err, errsize, "%s:%u:%u: ", x->path, at.line, at.col);
	va_list ap;

	if (k > 0 && (size_t)k < errsize) {
		va_start(ap, fmt);
		vsnprintf(err + k, errsize - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -ENOENT;
}

/* The highest number in a CPU list ("0-3,5"), or -1. */
static long list_max(const char *s)
{
	long max = -1;

	for (const char *p = s; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > max)
			max = v;
		p = *end ? end + 1 : end;
	}
	return max;
}

/* The highest CPU of /sys/devices/system/cpu/online's list, or -1. */
static long max_cpu(void)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	long max = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		max = list_max(buf);
	fclose(f);
	return max;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is argv[0] something this machine can run (a path that is executable, or in PATH)? */
static bool runnable(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", prog) <
			    (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

static int check_cmd(const struct mt_experiment *x, const struct mt_exp_cmd *c, const char *what,
		     char *err, size_t errsize)
{
	if (!c->argv || c->shell || runnable(c->argv[0]))
		return 0;
	return fail_at(x, c->at, err, errsize, "%s: '%s' is not a program this machine can run",
		       what, c->argv[0]);
}

static int check_workload(const struct mt_experiment *x, const struct mt_exp_workload *w, char *err,
			  size_t errsize)
{
	int rc;

	if ((rc = check_cmd(x, &w->cmd, "command", err, errsize)) < 0 ||
	    (rc = check_cmd(x, &w->setup, "setup", err, errsize)) < 0 ||
	    (rc = check_cmd(x, &w->teardown, "teardown", err, errsize)) < 0)
		return rc;
	for (size_t k = 0; k < w->nservices; k++)
		if ((rc = check_cmd(x, &w->services[k].cmd, "service", err, errsize)) < 0 ||
		    (rc = check_cmd(x, &w->services[k].ready_cmd, "ready", err, errsize)) < 0)
			return rc;
	if (w->driver && ((rc = check_cmd(x, &w->driver->cmd, "driver", err, errsize)) < 0 ||
			  (rc = check_cmd(x, &w->driver->ready_cmd, "ready", err, errsize)) < 0))
		return rc;
	if (w->cwd && w->cwd[0] == '/' && !is_dir(w->cwd))
		return fail_at(x, w->at, err, errsize, "workload '%s': cwd '%s' is not a directory",
			       w->name, w->cwd);
	return 0;
}

static int check_config(const struct mt_experiment *x, const struct mt_exp_config *c, long cpus,
			char *err, size_t errsize)
{
	char path[128];

	if ((c->thp_enabled && access(THP_DIR "enabled", W_OK) != 0) ||
	    (c->thp_defrag && access(THP_DIR "defrag", W_OK) != 0))
		return fail_at(
			x, c->at, err, errsize,
			"configuration '%s': transparent huge pages cannot be set here (" THP_DIR
			" missing or not writable)",
			c->name);
	if (c->cpus && list_max(c->cpus) > cpus)
		return fail_at(x, c->at, err, errsize,
			       "configuration '%s': cpus %s, but this machine's CPUs are 0-%ld",
			       c->name, c->cpus, cpus);
	if (c->memtap_cpus && list_max(c->memtap_cpus) > cpus)
		return fail_at(
			x, c->at, err, errsize,
			"configuration '%s': memtap_cpus %s, but this machine's CPUs are 0-%ld",
			c->name, c->memtap_cpus, cpus);
	for (int k = 0; k < 2; k++) {
		int node = k ? c->heap_numa_node : c->numa_node;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
		if (node >= 0 && !is_dir(path))
			return fail_at(x, c->at, err, errsize,
				       "configuration '%s': NUMA node %d does not exist here",
				       c->name, node);
	}
	if (c->heap_pmem_dir && !is_dir(c->heap_pmem_dir))
		return fail_at(x, c->at, err, errsize,
			       "configuration '%s': heap pmem_dir '%s' is not a directory", c->name,
			       c->heap_pmem_dir);
	if ((c->heap_pmem_dir || c->heap_numa_node >= 0) &&
	    mt_find_lib("libmemtap-heap.so", path, sizeof(path)) < 0)
		return fail_at(x, c->at, err, errsize,
			       "configuration '%s': heap placement needs libmemtap-heap.so (%s), "
			       "which memtap builds with libmemkind (Debian: libmemkind-dev)",
			       c->name, path);
	if ((c->perf_max_sample_rate >= 0 &&
	     access("/proc/sys/kernel/perf_event_max_sample_rate", W_OK) != 0) ||
	    (c->perf_cpu_time_max_percent >= 0 &&
	     access("/proc/sys/kernel/perf_cpu_time_max_percent", W_OK) != 0))
		return fail_at(x, c->at, err, errsize,
			       "configuration '%s': perf's sample-rate limits cannot be set here",
			       c->name);
	return 0;
}

int mt_exp_check_machine(const struct mt_experiment *x, char *err, size_t errsize)
{
	long cpus = max_cpu();
	int rc;

	for (size_t i = 0; i < x->nworkloads; i++)
		if ((rc = check_workload(x, &x->workloads[i], err, errsize)) < 0)
			return rc;
	for (size_t i = 0; i < x->nconfigs; i++)
		if ((rc = check_config(x, &x->configs[i], cpus, err, errsize)) < 0)
			return rc;
	return 0;
}

/* Does this configuration's memtap record keep page-write tracking on? (It is on by default;
 * --page-writes-ms 0 turns it off.) */
static bool tracks_page_writes(const struct mt_exp_config *c)
{
	if (c->baseline)
		return false;
	for (size_t i = 0; i < c->nrecord; i++) {
		const char *o = c->record[i];

		if (!strcmp(o, "--page-writes-ms=0") ||
		    (!strcmp(o, "--page-writes-ms") && i + 1 < c->nrecord &&
		     !strcmp(c->record[i + 1], "0")))
			return false;
	}
	return true;
}

int mt_exp_interference(const struct mt_experiment *x, char *msg, size_t size)
{
	const char *first = NULL, *tracked = NULL;
	bool varies = false;

	for (size_t i = 0; i < x->nconfigs; i++) {
		const struct mt_exp_config *c = &x->configs[i];
		const char *thp = c->thp_enabled ? c->thp_enabled : "(left alone)";

		if (!first)
			first = thp;
		else if (strcmp(first, thp))
			varies = true;
		if (!tracked && tracks_page_writes(c))
			tracked = c->name;
	}
	if (!varies || !tracked)
		return 0;
	snprintf(msg, size,
		 "the configurations vary transparent huge pages, and '%s' records with page-write "
		 "tracking on: it leaves huge pages whole and untracked, but its protected small "
		 "pages hold khugepaged's collapse back (hint: add --page-writes-ms=0 to the "
		 "configurations' record options)",
		 tracked);
	return 1;
}
