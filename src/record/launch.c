/* SPDX-License-Identifier: MIT */
/* Launching the command and passing signals on to it (launch.h). */
#include "record/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/cpulist.h"
#include "common/log.h"
#include "record/alloc.h"
#include "record/record.h"
#include "record/session.h"

/*
 * Is memtap the terminal's foreground job? Then the command stays in memtap's process
 * group, so that the terminal's signals and job control reach it as without memtap (and
 * memtap does not pass them on). Otherwise (no terminal, a background job, a supervisor,
 * make) the command gets a group of its own: a signal sent to memtap's group reaches
 * memtap alone, which passes it on once.
 */
bool mt_launch_terminal_foreground(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	bool fg;

	if (fd < 0)
		return false;
	fg = tcgetpgrp(fd) == getpgrp();
	close(fd);
	return fg;
}

/* One descriptor per traced process (its runtime's socket): the recorder runs with its soft
 * limit at the hard one; the command gets the user's limits back before exec. */
void mt_launch_raise_nofile(struct launch *l)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &l->nofile) < 0 || l->nofile.rlim_cur >= l->nofile.rlim_max)
		return;
	rl = l->nofile;
	rl.rlim_cur = rl.rlim_max;
	l->nofile_raised = setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* --cpus and --numa-node, in the command's process before exec (checked by the caller):
 * 0 or an errno. */
static int place(const struct mt_record_opts *o)
{
	cpu_set_t node;
	int r;

	if (o->numa_node >= 0) {
		if ((r = mt_numa_bind(o->numa_node)) < 0)
			return -r;
		if (!o->cpus && mt_numa_node_cpus(o->numa_node, &node) == 0 && CPU_COUNT(&node) &&
		    sched_setaffinity(0, sizeof(node), &node) < 0)
			return errno;
	}
	if (o->cpus && sched_setaffinity(0, sizeof(*o->cpus), o->cpus) < 0)
		return errno;
	return 0;
}

/* --heap: libmemtap-heap.so preloaded right after the runtime (which reaches it as the next
 * allocator), before whatever the command's environment preloads. */
static void heap_env(struct mt_session *s)
{
	const char *cur = getenv("LD_PRELOAD"), *rt = mt_alloc_rt_path(s);
	size_t n = strlen(rt ? rt : "");
	char buf[16384];

	if (rt && cur && !strncmp(cur, rt, n))
		snprintf(buf, sizeof(buf), "%s:%s%s", rt, s->o->heap_lib, cur + n);
	else
		snprintf(buf, sizeof(buf), "%s%s%s", s->o->heap_lib, cur && *cur ? ":" : "",
			 cur ? cur : "");
	setenv("LD_PRELOAD", buf, 1);
	setenv("MEMTAP_HEAP", s->o->heap, 1);
}

/* The child: back to the signal state memtap was started with, wait, exec. */
void mt_launch_child(struct mt_session *s, struct launch *l, char *const *argv)
{
	char c;
	int e;

	close(l->go[1]);
	close(l->execerr[0]);
	sigaction(SIGPIPE, &l->oldpipe, NULL);
	sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
	if (l->nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &l->nofile);
	if (l->own_group)
		(void)setpgid(0, 0);
	while (read(l->go[0], &c, 1) < 0 && errno == EINTR)
		;
	close(l->go[0]);
	/* 'e': the runtime's variables go into the environment, for the command and its
	 * children to inherit. 'g': ptrace follows the tree and adds them to each exec'd image
	 * the runtime can enter, so a static or setuid program sees exactly the user's. */
	if (c == 'e' && s->alloc && mt_alloc_can_enter(argv[0]))
		mt_alloc_child_env(s);
	if (s->o->heap)
		heap_env(s);
	if ((e = place(s->o)) == 0) {
		execvp(argv[0], argv);
		e = errno;
	}
	(void)!write(l->execerr[1], &e, sizeof(e));
	_exit(127);
}

void mt_launch_reap(struct mt_session *s)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		if (s->follow == MT_FOLLOW_PTRACE) {
			mt_tracer_handle(s, tid, status);
		} else if (tid == s->root && (WIFEXITED(status) || WIFSIGNALED(status))) {
			s->root_exited = true;
			s->root_status = status;
			mt_emit_exit(s, mt_now_ns(), tid, tid, MT_TASK_PROCESS, status);
		}
	}
}

/* Whether /proc/PID/status lists sig among the pending signals (the process's or its
 * threads'). */
static bool pending(pid_t pid, int sig)
{
	char path[64], line[256];
	bool hit = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "ShdPnd:", 7) || !strncmp(line, "SigPnd:", 7))
			hit |= (strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1;
	fclose(f);
	return hit;
}

/* Did the signal memtap just received reach the command's process too (a group kill)? It
 * is then pending there, or (under ptrace) its delivery was just seen; the kernel queued it
 * to both in one call, so a millisecond settles the race with the command's dequeue. */
static bool reached_command(struct mt_session *s, int sig, uint64_t since)
{
	for (int i = 0; i < 2; i++) {
		mt_launch_reap(s);
		if (pending(s->root, sig) || s->root_sig_ns[sig] + 5000000ull >= since)
			return true;
		usleep(1000);
	}
	return false;
}

void mt_launch_on_signal(struct mt_session *s, const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;

	if (sig == SIGCHLD)
		return;
	if (s->attached) {
		/* Not the command's: the recording ends, the process runs on. */
		s->stop_requested = true;
		return;
	}
	if (s->root_exited) {
		if (!s->stop_requested)
			mt_warn("%s: the command has exited; stopping and detaching from %zu remaining "
				"task%s",
				strsignal(sig), s->live, s->live == 1 ? "" : "s");
		s->stop_requested = true;
		return;
	}
	/* A signal from the terminal reached the whole foreground group, the workload
	 * included; so did one sent to that group from inside it (the workload's own kill 0).
	 * One sent to memtap alone (kill, a job scheduler), or to memtap's group when the
	 * command has its own, is passed on: the command receives each signal once. */
	if (si->ssi_code == SI_KERNEL)
		return;
	if (!s->own_group && si->ssi_code == SI_USER && si->ssi_pid &&
	    getpgid((pid_t)si->ssi_pid) == getpgrp())
		return;
	if (!s->own_group && reached_command(s, sig, mt_now_ns()))
		return; /* sent to the whole foreground group from outside it */
	mt_debug("forwarding %s to %d", strsignal(sig), (int)s->root);
	kill(s->root, sig);
}
