/* SPDX-License-Identifier: MIT */
/* memtap top: a running recording's live figures, refreshed in the terminal. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/top.h"
#include "common/livedir.h"
#include "common/log.h"
#include "common/strutil.h"
#include "common/termsafe.h"

static struct {
	const char *pid, *interval;
	bool once;
	int sort;
} o;

static const char *const sorts[] = { "rss", "faults", "syscalls", "samples", "heap", NULL };

static const struct mt_option options[] = {
	{ "pid", 'p', MT_OPT_STRING, &o.pid, "PID",
	  "the recording of this memtap record process (default: the newest running)" },
	{ "interval", 'n', MT_OPT_STRING, &o.interval, "SECONDS",
	  "refresh every SECONDS (default 1)" },
	{ "sort", 's', MT_OPT_CHOICE, &o.sort, "KEY",
	  "sort processes by rss, faults, syscalls, samples (per second) or heap in use", sorts },
	{ "once", 0, MT_OPT_FLAG, &o.once, NULL,
	  "print one frame (rates over one interval) and exit" },
	{ NULL },
};

const struct mt_command_spec mt_top_spec = {
	.name = "top",
	.usage = "[options]",
	.summary = "watch a running recording live",
	.description =
		"Shows what a running memtap record (a command, --pid or -a) sees so far, per\n"
		"process: RSS by type, heap in use (where the allocation runtime is in), the\n"
		"working set of the last second, page faults, system calls and access samples\n"
		"per second; below, the regions that took the most sampled accesses and the\n"
		"allocation sites with the most heap in use; above, the recording's lost events\n"
		"and trace size. It reads the figures the recorder publishes twice a second in\n"
		"the user's private directory ($XDG_RUNTIME_DIR/memtap, else /tmp/memtap-UID),\n"
		"so it never slows the recording down; quitting leaves the recording running.\n"
		"Keys: q quits; r, f, s, a, h sort by RSS, faults, syscalls, samples, heap; any\n"
		"other key refreshes. Without a terminal it prints a frame every interval\n"
		"(--once: one).\n",
	.opts = options,
	.min_args = 0,
	.max_args = 0,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The newest live file whose recorder still runs, into path. */
static int find_live(const char *dir, char *path, size_t size)
{
	struct dirent *d;
	time_t best = 0;
	DIR *dd = opendir(dir);
	int found = -ENOENT;

	while (dd && (d = readdir(dd))) {
		char p[PATH_MAX];
		struct stat st;
		int pid = atoi(d->d_name);
		size_t len = strlen(d->d_name);

		if (pid <= 0 || len < 6 || strcmp(d->d_name + len - 5, ".live") ||
		    (kill(pid, 0) < 0 && errno == ESRCH))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime >= best) {
			best = st.st_mtime;
			mt_strlcpy(path, p, size);
			found = 0;
		}
	}
	if (dd)
		closedir(dd);
	return found;
}

static int by_pid(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

const struct top_row *top_find_row(const struct top_snap *s, int pid)
{
	struct top_row key = { .pid = pid };

	return s && s->n ? bsearch(&key, s->rows, s->n, sizeof(key), by_pid) : NULL;
}

static void snap_free(struct top_snap *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/* A "heap" line (they follow the proc lines, which are sorted by then). */
static void heap_line(const char *line, struct top_snap *s)
{
	struct top_row h = { 0 }, *r;

	if (sscanf(line, "heap %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %d", &h.pid,
		   &h.heap_live, &h.heap_blocks, &h.heap_calls, &h.heap_bytes, &h.heap) != 6 ||
	    !(r = (struct top_row *)top_find_row(s, h.pid)))
		return;
	r->heap = h.heap ? 2 : 1;
	r->heap_live = h.heap_live;
	r->heap_blocks = h.heap_blocks;
	r->heap_calls = h.heap_calls;
	r->heap_bytes = h.heap_bytes;
}

static void site_line(const char *line, struct top_snap *s)
{
	struct top_site *st = &s->sites[s->nsites];
	int at = 0;

	if (s->nsites < TOP_SHOWN &&
	    sscanf(line,
		   "site %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNx64 " %" SCNx64
		   " %n",
		   &st->pid, &st->live, &st->nlive, &st->calls, &st->bytes, &st->ip[0], &st->ip[1],
		   &at) >= 7 &&
	    at > 0) {
		mt_strlcpy(st->py, line + at, sizeof(st->py));
		s->nsites++;
	}
}

static void region_line(const char *line, struct top_snap *s)
{
	struct top_region *g = &s->regions[s->nregions];
	int at = 0;

	if (s->nregions < TOP_SHOWN &&
	    sscanf(line, "region %d %" SCNu64 " %" SCNu64 " %n", &g->pid, &g->samples, &g->bytes,
		   &at) >= 3 &&
	    at > 0) {
		mt_strlcpy(g->name, line + at, sizeof(g->name));
		s->nregions++;
	}
}

static bool proc_line(const char *line, struct top_snap *s, size_t *cap)
{
	struct top_row r = { 0 };

	if (sscanf(line,
		   "proc %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNd64 " %" SCNu64 " %d %19[^\n]",
		   &r.pid, &r.minor, &r.major, &r.sys, &r.samples, &r.rss[0], &r.rss[1], &r.rss[2],
		   &r.rss[3], &r.wss, &r.unplaced, &r.gone, r.comm) != 13)
		return true;
	if (s->n == *cap) {
		struct top_row *nr = realloc(s->rows, (*cap ? *cap * 2 : 64) * sizeof(*nr));

		if (!nr)
			return false;
		s->rows = nr;
		*cap = *cap ? *cap * 2 : 64;
	}
	s->rows[s->n++] = r;
	return true;
}

/* A live file (record/live.c says its lines); -EPROTO: not one of this version's. */
static int snap_read(const char *path, struct top_snap *s)
{
	char line[1024];
	FILE *f = fopen(path, "re");
	size_t cap = 0;
	bool v2 = false, sorted = false;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		if (!strcmp(line, "memtap-live 2")) {
			v2 = true;
		} else if (!strncmp(line, "recorder ", 9)) {
			(void)sscanf(line,
				     "recorder %d start_ns %" SCNu64 " now_ns %" SCNu64
				     " trace %" SCNu64 " lost %" SCNu64 " system_wide %d",
				     &s->recorder, &s->start, &s->now, &s->bytes, &s->lost,
				     &s->system_wide);
		} else if (!strncmp(line, "command ", 8)) {
			mt_strlcpy(s->command, line + 8, sizeof(s->command));
		} else if (!strncmp(line, "have ", 5)) {
			(void)sscanf(line, "have %d %d %d", &s->have[0], &s->have[1], &s->have[2]);
		} else if (!strncmp(line, "wss ", 4)) {
			(void)sscanf(line, "wss %" SCNu64 " %d", &s->wss_ns, &s->wss_partial);
		} else if (!strncmp(line, "path ", 5)) {
			mt_strlcpy(s->path, line + 5, sizeof(s->path));
		} else if (!strncmp(line, "heap ", 5)) {
			if (!sorted && s->n)
				qsort(s->rows, s->n, sizeof(*s->rows), by_pid);
			sorted = true;
			heap_line(line, s);
		} else if (!strncmp(line, "site ", 5)) {
			site_line(line, s);
		} else if (!strncmp(line, "region ", 7)) {
			region_line(line, s);
		} else if (!strncmp(line, "proc ", 5) && !sorted && !proc_line(line, s, &cap)) {
			break;
		}
	}
	fclose(f);
	if (!s->recorder || !v2) {
		snap_free(s); /* the rows a damaged file's lines made */
		return -EPROTO;
	}
	if (!sorted && s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), by_pid);
	return 0;
}

static void term_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* Waits ms for a key (a terminal) or the interval; false when asked to quit. */
static bool wait_key(bool tty, int ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char k;

	if (!tty) {
		poll(NULL, 0, ms);
		return !stop;
	}
	if (poll(&p, 1, ms) <= 0 || read(STDIN_FILENO, &k, 1) != 1)
		return !stop;
	if (k == 'q' || k == 'Q' || k == 3)
		return false;
	if (k == 'r')
		o.sort = 0;
	else if (k == 'f')
		o.sort = 1;
	else if (k == 's')
		o.sort = 2;
	else if (k == 'a')
		o.sort = 3;
	else if (k == 'h')
		o.sort = 4;
	return !stop;
}

static int watch(const char *path, int ms)
{
	bool tty = !o.once && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	struct top_snap prev = { 0 }, cur;
	struct termios old, raw;
	int rows, cols, frames = 0, printed = 0, status = 0;

	if (tty && tcgetattr(STDIN_FILENO, &old) == 0) {
		raw = old;
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		fputs("\033[?25l", stdout);
	} else {
		tty = false;
	}
	while (!stop) {
		int r = snap_read(path, &cur);

		if (r < 0 && frames) {
			printf("%sthe recording ended%s%s\n", tty ? "\n" : "",
			       prev.path[0] ? ": " : "", prev.path);
			break;
		}
		if (r < 0) {
			if (r == -EPROTO)
				mt_err("'%s' is not a live file of this memtap (damaged, or written "
				       "by another version)",
				       path);
			else
				mt_err("cannot read '%s': %s", path, strerror(-r));
			status = 1;
			break;
		}
		term_size(&rows, &cols);
		if (!o.once || frames) {
			if (!tty && printed++)
				putchar('\n');
			top_render(stdout, &cur, frames ? &prev : NULL, rows, cols, tty,
				   (enum top_sort)o.sort, sorts[o.sort]);
		}
		snap_free(&prev);
		prev = cur;
		if (o.once && frames)
			break;
		frames++;
		if (!wait_key(tty, ms))
			break;
	}
	snap_free(&prev);
	top_render_end();
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
		fputs("\033[?25h", stdout);
	}
	return status;
}

int cmd_top(int argc, char **argv)
{
	char dir[PATH_MAX - 32], path[PATH_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	double secs = 1;
	int nargs, r;

	r = mt_opts_parse(&mt_top_spec, argc, argv, &nargs);
	if (r)
		return r == 1 ? 0 : r;
	if (o.interval) {
		char *end;

		secs = strtod(o.interval, &end);
		if (end == o.interval || *end || !(secs >= 0.1) || secs > 3600)
			return mt_usage_error(&mt_top_spec,
					      "--interval '%s': seconds, from 0.1 to 3600",
					      o.interval);
	}
	if ((r = mt_live_dir(dir, sizeof(dir), false)) < 0) {
		mt_err("no recording is running (no live directory %s: %s)", dir, strerror(-r));
		return 1;
	}
	if (o.pid) {
		char *end;
		long pid = strtol(o.pid, &end, 10);

		if (end == o.pid || *end || pid <= 0)
			return mt_usage_error(&mt_top_spec, "--pid '%s': not a process id", o.pid);
		snprintf(path, sizeof(path), "%s/%ld.live", dir, pid);
		if (access(path, R_OK) < 0) {
			mt_err("process %ld is not a running memtap record (no %s)", pid, path);
			return 1;
		}
	} else if (find_live(dir, path, sizeof(path)) < 0) {
		mt_err("no recording is running (memtap record publishes its figures in %s)", dir);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return watch(path, (int)(secs * 1000));
}
