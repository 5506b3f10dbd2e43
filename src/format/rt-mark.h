/* SPDX-License-Identifier: MIT */
/* The mark on the runtime's own system calls (included by C and by the runtime's assembly). */
#ifndef MEMTAP_FORMAT_RT_MARK_H
#define MEMTAP_FORMAT_RT_MARK_H

/*
 * Every system call the preload runtime makes for itself (its memory, its region, its
 * socket, its thread ids) goes through mt_rt_sys, which holds this value in r12 for the
 * duration of the call. r12 is callee-saved and carries no syscall argument, so the kernel
 * sees it in the task's saved user registers at entry: the recorder reads it with
 * PERF_SAMPLE_REGS_USER, the BPF summary from the tracepoint's pt_regs, and counts those calls
 * apart from the workload's. A workload holding this exact 64-bit value in r12 at a syscall
 * would be miscounted; the value is an ASCII tag chosen not to be a plausible address,
 * length or small integer.
 */
#define MT_RT_SYSCALL_MARK 0x5452706174366d4d /* "Mm6tapRT" */

#endif
