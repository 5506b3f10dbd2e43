/* SPDX-License-Identifier: MIT */
/* `memtap info` rendered: a trace's header, run, collectors, process tree, counts and
 * integrity, as text or JSON. */
#include "export/info.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/termsafe.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"
#include "format/reader.h"
#include "format/schema.h"

static const struct mt_json_u64 integrity_counts[] = {
	MT_JSON_U64("chunks", struct mt_integrity, chunks),
	MT_JSON_U64("corrupt_chunks", struct mt_integrity, corrupt_chunks),
	MT_JSON_U64("corrupt_events", struct mt_integrity, corrupt_events),
	MT_JSON_U64("damaged_regions", struct mt_integrity, damaged_regions),
	MT_JSON_U64("skipped_bytes", struct mt_integrity, skipped_bytes),
};

static void json_integrity(struct mt_json *j, const struct mt_integrity *in)
{
	mt_json_key(j, "integrity");
	mt_json_begin_object(j);
	mt_json_kv_bool(j, "complete", in->complete);
	mt_json_kv_bool(j, "verified", in->verified);
	MT_JSON_KV_U64S(j, in, integrity_counts);
	mt_json_kv_bool(j, "truncated", in->truncated);
	if (in->truncated) {
		mt_json_kv_u64(j, "truncated_offset", in->truncated_offset);
		mt_json_kv_u64(j, "truncated_bytes", in->truncated_bytes);
		if (in->truncated_hdr_known && in->truncated_hdr.type == MT_CHUNK_EVENTS)
			mt_json_kv_u64(j, "truncated_events", in->truncated_hdr.count);
	}
	mt_json_end_object(j);
}

/* Every event of the trace, of every type. */
static uint64_t total_events(struct mt_reader *r)
{
	uint64_t total = 0;

	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		total += mt_reader_event_count(r, t);
	return total;
}

/* The events the recorder handled: the trace's, but with --alloc=sites the allocation
 * calls it folded (the alloc collector's count) in place of the windows it wrote. */
static uint64_t handled_events(struct mt_reader *r, const struct mt_run *run)
{
	uint64_t folded = mt_reader_event_count(r, MT_EV_ALLOC_SITE) +
			  mt_reader_event_count(r, MT_EV_HEAP_WINDOW);

	if (!folded)
		return total_events(r);
	for (size_t i = 0; i < run->ncollectors; i++)
		if (!strcmp(run->collectors[i].name, "alloc"))
			return total_events(r) - folded + run->collectors[i].events;
	return total_events(r);
}

int mt_info_json(const char *path, struct mt_reader *r, const struct mt_run *run,
		 const struct mt_procs *ps, FILE *f)
{
	const struct mt_file_info *fi = mt_reader_file(r);
	const char **keys, **vals;
	char buf[64];
	struct mt_json j;
	size_t nmeta;

	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "file", path);
	mt_json_kv_u64(&j, "file_size", fi->file_size);
	snprintf(buf, sizeof(buf), "%u.%u", fi->major, fi->minor);
	mt_json_kv_str(&j, "format_version", buf);
	mt_json_kv_str(&j, "schema_version", buf);
	mt_json_kv_str(&j, "writer", fi->writer);
	mt_json_kv_str(&j, "memtap_version", MEMTAP_VERSION);
	mt_json_kv_str(&j, "run_id", mt_fmt_uuid(fi->run_id, buf, sizeof(buf)));
	mt_json_kv_u64(&j, "start_realtime_ns", fi->realtime_ns);
	mt_json_kv_u64(&j, "start_monotonic_ns", fi->monotonic_ns);

	mt_json_key(&j, "run");
	mt_json_begin_object(&j);
	mt_json_kv_str(&j, "command", run->command);
	mt_json_key(&j, "argv");
	mt_json_begin_array(&j);
	for (int i = 0; i < run->argc; i++)
		mt_json_str(&j, run->argv[i]);
	mt_json_end_array(&j);
	if (run->has_exit)
		mt_json_kv_i64(&j, "exit_status", run->exit_status);
	else
		mt_json_kv_null(&j, "exit_status");
	mt_json_kv_u64(&j, "start_ns", run->start_ns);
	mt_json_kv_u64(&j, "end_ns", run->end_ns);
	mt_json_kv_u64(&j, "duration_ns", run->duration_ns);
	mt_json_kv_u64(&j, "lost_events", run->lost_events);
	mt_json_key(&j, "recorder");
	if (run->has_recorder_cost) {
		uint64_t events = handled_events(r, run);

		mt_json_begin_object(&j);
		mt_json_kv_u64(&j, "cpu_ns", run->recorder_cpu_ns);
		/* the recorder's cost per event it handled (its CPU time over them) */
		if (events)
			mt_json_kv_double(&j, "cpu_ns_per_event",
					  (double)run->recorder_cpu_ns / (double)events);
		else
			mt_json_kv_null(&j, "cpu_ns_per_event");
		mt_json_kv_u64(&j, "max_rss_bytes", run->recorder_max_rss);
		if (run->command_wall_ns) {
			mt_json_kv_u64(&j, "cpu_while_command_ran_ns", run->recorder_run_cpu_ns);
			mt_json_kv_u64(&j, "command_wall_ns", run->command_wall_ns);
		}
		mt_json_end_object(&j);
	} else {
		mt_json_null(&j);
	}
	mt_json_end_object(&j);

	mt_report_json_collectors(&j, run);

	mt_json_key(&j, "processes");
	mt_json_begin_array(&j);
	for (size_t i = 0; i < ps->n; i++)
		mt_report_json_process(&j, ps, i, run->start_ns, true);
	mt_json_end_array(&j);

	mt_json_key(&j, "events");
	mt_json_begin_object(&j);
	for (unsigned t = 0; t < _MT_EV_MAX; t++) {
		const struct mt_type_desc *d = mt_type_desc(t);

		if (d)
			mt_json_kv_u64(&j, d->name, mt_reader_event_count(r, t));
	}
	if (mt_reader_unknown_events(r))
		mt_json_kv_u64(&j, "unknown", mt_reader_unknown_events(r));
	mt_json_end_object(&j);
	mt_json_key(&j, "time_span");
	mt_json_begin_object(&j);
	if (run->has_events) {
		mt_json_kv_u64(&j, "first_ns", run->first_event_ns);
		mt_json_kv_u64(&j, "last_ns", run->last_event_ns);
	}
	mt_json_end_object(&j);
	mt_json_kv_u64(&j, "lost_events", run->lost_events);
	json_integrity(&j, mt_reader_integrity(r));

	mt_json_key(&j, "machine");
	mt_json_begin_object(&j);
	nmeta = mt_reader_meta_all(r, &keys, &vals);
	for (size_t i = 0; i < nmeta; i++)
		if (strncmp(keys[i], "argv.", 5))
			mt_json_kv_str(&j, keys[i], vals[i]);
	mt_json_end_object(&j);
	mt_json_end_object(&j);
	fputc('\n', f);
	return 0;
}

void mt_info_text(const char *path, struct mt_reader *r, const struct mt_run *run,
		  const struct mt_procs *ps, FILE *f)
{
	const struct mt_file_info *fi = mt_reader_file(r);
	const struct mt_integrity *in = mt_reader_integrity(r);
	const char *host = mt_reader_meta(r, "hostname"), *kern = mt_reader_meta(r, "kernel");
	const char *commit = mt_reader_meta(r, "memtap_commit");
	char a[64], b[64], c[64], e[8192];
	uint64_t total = total_events(r);
	fprintf(f, "%-12s %s (%s, format %u.%u, written by %s%s%s)\n", "trace",
		mt_escape_ctl(path, e, sizeof(e)), mt_fmt_bytes(fi->file_size, a, sizeof(a)),
		fi->major, fi->minor, fi->writer, commit ? ", commit " : "", commit ? commit : "");
	fprintf(f, "%-12s %s\n", "run id", mt_fmt_uuid(fi->run_id, a, sizeof(a)));
	fprintf(f, "%-12s %s", "recorded", mt_fmt_realtime(fi->realtime_ns, a, sizeof(a)));
	if (host)
		fprintf(f, " on %s", mt_escape_ctl(host, e, sizeof(e)));
	if (kern)
		fprintf(f, " (Linux %s)", kern);
	/* the workload's own strings, LF included, shown escaped (control characters reach
	 * no terminal: common/termsafe.h) */
	fprintf(f, "\n%-12s %s\n", "command",
		run->command ? mt_escape_ctl(run->command, e, sizeof(e)) : "?");
	fprintf(f, "%-12s %s\n", "duration", mt_fmt_duration(run->duration_ns, a, sizeof(a)));
	if (run->has_exit)
		fprintf(f, "%-12s %d\n", "exit status", run->exit_status);
	else
		fprintf(f, "%-12s unknown (no end record)\n", "exit status");
	if (run->budget.max) {
		char line[512];

		mt_report_budget_line(run, line, sizeof(line));
		fprintf(f, "%-12s %s\n", "trace budget", line);
	}
	if (run->has_recorder_cost) {
		uint64_t handled = handled_events(r, run);

		fprintf(f, "%-12s %s CPU", "recorder",
			mt_fmt_duration(run->recorder_cpu_ns, a, sizeof(a)));
		if (run->command_wall_ns)
			fprintf(f, " (%s while the command ran, %.1f %% of one CPU)",
				mt_fmt_duration(run->recorder_run_cpu_ns, a, sizeof(a)),
				100.0 * (double)run->recorder_run_cpu_ns /
					(double)run->command_wall_ns);
		if (handled)
			fprintf(f, ", %.1f ns per event",
				(double)run->recorder_cpu_ns / (double)handled);
		fprintf(f, ", peak RSS %s (memtap's own process, apart from the workload)\n",
			mt_fmt_bytes(run->recorder_max_rss, b, sizeof(b)));
	}
	fprintf(f, "%-12s %s events in %s chunks; %s lost\n", "events",
		mt_fmt_count(total, a, sizeof(a)), mt_fmt_count(in->chunks, b, sizeof(b)),
		mt_fmt_count(run->lost_events, c, sizeof(c)));
	fprintf(f, "%-12s %s", "integrity",
		in->complete ? "complete" : "INCOMPLETE (no end record)");
	if (in->truncated)
		fprintf(f, ", truncated at byte %" PRIu64,
			in->truncated_offset + in->truncated_bytes);
	if (in->corrupt_chunks)
		fprintf(f, ", %" PRIu64 " corrupted chunks (%" PRIu64 " events)",
			in->corrupt_chunks, in->corrupt_events);
	if (in->damaged_regions)
		fprintf(f, ", %" PRIu64 " unreadable bytes skipped", in->skipped_bytes);
	fprintf(f, in->verified ? ", every checksum verified\n" : ", headers checked\n");

	if (run->ncollectors) {
		struct mt_table t;

		fprintf(f, "\ncollectors\n");
		mt_report_collector_table(run, &t);
		mt_table_print(&t, f, 2, true);
		mt_table_release(&t);
	}
	if (ps->n) {
		struct mt_table t;

		fprintf(f, "\nprocesses (%zu)\n", ps->n);
		mt_report_process_table(ps, run->start_ns, false, &t);
		mt_table_print(&t, f, 2, true);
		mt_table_release(&t);
	}

	fprintf(f, "\nevent counts\n");
	for (unsigned t = 0; t < _MT_EV_MAX; t++) {
		const struct mt_type_desc *d = mt_type_desc(t);

		if (d && mt_reader_event_count(r, t))
			fprintf(f, "  %-12s %12s\n", d->name,
				mt_fmt_count(mt_reader_event_count(r, t), a, sizeof(a)));
	}
	if (mt_reader_unknown_events(r))
		fprintf(f, "  %-12s %12s  (types of a newer memtap)\n", "unknown",
			mt_fmt_count(mt_reader_unknown_events(r), a, sizeof(a)));
}
