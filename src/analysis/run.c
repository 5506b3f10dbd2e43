/* SPDX-License-Identifier: MIT */
/* The run summary: metadata, END record and collectors, with losses counted from events. */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "format/reader.h"

static uint64_t u64_of(const char *s, uint64_t def)
{
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 10);
	return *end ? def : v;
}

static const char *coll_name_of(struct mt_reader *r, uint32_t stream, uint64_t id)
{
	const char *s = mt_reader_str(r, stream, id, NULL);

	return s ? s : "?";
}

struct run_pass {
	struct mt_reader *r;
	struct mt_run *run;
};

/* Losses are counted from the LOST events themselves, which survive truncation. */
static int run_event(void *ctx, const struct mt_event *ev)
{
	struct run_pass *p = ctx;
	const char *name = coll_name_of(p->r, ev->stream, ev->v[MT_F_LOST_COLLECTOR]);
	uint64_t cnt = ev->v[MT_F_LOST_COUNT];

	p->run->lost_events += cnt;
	for (size_t k = 0; k < p->run->ncollectors; k++)
		if (!strcmp(p->run->collectors[k].name, name))
			p->run->collectors[k].lost += cnt;
	return 0;
}

static int run_finish(void *ctx, int status)
{
	struct run_pass *p = ctx;

	if (status < 0)
		mt_run_release(p->run);
	free(p);
	return status;
}

/* What the trace's metadata, END record and collector records say. */
int mt_run_summary(struct mt_reader *r, struct mt_run *run)
{
	const struct mt_kvlist *end = mt_reader_end(r);
	size_t n = mt_reader_ncollectors(r);

	memset(run, 0, sizeof(*run));
	run->command = mt_reader_meta(r, "command");
	run->memtap_version = mt_reader_meta(r, "memtap_version");
	run->argc = (int)u64_of(mt_reader_meta(r, "argc"), 0);
	if (run->argc > 100000)
		run->argc = 100000;
	run->argv = calloc((size_t)run->argc + 1, sizeof(*run->argv));
	run->collectors = calloc(n + 1, sizeof(*run->collectors));
	if (!run->argv || !run->collectors) {
		mt_run_release(run);
		return -ENOMEM;
	}
	for (int i = 0; i < run->argc; i++) {
		char key[32];

		snprintf(key, sizeof(key), "argv.%d", i);
		run->argv[i] = mt_reader_meta(r, key);
		if (!run->argv[i])
			run->argv[i] = "";
	}
	run->start_ns =
		u64_of(mt_reader_meta(r, "start_monotonic_ns"), mt_reader_file(r)->monotonic_ns);
	run->has_events = mt_reader_time_range(r, &run->first_event_ns, &run->last_event_ns);
	run->attach_pid = (int)u64_of(mt_reader_meta(r, "attach_pid"), 0);
	run->attach_pids = mt_reader_meta(r, "attach_pids");
	run->system_wide = u64_of(mt_reader_meta(r, "system_wide"), 0) == 1;
	if (end) {
		run->stop_reason = mt_kvlist_get(end, "stop_reason");
		run->exact_from_ns = u64_of(mt_kvlist_get(end, "attach_exact_from_ns"), 0);
		run->exact_until_ns = u64_of(mt_kvlist_get(end, "attach_exact_until_ns"), 0);
		run->alloc_exact_from_ns = u64_of(mt_kvlist_get(end, "alloc_exact_from_ns"), 0);
		run->alloc_redirected_slots =
			u64_of(mt_kvlist_get(end, "alloc_redirected_slots"), 0);
		run->end_ns = u64_of(mt_kvlist_get(end, "end_monotonic_ns"), 0);
		run->budget = (struct mt_run_budget){
			.max = u64_of(mt_kvlist_get(end, "max_size"), 0),
			.fold_ns = u64_of(mt_kvlist_get(end, "budget_fold_ns"), 0),
			.end_ns = u64_of(mt_kvlist_get(end, "budget_end_ns"), 0),
			.left_out = u64_of(mt_kvlist_get(end, "budget_left_out_events"), 0),
			.left_out_from_ns =
				u64_of(mt_kvlist_get(end, "budget_left_out_from_ns"), 0),
			.command_end_ns = u64_of(mt_kvlist_get(end, "budget_command_end_ns"), 0),
		};
		if (mt_kvlist_get(end, "exit_status")) {
			run->has_exit = true;
			run->exit_status = (int)u64_of(mt_kvlist_get(end, "exit_status"), 0);
		}
		if (mt_kvlist_get(end, "recorder_max_rss_bytes")) {
			run->has_recorder_cost = true;
			run->recorder_cpu_ns = u64_of(mt_kvlist_get(end, "recorder_user_ns"), 0) +
					       u64_of(mt_kvlist_get(end, "recorder_sys_ns"), 0);
			run->recorder_max_rss =
				u64_of(mt_kvlist_get(end, "recorder_max_rss_bytes"), 0);
			run->recorder_run_cpu_ns =
				u64_of(mt_kvlist_get(end, "recorder_run_cpu_ns"), 0);
			run->command_wall_ns = u64_of(mt_kvlist_get(end, "command_wall_ns"), 0);
		}
	}
	if (!run->end_ns)
		run->end_ns = run->has_events ? run->last_event_ns : run->start_ns;
	run->duration_ns = run->end_ns > run->start_ns ? run->end_ns - run->start_ns : 0;

	for (size_t i = 0; i < n; i++) {
		const struct mt_kvlist *c = mt_reader_collector(r, i);
		struct mt_collector_info *ci = &run->collectors[run->ncollectors++];

		ci->kv = c;
		ci->name = mt_kvlist_get(c, "name");
		ci->mechanism = mt_kvlist_get(c, "mechanism");
		ci->status = mt_kvlist_get(c, "status");
		ci->reason = mt_kvlist_get(c, "reason");
		ci->final = u64_of(mt_kvlist_get(c, "final"), 0) == 1;
		ci->events = u64_of(mt_kvlist_get(c, "events"), 0);
		if (!ci->name)
			ci->name = "?";
		if (!ci->mechanism)
			ci->mechanism = "?";
		if (!ci->status)
			ci->status = "?";
	}
	return 0;
}

int mt_run_pass(struct mt_reader *r, struct mt_run *run, struct mt_pass *pass)
{
	struct run_pass *p;
	int rc = mt_run_summary(r, run);

	if (rc < 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p) {
		mt_run_release(run);
		return -ENOMEM;
	}
	p->r = r;
	p->run = run;
	*pass = (struct mt_pass){ .name = "run",
				  .types = 1ull << MT_EV_LOST,
				  .ctx = p,
				  .event = run_event,
				  .finish = run_finish };
	return 0;
}

int mt_run_load(struct mt_reader *r, struct mt_run *run)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_run_pass(r, run, &p), &p);
}

void mt_run_release(struct mt_run *run)
{
	free(run->argv);
	free(run->collectors);
	memset(run, 0, sizeof(*run));
}
