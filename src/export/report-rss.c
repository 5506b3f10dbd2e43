/* SPDX-License-Identifier: MIT */
/* The report's rss section: peak resident memory per process, by type, and when. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"
#include "format/chunk.h"

static const char *const type_names[4] = { "file", "anon", "shmem", "swap" };

static const char *ckv(const struct mt_report_rss *rr, const char *key)
{
	return rr->coll && rr->coll->kv ? mt_kvlist_get(rr->coll->kv, key) : NULL;
}

void mt_report_rss_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_rss *rr = &rep->rss;
	const struct mt_rss_stats *st = &rr->st;
	const struct mt_rss_proc *top = st->nprocs ? &st->procs[st->peak_proc] : NULL;

	mt_json_key(j, "rss");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "mechanism", rr->coll ? rr->coll->mechanism : "none");
	mt_json_kv_str(j, "status", rr->coll ? rr->coll->status : "unknown");
	if (rr->coll && rr->coll->reason)
		mt_json_kv_str(j, "reason", rr->coll->reason);
	if (ckv(rr, "interval_ns"))
		mt_json_kv_u64(j, "interval_ns", strtoull(ckv(rr, "interval_ns"), NULL, 10));
	mt_json_kv_u64(j, "peak_bytes", top ? top->peak : 0);
	/* A peak from the kernel's high-water mark (records were lost) has no time: null. */
	if (top && mt_rss_peak_untimed(top)) {
		mt_json_kv_null(j, "peak_ns");
		mt_json_kv_null(j, "peak_offset_ns");
	} else {
		mt_json_kv_u64(j, "peak_ns", top ? top->peak_ns : 0);
		mt_json_kv_u64(j, "peak_offset_ns",
			       top && top->peak_ns > rep->run.start_ns
				       ? top->peak_ns - rep->run.start_ns
				       : 0);
	}
	if (top)
		mt_json_kv_u64(j, "peak_pid", top->pid);
	mt_json_kv_u64(j, "tree_peak_bytes", st->tree_peak);
	mt_json_kv_u64(j, "tree_peak_ns", st->tree_peak_ns);
	mt_json_kv_u64(j, "events", st->events);
	/* memtap's own resident memory, measured apart and not in any figure above */
	mt_json_kv_bool(j, "memtap_own_measured", st->own_measured);
	mt_json_kv_u64(j, "memtap_own_peak_bytes", st->own_peak);
	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->nprocs; i++) {
		const struct mt_rss_proc *p = &st->procs[i];
		char key[32];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", p->pid);
		mt_json_kv_u64(j, "peak_bytes", p->peak);
		if (mt_rss_peak_untimed(p))
			mt_json_kv_null(j, "peak_ns");
		else
			mt_json_kv_u64(j, "peak_ns", p->peak_ns);
		for (unsigned k = 0; k < 4; k++) {
			snprintf(key, sizeof(key), "peak_%s_bytes", type_names[k]);
			mt_json_kv_u64(j, key, p->max[k]);
			snprintf(key, sizeof(key), "peak_%s_ns", type_names[k]);
			mt_json_kv_u64(j, key, p->max_ns[k]);
		}
		mt_json_kv_u64(j, "events", p->events);
		mt_json_kv_u64(j, "memtap_own_peak_bytes", p->own_peak);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_end_object(j);
}

void mt_report_rss_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { "pid",   "peak", "at",	 "anon",  "file",
					     "shmem", "swap", "records", "memtap" };
	const struct mt_report_rss *rr = &rep->rss;
	const struct mt_rss_stats *st = &rr->st;
	char b[8][64];
	struct mt_table t;

	fprintf(f, md ? "## Resident memory (RSS)\n\n| | |\n|---|---|\n"
		      : "\nresident memory (rss)\n");
	mt_summary_row(f, md, "mechanism", "%s (%s)", rr->coll ? rr->coll->mechanism : "none",
		       ckv(rr, "source")	      ? ckv(rr, "source")
		       : rr->coll && rr->coll->reason ? rr->coll->reason
						      : "-");
	if (st->nprocs) {
		const struct mt_rss_proc *top = &st->procs[st->peak_proc];

		if (mt_rss_peak_untimed(top))
			mt_summary_row(f, md, "peak (one process)",
				       "%s in pid %" PRIu32 " (the kernel's high-water mark at its "
				       "exit: records were lost, the time is not known)",
				       mt_fmt_bytes(top->peak, b[0], 64), top->pid);
		else
			mt_summary_row(f, md, "peak (one process)", "%s in pid %" PRIu32 " at +%s",
				       mt_fmt_bytes(top->peak, b[0], 64), top->pid,
				       mt_fmt_duration(top->peak_ns > rep->run.start_ns
							       ? top->peak_ns - rep->run.start_ns
							       : 0,
						       b[1], 64));
		mt_summary_row(f, md, "peak (processes together)", "%s",
			       mt_fmt_bytes(st->tree_peak, b[0], 64));
		if (st->own_measured)
			mt_summary_row(f, md, "memtap's own (apart)",
				       "%s at most in one process (its runtime's region and "
				       "arena, from pagemap): not in the figures here",
				       mt_fmt_bytes(st->own_peak, b[0], 64));
	}
	if (!st->nprocs)
		return;
	mt_table_init(&t, 9, heads);
	for (size_t i = 0; i < st->nprocs; i++) {
		const struct mt_rss_proc *p = &st->procs[i];

		mt_table_addf(&t, "%" PRIu32, p->pid);
		mt_table_add(&t, mt_fmt_bytes(p->peak, b[0], 64));
		if (mt_rss_peak_untimed(p))
			mt_table_add(&t, "? (hwm)");
		else
			mt_table_addf(&t, "+%s",
				      mt_fmt_duration(p->peak_ns > rep->run.start_ns
							      ? p->peak_ns - rep->run.start_ns
							      : 0,
						      b[1], 64));
		mt_table_add(&t, mt_fmt_bytes(p->max[1], b[2], 64));
		mt_table_add(&t, mt_fmt_bytes(p->max[0], b[3], 64));
		mt_table_add(&t, mt_fmt_bytes(p->max[2], b[4], 64));
		mt_table_add(&t, mt_fmt_bytes(p->max[3], b[5], 64));
		mt_table_add(&t, mt_fmt_count(p->events, b[6], 64));
		mt_table_add(&t, p->own_events ? mt_fmt_bytes(p->own_peak, b[7], 64) : "-");
	}
	if (md) {
		fprintf(f, "\n");
		mt_report_md_table(&t, f);
	} else {
		fprintf(f,
			"\n  per process (largest of each type; peak = largest anon+file+shmem; memtap: "
			"its own, apart)\n");
		mt_table_print(&t, f, 4, true);
	}
	mt_table_release(&t);
}
