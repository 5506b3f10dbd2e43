/* SPDX-License-Identifier: MIT */
/* memtap run --slurm: the experiment's runs as one Slurm job array, a task per run. */
#ifndef MEMTAP_EXP_SLURM_H
#define MEMTAP_EXP_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "exp/experiment.h"

struct mt_exp_slurm_opts {
	const char *memtap; /* the memtap binary the tasks run */
	const char *exp_path; /* the experiment file, absolute */
	bool retry_failed; /* failed runs are submitted again (and the tasks run them) */
	unsigned parallel; /* tasks at once (sbatch --array=...%K); above 1, nodes exclusive */
	char **sbatch_args; /* more sbatch options, as given */
	size_t nsbatch;
};

/*
 * Submits the runs not complete yet in the results directory as one job array whose task
 * ids are their indices in the plan (memtap plan), throttled to opts->parallel at once so
 * that the plan's order holds: writes RESULTS/slurm/job.sh (each task: memtap run EXP
 * --task $SLURM_ARRAY_TASK_ID), runs sbatch; the tasks' output goes to
 * RESULTS/slurm/JOB_TASK.out. *ntasks: the runs submitted (0: nothing to do, nothing
 * submitted); jobid: the array's job id. < 0 with err set on failure.
 */
int mt_exp_slurm_submit(const struct mt_experiment *exp, const struct mt_exp_run *runs, size_t n,
			const struct mt_exp_slurm_opts *o, char *jobid, size_t jobsize,
			size_t *ntasks, char *err, size_t errsize);

#endif
