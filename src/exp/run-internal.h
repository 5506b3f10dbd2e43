/* SPDX-License-Identifier: MIT */
/* memtap run's pieces: knobs, processes, services (run.c), used by the run loop (run-exec.c). */
#ifndef MEMTAP_EXP_RUN_INTERNAL_H
#define MEMTAP_EXP_RUN_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "exp/run.h"

struct mt_exp_knob {
	const char *file;
	bool number; /* the file holds a number (a sysctl), not a [choice] */
	char orig[32]; /* as found before the experiment; "" while never touched */
	char cur[32];
};

struct mt_exp_knobs {
	struct mt_exp_knob thp_enabled, thp_defrag;
	struct mt_exp_knob perf_rate,
		perf_pct; /* perf_event_max_sample_rate, _cpu_time_max_percent */
};

/* Sets the configuration's knobs (a knob it leaves unset goes back to its original). */
int mt_exp_apply_knobs(struct mt_exp_knobs *k, const struct mt_exp_config *c, char *err,
		       size_t errsize);
/* Puts every knob touched back as it was found. */
void mt_exp_restore_knobs(struct mt_exp_knobs *k);
/* argv in its own process group, in cwd, with the workload's environment added; stdout and
 * stderr to those files (NULL: /dev/null). */
pid_t mt_exp_spawn(char *const *argv, const struct mt_exp_workload *w, const char *cwd,
		   const char *out, const char *errf);
/* The same on cpus (a CPU list; NULL: any) with memory on numa_node (its CPUs when cpus is
 * NULL; -1: any) and, when heap (a configuration) places the heap, libmemtap-heap.so
 * preloaded to place it. */
pid_t mt_exp_spawn_placed(char *const *argv, const struct mt_exp_workload *w, const char *cwd,
			  const char *out, const char *errf, const char *cpus, int numa_node,
			  const struct mt_exp_config *heap);
/* SIGTERM to the group, SIGKILL after grace_ms; the leader reaped. */
void mt_exp_stop_group(pid_t pid, long grace_ms);
/* Waits for pid, killing its group after timeout_s (0: never) or when *stop is set; *why is
 * then "timeout" or "interrupted", else NULL. */
int mt_exp_wait(pid_t pid, double timeout_s, volatile sig_atomic_t *stop, int *status,
		struct rusage *ru, const char **why);
/* The workload's services started in order, each waited for until ready; their log files
 * in dir. -1 with err set on failure (the ones started are in pids[], 0 for none). */
int mt_exp_start_services(const struct mt_exp_workload *w, const char *cwd, const char *dir,
			  pid_t *pids, char *err, size_t errsize);
/* Waits until sv's readiness check passes while pid lives: 0; -1 (not ready in time) or -2
 * (pid exited, and was reaped) with err set, naming it what. */
int mt_exp_wait_ready(const struct mt_exp_service *sv, pid_t pid, const struct mt_exp_workload *w,
		      const char *cwd, const char *what, char *err, size_t errsize);
/* A setup or teardown command to completion (its log as dir/NAME.log): 0 when it exited 0. */
int mt_exp_step(const struct mt_exp_cmd *c, const struct mt_exp_workload *w, const char *cwd,
		const char *dir, const char *name);

#endif
