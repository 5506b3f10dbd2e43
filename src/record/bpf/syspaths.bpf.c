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

#include "common.h"

#include "../../decode/path-args.h"

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

MT_BPF_TASKS(struct tstate);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} paths SEC(".maps");

#define WAKE_AT (4 << 20) /* a quarter of the ring */

MT_BPF_DROPPED;

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct tstate *t;
	struct path_rec *r;
	const char *user;
	int which = mt_path_arg_of(id);

	if (!which)
		return 0;
	t = mt_bpf_task();
	if (!t)
		return 0;
	r = bpf_ringbuf_reserve(&paths, sizeof(*r), 0);
	if (!r) {
		mt_bpf_count_drop(&dropped);
		return 0;
	}
	user = which == 1 ? (const char *)regs->di : (const char *)regs->si;
	r->time = bpf_ktime_get_ns();
	r->tid = (__u32)bpf_get_current_pid_tgid();
	r->nr = (__s32)id;
	r->len = bpf_probe_read_user_str(r->path, sizeof(r->path), user);
	bpf_ringbuf_submit(r, mt_bpf_wake_flag(&paths, WAKE_AT));
	return 0;
}

#define NEVER_ARMED(t) 0 /* the command's path capture starts at once */
MT_BPF_INHERIT_ON_FORK(NEVER_ARMED)

char LICENSE[] SEC("license") = "Dual MIT/GPL";
