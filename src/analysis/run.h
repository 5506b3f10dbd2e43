/* SPDX-License-Identifier: MIT */
/* What a trace says about its run: command, timing, exit status, collectors, losses. */
#ifndef MEMTAP_ANALYSIS_RUN_H
#define MEMTAP_ANALYSIS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_reader;
struct mt_kvlist;

struct mt_collector_info {
	const char *name;
	const char *mechanism;
	const char *status;
	const char *reason; /* may be NULL */
	uint64_t events; /* as counted by the recorder */
	uint64_t lost; /* from LOST events */
	bool final; /* the recorder wrote its closing totals */
	const struct mt_kvlist *kv; /* every key the recorder wrote for this collector */
};

struct mt_run {
	const char *command;
	int argc;
	const char **argv;
	const char *memtap_version; /* of the recorder */
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t end_ns; /* end of the recording, or the last event when cut short */
	uint64_t duration_ns;
	bool has_exit;
	int exit_status; /* shell-style */
	/* record --pid: the process attached to (0: a launched command); the figures hold from
	 * start_ns on, what was live before is not seen */
	int attach_pid;
	const char *attach_pids; /* --pid A,B,...: "A,B,..." (NULL: one process) */
	bool system_wide; /* record -a: every process but memtap's, from start_ns on */
	uint64_t exact_from_ns, exact_until_ns; /* every collector ran between them */
	/* record --pid: every allocation call from here on (the runtime was loaded into the
	 * process then; 0: not loaded), and the call slots it redirected */
	uint64_t alloc_exact_from_ns;
	uint64_t alloc_redirected_slots;
	const char *stop_reason; /* the END record's, NULL without one */
	/* record --max-size (0: none): when allocations of small blocks began to be folded and
	 * when the recording ended for it (0: never), the events the writer left out then and
	 * the earliest of their times, and when the launched command itself ended */
	struct mt_run_budget {
		uint64_t max, fold_ns, end_ns, left_out, left_out_from_ns, command_end_ns;
	} budget;
	size_t ncollectors;
	struct mt_collector_info *collectors;
	uint64_t lost_events;
	/* The recorder's own cost (its end record; absent from older traces):
	 * CPU time of its threads and its peak RSS, the workload's processes not included. */
	bool has_recorder_cost;
	uint64_t recorder_cpu_ns, recorder_max_rss;
	/* the recorder's CPU time while the command ran (its go to the tree's exit), and that
	 * span; 0 when not recorded */
	uint64_t recorder_run_cpu_ns, command_wall_ns;
	uint64_t first_event_ns, last_event_ns;
	bool has_events;
};

/* What the records alone say (no event read: no losses counted). */
int mt_run_summary(struct mt_reader *r, struct mt_run *run);
struct mt_pass;
/* Summarises the run from the trace's records; the pass counts the LOST events. */
int mt_run_pass(struct mt_reader *r, struct mt_run *run, struct mt_pass *pass);
/* The same, in a read of its own. */
int mt_run_load(struct mt_reader *r, struct mt_run *run);
void mt_run_release(struct mt_run *run);

#endif
