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

#include "regs.h"

#include "../../decode/path-args.h"

struct task_struct;

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

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstate);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* The syscalls to record (--syscalls=CLASSES), a bit per number; set before loading. */
const volatile __u64 allow[16] = { 0 };

#define WAKE_AT (8 << 20) /* the recorder drains on its own schedule; woken when 1/4 full */

static __always_inline int allowed(long id)
{
	if (id < 0 || id >= 1024)
		return 0;
	return (allow[(id >> 6) & 15] >> (id & 63)) & 1;
}

static __always_inline __u64 wake_flag(void)
{
	return bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) >= WAKE_AT ? BPF_RB_FORCE_WAKEUP
									 : BPF_RB_NO_WAKEUP;
}

static __always_inline void count_drop(void)
{
	__u32 k = 0;
	__u64 *d = bpf_map_lookup_elem(&dropped, &k);

	if (d)
		*d += 1;
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
	struct tstate *t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	int which;

	if (!t)
		return 0;
	t->id = id;
	mt_bpf_save_args(t->args, regs);
	t->runtime = regs->r12 == RT_MARK;
	t->plen = 0;
	which = mt_path_arg_of(id);
	if (which && (!t->armed || id == 59 || id == 322))
		t->plen = bpf_probe_read_user_str(t->path, sizeof(t->path),
						  (const void *)(which == 1 ? regs->di : regs->si));
	t->start = bpf_ktime_get_ns();
	if ((id == 60 || id == 231) && !t->armed && allowed(id)) { /* exit, exit_group */
		struct rec *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);

		if (!r) {
			count_drop();
			return 0;
		}
		fill(r, t, t->start, 0, FLAG_NO_EXIT);
		r->duration = 0;
		bpf_ringbuf_submit(r, wake_flag());
		t->start = 0;
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct tstate *t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	__u64 now;

	if (!t || !t->start)
		return 0; /* not traced, or its entry was not seen (a new child's first return) */
	now = bpf_ktime_get_ns();
	if (t->armed) {
		/* Before the command's own program runs nothing counts; its successful execve is
		 * its first recorded call. */
		if ((t->id != 59 && t->id != 322) || ret != 0) {
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
			count_drop();
			t->start = 0;
			return 0;
		}
		fill(&rp->r, t, now, ret, 0);
		__builtin_memcpy(rp->path, t->path, PATH_CAP);
		bpf_ringbuf_submit(rp, wake_flag());
	} else {
		struct rec *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);

		if (!r) {
			count_drop();
			t->start = 0;
			return 0;
		}
		fill(r, t, now, ret, 0);
		bpf_ringbuf_submit(r, wake_flag());
	}
	t->start = 0;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork, struct task_struct *parent, struct task_struct *child)
{
	struct tstate *t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);

	if (t && !t->armed)
		bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
