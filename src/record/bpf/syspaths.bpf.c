// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memtap's path capture for per-call syscall recording (--syscalls with BPF): at the entry
 * of the syscalls that take a path (open, openat, openat2, creat, execve, stat, unlink, ...),
 * the path string is copied from the caller's memory into a ring buffer, with the time and
 * thread of the entry; the recorder joins it to the call's raw_syscalls record. perf's
 * tracepoints carry only the pointer, and by the time the recorder reads the records the
 * string may be gone or changed: only a copy at entry is right.
 *
 * Traced tasks have task-local storage: the recorder creates it for the command, and
 * sched_process_fork gives it to every child of a traced task. No kernel structure is read
 * but the tracepoint's pt_regs (CO-RE relocated), so no vmlinux.h is needed.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "regs.h"

#include "../../decode/path-args.h"

struct task_struct;

#define PATH_CAP 256 /* bytes of a path kept (the recorder counts the longer ones) */

struct tstate {
	__u64 traced;
};

struct path_rec {
	__u64 time;
	__u32 tid;
	__s32 nr;
	__s32 len; /* bytes copied with the NUL, or a negative error */
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
	__uint(max_entries, 16 << 20);
} paths SEC(".maps");

/* Waking the recorder for each record would cost a wake-up per call: it reads the ring on
 * its own schedule (it drains every collector at least every 100 ms, and the perf rings
 * wake it every MiB) and is woken here only when a quarter of the ring is waiting. */
#define WAKE_AT (4 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct tstate *t;
	struct path_rec *r;
	const char *user;
	int which = mt_path_arg_of(id);

	if (!which)
		return 0;
	t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	if (!t)
		return 0;
	r = bpf_ringbuf_reserve(&paths, sizeof(*r), 0);
	if (!r) {
		__u32 k = 0;
		__u64 *d = bpf_map_lookup_elem(&dropped, &k);

		if (d)
			__sync_fetch_and_add(d, 1);
		return 0;
	}
	user = which == 1 ? (const char *)regs->di : (const char *)regs->si;
	r->time = bpf_ktime_get_ns();
	r->tid = (__u32)bpf_get_current_pid_tgid();
	r->nr = (__s32)id;
	r->len = bpf_probe_read_user_str(r->path, sizeof(r->path), user);
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&paths, BPF_RB_AVAIL_DATA) >= WAKE_AT
				      ? BPF_RB_FORCE_WAKEUP
				      : BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork, struct task_struct *parent, struct task_struct *child)
{
	struct tstate *t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);

	if (t)
		bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
