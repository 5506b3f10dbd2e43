// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memtap's per-call syscall records in BPF (--syscalls where BPF loads): one compact record
 * per call, written at its exit into a ring buffer, with the entry's time, the duration
 * measured in the kernel, the six arguments, the result, the runtime's mark (r12) and, for
 * the syscalls that take one, the path copied at entry. perf's tracepoint path writes two
 * records per call and pairs them in the recorder; this writes one and pairs nothing.
 *
 * Traced tasks are those with task-local storage, as in syscount.bpf.c: the recorder
 * creates it (armed) for the command, the command's successful execve disarms it, and
 * sched_process_fork gives it to every child. exit and exit_group never return: their
 * record is written at entry, marked as such.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "common.h"

#include "../../decode/path-args.h"

#define PATH_CAP 256
#define FLAG_NO_EXIT 1
#define FLAG_RUNTIME 4

struct tstate {
	__u64 start;
	__s64 id;
	__u64 args[6];
	__u32 armed, runtime;
	__s32 plen;
	__u32 pad;
	char path[PATH_CAP];
};

struct rec {
	__u64 time, duration;
	__u32 pid, tid;
	__s64 nr, ret;
	__u64 args[6];
	__u32 flags;
	__s32 plen; /* > 0: path holds plen bytes with the NUL; < 0: unreadable */
};

struct rec_path {
	struct rec r;
	char path[PATH_CAP];
};

MT_BPF_TASKS(struct tstate);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);
} records SEC(".maps");

MT_BPF_DROPPED;

/* The syscalls to record (--syscalls=CLASSES), a bit per number; set before loading. */
const volatile __u64 allow[16] = { 0 };

#define WAKE_AT (8 << 20) /* a quarter of the ring */

static __always_inline int allowed(long id)
{
	if (id < 0 || id >= 1024)
		return 0;
	return (allow[(id >> 6) & 15] >> (id & 63)) & 1;
}

static __always_inline void fill(struct rec *r, struct tstate *t, __u64 now, long ret, __u32 flags)
{
	__u64 pt = bpf_get_current_pid_tgid();

	r->time = t->start;
	r->duration = now - t->start;
	r->pid = pt >> 32;
	r->tid = (__u32)pt;
	r->nr = t->id;
	r->ret = ret;
	for (int i = 0; i < 6; i++)
		r->args[i] = t->args[i];
	r->flags = flags | (t->runtime ? FLAG_RUNTIME : 0);
	r->plen = t->plen;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct tstate *t = mt_bpf_task();
	int which;

	if (!t)
		return 0;
	t->id = id;
	mt_bpf_save_args(t->args, regs);
	t->runtime = regs->r12 == RT_MARK;
	t->plen = 0;
	which = mt_path_arg_of(id);
	if (which && (!t->armed || id == NR_EXECVE || id == NR_EXECVEAT))
		t->plen = bpf_probe_read_user_str(t->path, sizeof(t->path),
						  (const void *)(which == 1 ? regs->di : regs->si));
	t->start = bpf_ktime_get_ns();
	if ((id == 60 || id == 231) && !t->armed && allowed(id)) { /* exit, exit_group */
		struct rec *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);

		if (!r) {
			mt_bpf_count_drop(&dropped);
			return 0;
		}
		fill(r, t, t->start, 0, FLAG_NO_EXIT);
		r->duration = 0;
		bpf_ringbuf_submit(r, mt_bpf_wake_flag(&records, WAKE_AT));
		t->start = 0;
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct tstate *t = mt_bpf_task();
	__u64 now;

	if (!t || !t->start)
		return 0; /* not traced, or its entry was not seen (a new child's first return) */
	now = bpf_ktime_get_ns();
	if (t->armed) {
		if (!mt_bpf_disarm(t->id, ret)) {
			t->start = 0;
			return 0;
		}
		t->armed = 0;
	}
	if (!allowed(t->id)) {
		t->start = 0;
		return 0;
	}
	if (t->plen > 0) {
		struct rec_path *rp = bpf_ringbuf_reserve(&records, sizeof(*rp), 0);

		if (!rp) {
			mt_bpf_count_drop(&dropped);
			t->start = 0;
			return 0;
		}
		fill(&rp->r, t, now, ret, 0);
		__builtin_memcpy(rp->path, t->path, PATH_CAP);
		bpf_ringbuf_submit(rp, mt_bpf_wake_flag(&records, WAKE_AT));
	} else {
		struct rec *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);

		if (!r) {
			mt_bpf_count_drop(&dropped);
			t->start = 0;
			return 0;
		}
		fill(r, t, now, ret, 0);
		bpf_ringbuf_submit(r, mt_bpf_wake_flag(&records, WAKE_AT));
	}
	t->start = 0;
	return 0;
}

#define ARMED(t) (((struct tstate *)(t))->armed)
MT_BPF_INHERIT_ON_FORK(ARMED)

char LICENSE[] SEC("license") = "Dual MIT/GPL";
