/* SPDX-License-Identifier: MIT */
/* memtap syscalls: options and the analysis; export/syscalls-view.c renders the strace -c
 * summary, every call, or the rereads. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/run.h"
#include "analysis/fdtable.h"
#include "analysis/rereads.h"
#include "analysis/symbols.h"
#include "analysis/syscalls.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "export/report.h"
#include "export/syscalls-view.h"
#include "export/table.h"
#include "format/chunk.h"
#include "format/reader.h"

static struct {
	int format;
	uint64_t pid;
	bool by_pid;
	const char *name;
	const char *classes;
	bool list;
	bool rereads, all_files;
} o;

static const char *const formats[] = { "text", "json", "csv", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ "csv-raw", 0, MT_OPT_FLAG, &mt_csv_raw, NULL,
	  "CSV cells that start with = + - @ as they are (default: quoted with a leading ', so "
	  "that a spreadsheet never evaluates them)" },
	{ "pid", 'p', MT_OPT_U64, &o.pid, "PID", "only this process's calls", NULL, 0, &o.by_pid },
	{ "name", 0, MT_OPT_STRING, &o.name, "SYSCALL", "only this syscall (e.g. openat)" },
	{ "class", 0, MT_OPT_STRING, &o.classes, "CLASSES",
	  "only these classes: file, desc, memory, process, network, ipc, signal, all" },
	{ "list", 0, MT_OPT_FLAG, &o.list, NULL,
	  "print every call with its result and duration instead of the summary" },
	{ "rereads", 0, MT_OPT_FLAG, &o.rereads, NULL,
	  "per file, the byte ranges read more than once (read/pread offsets, page faults on "
	  "file mappings); the workload's data files only" },
	{ "all-files", 0, MT_OPT_FLAG, &o.all_files, NULL,
	  "with --rereads: also loaded objects (libraries, executables), the loader's cache and "
	  "locale data, and memtap's own files, each with its kind" },
	{ NULL },
};

const struct mt_command_spec mt_syscalls_spec = {
	.name = "syscalls",
	.usage = "FILE [options]",
	.summary = "the system calls of a recording: strace -c summary, or every call",
	.description =
		"Summarizes the calls recorded with `memtap record --syscalls` like `strace -c`:\n"
		"share of the time, seconds, microseconds per call, calls, errors (results\n"
		"-4095..-1), sorted by time. Calls that never returned (exit_group, a thread\n"
		"killed in a call) are counted apart, as strace leaves them out. Durations are\n"
		"from entry to exit and include part of the tracer's cost per call (measured at the\n"
		"start and printed under the table).\n"
		"The calls memtap's preload runtime makes for itself inside the workload (its\n"
		"shared memory, its socket, thread ids) are marked by the runtime and shown apart,\n"
		"never in the workload's counts; --list prefixes them with [memtap-rt].\n",
	.opts = options,
	.min_args = 1,
	.max_args = 1,
};

static int run_view(struct mt_sc_view *v, struct mt_reader *r, const char *path,
		    const struct mt_syscall_filter *f);

int cmd_syscalls(int argc, char **argv)
{
	struct mt_syscall_filter f = { .nr = -1 };
	struct mt_reader *r;
	struct mt_sc_view view = { .f = stdout };
	int nargs, rc;

	rc = mt_opts_parse(&mt_syscalls_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	view.format = o.format;
	view.all_files = o.all_files;
	f.by_pid = o.by_pid;
	f.pid = (uint32_t)o.pid;
	if (o.name && (f.nr = mt_syscall_by_name(o.name)) < 0) {
		const char *best[3];
		size_t n = mt_syscall_closest(o.name, best, 3);
		char near[128] = "";

		for (size_t i = 0, k = 0; i < n && k < sizeof(near); i++)
			k += (size_t)snprintf(near + k, sizeof(near) - k, "%s%s%s",
					      i ? ", " : " (closest: ", best[i],
					      i + 1 == n ? ")" : "");
		mt_err("unknown syscall '%s'%s", o.name, near);
		return 2;
	}
	if (o.classes) {
		const char *bad = NULL;
		int cl = mt_syscall_parse_classes(o.classes, &bad);

		if (cl < 0) {
			mt_err("unknown syscall class '%s' (classes: %s)", bad,
			       mt_syscall_class_names());
			return 2;
		}
		f.classes = (unsigned)cl;
	}
	r = mt_cli_open_trace(argv[0]);
	if (!r)
		return 1;
	view.f = mt_cli_out(o.format == 0); /* text: control characters escaped */
	rc = run_view(&view, r, argv[0], &f);
	mt_cli_out_done(view.f);
	mt_reader_free(r);
	return rc;
}

/* The selected view of the open trace: 0, or 1 after saying why not. */
static int run_view(struct mt_sc_view *v, struct mt_reader *r, const char *path,
		    const struct mt_syscall_filter *f)
{
	struct mt_syscalls_stats st;
	struct mt_run run;
	int rc;

	if (o.rereads) {
		struct mt_rereads rr;

		if (!mt_reader_event_count(r, MT_EV_SYSCALL) &&
		    !mt_reader_event_count(r, MT_EV_FAULT)) {
			mt_err("'%s' has neither syscall nor fault records (record with --syscalls)",
			       path);
			return 1;
		}
		rc = mt_rereads_analyze(r, o.by_pid ? (uint32_t)o.pid : 0, &rr);
		if (rc == 0) {
			mt_sc_print_rereads(v, &rr);
			mt_rereads_release(&rr);
		} else {
			mt_err("'%s': %s", path, strerror(-rc));
		}
		mt_cli_warn_damage(path, r, NULL);
		return rc < 0 ? 1 : 0;
	}
	if (!mt_reader_event_count(r, MT_EV_SYSCALL) &&
	    !mt_reader_event_count(r, MT_EV_SYSCALL_SUM)) {
		mt_err("'%s' has no syscall records (record with --syscalls)", path);
		return 1;
	}
	if (o.list && !mt_reader_event_count(r, MT_EV_SYSCALL)) {
		mt_err("'%s' holds in-kernel totals only (--syscalls=summary): no calls to list",
		       path);
		return 1;
	}
	if (o.list) {
		rc = mt_run_summary(r, &run); /* its start: no read of the losses */
		if (rc == 0) {
			rc = mt_sc_print_list(v, r, f, run.start_ns);
			mt_run_release(&run);
		}
	} else {
		rc = mt_syscalls_analyze(r, f, &st);
		if (rc == 0) {
			uint64_t cost = 0;
			const char *mech = NULL;
			bool loader_unknown = false;

			for (size_t i = 0; i < mt_reader_ncollectors(r); i++) {
				const struct mt_kvlist *kv = mt_reader_collector(r, i);
				const char *n = mt_kvlist_get(kv, "name"),
					   *c = mt_kvlist_get(kv, "cost_ns_per_call");

				if (!n || strcmp(n, "syscalls"))
					continue;
				if (c)
					cost = strtoull(c, NULL, 10);
				mech = mt_kvlist_get(kv, "mechanism");
				/* per call without paths, and the runtime on */
				{
					const char *pp = mt_kvlist_get(kv, "paths");

					loader_unknown = pp && strncmp(pp, "bpf", 3) && st.rt.calls;
				}
			}
			mt_sc_print_summary(v, &st, cost, mech, loader_unknown);
			mt_syscalls_release(&st);
		}
	}
	if (rc < 0)
		mt_err("'%s': %s", path, strerror(-rc));
	mt_cli_warn_damage(path, r, NULL);
	return rc < 0 ? 1 : 0;
}
