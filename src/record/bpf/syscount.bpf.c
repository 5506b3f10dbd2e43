// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memtap's in-kernel syscall summary: per syscall number, the calls that returned, their
 * errors and their time from entry to exit, for the tasks of the traced tree only.
 *
 * A task is traced when it has task-local storage: the recorder creates it for the command
 * (armed: nothing counts until its execve succeeds), and sched_process_fork gives it to every child
 * of a traced task (processes, threads, vfork, clone3). Storage dies with its task, so a
 * recycled pid is never mistaken for a traced one. A call counts when it returns, as
 * strace -c counts; exit and exit_group never do.
 *
 * The program reads no kernel structure (the task pointers only key the storage), so it
 * needs no vmlinux.h: the verifier takes the real types from the kernel's BTF.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "common.h"

#include "../../decode/rt-load.h"

#define NR_SLOTS 1024 /* slot NR_SLOTS - 1 collects numbers beyond the table */

struct tstate {
	__u64 start;
	__s64 id;
	__u64 armed; /* the command before its execve */
	__u64 runtime; /* the call in flight is the preload runtime's */
	/* The dynamic loader's work for the runtime (decode/rt-load.h), while it is watched. */
	struct mt_rtload load;
	__u64 args[6];
	__u64 rt_path; /* the call in flight opens the runtime's file */
};

/* The runtime's path as LD_PRELOAD names it; set before loading (empty: no runtime). */
const volatile char rt_path[256] = { 0 };
const volatile __u32 rt_path_len = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[256]);
} scratch SEC(".maps");

/* Does the user string at p equal rt_path? Read only while a loader is watched. */
static __always_inline int is_rt_path(const void *p)
{
	__u32 k = 0;
	char *buf = bpf_map_lookup_elem(&scratch, &k);
	long n;

	if (!buf || !rt_path_len || rt_path_len >= 256)
		return 0;
	n = bpf_probe_read_user_str(buf, 256, p);
	if (n != rt_path_len + 1)
		return 0;
	for (int i = 0; i < 255; i++) {
		if (i >= rt_path_len)
			break;
		if (buf[i] != rt_path[i])
			return 0;
	}
	return 1;
}

struct count {
	__u64 calls, errors, ns;
};

MT_BPF_TASKS(struct tstate);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * NR_SLOTS);
	__type(key, __u32);
	__type(value, struct count);
} counts SEC(".maps");

/* record -a: the same per process (thread group); a process that finds the map full is
 * counted in counts only, and user space reports the difference as pid 0's. */
struct pkey {
	__u32 tgid, slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct pkey);
	__type(value, struct count);
} pcounts SEC(".maps");

/* Counts per process too (record -a, and record --pid A,B): set before loading. */
const volatile __u32 mt_per_process = 0;

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct tstate *t = mt_bpf_task();

	if (!t)
		return 0;
	t->id = id;
	t->runtime = regs->r12 == RT_MARK;
	if (t->load.state == MT_RTLOAD_WATCH) {
		mt_bpf_save_args(t->args, regs);
		t->rt_path = (id == 257 || id == 2) &&
			     is_rt_path((const void *)(id == 257 ? regs->si : regs->di));
	}
	t->start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct tstate *t = mt_bpf_task();
	struct count *c;
	__u32 slot;
	__u64 now;

	if (!t || !t->start)
		return 0; /* not traced, or its entry was not seen (a new child's first return) */
	if (t->armed) {
		if (!mt_bpf_disarm(t->id, ret)) {
			t->start = 0;
			return 0;
		}
		t->armed = 0;
	}
	now = bpf_ktime_get_ns();
	slot = t->id >= 0 && t->id < NR_SLOTS - 1 ? (__u32)t->id : NR_SLOTS - 1;
	/* The runtime's own calls (marked in r12) and the loader's work for it: slots NR_SLOTS.. */
	if (t->runtime ||
	    mt_rtload_call(&t->load, t->id, t->args, ret, (int)t->rt_path, (int)t->runtime))
		slot += NR_SLOTS;
	if (mt_bpf_disarm(t->id, ret))
		mt_rtload_exec(&t->load); /* a new image: watch its loader */
	c = bpf_map_lookup_elem(&counts, &slot);
	if (c) {
		c->calls++;
		if (ret < 0 && ret >= -4095)
			c->errors++;
		c->ns += now - t->start;
	}
	if (mt_all_tasks || mt_per_process) {
		struct pkey k = { (__u32)(bpf_get_current_pid_tgid() >> 32), slot };
		struct count zero = { 0 };

		c = bpf_map_lookup_elem(&pcounts, &k);
		if (!c) {
			bpf_map_update_elem(&pcounts, &k, &zero, BPF_NOEXIST);
			c = bpf_map_lookup_elem(&pcounts, &k);
		}
		if (c) {
			c->calls++;
			if (ret < 0 && ret >= -4095)
				c->errors++;
			c->ns += now - t->start;
		}
	}
	t->start = 0;
	return 0;
}

#define ARMED(t) (((struct tstate *)(t))->armed)
MT_BPF_INHERIT_ON_FORK(ARMED)

char LICENSE[] SEC("license") = "Dual MIT/GPL";
