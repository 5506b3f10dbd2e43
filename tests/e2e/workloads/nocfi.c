/* SPDX-License-Identifier: MIT */
/*
 * Allocations whose stacks cross code the unwinder cannot step through: a hand-written
 * function without CFI (no FDE covers it) and generated code in an anonymous executable
 * page (in no loaded object, like a JIT's). Each allocation must keep the frames walked up
 * to that code, and the report must count the truncations by reason. Prints the counts.
 * usage: nocfi [N]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void *nocfi_malloc(size_t n);
/* No .cfi_startproc: the assembler emits no FDE for it. */
__asm__(".text\n"
	".globl nocfi_malloc\n"
	".type nocfi_malloc, @function\n"
	"nocfi_malloc:\n"
	"	sub $8, %rsp\n"
	"	call malloc@PLT\n"
	"	add $8, %rsp\n"
	"	ret\n"
	".size nocfi_malloc, .-nocfi_malloc\n");

static void *volatile keep;

static __attribute__((noinline)) void *with_cfi(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" ::: "memory");
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	void *(*real_malloc)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *(*jit)(size_t);
	unsigned char *c = code;

	if (code == MAP_FAILED || !real_malloc)
		return 1;
	/* sub $8,%rsp; movabs $malloc,%rax; call *%rax; add $8,%rsp; ret */
	*c++ = 0x48, *c++ = 0x83, *c++ = 0xec, *c++ = 0x08;
	*c++ = 0x48, *c++ = 0xb8;
	memcpy(c, &real_malloc, 8);
	c += 8;
	*c++ = 0xff, *c++ = 0xd0;
	*c++ = 0x48, *c++ = 0x83, *c++ = 0xc4, *c++ = 0x08;
	*c++ = 0xc3;
	jit = (void *(*)(size_t))code;
	for (int i = 0; i < n; i++) {
		free(keep);
		keep = nocfi_malloc(100);
		free(keep);
		keep = jit(200);
		free(keep);
		keep = with_cfi(300);
	}
	printf("no_cfi %d\nnot_in_object %d\nwith_cfi %d\n", n, n, n);
	return 0;
}
