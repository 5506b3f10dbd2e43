/* SPDX-License-Identifier: MIT */
/* Entry stubs: pass the caller's stack pointer and frame pointer to the C hooks, so the stack
 * walk starts at the user's return address and never sees the runtime's own frames. */
#include "format/rt-mark.h"

#if defined(__x86_64__)
	.text

/* long mt_rt_sys(long nr, long a0, long a1, long a2, long a3, long a4, long a5): the
 * runtime's own system calls, marked by MT_RT_SYSCALL_MARK in r12 (format/rt-mark.h) so that
 * the recorder tells them from the workload's. Returns the raw result (-4095..-1 is -errno;
 * errno is left alone, as the workload's errno must be). */
	.globl mt_rt_sys
	.hidden mt_rt_sys
	.type mt_rt_sys, @function
	.p2align 4
mt_rt_sys:
	.cfi_startproc
	push %r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r12, 0
	movabs $MT_RT_SYSCALL_MARK, %r12
	mov %rdi, %rax
	mov %rsi, %rdi
	mov %rdx, %rsi
	mov %rcx, %rdx
	mov %r8, %r10
	mov %r9, %r8
	mov 16(%rsp), %r9
	syscall
	pop %r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r12
	ret
	.cfi_endproc
	.size mt_rt_sys, .-mt_rt_sys

/* STUB name, impl, sp-register, bp-register: the register after the function's arguments. */
.macro STUB name, impl, spreg, bpreg
	.globl \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	mov %rsp, \spreg
	mov %rbp, \bpreg
	jmp \impl
	.cfi_endproc
	.size \name, .-\name
.endm

	STUB malloc, mt_rt_malloc, %rsi, %rdx
	STUB valloc, mt_rt_valloc, %rsi, %rdx
	STUB pvalloc, mt_rt_pvalloc, %rsi, %rdx
	STUB calloc, mt_rt_calloc, %rdx, %rcx
	STUB realloc, mt_rt_realloc, %rdx, %rcx
	STUB aligned_alloc, mt_rt_aligned_alloc, %rdx, %rcx
	STUB memalign, mt_rt_memalign, %rdx, %rcx
	STUB reallocarray, mt_rt_reallocarray, %rcx, %r8
	STUB posix_memalign, mt_rt_posix_memalign, %rcx, %r8
	STUB munmap, mt_rt_munmap, %rdx, %rcx
	STUB brk, mt_rt_brk, %rsi, %rdx
	STUB sbrk, mt_rt_sbrk, %rsi, %rdx

/* mmap has six register arguments and mremap five plus a variadic one: their stubs leave
 * rsp and rbp in the thread's TLS entry slots instead (initial-exec TLS through %r11, which
 * carries no argument; %al must survive for the variadic mremap). */
.macro TLS_STUB name, impl
	.globl \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	movq mt_rt_entry_sp@gottpoff(%rip), %r11
	mov %rsp, %fs:(%r11)
	movq mt_rt_entry_bp@gottpoff(%rip), %r11
	mov %rbp, %fs:(%r11)
	jmp \impl
	.cfi_endproc
	.size \name, .-\name
.endm

	TLS_STUB mmap, mt_rt_mmap
	TLS_STUB mmap64, mt_rt_mmap
	TLS_STUB mremap, mt_rt_mremap

	.section .note.GNU-stack,"",@progbits
#else
#error "memtap's runtime entry stubs exist for x86-64 only so far"
#endif
