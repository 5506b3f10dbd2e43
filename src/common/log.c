/* SPDX-License-Identifier: MIT */
/* Diagnostics, one line each, prefixed with "memtap: ": on stderr, or to a driver's sink. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "termsafe.h"

int mt_log_level = MT_LOG_INFO;
static mt_log_sink_fn sink;
static void *sink_ctx;

void mt_log_set_sink(mt_log_sink_fn fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

static FILE *raw_err;

/* At exit: what the guard holds written out, and stderr itself again. */
static void unguard(void)
{
	FILE *g = stderr;

	if (!raw_err)
		return;
	stderr = raw_err;
	raw_err = NULL;
	fclose(g);
}

void mt_log_guard_stderr(void)
{
	FILE *g;

	if (raw_err)
		return;
	g = mt_ctl_stream(stderr);
	if (!g)
		return; /* stderr stays as it is: memtap works on, unguarded */
	setvbuf(g, NULL, _IOLBF, 0); /* a line reaches the terminal when it is complete */
	raw_err = stderr;
	stderr = g;
	atexit(unguard);
}

FILE *mt_stderr_raw(void)
{
	return raw_err ? raw_err : stderr;
}

void mt_log_init(void)
{
	const char *d = getenv("MEMTAP_DEBUG");

	if (d && *d && *d != '0')
		mt_log_level = MT_LOG_DEBUG;
}

MT_PRINTF(3, 0) static void vlog(enum mt_log_level level, int err, const char *fmt, va_list ap)
{
	static const char *const prefix[] = { "", "warning: ", "", "debug: " };
	char line[4096], shown[4096 + 2];
	int n;

	if ((int)level > mt_log_level)
		return;
	/* Format into one buffer so the line reaches stderr in one write. */
	n = snprintf(line, sizeof(line), "memtap: %s", prefix[level]);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (n < (int)sizeof(line) && err)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ": %s", mt_strerror(err));
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n] = 0;
	/* one line, whatever its arguments held: a path with a newline or ESC is shown
	 * escaped (termsafe.h) */
	mt_escape_ctl(line, shown, sizeof(shown) - 1);
	if (sink) {
		sink(sink_ctx, level, shown);
		return;
	}
	n = (int)strlen(shown);
	shown[n++] = '\n';
	fwrite(shown, 1, (size_t)n, stderr);
	fflush(stderr);
}

void mt_log(enum mt_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, 0, fmt, ap);
	va_end(ap);
}

int mt_err_code(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(MT_LOG_ERROR, err, fmt, ap);
	va_end(ap);
	return err;
}
