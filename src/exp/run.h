/* SPDX-License-Identifier: MIT */
/* memtap run EXP.yaml: the plan's runs executed, their results kept, resumable. */
#ifndef MEMTAP_EXP_RUN_H
#define MEMTAP_EXP_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "exp/experiment.h"

struct mt_exp_run_opts {
	const char *memtap; /* the memtap binary traced runs start */
	bool retry_failed; /* run again the runs that failed before (else they are kept) */
	bool progress; /* "run i of N" with an ETA on stderr (a TTY) */
	volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM: the current run is killed */
	size_t task; /* run only the run of this index (a Slurm array task); 0: every run */
};

struct mt_exp_summary {
	size_t ok, failed, skipped, interrupted;
	size_t failed_before; /* of the skipped: failed in an earlier run, kept */
};

/*
 * Runs the plan's runs in order into the results directory. A run whose directory holds a
 * run.json whose manifest verifies is complete and skipped (a failed one is run again with
 * retry_failed). Knobs are set per configuration and restored at the end, after a failed
 * run and on *stop. Returns 0 when every run ran (some may have failed: see *sum), < 0 with
 * err set when the experiment could not go on (the results directory, a knob).
 */
int mt_exp_execute(const struct mt_experiment *exp, const struct mt_exp_run *runs, size_t n,
		   const struct mt_exp_run_opts *o, struct mt_exp_summary *sum, char *err,
		   size_t errsize);

/* Run r's state in the results directory: 1 complete and ok, 2 complete and failed, 0 not
 * complete (no run.json, or its files no longer match its manifest). */
int mt_exp_run_state(const struct mt_experiment *exp, const struct mt_exp_run *r);

#endif
