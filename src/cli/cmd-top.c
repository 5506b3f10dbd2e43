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
#include "common/livedir.h"
#include "common/log.h"
#include "common/strutil.h"
#include "common/termsafe.h"

static struct {
	const char *pid, *interval;
	bool once;
	int sort;
} o;

static const char *const sorts[] = { "rss", "faults", "syscalls", "samples", NULL };

static const struct mt_option options[] = {
	{ "pid", 'p', MT_OPT_STRING, &o.pid, "PID",
	  "the recording of this memtap record process (default: the newest running)" },
	{ "interval", 'n', MT_OPT_STRING, &o.interval, "SECONDS",
	  "refresh every SECONDS (default 1)" },
	{ "sort", 's', MT_OPT_CHOICE, &o.sort, "KEY",
	  "sort processes by rss, faults, syscalls or samples (per second)", sorts },
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
		"process: RSS by type, page faults, system calls and access samples per second,\n"
		"and the recording's lost events and trace size. It reads the figures the\n"
		"recorder publishes twice a second in the user's private directory\n"
		"($XDG_RUNTIME_DIR/memtap, else /tmp/memtap-UID), so it never slows the\n"
		"recording down; quitting leaves the recording running. Keys: q quits; r, f, s,\n"
		"a sort by RSS, faults, syscalls, samples; any other key refreshes. Without a\n"
		"terminal it prints a frame every interval (--once: one).\n",
	.opts = options,
	.min_args = 0,
	.max_args = 0,
};

struct row {
	int pid, gone;
	uint64_t minor, major, sys, samples, rss[4]; /* file anon shmem swap */
	char comm[20];
};

struct snap {
	int recorder, system_wide, have[3]; /* faults, syscalls, samples counted live */
	uint64_t start, now, bytes, lost;
	char command[256], path[512];
	struct row *rows;
	size_t n;
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
	const struct row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* pid's row in a frame whose rows are in pid order (snap_read sorts them). */
static const struct row *find_row(const struct snap *s, int pid)
{
	struct row key = { .pid = pid };

	return s && s->n ? bsearch(&key, s->rows, s->n, sizeof(key), by_pid) : NULL;
}

static void snap_free(struct snap *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

static int snap_read(const char *path, struct snap *s)
{
	char line[1024];
	FILE *f = fopen(path, "re");
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct row r = { 0 };
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		if (!strncmp(line, "recorder ", 9)) {
			(void)sscanf(line,
				     "recorder %d start_ns %" SCNu64 " now_ns %" SCNu64
				     " trace %" SCNu64 " lost %" SCNu64 " system_wide %d",
				     &s->recorder, &s->start, &s->now, &s->bytes, &s->lost,
				     &s->system_wide);
		} else if (!strncmp(line, "command ", 8)) {
			mt_strlcpy(s->command, line + 8, sizeof(s->command));
		} else if (!strncmp(line, "have ", 5)) {
			(void)sscanf(line, "have %d %d %d", &s->have[0], &s->have[1], &s->have[2]);
		} else if (!strncmp(line, "path ", 5)) {
			mt_strlcpy(s->path, line + 5, sizeof(s->path));
		} else if (sscanf(line,
				  "proc %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
				  " %" SCNu64 " %" SCNu64 " %" SCNu64 " %d %19[^\n]",
				  &r.pid, &r.minor, &r.major, &r.sys, &r.samples, &r.rss[0],
				  &r.rss[1], &r.rss[2], &r.rss[3], &r.gone, r.comm) == 11) {
			if (s->n == cap) {
				struct row *nr =
					realloc(s->rows, (cap ? cap * 2 : 64) * sizeof(*nr));

				if (!nr)
					break;
				s->rows = nr;
				cap = cap ? cap * 2 : 64;
			}
			s->rows[s->n++] = r;
		}
	}
	fclose(f);
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), by_pid);
	return s->recorder ? 0 : -EPROTO;
}

/* A row's rates against the previous frame (per second; -1: no previous frame). */
struct rated {
	const struct row *r;
	double faults, major, sys, samples;
};

static double rate(uint64_t now, uint64_t then, double secs)
{
	return secs > 0 && now >= then ? (double)(now - then) / secs : -1;
}

static int by_key(const void *a, const void *b)
{
	const struct rated *x = a, *y = b;
	double kx, ky;

	switch (o.sort) {
	case 1:
		kx = x->faults, ky = y->faults;
		break;
	case 2:
		kx = x->sys, ky = y->sys;
		break;
	case 3:
		kx = x->samples, ky = y->samples;
		break;
	default:
		kx = (double)(x->r->rss[0] + x->r->rss[1] + x->r->rss[2]);
		ky = (double)(y->r->rss[0] + y->r->rss[1] + y->r->rss[2]);
	}
	return kx < ky ? 1 : kx > ky ? -1 : x->r->pid - y->r->pid;
}

static const char *fmt_rate(double v, char *buf, size_t size)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, v >= 1000 ? "%.0f" : "%.1f", v);
	return buf;
}

/* One frame, at most rows lines of processes, cols wide. */
static void render(FILE *f, const struct snap *cur, const struct snap *prev, int rows, int cols,
		   bool tty)
{
	double secs = prev ? (double)(cur->now - prev->now) / 1e9 : 0;
	struct rated *v = calloc(cur->n + 1, sizeof(*v));
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32], cmd[512];
	size_t live = 0;

	if (!v)
		return;
	for (size_t i = 0; i < cur->n; i++) {
		const struct row *r = &cur->rows[i], *p = find_row(prev, r->pid);

		if (r->gone)
			continue;
		v[live].r = r;
		/* -1 (shown '-'): no previous frame, or not counted in this recording */
		v[live].faults = p && cur->have[0]
					 ? rate(r->minor + r->major, p->minor + p->major, secs)
					 : -1;
		v[live].major = p && cur->have[0] ? rate(r->major, p->major, secs) : -1;
		v[live].sys = p && cur->have[1] ? rate(r->sys, p->sys, secs) : -1;
		v[live].samples = p && cur->have[2] ? rate(r->samples, p->samples, secs) : -1;
		live++;
	}
	qsort(v, live, sizeof(*v), by_key);
	if (tty)
		fputs("\033[H\033[J", f);
	mt_escape_ctl(cur->command, cmd, sizeof(cmd));
	fprintf(f, "memtap top - recorder %d: %.*s\n", cur->recorder, cols > 30 ? cols - 30 : 10,
		cmd);
	fprintf(f, "up %.1f s, trace %s, lost %s, %zu process%s%s [q r f s a: %s]\n",
		(double)(cur->now - cur->start) / 1e9, mt_fmt_bytes(cur->bytes, a, sizeof(a)),
		mt_fmt_count(cur->lost, b, sizeof(b)), live, live == 1 ? "" : "es",
		cur->system_wide ? " (system)" : "", sorts[o.sort]);
	fprintf(f, "\n%7s %-14s %8s %8s %8s %8s %5s %7s %6s\n", "PID", "COMMAND", "RSS", "ANON",
		"FILE", "FAULTS/s", "MAJ/s", "SYSC/s", "SMP/s");
	for (size_t i = 0; i < live && (int)i < rows; i++) {
		const struct row *r = v[i].r;
		char comm[64];

		mt_escape_ctl(r->comm, comm, sizeof(comm));
		fprintf(f, "%7d %-14.14s %8s %8s %8s %8s %5s %7s %6s\n", r->pid, comm,
			mt_fmt_bytes(r->rss[0] + r->rss[1] + r->rss[2], a, sizeof(a)),
			mt_fmt_bytes(r->rss[1], b, sizeof(b)),
			mt_fmt_bytes(r->rss[0], c, sizeof(c)), fmt_rate(v[i].faults, d, sizeof(d)),
			fmt_rate(v[i].major, e, sizeof(e)), fmt_rate(v[i].sys, g, sizeof(g)),
			fmt_rate(v[i].samples, h, sizeof(h)));
	}
	fflush(f);
	free(v);
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
	return !stop;
}

static int watch(const char *path, int ms)
{
	bool tty = !o.once && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	struct snap prev = { 0 }, cur;
	struct termios old, raw;
	int rows, cols, frames = 0, printed = 0;

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
		if (snap_read(path, &cur) < 0) {
			if (frames)
				printf("%sthe recording ended%s%s\n", tty ? "\n" : "",
				       prev.path[0] ? ": " : "", prev.path);
			break;
		}
		term_size(&rows, &cols);
		if (!o.once || frames) {
			if (!tty && printed++)
				putchar('\n');
			render(stdout, &cur, frames ? &prev : NULL, tty ? rows - 5 : 40, cols, tty);
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
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
		fputs("\033[?25h", stdout);
	}
	return 0;
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
