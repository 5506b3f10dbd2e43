/* SPDX-License-Identifier: MIT */
/*
 * Recording what runs already (record --pid, record -a): the trace and the signals without a
 * launch, the processes announced from /proc, the collectors, the exact window; for --pid the
 * allocation runtime loaded into each process (record/attach-rt.c) and given back at the end,
 * and the loop's view of which attached processes exited; for -a the END line on standard
 * input. record.c's mt_record calls these; docs/architecture.md follows them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "format/writer.h"
#include "record/alloc.h"
#include "record/attach.h"
#include "record/attach-rt.h"
#include "record/collectors.h"
#include "record/launch.h"
#include "record/record-internal.h"
#include "record/session.h"
#include "record/syscalls.h"

/* record --pid: the process's calls go back to its allocator before the recording ends (a
 * process that outlives the recording does not pay for the runtime's hooks). */
void mt_rec_uninject(struct mt_session *s)
{
	for (unsigned k = 0; k < s->npids; k++) {
		pid_t pid = s->pids[k];
		char why[512];
		int restored = 0;
		struct pollfd gone = { .fd = s->pidfds[k], .events = POLLIN };

		if (!s->pid_alloc_from[k] || gone.fd < 0 || poll(&gone, 1, 0) > 0)
			continue; /* no runtime in it, or it exited */
		if (mt_detach_rt(pid, mt_alloc_rt_path(s), &restored, why, sizeof(why)) < 0)
			mt_warn("pid %d keeps memtap's allocation hooks (they forward every call, "
				"recording nothing): %s",
				(int)pid, why);
		else if (restored < 0)
			mt_warn("pid %d keeps some of memtap's allocation hooks (they forward every "
				"call, recording nothing): more call slots than the runtime could "
				"remember",
				(int)pid);
		else
			mt_debug("pid %d: %d call slots given back to its allocator", (int)pid,
				 restored);
		if (restored > 0)
			s->uninjected += restored;
	}
}

/* record -a: a line "END" on standard input stops the recording (KernMLOps' protocol);
 * its end (a closed pipe, /dev/null) only stops the reading. */
void mt_rec_on_stdin(struct mt_session *s, struct launch *l)
{
	static char line[64];
	static size_t n;
	char buf[4096];
	ssize_t k = read(l->watch, buf, sizeof(buf));

	if (k <= 0) {
		if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(l->watch);
			l->watch = -1;
		}
		return;
	}
	for (ssize_t i = 0; i < k; i++) {
		if (buf[i] != '\n') {
			if (n < sizeof(line) - 1)
				line[n++] = buf[i];
			continue;
		}
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
			n--;
		line[n] = 0;
		if (!strcmp(line, "END"))
			s->stop_requested = true;
		n = 0;
	}
}

/* record --pid: which attached processes exited (their pidfds readable); the recording
 * ends when all have. The loop wakes on the first one's, then on a live one's. */
void mt_rec_attach_exits(struct mt_session *s, struct launch *l)
{
	for (unsigned k = 0; k < s->npids; k++) {
		struct pollfd p = { .fd = s->pidfds[k], .events = POLLIN };

		if (p.fd < 0 || poll(&p, 1, 0) <= 0)
			continue;
		close(s->pidfds[k]);
		s->pidfds[k] = -1;
		s->npids_gone++;
	}
	if (l->watch >= 0)
		close(l->watch);
	l->watch = -1;
	for (unsigned k = 0; k < s->npids && l->watch < 0; k++)
		if (s->pidfds[k] >= 0)
			l->watch = dup(s->pidfds[k]);
	if (s->npids_gone == s->npids)
		s->root_exited = true;
}

/* What --pid and -a share first: the trace and the signals, no launch pipes; the loop
 * watches in (when not -1): the attached process's pidfd, or standard input. */
static int open_running(struct mt_session *s, struct launch *l, int *sigfd, int in)
{
	int r = mt_rec_open_trace(s);

	if (r >= 0)
		r = mt_rec_setup_signals(l, sigfd);
	for (int i = 0; i < 2; i++) {
		if (l->go[i] >= 0)
			close(l->go[i]);
		if (l->execerr[i] >= 0)
			close(l->execerr[i]);
		l->go[i] = l->execerr[i] = -1;
	}
	l->watch = in;
	if (r < 0)
		return r;
	mt_launch_raise_nofile(l);
	s->attached = true;
	s->follow = MT_FOLLOW_PERF;
	return 0;
}

/* Then: the collectors the runtime would serve said unavailable (why: whose), the META,
 * what runs announced (tree), the collectors, settle, and the window from now on. */
static int go_running(struct mt_session *s, char *const *argv, const char *why,
		      void (*tree)(struct mt_session *s), void (*settle)(struct mt_session *s))
{
	char reason[320];
	int r;

	s->alloc_coll.name = "alloc";
	if (!s->alloc) {
		snprintf(reason, sizeof(reason), "%s: %s", why,
			 s->o->alloc ? "the runtime is loaded into the processes memtap starts or "
				       "attaches to (--pid), not into every process of the machine"
				     : "--no-alloc");
		mt_coll_set(&s->alloc_coll, "none", s->o->alloc ? "unavailable" : "off", reason);
	} else {
		mt_coll_set(&s->alloc_coll, "injected+eh_frame-stacks", "active", NULL);
	}
	s->pagewrites_coll.name = "pagewrites";
	snprintf(reason, sizeof(reason),
		 "%s: page writes are tracked from a program's start, not in a process that runs "
		 "already",
		 why);
	mt_coll_set(&s->pagewrites_coll, "none", "unavailable", reason);
	s->t_start = mt_now_ns();
	r = mt_rec_write_meta(s, argv);
	if (r < 0)
		return mt_err_code(r, "cannot write '%s'", s->o->output);
	tree(s);
	mt_rec_open_collectors(s);
	settle(s);
	s->cpu_go = mt_rec_own_cpu_ns();
	s->t_go = mt_now_ns();
	mt_writer_window(s->w, s->t_go, UINT64_MAX, MT_REC_WINDOWED);
	if (s->o->duration_ns)
		s->deadline = s->t_go + s->o->duration_ns;
	return 1;
}

/* record --pid: the allocation runtime loaded into the process once every other collector
 * runs; its allocations are exact from the moment its thread was let go. Without it the
 * other figures go on: one warning says why. */
static void inject_runtime(struct mt_session *s, unsigned k)
{
	pid_t pid = s->pids[k];
	struct mt_attach_rt ar;
	char why[512];
	int r = mt_attach_rt(pid, mt_alloc_rt_path(s), mt_alloc_conf(s), &ar, why, sizeof(why));

	if (r < 0) {
		char reason[600];

		snprintf(reason, sizeof(reason), "the runtime could not be loaded: %s", why);
		mt_warn("allocations of pid %d are not recorded: %s", (int)pid, why);
		mt_alloc_untraced(s, pid, reason);
		if (s->npids == 1)
			mt_coll_set(&s->alloc_coll, "none", "unavailable", reason);
		return;
	}
	s->pid_alloc_from[k] = ar.to_ns;
	s->alloc_from = ar.to_ns; /* the last: every process's allocations are exact from it */
	s->inject_tid = ar.tid;
	s->inject_slots += ar.slots;
	mt_syscalls_memtap_window(s, ar.tid, ar.held_ns, ar.to_ns);
	mt_debug("runtime loaded into %d by thread %d: %u call slots redirected, held %.1f ms",
		 (int)pid, (int)ar.tid, ar.slots, (double)(ar.to_ns - ar.held_ns) / 1e6);
}

/* record --pid: the same as start() for processes that run already (record/attach.c). */
int mt_rec_start_attach(struct mt_session *s, struct launch *l, int *sigfd)
{
	static char args[1 << 16];
	char *argv[256], name[32];
	pid_t pid = s->o->attach_pid;
	int r;

	for (unsigned i = 0; i < s->o->nattach; i++) {
		if ((r = mt_attach_check(s->o->attach_pids[i])) < 0)
			return r;
		s->pids[s->npids] = s->o->attach_pids[i];
		s->pidfds[s->npids] = mt_attach_pidfd(s->pids[s->npids]);
		if (s->pidfds[s->npids] < 0)
			return mt_err_code(s->pidfds[s->npids], "cannot attach to pid %d",
					   (int)s->pids[s->npids]);
		s->npids++;
	}
	if (mt_attach_argv(pid, args, sizeof(args), argv, 256) < 0) {
		snprintf(name, sizeof(name), "pid %d", (int)pid);
		argv[0] = name;
		argv[1] = NULL;
	}
	/* The first pidfd wakes the loop; the loop looks at them all (attach_exits). */
	if ((r = open_running(s, l, sigfd, dup(s->pidfds[0]))) < 0)
		return r;
	if (s->o->alloc && (r = mt_alloc_open(s)) < 0)
		return r;
	s->root = pid;
	r = go_running(s, argv, "attached to a running process", mt_attach_tree, mt_attach_settle);
	for (unsigned k = 0; r > 0 && s->alloc && k < s->npids; k++)
		inject_runtime(s, k);
	if (r > 0 && !s->o->quiet) {
		if (s->npids == 1)
			mt_info("attached to pid %d (%s)%s; Ctrl-C detaches", (int)pid, argv[0],
				s->deadline ? " until --duration elapses" : "");
		else
			mt_info("attached to %u processes (pid %d, %s, and %u more)%s; Ctrl-C "
				"detaches",
				s->npids, (int)pid, argv[0], s->npids - 1,
				s->deadline ? " until --duration elapses" : "");
	}
	return r;
}

/* record -a: every process on the machine but memtap's, perf events with pid -1. */
int mt_rec_start_system(struct mt_session *s, struct launch *l, int *sigfd)
{
	static char *argv[] = { "(the whole system)", NULL };
	int in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3), r;

	if (in >= 0)
		(void)fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
	if ((r = open_running(s, l, sigfd, in)) < 0)
		return r;
	s->system_wide = true;
	s->root = -1;
	mt_writer_exclude_pid(s->w, (uint64_t)s->self);
	r = go_running(s, argv, "system-wide", mt_system_tree, mt_system_settle);
	if (r > 0 && !s->o->quiet)
		mt_info("recording the whole system%s; Ctrl-C or a line END on standard input "
			"stops",
			s->deadline ? " until --duration elapses" : "");
	return r;
}
