/* SPDX-License-Identifier: MIT */
/* memtap's entry point: the command table and the dispatcher. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memtap/trace-format.h>

#include <limits.h>

#include "cli/commands.h"
#include "cli/complete.h"
#include "common/log.h"
#include "export/sink.h"
#include "record/alloc.h"
#include "record/record.h"

struct mt_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct mt_command_spec *spec;
};

static const struct mt_cmd commands[] = {
	{ "record", cmd_record, &mt_record_spec },
	{ "report", cmd_report, &mt_report_spec },
	{ "info", cmd_info, &mt_info_spec },
	{ "dump", cmd_dump, &mt_dump_spec },
	{ "probe", cmd_probe, &mt_probe_spec },
	{ "export", cmd_export, &mt_export_spec },
	{ "view", cmd_view, &mt_view_spec },
	{ "plot", cmd_plot, &mt_plot_spec },
	{ "syscalls", cmd_syscalls, &mt_syscalls_spec },
	{ "events", cmd_events, &mt_events_spec },
	{ "diff", cmd_diff, &mt_diff_spec },
	{ "top", cmd_top, &mt_top_spec },
	{ "rules", cmd_rules, &mt_rules_spec },
	{ "validate", cmd_validate, &mt_validate_spec },
	{ "plan", cmd_plan, &mt_plan_spec },
	{ "run", cmd_run, &mt_run_spec },
	{ "runs", cmd_runs, &mt_runs_spec },
	{ "check-schema", cmd_check_schema, &mt_check_schema_spec },
};

static const struct mt_cmd *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* memtap --version: what this binary is, what it was built with, where its runtime is. */
static void version(void)
{
	char lib[PATH_MAX];
	const char *san = MEMTAP_SANITIZERS;

	printf("memtap %s (trace format %d.%d)\n", MEMTAP_VERSION, MT_FORMAT_MAJOR,
	       MT_FORMAT_MINOR);
	printf("commit    %s\n", mt_record_build());
	printf("build     %s, %s %s, sanitizers: %s\n",
	       *MEMTAP_BUILD_TYPE ? MEMTAP_BUILD_TYPE : "-",
#ifdef __clang__
	       "clang",
#else
	       "gcc",
#endif
	       __VERSION__, *san ? san : "none");
	printf("features  %s sqlite=%s heap-placement=%s\n", mt_record_features(),
	       mt_sink_sqlite_version(),
	       mt_find_lib("libmemtap-heap.so", lib, sizeof(lib)) == 0 ? "yes" : "no");
	printf("runtime   %s\n", mt_find_rt_lib(lib, sizeof(lib)) == 0 ? lib : "not found");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: memtap <command> [options] [args]\n"
		   "       memtap --help | --version | help <command>\n\n"
		   "memtap records how a Linux workload uses memory and explains it.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s  %s\n", commands[i].name, commands[i].spec->summary);
	fprintf(f, "\nRun 'memtap <command> -h' for a command's options.\n"
		   "Example: memtap record -o app.mtap -- ./app && memtap report app.mtap\n");
}

/* The close enough command names, for "did you mean". */
static void suggest(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const char *c = commands[i].name;

		if (!strncmp(c, name, strlen(name) < 2 ? 2 : strlen(name)) ||
		    (strlen(name) >= 3 && strstr(c, name))) {
			mt_err("did you mean '%s'?", c);
			return;
		}
	}
}

static int finish_output(int rc)
{
	/* A full disk or a closed pipe must not look like success (perf's run_builtin). */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			mt_err("cannot write the output: %s", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct mt_cmd *c;

	mt_log_guard_stderr();
	mt_log_init();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return finish_output(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		version();
		return finish_output(0);
	}
	if (!strcmp(argv[1], "__complete")) { /* the completion scripts' question */
		const struct mt_command_spec *specs[sizeof(commands) / sizeof(commands[0])];

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			specs[i] = commands[i].spec;
		return finish_output(
			mt_complete(specs, sizeof(specs) / sizeof(specs[0]), argc - 2, argv + 2));
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return finish_output(0);
		}
		c = find(argv[2]);
		if (!c) {
			mt_err("'%s' is not a memtap command (see 'memtap --help')", argv[2]);
			return 2;
		}
		mt_opts_help(c->spec, stdout);
		return finish_output(0);
	}
	c = find(argv[1]);
	if (!c) {
		if (argv[1][0] == '-')
			mt_err("unknown option '%s' (see 'memtap --help')", argv[1]);
		else
			mt_err("'%s' is not a memtap command (see 'memtap --help')", argv[1]);
		suggest(argv[1]);
		return 2;
	}
	return finish_output(c->fn(argc - 1, argv + 1));
}
