/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What memtap's three BPF programs share: the registers they read of a syscall, the traced
 * tasks (task-local storage given to the command by the recorder and to every child of a
 * traced task at fork), the command's arming until its execve, and a ring buffer's drop
 * counter and wake-up policy.
 *
 * Only the pt_regs fields read are declared; CO-RE relocates their offsets against the
 * kernel's BTF, so no vmlinux.h.
 */
#ifndef MT_BPF_COMMON_H
#define MT_BPF_COMMON_H

struct task_struct;

struct pt_regs {
	unsigned long di, si, dx, r10, r8, r9, r12;
} __attribute__((preserve_access_index));

#define RT_MARK 0x5452706174366d4dull /* format/rt-mark.h */

#define NR_EXECVE 59
#define NR_EXECVEAT 322

/* The syscall's six arguments in order (x86-64: rdi, rsi, rdx, r10, r8, r9). */
static __always_inline void mt_bpf_save_args(__u64 *args, const struct pt_regs *regs)
{
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->r10;
	args[4] = regs->r8;
	args[5] = regs->r9;
}

/* The traced tasks: a task is traced when it has storage in this map (the key is a pidfd
 * from user space). Storage dies with its task, so a recycled pid is never taken for a
 * traced one. */
#define MT_BPF_TASKS(value_type)                         \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE); \
		__uint(map_flags, BPF_F_NO_PREALLOC);    \
		__type(key, int);                        \
		__type(value, value_type);               \
	} tasks SEC(".maps")

/* record -a: every task is traced but the recorder's own (its thread group), each given its
 * storage (zeroed: not armed, no call in flight) at its first call. Set before loading. */
const volatile __u32 mt_all_tasks = 0;
const volatile __u32 mt_self_tgid = 0;

/* The current task's state, NULL when it is not traced. */
#define mt_bpf_task()                                                              \
	({                                                                         \
		struct task_struct *cur_ = bpf_get_current_task_btf();             \
		void *t_ = bpf_task_storage_get(&tasks, cur_, 0, 0);               \
		if (!t_ && mt_all_tasks &&                                         \
		    (__u32)(bpf_get_current_pid_tgid() >> 32) != mt_self_tgid)     \
			t_ = bpf_task_storage_get(&tasks, cur_, 0,                 \
						  BPF_LOCAL_STORAGE_GET_F_CREATE); \
		t_;                                                                \
	})

/* sched_process_fork: the child of a traced task is traced, except while the parent is still
 * armed (before the command's execve: the recorder's own helpers are not the command). */
#define MT_BPF_INHERIT_ON_FORK(armed_of)                                                        \
	SEC("tp_btf/sched_process_fork")                                                        \
	int BPF_PROG(fork, struct task_struct *parent, struct task_struct *child)               \
	{                                                                                       \
		void *t = mt_bpf_task();                                                        \
                                                                                                \
		if (t && !(armed_of(t)))                                                        \
			bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE); \
		return 0;                                                                       \
	}

/* At a call's exit, for an armed task: before the command's own program runs nothing counts;
 * its successful execve (execvp may try several PATH entries first) is its first counted
 * call, and disarms it. 1 when the call counts. */
static __always_inline int mt_bpf_disarm(long id, long ret)
{
	return (id == NR_EXECVE || id == NR_EXECVEAT) && ret == 0;
}

/* A ring buffer's records lost for want of room, per CPU (user space sums them). */
#define MT_BPF_DROPPED                                   \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); \
		__uint(max_entries, 1);                  \
		__type(key, __u32);                      \
		__type(value, __u64);                    \
	} dropped SEC(".maps")

static __always_inline void mt_bpf_count_drop(void *dropped_map)
{
	__u32 k = 0;
	__u64 *d = bpf_map_lookup_elem(dropped_map, &k);

	if (d)
		*d += 1;
}

/* Waking the recorder for each record would cost a wake-up per call: it reads the ring on its
 * own schedule (it drains every collector at least every 100 ms, and the perf rings wake it
 * every MiB) and is woken only when a quarter of the ring (wake_at bytes) is waiting. */
static __always_inline __u64 mt_bpf_wake_flag(void *ring, __u64 wake_at)
{
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wake_at ? BPF_RB_FORCE_WAKEUP
								     : BPF_RB_NO_WAKEUP;
}

#endif
