/* SPDX-License-Identifier: MIT */
/*
 * `memtap __complete CWORD WORD...`: the shell completion scripts' one question — what may
 * word CWORD of the command line WORD... (WORD 0 is memtap) be? — answered from the option
 * tables, one candidate per line. It reads nothing but the tables and, for --event, tracefs's
 * list of tracepoints: no side effects, whatever the words. Two lines stand for the shell's
 * own completions: "@files" (file names) and "@commands" (command names).
 */
#include "cli/complete.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "--name" or "--name=value": name and its length; NULL for anything else. */
static const char *opt_name(const char *w, size_t *len)
{
	const char *eq;

	*len = 0;
	if (strncmp(w, "--", 2))
		return NULL;
	eq = strchr(w + 2, '=');
	*len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
	return w + 2;
}

static const struct mt_option *find_opt(const struct mt_command_spec *spec, const char *w)
{
	size_t n;
	const char *name = opt_name(w, &n);

	for (const struct mt_option *o = spec->opts; o->name; o++) {
		if (name && strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
		if (!name && w[0] == '-' && w[1] && !w[2] && o->short_name == w[1])
			return o;
	}
	return NULL;
}

static bool takes_value(const struct mt_option *o)
{
	return o->type != MT_OPT_FLAG && !(o->flags & MT_OPTF_OPTIONAL_ARG);
}

static void put(const char *prefix, const char *cand, const char *cur)
{
	size_t pl = strlen(prefix);

	/* candidates that extend what is typed: cur is prefix + the part typed of cand */
	if (strncmp(cur, prefix, pl) == 0 && !strncmp(cand, cur + pl, strlen(cur + pl)))
		printf("%s%s\n", prefix, cand);
}

/* The tracepoints this kernel has, "subsys:name", from tracefs. */
static void tracepoints(const char *prefix, const char *cur)
{
	static const char *const lists[] = { "/sys/kernel/tracing/available_events",
					     "/sys/kernel/debug/tracing/available_events" };
	char line[512];

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		FILE *f = fopen(lists[i], "re");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			put(prefix, line, cur);
		}
		fclose(f);
		return;
	}
}

/* The values of option o after prefix ("" or "--name="). */
static void values(const struct mt_option *o, const char *prefix, const char *cur)
{
	if (o->type == MT_OPT_CHOICE) {
		for (int i = 0; o->choices[i]; i++)
			put(prefix, o->choices[i], cur);
	} else if (!strcmp(o->name, "event")) {
		tracepoints(prefix, cur);
	} else if (o->arg && (strstr(o->arg, "FILE") || strstr(o->arg, "OUT") ||
			      strstr(o->arg, "DIR") || strstr(o->arg, "PATH"))) {
		puts("@files");
	}
}

static void options(const struct mt_command_spec *spec, const char *cur)
{
	char name[160];

	for (const struct mt_option *o = spec->opts; o->name; o++) {
		snprintf(name, sizeof(name), "--%s%s", o->name,
			 o->flags & MT_OPTF_OPTIONAL_ARG ? "=" : "");
		put("", name, cur);
		if (o->flags & MT_OPTF_OPTIONAL_ARG) { /* the option alone too */
			snprintf(name, sizeof(name), "--%s", o->name);
			put("", name, cur);
		}
		if (o->flags & MT_OPTF_NEGATABLE) {
			snprintf(name, sizeof(name), "--no-%s", o->name);
			put("", name, cur);
		}
	}
	put("", "--help", cur);
}

/* Word cw of the subcommand spec's words w[1..] (w[0] is the subcommand's name). */
/* Is word i the value of the option before it ("-o FILE", "--to FORMAT")? */
static bool is_value(const struct mt_command_spec *spec, char **w, int i)
{
	const struct mt_option *o = i > 1 ? find_opt(spec, w[i - 1]) : NULL;

	return o && takes_value(o) && !strchr(w[i - 1], '=');
}

/* Word cw of the subcommand spec's words w[1..] (w[0] is the subcommand's name); the
 * scripts pass whole words ("--to=pa" is one). */
static void sub(const struct mt_command_spec *spec, int cw, char **w)
{
	const char *cur = w[cw];
	const struct mt_option *o;
	size_t n;

	/* record: its first positional word is the command it runs, the rest that command's */
	for (int i = 1; i < cw && (spec->flags & MT_CMD_STOP_AT_ARG); i++) {
		bool dashes = !strcmp(w[i], "--");

		if (dashes || (w[i][0] != '-' && !is_value(spec, w, i))) {
			puts(cw == (dashes ? i + 1 : i) ? "@commands" : "@files");
			return;
		}
	}
	if (cur[0] == '-' && cur[1] == '-' && strchr(cur, '=') && (o = find_opt(spec, cur))) {
		char prefix[160];

		opt_name(cur, &n);
		snprintf(prefix, sizeof(prefix), "--%.*s=", (int)n, cur + 2);
		values(o, prefix, cur); /* "--name=va": the values after "--name=" */
		return;
	}
	if (is_value(spec, w, cw)) {
		values(find_opt(spec, w[cw - 1]), "", cur);
		return;
	}
	if (cur[0] == '-') {
		options(spec, cur);
		return;
	}
	puts((spec->flags & MT_CMD_STOP_AT_ARG) ? "@commands" : "@files");
}

int mt_complete(const struct mt_command_spec *const *specs, size_t nspecs, int argc, char **argv)
{
	static char empty[] = "";
	char *w[MT_COMPLETE_MAX_WORDS + 1];
	char *end;
	long cw = argc ? strtol(argv[0], &end, 10) : -1;
	int n = argc - 1;

	/* argv: CWORD, then the words (memtap first) */
	if (argc < 2 || *end || cw < 1 || cw > n || n > MT_COMPLETE_MAX_WORDS)
		return 2;
	memcpy(w, argv + 1, (size_t)n * sizeof(*w));
	w[n] = empty; /* the cursor after the last word: an empty one */
	if (cw == 1) {
		for (size_t i = 0; i < nspecs; i++)
			put("", specs[i]->name, w[1]);
		put("", "help", w[1]);
		put("", "--help", w[1]);
		put("", "--version", w[1]);
		return 0;
	}
	for (size_t i = 0; i < nspecs; i++)
		if (!strcmp(specs[i]->name, w[1]))
			sub(specs[i], (int)cw - 1, w + 1);
	if (!strcmp(w[1], "help") && cw == 2)
		for (size_t i = 0; i < nspecs; i++)
			put("", specs[i]->name, w[2]);
	return 0;
}
