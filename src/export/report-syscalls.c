/* SPDX-License-Identifier: MIT */
/* The report's syscalls section: the per-syscall summary (memtap syscalls has it all). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/strutil.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

void mt_report_syscall_list_json(struct mt_json *j, const char *key,
				 const struct mt_syscall_table *tb, bool extremes)
{
	char buf[32];

	mt_json_key(j, key);
	mt_json_begin_array(j);
	for (size_t i = 0; i < tb->n; i++) {
		const struct mt_syscall_stat *s = &tb->v[i];

		mt_json_begin_object(j);
		mt_json_kv_str(j, "name", mt_syscall_name(s->nr, buf, sizeof(buf)));
		mt_json_kv_u64(j, "nr", s->nr);
		mt_json_kv_u64(j, "calls", s->calls);
		mt_json_kv_u64(j, "errors", s->errors);
		mt_json_kv_u64(j, "total_ns", s->total_ns);
		mt_json_kv_u64(j, "no_return", s->no_return);
		if (extremes) {
			mt_json_kv_u64(j, "min_ns", s->min_ns);
			mt_json_kv_u64(j, "max_ns", s->max_ns);
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

void mt_report_syscalls_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_syscalls_stats *st = &rep->syscalls.st;

	/* The contract: a list of {name, calls, errors, total_ns}: the workload's calls. The
	 * preload runtime's own calls inside the workload are listed apart. */
	mt_report_syscall_list_json(j, "syscalls", &st->work, false);
	mt_report_syscall_list_json(j, "runtime_syscalls", &st->rt, false);
}

void mt_report_syscalls_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { "syscall", "calls",   "errors",
					     "seconds", "us/call", "% time" };
	const struct mt_report_syscalls *rs = &rep->syscalls;
	const struct mt_syscalls_stats *st = &rs->st;
	struct mt_table t;
	char buf[32], c[32];

	fprintf(f, md ? "## System calls\n\n" : "\nsystem calls\n");
	fprintf(f, "%s%s: %s calls, %" PRIu64 " errors, %.6f s (tracing overhead included)%s\n",
		md ? "" : "  ", rs->coll ? rs->coll->mechanism : "none",
		mt_fmt_count(st->work.calls, c, sizeof(c)), st->work.errors,
		(double)st->work.total_ns / 1e9, md ? "\n" : "");
	if (st->rt.calls)
		fprintf(f,
			"%smemtap's runtime inside the workload made %" PRIu64
			" more calls (%.6f s), not counted here%s\n",
			md ? "" : "  ", st->rt.calls, (double)st->rt.total_ns / 1e9,
			md ? "\n" : "");
	if (rs->coll && rs->coll->reason && strcmp(rs->coll->status, "active"))
		fprintf(f, "%s%s: %s\n", md ? "" : "  ", rs->coll->status, rs->coll->reason);
	if (!st->work.n)
		return;
	mt_table_init(&t, 6, heads);
	for (size_t i = 0; i < st->work.n && i < rep->top; i++) {
		const struct mt_syscall_stat *s = &st->work.v[i];

		mt_table_add(&t, mt_syscall_name(s->nr, buf, sizeof(buf)));
		mt_table_add(&t, mt_fmt_count(s->calls, c, sizeof(c)));
		mt_table_addf(&t, "%" PRIu64, s->errors);
		mt_table_addf(&t, "%.6f", (double)s->total_ns / 1e9);
		mt_table_addf(&t, "%.2f",
			      s->calls ? (double)s->total_ns / 1e3 / (double)s->calls : 0);
		mt_table_addf(&t, "%.2f",
			      st->work.total_ns
				      ? 100.0 * (double)s->total_ns / (double)st->work.total_ns
				      : 0);
	}
	if (md) {
		mt_report_md_table(&t, f);
	} else {
		mt_table_print(&t, f, 4, true);
		fprintf(f, "    (memtap syscalls FILE for all of them, --list for every call)\n");
	}
	mt_table_release(&t);
}
