/* SPDX-License-Identifier: MIT */
/* One recording: launch the command, run the collectors, write the trace, report. */
#include "record.h"

#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/cpulist.h"
#include "common/log.h"
#include "common/strutil.h"
#include "format/chunk.h"
#include "format/writer.h"
#include "record/access.h"
#include "record/attach.h"
#include "record/attach-rt.h"
#include "record/alloc.h"
#include "record/faults.h"
#include "record/pagewrites.h"
#include "record/rss.h"
#include "record/syscalls.h"
#include "record/syscalls-bpf.h"
#include "record/tracepoints.h"
#include "record/ustack.h"
#include "decode/syscalls.h"
#include "record/buildid.h"
#include "record/collectors.h"
#include "record/launch.h"
#include "record/live.h"
#include "record/probe.h"
#include "record/record-internal.h"
#include "record/session.h"
#include "record/sysinfo.h"

void mt_record_opts_init(struct mt_record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->numa_node = -1;
	o->output = "memtap.mtap";
	o->follow = MT_FOLLOW_AUTO;
	o->mmaps = true;
	o->ring_pages = 64;
	o->flush_ns = 1000000000ull;
	o->alloc = true;
	o->stack_depth = 128;
	o->python_frames = true;
	o->page_writes_min = 1 << 20;
	o->rt_slots = 1024;
	o->time_every = 1;
	o->zstd_level = 1;
	o->faults = true;
	o->rss = true;
	o->rss_interval_ns = 1000000;
	o->page_writes_ns = 100000000;
}

/* Picks the process-following mechanism from what the machine allows. */
static int choose_follow(struct mt_session *s)
{
	enum mt_follow f = s->o->follow;

	if (f == MT_FOLLOW_AUTO) {
		if (mt_feat_ok(MT_FEAT_PTRACE))
			f = MT_FOLLOW_PTRACE;
		else if (mt_feat_ok(MT_FEAT_PERF_RING) && mt_feat_ok(MT_FEAT_MMAP2))
			f = MT_FOLLOW_PERF;
		else
			f = MT_FOLLOW_NONE;
		if (f != MT_FOLLOW_PTRACE)
			mt_warn("cannot follow the process tree with ptrace: %s; using %s",
				mt_probe(MT_FEAT_PTRACE)->detail,
				f == MT_FOLLOW_PERF
					? "perf task records (no exit statuses below the "
					  "command)"
					: "nothing (the command's process only)");
	} else if (f == MT_FOLLOW_PTRACE && !mt_feat_ok(MT_FEAT_PTRACE)) {
		mt_err("cannot use --follow=ptrace: %s", mt_probe(MT_FEAT_PTRACE)->detail);
		return -EPERM;
	} else if (f == MT_FOLLOW_PERF &&
		   !(mt_feat_ok(MT_FEAT_PERF_RING) && mt_feat_ok(MT_FEAT_MMAP2))) {
		mt_err("cannot use --follow=perf: %s", mt_probe(MT_FEAT_PERF_RING)->detail);
		return -EPERM;
	}
	s->follow = f;
	return 0;
}

static int exit_status_of(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static uint64_t own_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return mt_timeval_ns(ru.ru_utime) + mt_timeval_ns(ru.ru_stime);
}

/* The recorder's own CPU time and peak RSS (its threads, not the workload's: the workload's
 * processes are children, counted in RUSAGE_CHILDREN), for the observer effect. */
static void add_own_cost(const struct mt_session *s, struct mt_kv *end)
{
	struct rusage ru;

	if (s->t_gone > s->t_go) {
		mt_kv_add_u64(end, "recorder_run_cpu_ns", s->cpu_gone - s->cpu_go);
		mt_kv_add_u64(end, "command_wall_ns", s->t_gone - s->t_go);
	}
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	mt_kv_add_u64(end, "recorder_user_ns", mt_timeval_ns(ru.ru_utime));
	mt_kv_add_u64(end, "recorder_sys_ns", mt_timeval_ns(ru.ru_stime));
	mt_kv_add_u64(end, "recorder_max_rss_bytes", (uint64_t)ru.ru_maxrss * 1024);
}

/* record --pid: the process's calls go back to its allocator before the recording ends (a
 * process that outlives the recording does not pay for the runtime's hooks). */
static void uninject_runtime(struct mt_session *s)
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

static int finish(struct mt_session *s)
{
	struct mt_kv end;
	int r;

	mt_live_close(s);
	uninject_runtime(s);
	for (size_t i = 0; i < MT_NCOLLECTORS; i++)
		if (mt_collectors[i].final_drain)
			mt_collectors[i].final_drain(s);
	if (s->follow == MT_FOLLOW_PTRACE && !s->attached)
		mt_tracer_finish(s);
	s->t_end = mt_now_ns();
	for (size_t i = 0; i < MT_NCOLLECTORS; i++) {
		struct mt_kv akv;

		mt_kv_init(&akv);
		if (mt_collectors[i].close)
			mt_collectors[i].close(s, &akv);
		mt_rec_write_collector(s, mt_collector_record(s, &mt_collectors[i]), true, &akv);
		mt_kv_release(&akv);
	}
	mt_kv_init(&end);
	mt_kv_add_u64(&end, "end_monotonic_ns", s->t_end);
	mt_kv_add_u64(&end, "duration_ns", s->t_end - s->t_start);
	if (s->root > 0)
		mt_kv_add_u64(&end, "root_pid", (uint64_t)s->root);
	if (s->root_exited && !s->attached) {
		mt_kv_add_u64(&end, "exit_status", (uint64_t)exit_status_of(s->root_status));
		if (WIFSIGNALED(s->root_status))
			mt_kv_add_u64(&end, "exit_signal", (uint64_t)WTERMSIG(s->root_status));
	}
	mt_kv_add_u64(&end, "processes", s->nprocesses);
	mt_kv_add_u64(&end, "threads", s->nthreads);
	add_own_cost(s, &end);
	if (s->attached) {
		mt_kv_add_u64(&end, "attach_copies_failed", mt_perf_attach_failed());
		/* every collector ran from the first to the second: the exact window */
		mt_kv_add_u64(&end, "attach_exact_from_ns", s->t_go);
		mt_kv_add_u64(&end, "attach_exact_until_ns", s->t_gone);
		mt_kv_add_u64(&end, "attach_left_out", mt_writer_outside(s->w));
		if (s->alloc_from) {
			mt_kv_add_u64(&end, "alloc_exact_from_ns", s->alloc_from);
			mt_kv_add_u64(&end, "alloc_injected_tid", (uint64_t)s->inject_tid);
			mt_kv_add_u64(&end, "alloc_redirected_slots", s->inject_slots);
			mt_kv_add_u64(&end, "alloc_restored_slots", (uint64_t)s->uninjected);
		}
		if (s->system_wide)
			mt_kv_add_u64(&end, "recorder_events_left_out", mt_writer_excluded(s->w));
		mt_kv_add(&end, "stop_reason",
			  s->root_exited ? (s->npids > 1 ? "the attached processes exited"
							 : "the attached process exited")
			  : s->stop_requested
				  ? (s->system_wide ? "stopped: interrupted, or END read"
						    : "detached: interrupted")
				  : "detached: --duration elapsed");
	} else {
		mt_kv_add(&end, "stop_reason",
			  s->stop_requested ? "interrupted after the command exited"
					    : "the process tree exited");
	}
	r = mt_writer_finish(s->w, &end);
	mt_kv_release(&end);
	mt_perf_attach_end();
	return r;
}

/* Follows the command's processes and their mappings from before it runs, as well as the
 * machine allows (the process and mappings records say how). */
static void attach_tree(struct mt_session *s)
{
	const struct mt_record_opts *o = s->o;
	int r = 0;

	mt_task_add(s, s->root, s->root, TASK_LIVE, s->t_start);
	mt_emit_task_new(s, s->t_start, s->root, s->root, s->self, s->self, MT_TASK_PROCESS);
	if (s->follow == MT_FOLLOW_PTRACE && (r = mt_tracer_seize(s, s->root)) < 0) {
		mt_warn("cannot ptrace the command: %s; following with perf task records",
			strerror(-r));
		s->follow = mt_feat_ok(MT_FEAT_PERF_RING) ? MT_FOLLOW_PERF : MT_FOLLOW_NONE;
	}
	if (o->mmaps || s->follow == MT_FOLLOW_PERF) {
		if (!mt_feat_ok(MT_FEAT_PERF_RING) || !mt_feat_ok(MT_FEAT_MMAP2))
			r = -ENOTSUP;
		else
			r = mt_perfmon_open(s);
		if (r < 0) {
			const char *why = r == -ENOTSUP
						  ? (mt_feat_ok(MT_FEAT_PERF_RING)
							     ? mt_probe(MT_FEAT_MMAP2)->detail
							     : mt_probe(MT_FEAT_PERF_RING)->detail)
						  : strerror(-r);

			mt_warn("no kernel mapping records: %s; mappings come from /proc snapshots at "
				"each exec only",
				why);
			mt_coll_set(&s->maps, "procfs", "degraded", why);
			if (s->follow == MT_FOLLOW_PERF)
				s->follow = MT_FOLLOW_NONE;
		}
	}
	if (s->nrings)
		mt_coll_set(&s->maps,
			    s->follow == MT_FOLLOW_PTRACE ? "perf-mmap2+procfs" : "perf-mmap2",
			    "active", NULL);
	else if (!o->mmaps)
		mt_coll_set(&s->maps, "procfs", "degraded",
			    "--no-mmaps: /proc snapshots at each exec only");
	switch (s->follow) {
	case MT_FOLLOW_PTRACE:
		mt_coll_set(&s->proc, "ptrace", "active", NULL);
		break;
	case MT_FOLLOW_PERF:
		mt_coll_set(&s->proc, "perf-task", "degraded",
			    "perf FORK/EXIT/COMM records: exit statuses of the command only");
		break;
	default:
		mt_coll_set(&s->proc, "wait", "degraded",
			    "the command's process only (no ptrace, no perf)");
		break;
	}
}

/* Every collector's first record, in the table's order. */
static void write_first_records(struct mt_session *s, struct mt_kv *kvs)
{
	for (size_t i = 0; i < MT_NCOLLECTORS; i++)
		mt_rec_write_collector(s, mt_collector_record(s, &mt_collectors[i]), false,
				       &kvs[i]);
	mt_writer_flush(s->w);
}

/* The descriptors to poll: the signals, the exec-error pipe, then each collector's; *at[i]
 * is where collector i's begin. Returns their count, or -ENOMEM. */
static int poll_set(struct mt_session *s, int sigfd, int execerr, struct pollfd **fds, int *at)
{
	int want = 2, nfds = 0;
	struct pollfd *nf;

	for (size_t i = 0; i < MT_NCOLLECTORS; i++)
		if (mt_collectors[i].npollfds)
			want += mt_collectors[i].npollfds(s);
	nf = realloc(*fds, (size_t)want * sizeof(**fds));
	if (!nf)
		return -ENOMEM;
	*fds = nf;
	nf[nfds++] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
	nf[nfds++] = (struct pollfd){ .fd = execerr, .events = POLLIN };
	for (size_t i = 0; i < MT_NCOLLECTORS; i++) {
		at[i] = nfds;
		if (mt_collectors[i].pollfds)
			nfds += mt_collectors[i].pollfds(s, nf + nfds, want - nfds);
	}
	at[MT_NCOLLECTORS] = nfds;
	return nfds;
}

/* The nearest deadline of a collector, at most 100 ms away. */
static int poll_timeout(struct mt_session *s)
{
	int timeout = 100;

	for (size_t i = 0; i < MT_NCOLLECTORS; i++) {
		int t = mt_collectors[i].timeout_ms ? mt_collectors[i].timeout_ms(s) : -1;

		if (t >= 0 && t < timeout)
			timeout = t;
	}
	if (s->deadline) {
		uint64_t now = mt_now_ns();
		int left = now >= s->deadline ? 0 : (int)((s->deadline - now + 999999) / 1000000);

		if (left < timeout)
			timeout = left;
	}
	return timeout;
}

static void on_execerr(struct mt_session *s, struct launch *l)
{
	int e;

	if (read(l->execerr[0], &e, sizeof(e)) == sizeof(e)) {
		s->exec_failed = true;
		s->exec_errno = e;
	} else if (s->follow == MT_FOLLOW_NONE) {
		/* No tracer saw the exec; the pipe's close-on-exec says it happened. */
		mt_emit_exec(s, mt_now_ns(), s->root, s->root, s->root, NULL, s->o->argv);
	}
	close(l->execerr[0]);
	l->execerr[0] = -1;
}

/* record -a: a line "END" on standard input stops the recording (KernMLOps' protocol);
 * its end (a closed pipe, /dev/null) only stops the reading. */
static void on_stdin(struct mt_session *s, struct launch *l)
{
	static char line[64];
	static size_t n;
	char buf[4096];
	ssize_t k = read(l->execerr[0], buf, sizeof(buf));

	if (k <= 0) {
		if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(l->execerr[0]);
			l->execerr[0] = -1;
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
static void attach_exits(struct mt_session *s, struct launch *l)
{
	for (unsigned k = 0; k < s->npids; k++) {
		struct pollfd p = { .fd = s->pidfds[k], .events = POLLIN };

		if (p.fd < 0 || poll(&p, 1, 0) <= 0)
			continue;
		close(s->pidfds[k]);
		s->pidfds[k] = -1;
		s->npids_gone++;
	}
	if (l->execerr[0] >= 0)
		close(l->execerr[0]);
	l->execerr[0] = -1;
	for (unsigned k = 0; k < s->npids && l->execerr[0] < 0; k++)
		if (s->pidfds[k] >= 0)
			l->execerr[0] = dup(s->pidfds[k]);
	if (s->npids_gone == s->npids)
		s->root_exited = true;
}

/* Polls and drains until the process tree is gone (or asked to stop). */
static int run_loop(struct mt_session *s, struct launch *l, int sigfd, struct pollfd **fds)
{
	int at[MT_NCOLLECTORS + 1];
	uint64_t last_flush = mt_now_ns();

	for (;;) {
		int timeout = poll_timeout(s), nfds;

		mt_launch_reap(s);
		if (s->root_exited &&
		    (s->follow != MT_FOLLOW_PTRACE || s->live == 0 || s->stop_requested))
			return 0;
		if (s->attached &&
		    (s->stop_requested || (s->deadline && mt_now_ns() >= s->deadline)))
			return 0;
		nfds = poll_set(s, sigfd, l->execerr[0], fds, at);
		if (nfds < 0)
			return nfds;
		if (poll(*fds, (nfds_t)nfds, timeout) < 0 && errno != EINTR)
			return mt_err_code(-errno, "poll");
		for (size_t i = 0; i < MT_NCOLLECTORS; i++)
			if (mt_collectors[i].handle)
				mt_collectors[i].handle(s, *fds + at[i], at[i + 1] - at[i]);
		for (;;) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) != sizeof(si))
				break;
			mt_launch_on_signal(s, &si);
		}
		if (l->execerr[0] >= 0 && ((*fds)[1].revents & (POLLIN | POLLHUP))) {
			if (s->system_wide) { /* standard input: a line END stops */
				on_stdin(s, l);
			} else if (s->attached) { /* a pidfd: a process exited */
				attach_exits(s, l);
			} else {
				on_execerr(s, l);
			}
		}
		for (size_t i = 0; i < MT_NCOLLECTORS; i++)
			if (mt_collectors[i].drain)
				mt_collectors[i].drain(s);
		mt_live_tick(s);
		if (mt_now_ns() - last_flush >= s->o->flush_ns) {
			mt_alloc_flush(s);
			mt_writer_flush(s->w);
			last_flush = mt_now_ns();
		}
	}
}

/* Blocks the signals the loop reads through sigfd; sets up the launch pipes. */
static int setup_signals(struct launch *l, int *sigfd)
{
	sigset_t block;
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &l->oldmask);
	sigaction(SIGPIPE, &ign, &l->oldpipe);
	*sigfd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (*sigfd < 0 || pipe2(l->go, O_CLOEXEC) < 0 || pipe2(l->execerr, O_CLOEXEC) < 0)
		return mt_err_code(-errno, "cannot set up the recording");
	return 0;
}

/* Everything before the command runs: the trace, the signals, the allocation collector,
 * the fork (the child waits), attaching, the other collectors and their first records. */
/* The trace file, created as the options say. */
static int open_trace(struct mt_session *s)
{
	const struct mt_record_opts *o = s->o;
	struct mt_writer_opts wo = { .zstd_level = o->zstd_level, .mode = o->mode };
	int r = mt_writer_open(o->output, o->force, &wo, &s->w);

	if (r == -EEXIST) {
		mt_err("'%s' already exists (hint: use --force to overwrite it, or -o to choose "
		       "another file)",
		       o->output);
		return r;
	}
	if (r < 0)
		return mt_err_code(r, "cannot create '%s'", o->output);
	return 0;
}

/* The collectors of the table, opened in its order, and their first records. */
static void open_collectors(struct mt_session *s)
{
	struct mt_kv kvs[MT_NCOLLECTORS];

	for (size_t i = 0; i < MT_NCOLLECTORS; i++)
		mt_kv_init(&kvs[i]);
	for (size_t i = 0; i < MT_NCOLLECTORS; i++)
		if (mt_collectors[i].open)
			mt_collectors[i].open(s, &kvs[i]);
	write_first_records(s, kvs);
	for (size_t i = 0; i < MT_NCOLLECTORS; i++)
		mt_kv_release(&kvs[i]);
	mt_live_open(s);
}

static int start(struct mt_session *s, struct launch *l, int *sigfd)
{
	const struct mt_record_opts *o = s->o;
	int r = open_trace(s);

	if (r < 0)
		return r;
	r = setup_signals(l, sigfd);
	if (r < 0)
		return r;
	mt_launch_raise_nofile(l);
	s->alloc_coll.name = "alloc";
	mt_open_pagewrites(s);
	if (o->alloc) {
		r = mt_alloc_open(s);
		if (r < 0)
			return r;
		snprintf(s->alloc_coll.mechanism, sizeof(s->alloc_coll.mechanism), "preload%s",
			 o->stack_depth ? "+eh_frame-stacks" : "");
		mt_coll_set(&s->alloc_coll, s->alloc_coll.mechanism, "active", NULL);
	} else {
		mt_coll_set(&s->alloc_coll, "none", "off", "--no-alloc");
	}
	s->t_start = mt_now_ns();
	r = mt_rec_write_meta(s, o->argv);
	if (r < 0)
		return mt_err_code(r, "cannot write '%s'", o->output);
	l->own_group = !mt_launch_terminal_foreground();
	s->root = fork();
	if (s->root < 0)
		return mt_err_code(-errno, "cannot fork");
	if (s->root == 0)
		mt_launch_child(s, l, o->argv);
	if (l->own_group)
		(void)setpgid(s->root, s->root); /* both sides: no race with the exec */
	s->own_group = l->own_group;
	close(l->go[0]);
	close(l->execerr[1]);
	l->go[0] = l->execerr[1] = -1;
	/* Attach everything before the command runs: nothing it does can be missed. */
	attach_tree(s);
	open_collectors(s);
	/* Go. */
	s->cpu_go = own_cpu_ns();
	s->t_go = mt_now_ns();
	(void)!write(l->go[1], s->follow == MT_FOLLOW_PTRACE ? "g" : "e", 1);
	close(l->go[1]);
	l->go[1] = -1;
	return 1; /* the command runs */
}

/* The counted events of an attached recording: from the moment every collector runs. */
#define WINDOWED \
	(1u << MT_EV_FAULT | 1u << MT_EV_SYSCALL | 1u << MT_EV_ACCESS | 1u << MT_EV_TRACEPOINT)

/* What --pid and -a share first: the trace and the signals, no launch pipes; in (when not
 * -1) stands in for the exec-error pipe: the attached process's pidfd, or standard input. */
static int open_running(struct mt_session *s, struct launch *l, int *sigfd, int in)
{
	int r = open_trace(s);

	if (r >= 0)
		r = setup_signals(l, sigfd);
	for (int i = 0; i < 2; i++) {
		if (l->go[i] >= 0)
			close(l->go[i]);
		if (l->execerr[i] >= 0)
			close(l->execerr[i]);
		l->go[i] = l->execerr[i] = -1;
	}
	l->execerr[0] = in;
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
	open_collectors(s);
	settle(s);
	s->cpu_go = own_cpu_ns();
	s->t_go = mt_now_ns();
	mt_writer_window(s->w, s->t_go, UINT64_MAX, WINDOWED);
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
static int start_attach(struct mt_session *s, struct launch *l, int *sigfd)
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
static int start_system(struct mt_session *s, struct launch *l, int *sigfd)
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

int mt_record(const struct mt_record_opts *o)
{
	struct mt_session s = { .o = o };
	struct launch l = { .go = { -1, -1 }, .execerr = { -1, -1 } };
	struct pollfd *fds = NULL;
	int sigfd = -1, r, ret;

	/* Large buffers (event blocks, string tables, chunk frames) from mmap, given back when
	 * freed: glibc's moving threshold would keep them in the heap after the first free,
	 * and a long recording's heap would keep the high-water mark of every burst. */
	(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	s.self = getpid();
	s.proc.name = "process";
	s.maps.name = "mappings";
	mt_map64_init(&s.task_ix);

	if (o->system_wide) {
		r = start_system(&s, &l, &sigfd);
	} else if (o->attach_pid) {
		r = start_attach(&s, &l, &sigfd);
	} else {
		r = choose_follow(&s);
		if (r < 0)
			return r;
		r = start(&s, &l, &sigfd);
	}
	if (r <= 0) {
		if (s.w) {
			mt_writer_free(s.w);
			s.w = NULL;
			unlink(o->output);
		}
		goto out;
	}
	r = run_loop(&s, &l, sigfd, &fds);
	s.t_gone = mt_now_ns();
	s.cpu_gone = own_cpu_ns();
	if (s.attached)
		mt_writer_window(s.w, s.t_go, s.t_gone, WINDOWED);
	if (r == 0 && l.execerr[0] >= 0) {
		int e;

		if (read(l.execerr[0], &e, sizeof(e)) == sizeof(e)) {
			s.exec_failed = true;
			s.exec_errno = e;
		}
	}
	if (r < 0 && !s.attached) {
		/* memtap itself failed mid-run: let the workload go on unobserved. */
		kill(s.root, SIGCONT);
	}
	ret = finish(&s);
	if (s.exec_failed) {
		mt_err("cannot run '%s': %s", o->argv[0], strerror(s.exec_errno));
		unlink(o->output);
		r = s.exec_errno == ENOENT ? 127 : 126;
		goto out;
	}
	if (ret < 0)
		mt_err_code(ret, "writing '%s' failed; the trace is incomplete", o->output);
	if (!o->quiet)
		mt_rec_print_summary(&s, o->output, mt_writer_stats(s.w)->bytes);
	if (r < 0)
		goto out;
	r = s.attached ? 0 : s.root_exited ? exit_status_of(s.root_status) : 1;
	/* A trace that could not be written is a failure even when the workload succeeded. */
	if (ret < 0 && r == 0)
		r = 1;
out:
	mt_writer_free(s.w);
	free(fds);
	free(s.tasks);
	mt_map64_release(&s.task_ix);
	mt_buildid_cache_clear();
	if (sigfd >= 0)
		close(sigfd);
	for (int i = 0; i < 2; i++) {
		if (l.go[i] >= 0)
			close(l.go[i]);
		if (l.execerr[i] >= 0)
			close(l.execerr[i]);
	}
	sigaction(SIGPIPE, &l.oldpipe, NULL);
	sigprocmask(SIG_SETMASK, &l.oldmask, NULL);
	if (l.nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &l.nofile);
	return r;
}
