/* SPDX-License-Identifier: MIT */
/*
 * Attaching to a running process (record --pid): nothing is launched and nothing stopped.
 * The kernel-side collectors open their events for the process's threads as they are
 * (perf.h: an event on the leader, its copies on the other threads), enabled at once; the
 * process, its threads and its mappings are announced from /proc at the attach time; its
 * children from then on come from perf's task records. Detaching is closing the events: the
 * process never notices. What happened before the attach is not seen, and the trace says
 * from when its figures hold (the META's attach_* keys).
 */
#include "record/attach.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/log.h"
#include "record/collectors.h"
#include "record/perf.h"
#include "record/probe.h"
#include "record/procfs.h"
#include "record/rss.h"
#include "record/session.h"
#include "record/sysinfo.h"

#define PF_KTHREAD_ 0x00200000u /* include/linux/sched.h */

/* Its state letter and flags from /proc/PID/stat (the fields after the command's ')'). */
static int stat_of(pid_t pid, char *state, unsigned long *flags)
{
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", state, flags) != 2)
		return -EINVAL;
	return 0;
}

int mt_attach_check(pid_t pid)
{
	char state = 0, path[64];
	unsigned long flags = 0;
	struct stat st;
	pid_t tgid = 0, ppid = 0;
	int r = stat_of(pid, &state, &flags);

	if (r == -ENOENT || r == -ESRCH) {
		mt_err("cannot attach to pid %d: no such process", (int)pid);
		return -ESRCH;
	}
	if (r < 0)
		return mt_err_code(r, "cannot attach to pid %d: cannot read /proc/%d/stat",
				   (int)pid, (int)pid);
	if (flags & PF_KTHREAD_) {
		mt_err("cannot attach to pid %d: it is a kernel thread (memtap records user "
		       "processes)",
		       (int)pid);
		return -EINVAL;
	}
	if (state == 'Z' || state == 'X') {
		mt_err("cannot attach to pid %d: it has exited (a zombie)", (int)pid);
		return -ESRCH;
	}
	if (mt_procfs_status(pid, &tgid, &ppid) == 0 && tgid != pid) {
		mt_err("cannot attach to pid %d: it is a thread of process %d (give --pid %d)",
		       (int)pid, (int)tgid, (int)tgid);
		return -EINVAL;
	}
	if (pid == getpid()) {
		mt_err("cannot attach to pid %d: it is this memtap", (int)pid);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) == 0 && geteuid() != 0 && st.st_uid != geteuid()) {
		mt_err("cannot attach to pid %d: it belongs to another user (uid %u); attaching "
		       "needs root",
		       (int)pid, (unsigned)st.st_uid);
		return -EPERM;
	}
	return 0;
}

int mt_attach_check_system(void)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY,
				     .disabled = 1,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = mt_perf_open(&a, -1, 0, -1);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd != -EACCES && fd != -EPERM)
		return 0; /* not a matter of privilege: the collectors say what fails */
	mt_err("record -a needs CAP_PERFMON (or root): perf events of every process are denied "
	       "to this user (kernel.perf_event_paranoid=%d)",
	       mt_sysctl_int("/proc/sys/kernel/perf_event_paranoid", 2));
	return -EPERM;
}

int mt_attach_traced(pid_t pid)
{
	char path[64], line[256];
	int tracer = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0; /* gone: the attach says so */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	if (tracer <= 0)
		return 0;
	mt_err("pid %d is traced by pid %d (a debugger or strace): its allocations are recorded by "
	       "loading memtap's runtime with ptrace, which a traced process cannot take (hint: "
	       "--no-alloc records everything else)",
	       (int)pid, tracer);
	return -EBUSY;
}

int mt_attach_argv(pid_t pid, char *buf, size_t size, char **argv, size_t max)
{
	long n = mt_procfs_cmdline(pid, buf, size - 1);
	size_t k = 0;

	if (n < 0)
		return (int)n;
	buf[n] = 0;
	for (long i = 0; i < n && k + 1 < max; i += (long)strlen(buf + i) + 1)
		argv[k++] = buf + i;
	if (!k && mt_procfs_comm(pid, buf, size) == 0) /* no arguments: a daemon that cleared
							  them shows its name */
		argv[k++] = buf;
	argv[k] = NULL;
	return k ? 0 : -ENOENT;
}

struct announce {
	struct mt_session *s;
	uint64_t t;
	pid_t pid; /* the process whose threads these are */
};

/* A thread of a->pid (its leader left out): announced at a->t. */
static int announce_thread_of(void *ctx, pid_t tid)
{
	struct announce *a = ctx;

	if (tid != a->pid)
		mt_emit_task_new(a->s, a->t, a->pid, tid, a->pid, a->pid, MT_TASK_THREAD);
	return 1;
}

/* perf's task and mapping records for what runs already; without them, what /proc showed
 * at the start is all (the process collector's reason: degraded, or active). */
static void open_side_band(struct mt_session *s, const char *degraded, const char *active)
{
	int r = mt_feat_ok(MT_FEAT_PERF_RING) && mt_feat_ok(MT_FEAT_MMAP2) ? mt_perfmon_open(s)
									   : -ENOTSUP;

	if (r < 0) {
		const char *why = r == -ENOTSUP ? "perf side-band records are not available here"
						: strerror(-r);

		mt_warn("no kernel mapping or task records: %s; mappings are those of the start "
			"only",
			why);
		mt_coll_set(&s->maps, "procfs", "degraded", why);
		mt_coll_set(&s->proc, "procfs", "degraded", degraded);
		s->follow = MT_FOLLOW_NONE;
		return;
	}
	s->follow = MT_FOLLOW_PERF;
	mt_coll_set(&s->maps, "perf-mmap2+procfs", "active", NULL);
	mt_coll_set(&s->proc, "perf-task", "degraded", active);
}

void mt_attach_tree(struct mt_session *s)
{
	mt_perf_attach_begin(s->root);
	for (unsigned i = 0; i < s->npids; i++) {
		pid_t pid = s->pids[i], tgid = 0, ppid = 0;
		struct announce a = { s, s->t_start, pid };

		(void)mt_procfs_status(pid, &tgid, &ppid);
		mt_emit_task_new(s, s->t_start, pid, pid, ppid, ppid, MT_TASK_PROCESS);
		(void)mt_perf_attach_scan(pid, announce_thread_of, &a);
		/* Its program, arguments and mappings as they are now. */
		mt_emit_exec(s, s->t_start, pid, pid, pid, NULL, NULL);
	}
	open_side_band(s, "attached: the process's exit only (no perf task records)",
		       "attached: threads and mappings from /proc at the attach, later ones from "
		       "perf FORK/EXIT/COMM records; no exit statuses (memtap is not the "
		       "parent)");
}

void mt_attach_settle(struct mt_session *s)
{
	/* A thread created before its creator's events were open has none: give it copies,
	 * until a listing finds no new thread (later ones inherit them). */
	for (int round = 0; round < 100; round++) {
		int fresh = 0;

		for (unsigned i = 0; i < s->npids; i++) {
			struct announce a = { s, mt_now_ns(), s->pids[i] };
			int n = mt_perf_attach_scan(s->pids[i], announce_thread_of, &a);

			fresh += n > 0 ? n : 0;
		}
		if (!fresh)
			break;
	}
	for (unsigned i = 0; s->rss && i < s->npids; i++)
		mt_rss_seed(s, s->pids[i]);
}

/* Each user process on the machine but memtap's, handed to fn (kernel threads left out). */
static void each_process(struct mt_session *s, void (*fn)(struct mt_session *s, pid_t pid))
{
	struct dirent *d;
	DIR *dir = opendir("/proc");

	while (dir && (d = readdir(dir))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		unsigned long flags = 0;
		char state;

		if (pid <= 0 || pid == s->self || stat_of(pid, &state, &flags) < 0 ||
		    (flags & PF_KTHREAD_) || state == 'Z')
			continue;
		fn(s, pid);
	}
	if (dir)
		closedir(dir);
}

static void announce_process(struct mt_session *s, pid_t pid)
{
	struct announce a = { s, s->t_start, pid };
	pid_t tgid = 0, ppid = 0;

	(void)mt_procfs_status(pid, &tgid, &ppid);
	mt_emit_task_new(s, s->t_start, pid, pid, ppid, ppid, MT_TASK_PROCESS);
	(void)mt_procfs_tasks(pid, announce_thread_of, &a);
	mt_emit_exec(s, s->t_start, pid, pid, pid, NULL, NULL);
}

void mt_system_tree(struct mt_session *s)
{
	each_process(s, announce_process);
	open_side_band(s, "system-wide: the processes at the start only (no perf task records)",
		       "system-wide: processes and mappings from /proc at the start, later ones "
		       "from perf FORK/EXIT/COMM records; no exit statuses (memtap is not their "
		       "parent)");
}

void mt_system_settle(struct mt_session *s)
{
	if (s->rss)
		each_process(s, mt_rss_seed);
}

int mt_attach_pidfd(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
}
