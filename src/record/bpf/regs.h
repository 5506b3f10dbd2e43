/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What memtap's BPF programs read of a syscall's registers: the six arguments and r12,
 * where the preload runtime marks its own calls (format/rt-mark.h). Only these fields are
 * declared; CO-RE relocates their offsets against the kernel's BTF, so no vmlinux.h.
 */
#ifndef MT_BPF_REGS_H
#define MT_BPF_REGS_H

struct pt_regs {
	unsigned long di, si, dx, r10, r8, r9, r12;
} __attribute__((preserve_access_index));

#define RT_MARK 0x5452706174366d4dull /* format/rt-mark.h */

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

#endif
