/* SPDX-License-Identifier: MIT */
/* Helpers shared by the trace-reading commands. */
#ifndef MEMTAP_CLI_UTIL_H
#define MEMTAP_CLI_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct mt_reader;

/*
 * Opens a trace for reading. On failure prints one line naming the file and the problem
 * ("memtap: 'x.mtap': not a memtap trace (bad magic)") and returns NULL. Shows progress
 * on stderr while indexing when stderr is a terminal.
 */
struct mt_reader *mt_cli_open_trace(const char *path);

/*
 * If the trace is damaged (cut short, corrupted, no end record), prints one warning line
 * naming the file, the problem and what was recovered; extra (may be NULL) is appended as
 * one more clause, or printed alone when the file is intact. Returns true when it printed.
 */
bool mt_cli_warn_damage(const char *path, struct mt_reader *r, const char *extra);

/* Installs a progress display on stderr for long reads, when stderr is a terminal. */
void mt_cli_progress(struct mt_reader *r, const char *what);
void mt_cli_progress_done(void);

/* Where a command's output goes: for people (text, Markdown), stdout through a stream
 * that escapes control characters (common/termsafe.h: a trace's strings are its
 * workload's); for scripts, stdout itself. mt_cli_out_done() flushes it. */
FILE *mt_cli_out(bool human);
void mt_cli_out_done(FILE *f);

struct mt_access_opts;
struct mt_rules;
struct mt_command_spec;

/* The option-table entries of --rules, --window-ms and --mrm for commands that run the
 * analysis pass (export, view, plot; report has its own, longer help). */
/* clang-format off */
#define MT_CLI_ANALYSIS_OPTIONS(rules, profiles, window_ms, mrm)                            \
	{ "rules", 0, MT_OPT_STRING, &(rules), "FILE",                                      \
	  "region types from a YAML rules file, as in memtap report" },                     \
	{ "profiles", 0, MT_OPT_STRING, &(profiles), "LIST",                                \
	  "built-in engine profiles to apply, as in memtap report (default all)" },         \
	{ "window-ms", 0, MT_OPT_U64, &(window_ms), "MS",                                   \
	  "working-set window in milliseconds (default 100)" },                             \
	{ "mrm", 0, MT_OPT_STRING, &(mrm), "W1,R99,W2,R50",                                 \
	  "MRM suitability thresholds, as in memtap report" }
/* clang-format on */

/*
 * The analysis options shared by report, export and view (--window-ms, --mrm, --rules,
 * --profiles) into *ao; rules holds the rules file's rules, then the profiles' (release it
 * with mt_rules_release). On bad input
 * prints one line (a usage error, or FILE:LINE:COL for the rules file) and returns 2; else 0.
 */
/* Loads a rules file; on a problem prints one line (FILE:LINE:COLUMN: what, or why it cannot
 * be read) and returns 2; else 0. */
int mt_cli_load_rules(const char *path, struct mt_rules *rules);
/* --tiers FILE: the tier model of what-if placement into *t, set in ao (none: the built-in
 * one). 0, or 2 after one line naming the file, line and problem. */
struct mt_tiers;
int mt_cli_load_tiers(const char *path, struct mt_tiers *t, struct mt_access_opts *ao);
int mt_cli_analysis_opts(const struct mt_command_spec *spec, uint64_t window_ms, const char *mrm,
			 const char *rules_path, const char *profiles, struct mt_access_opts *ao,
			 struct mt_rules *rules);

#endif
