/* SPDX-License-Identifier: MIT */
/* Declarative command-line options: one table gives both the parser and the -h text. */
#ifndef MEMTAP_CLI_OPTIONS_H
#define MEMTAP_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum mt_opt_type {
	MT_OPT_FLAG, /* bool, no argument; --no-NAME sets it false when MT_OPTF_NEGATABLE */
	MT_OPT_STRING, /* const char * */
	MT_OPT_U64, /* uint64_t, decimal or 0x hex */
	MT_OPT_SIZE, /* uint64_t with K/M/G suffixes */
	MT_OPT_CHOICE, /* int: index into choices */
	MT_OPT_LIST, /* struct mt_optlist: repeatable, every value kept in order */
};

#define MT_OPTLIST_MAX 16

struct mt_optlist {
	const char *v[MT_OPTLIST_MAX];
	unsigned n;
};

enum {
	MT_OPTF_OPTIONAL_ARG = 1 << 0, /* --name or --name=value (STRING: value NULL -> "";
					* CHOICE: the first choice) */
	MT_OPTF_NEGATABLE = 1 << 1, /* FLAG: --no-name also accepted (CHOICE: sets -1) */
};

struct mt_option {
	const char *name; /* long name without "--" */
	char short_name; /* 0 if none */
	enum mt_opt_type type;
	void *dest;
	const char *arg; /* shown in help: FILE, N, ... */
	const char *help;
	const char *const *choices; /* MT_OPT_CHOICE: NULL-terminated */
	unsigned flags;
	bool *seen; /* set when given, may be NULL */
};

enum {
	MT_CMD_STOP_AT_ARG =
		1 << 0, /* the first positional argument ends option parsing (record) */
};

struct mt_command_spec {
	const char *name;
	const char *usage; /* after "memtap NAME": "FILE [options]" */
	const char *summary; /* one line */
	const char *description; /* paragraphs shown by -h; may be NULL */
	const struct mt_option *opts; /* ends with an entry whose name is NULL */
	unsigned flags;
	int min_args;
	int max_args; /* -1: unlimited */
};

/*
 * Parses argv[1..argc) (argv[0] is the command name). Positional arguments are moved to
 * the front of argv and their count stored in *nargs; they start at argv[0].
 * Returns 0 to go on, 1 when -h/--help was shown (exit 0), or 2 after printing a usage
 * error with a hint (exit 2).
 */
int mt_opts_parse(const struct mt_command_spec *spec, int argc, char **argv, int *nargs);

void mt_opts_help(const struct mt_command_spec *spec, FILE *f);
/* Prints "memtap: MSG (see 'memtap NAME -h')" and returns 2. */
int mt_usage_error(const struct mt_command_spec *spec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
