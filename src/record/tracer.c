/* SPDX-License-Identifier: MIT */
/* Following the process tree with ptrace event stops (never syscall stops). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/log.h"
#include "record/pagewrites.h"
#include "record/access.h"
#include "record/alloc.h"
#include "record/procfs.h"
#include "record/rss.h"
#include "record/session.h"

/*
 * The tracer sees every fork, vfork, clone, exec and exit of the tree as a ptrace event
 * stop and resumes the task at once; signals are re-injected unchanged, and group-stops
 * (SIGSTOP, SIGTSTP, ...) are kept with PTRACE_LISTEN, so job control behaves as without
 * memtap. A new task's first stop may be reported before its parent's fork event: such a
 * task is kept "unannounced" until the parent's event names its creator.
 */

#define PTRACE_OPTIONS                                                                         \
	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
	 PTRACE_O_TRACEEXIT)

struct task *mt_task_find(struct mt_session *s, pid_t tid)
{
	uint64_t *ix = mt_map64_get(&s->task_ix, (uint64_t)tid);

	return ix ? &s->tasks[*ix] : NULL;
}

struct task *mt_task_add(struct mt_session *s, pid_t tid, pid_t pid, enum task_state st, uint64_t t)
{
	struct task *k;
	uint64_t *ix;

	if (mt_grow_array(&s->tasks, &s->tasks_cap, s->ntasks + 1, sizeof(*s->tasks)) < 0)
		return NULL;
	if (mt_map64_put(&s->task_ix, (uint64_t)tid, &ix) < 0)
		return NULL;
	*ix = s->ntasks;
	k = &s->tasks[s->ntasks++];
	memset(k, 0, sizeof(*k));
	k->tid = tid;
	k->pid = pid;
	k->state = st;
	k->first_seen = t;
	s->live++;
	return k;
}

void mt_task_remove(struct mt_session *s, struct task *k)
{
	bool counted = !k->exit_pending; /* an early exit was uncounted already */

	k->state = TASK_GONE;
	/* The map forgets the tid, so a recycled tid starts a new task. */
	if (mt_map64_del(&s->task_ix, (uint64_t)k->tid) && counted && s->live)
		s->live--;
}

int mt_tracer_seize(struct mt_session *s, pid_t pid)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_OPTIONS) < 0)
		return -errno;
	return 0;
}

static void resume(pid_t tid, int sig)
{
	/* ESRCH: the task was killed meanwhile (SIGKILL needs no stop); its exit follows. */
	(void)ptrace(PTRACE_CONT, tid, 0, sig);
}

static void on_new_task(struct mt_session *s, pid_t parent_tid, int event, uint64_t now)
{
	struct task *parent = mt_task_find(s, parent_tid), *child;
	unsigned long msg = 0;
	pid_t ctid, cpid, ppid, dummy;
	int kind;

	if (ptrace(PTRACE_GETEVENTMSG, parent_tid, 0, &msg) < 0)
		return;
	ctid = (pid_t)msg;
	ppid = parent ? parent->pid : parent_tid;
	child = mt_task_find(s, ctid);
	if (event == PTRACE_EVENT_VFORK) {
		kind = MT_TASK_VFORK;
		cpid = ctid;
	} else if (event == PTRACE_EVENT_FORK) {
		kind = MT_TASK_PROCESS;
		cpid = ctid;
	} else {
		/* clone(): a thread, or a process created with clone() directly. */
		if (child)
			cpid = child->pid;
		else if (mt_procfs_status(ctid, &cpid, &dummy) < 0)
			cpid = ppid;
		kind = cpid == ctid ? MT_TASK_PROCESS : MT_TASK_THREAD;
	}
	if (kind != MT_TASK_THREAD)
		mt_alloc_on_fork(s, ppid, cpid);
	if (child && child->state == TASK_UNANNOUNCED) {
		mt_emit_task_new(s, child->first_seen, cpid, ctid, ppid, parent_tid, kind);
		child->state = TASK_LIVE;
		child->pid = cpid;
		if (child->exit_pending) {
			mt_emit_exit(s, child->exit_time, cpid, ctid,
				     cpid == ctid ? MT_TASK_PROCESS : MT_TASK_THREAD,
				     child->exit_status);
			mt_task_remove(s, child);
		}
		return;
	}
	if (child)
		return; /* already announced */
	if (mt_task_add(s, ctid, cpid, TASK_LIVE, now))
		mt_emit_task_new(s, now, cpid, ctid, ppid, parent_tid, kind);
}

static void on_exec(struct mt_session *s, pid_t tid, uint64_t now)
{
	unsigned long old = 0;
	struct task *k = mt_task_find(s, tid), *o;
	pid_t pid = k ? k->pid : tid;

	(void)ptrace(PTRACE_GETEVENTMSG, tid, 0, &old);
	/* A non-leader thread that execs takes over the leader's tid; its own tid is gone. */
	if (old && (pid_t)old != tid && (o = mt_task_find(s, (pid_t)old)) != NULL)
		mt_task_remove(s, o);
	if (tid == s->root)
		s->exec_done = true;
	mt_alloc_on_exec(s, pid);
	mt_pagewrites_forget(s, pid);
	mt_access_on_exec(s, pid, tid, now);
	mt_emit_exec(s, now, pid, tid, (pid_t)old, NULL, NULL);
}

static void on_exited(struct mt_session *s, pid_t tid, int status, uint64_t now)
{
	struct task *k = mt_task_find(s, tid);
	pid_t pid = k ? k->pid : tid;
	int kind = pid == tid ? MT_TASK_PROCESS : MT_TASK_THREAD;

	if (tid == s->root) {
		s->root_exited = true;
		s->root_status = status;
	}
	/* The task is gone: its runtime slots can be drained, and a process's presence checked. */
	if (kind == MT_TASK_THREAD)
		mt_alloc_on_thread_exit(s, pid, tid);
	else
		mt_alloc_on_process_exit(s, pid);
	if (!k) {
		mt_emit_exit(s, now, pid, tid, kind, status);
		return;
	}
	if (k->state == TASK_UNANNOUNCED) {
		k->exit_pending = true;
		k->exit_status = status;
		k->exit_time = now;
		if (s->live)
			s->live--; /* gone, though announced (and emitted) only with its parent's event */
		return;
	}
	mt_emit_exit(s, now, pid, tid, kind, status);
	mt_task_remove(s, k);
}

void mt_tracer_handle(struct mt_session *s, pid_t tid, int status)
{
	uint64_t now = mt_now_ns();
	int event, sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		on_exited(s, tid, status, now);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	sig = WSTOPSIG(status);
	event = status >> 16;
	if (!mt_task_find(s, tid)) {
		/* First sight of an auto-attached task, before its parent's event. */
		pid_t pid = tid, ppid;

		(void)mt_procfs_status(tid, &pid, &ppid);
		mt_task_add(s, tid, pid, TASK_UNANNOUNCED, now);
	}
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_new_task(s, tid, event, now);
		resume(tid, 0);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(s, tid, now);
		resume(tid, 0);
		break;
	case PTRACE_EVENT_EXIT:
		/* About to exit while its memory still exists; the exit itself is reaped later. */
		mt_access_on_exit(s);
		{
			struct task *k = mt_task_find(s, tid);

			if (!k || k->pid == tid) { /* the process's last scan of written pages, */
				mt_alloc_read_messages(s, tid); /* its last labels included */
				mt_pagewrites_exit(s, tid);
			}
			mt_rss_exit_stop(s, k ? k->pid : tid);
		}
		resume(tid, 0);
		break;
	case PTRACE_EVENT_STOP:
		mt_access_on_stop(s, tid); /* registers readable now: the thread's fs base */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			(void)ptrace(PTRACE_LISTEN, tid, 0, 0); /* a group-stop: stay stopped */
		else
			resume(tid, 0); /* a new task's first stop, or the end of a group-stop */
		break;
	case 0:
		/* A signal on its way to the task: deliver it unchanged (and remember it reached
		 * the command's process, so that memtap does not pass the same one on). */
		if (sig > 0 && sig < 65 && mt_task_find(s, tid) &&
		    mt_task_find(s, tid)->pid == s->root)
			s->root_sig_ns[sig] = now;
		resume(tid, sig);
		break;
	default:
		resume(tid, 0);
		break;
	}
}

void mt_tracer_finish(struct mt_session *s)
{
	/* Tasks whose parent event never came: announce them as best we can. */
	for (size_t i = 0; i < s->ntasks; i++) {
		struct task *k = &s->tasks[i];

		if (k->state != TASK_UNANNOUNCED)
			continue;
		mt_emit_task_new(s, k->first_seen, k->pid, k->tid, 0, 0,
				 k->pid == k->tid ? MT_TASK_PROCESS : MT_TASK_THREAD);
		if (k->exit_pending)
			mt_emit_exit(s, k->exit_time, k->pid, k->tid,
				     k->pid == k->tid ? MT_TASK_PROCESS : MT_TASK_THREAD,
				     k->exit_status);
		k->state = TASK_GONE;
	}
}
