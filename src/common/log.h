/* SPDX-License-Identifier: MIT */
/* Diagnostics on stderr for the CLI and the recorder; library layers never call these. */
#ifndef MEMTAP_COMMON_LOG_H
#define MEMTAP_COMMON_LOG_H

#include <stdio.h>

#include "compiler.h"

enum mt_log_level {
	MT_LOG_ERROR,
	MT_LOG_WARN,
	MT_LOG_INFO,
	MT_LOG_DEBUG,
};

/* Messages at or below this level are printed; MEMTAP_DEBUG=1 in the environment sets DEBUG. */
extern int mt_log_level;

void mt_log_init(void);

/*
 * Every line memtap writes to stderr is for a terminal, and names what others chose (paths,
 * commands, a trace's strings): from this call on, `stderr` is a stream that shows control
 * characters escaped (termsafe.h; newlines kept) before they reach file descriptor 2. The
 * stream underneath, for the few writes that move the cursor on purpose (progress lines),
 * is mt_stderr_raw(). Called once, first thing in main().
 */
void mt_log_guard_stderr(void);
FILE *mt_stderr_raw(void);

/*
 * Where messages go: by default stderr. A driver that runs the recorder under its own
 * control (an experiment runner, a library user) can take every line instead: fn gets the
 * level and the whole line ("memtap: warning: ...", without the newline); NULL restores
 * stderr. The level filter applies first.
 */
typedef void (*mt_log_sink_fn)(void *ctx, enum mt_log_level level, const char *line);
void mt_log_set_sink(mt_log_sink_fn fn, void *ctx);
void mt_log(enum mt_log_level level, const char *fmt, ...) MT_PRINTF(2, 3);

/*
 * git-style messages: lowercase, no final period, the subject quoted as '...'.
 * mt_err_code() prints the message followed by ": <strerror(err)>" and returns err, so that
 * `return mt_err_code(r, "cannot open '%s'", path);` is one line.
 */
#define mt_err(...) mt_log(MT_LOG_ERROR, __VA_ARGS__)
#define mt_warn(...) mt_log(MT_LOG_WARN, __VA_ARGS__)
#define mt_info(...) mt_log(MT_LOG_INFO, __VA_ARGS__)
#define mt_debug(...) mt_log(MT_LOG_DEBUG, __VA_ARGS__)
int mt_err_code(int err, const char *fmt, ...) MT_PRINTF(2, 3);

#endif
