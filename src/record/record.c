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
#include "record/alloc.h"
#include "record/budget.h"
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
	o->live = true;
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

uint64_t mt_rec_own_cpu_ns(void)
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

static int finish(struct mt_session *s)
{
	struct mt_kv end;
	uint64_t cut;
	int r;

	mt_live_close(s);
	mt_rec_uninject(s);
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
	/* a launched command that ran on past --max-size: the trace ends where it was cut */
	cut = s->budget.end_ns && !s->attached ? s->budget.end_ns : s->t_end;
	mt_kv_add_u64(&end, "end_monotonic_ns", cut);
	mt_kv_add_u64(&end, "duration_ns", cut - s->t_start);
	if (cut != s->t_end)
		mt_kv_add_u64(&end, "budget_command_end_ns", s->t_end);
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
	mt_budget_keys(s, &end);
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
			  : s->budget.end_ns ? "detached: --max-size reached"
					     : "detached: --duration elapsed");
	} else {
		mt_kv_add(&end, "stop_reason",
			  s->budget.end_ns    ? "--max-size reached; the command ran on, unrecorded"
			  : s->stop_requested ? "interrupted after the command exited"
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

/* The descriptors to poll: the signals, the exec-error pipe or what stands for it (watch),
 * then each collector's; *at[i] is where collector i's begin. Returns their count, or
 * -ENOMEM. */
static int poll_set(struct mt_session *s, int sigfd, int watch, struct pollfd **fds, int *at)
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
	nf[nfds++] = (struct pollfd){ .fd = watch, .events = POLLIN };
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
		nfds = poll_set(s, sigfd, l->execerr[0] >= 0 ? l->execerr[0] : l->watch, fds, at);
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
		if ((l->execerr[0] >= 0 || l->watch >= 0) &&
		    ((*fds)[1].revents & (POLLIN | POLLHUP))) {
			if (s->system_wide) { /* standard input: a line END stops */
				mt_rec_on_stdin(s, l);
			} else if (s->attached) { /* a pidfd: a process exited */
				mt_rec_attach_exits(s, l);
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
		mt_budget_tick(s);
	}
}

/* Blocks the signals the loop reads through sigfd; sets up the launch pipes. */
int mt_rec_setup_signals(struct launch *l, int *sigfd)
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
int mt_rec_open_trace(struct mt_session *s)
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
	mt_budget_open(s);
	return 0;
}

/* The collectors of the table, opened in its order, and their first records. */
void mt_rec_open_collectors(struct mt_session *s)
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
	mt_probe_release(); /* the collectors hold their tracepoints now */
	if (s->o->live)
		mt_live_open(s);
}

static int start(struct mt_session *s, struct launch *l, int *sigfd)
{
	const struct mt_record_opts *o = s->o;
	int r = mt_rec_open_trace(s);

	if (r < 0)
		return r;
	r = mt_rec_setup_signals(l, sigfd);
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
	mt_rec_open_collectors(s);
	/* Go. */
	s->cpu_go = mt_rec_own_cpu_ns();
	s->t_go = mt_now_ns();
	(void)!write(l->go[1], s->follow == MT_FOLLOW_PTRACE ? "g" : "e", 1);
	close(l->go[1]);
	l->go[1] = -1;
	return 1; /* the command runs */
}

int mt_record(const struct mt_record_opts *o)
{
	struct mt_session s = { .o = o };
	struct launch l = { .go = { -1, -1 }, .execerr = { -1, -1 }, .watch = -1 };
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
		r = mt_rec_start_system(&s, &l, &sigfd);
	} else if (o->attach_pid) {
		r = mt_rec_start_attach(&s, &l, &sigfd);
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
	s.cpu_gone = mt_rec_own_cpu_ns();
	if (s.attached)
		mt_writer_window(s.w, s.t_go, s.t_gone, MT_REC_WINDOWED);
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
	if (l.watch >= 0)
		close(l.watch);
	sigaction(SIGPIPE, &l.oldpipe, NULL);
	sigprocmask(SIG_SETMASK, &l.oldmask, NULL);
	if (l.nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &l.nofile);
	return r;
}
