/* SPDX-License-Identifier: MIT */
/* Unwinder torture: allocations under recursion, alloca and VLA frames, signal handlers,
 * longjmp and threads, each with libunwind's own view of the stack written beside it.
 * Built without frame pointers. usage: alloc-unwind OUT
 * OUT gets one line per allocation: "SIZE IP IP ...", the return addresses of the
 * allocating function's callers, innermost first, as unw_backtrace() sees them. */
#define UNW_LOCAL_ONLY
#include <alloca.h>
#include <libunwind.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long next_size = 100000;
static void *volatile sink;
static jmp_buf jb;

/* Allocates a block of a unique size and records libunwind's stack for it. Frame 0 of
 * both views is inside this function (at different calls), so it is left out. */
static __attribute__((noinline)) void traced_alloc(void)
{
	void *ips[256];
	int n = unw_backtrace(ips, 256);
	unsigned long size;
	void *p;

	pthread_mutex_lock(&out_lock);
	size = next_size++;
	fprintf(out, "%lu", size);
	for (int i = 1; i < n; i++)
		fprintf(out, " %p", ips[i]);
	fputc('\n', out);
	pthread_mutex_unlock(&out_lock);
	p = malloc(size);
	sink = p;
	free(p);
	__asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays */
}

static __attribute__((noinline)) int recurse(int depth, int flavour)
{
	int r = 0;

	if (depth == 0) {
		traced_alloc();
		return 1;
	}
	switch ((depth + flavour) % 4) {
	case 0: {
		char *a = alloca(64 + (size_t)depth * 16);

		memset(a, depth, 64);
		r = recurse(depth - 1, flavour) + a[3];
		break;
	}
	case 1: {
		char vla[32 + depth];

		memset(vla, 1, sizeof(vla));
		r = recurse(depth - 1, flavour) + vla[depth];
		break;
	}
	case 2:
		r = recurse(depth - 1, flavour) * 2;
		break;
	default:
		if (depth % 5 == 0)
			traced_alloc();
		r = recurse(depth - 1, flavour) + 1;
		break;
	}
	__asm__ volatile("" ::: "memory");
	return r;
}

static void on_usr1(int sig)
{
	(void)sig;
	recurse(7, 1);
}

static __attribute__((noinline)) void deep_then_jump(int depth)
{
	if (depth == 0) {
		traced_alloc();
		longjmp(jb, 1);
	}
	deep_then_jump(depth - 1);
	__asm__ volatile("" ::: "memory");
}

/* Two callers with the same frame, called in turn from one place: the malloc is made at
 * the same sp from the same return address, the frames above differ in one return address
 * (the runtime's cached inner path from that entry must be refused every other call). */
static __attribute__((noinline)) void via_a(void)
{
	traced_alloc();
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void via_b(void)
{
	traced_alloc();
	__asm__ volatile("" ::: "memory");
}

static void *thread_main(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 200; i++)
		recurse(i % 37, (int)id + i);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc != 2 || !(out = fopen(argv[1], "w")))
		return 2;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 300; i++) {
		recurse(i % 41, i);
		if (i % 10 == 0)
			raise(SIGUSR1);
		if (i % 25 == 0 && !setjmp(jb))
			deep_then_jump(i % 30);
	}
	for (int i = 0; i < 200; i++)
		(i % 3 ? via_a : via_b)();
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	fclose(out);
	puts("done");
	return 0;
}
