/* SPDX-License-Identifier: MIT */
/* Allocations whose totals are known exactly. It uses no stdio (stdout's buffer would be
 * one more allocation) and prints its expectations as one JSON line with write(2). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep[64];

static __attribute__((noinline)) void *leaf_alloc(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *mid_alloc(size_t n)
{
	void *p = leaf_alloc(n);

	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
	return p;
}

int main(int argc, char **argv)
{
	char line[512];
	void *p, *q;
	int n, r;

	/* alloc-exact FILE: waits for FILE to exist, then runs as a new image (exec), whose
	 * runtime connects then (tests of the runtime's channel under attack). */
	if (argc > 1) {
		struct timespec nap = { 0, 20000000 };

		while (access(argv[1], F_OK) != 0)
			nanosleep(&nap, NULL);
		execl("/proc/self/exe", "alloc-exact", (char *)NULL);
		return 127;
	}
	/* 1000 temporary allocations (each freed before the next allocation). */
	for (int i = 0; i < 1000; i++) {
		p = mid_alloc(100);
		free(p);
	}
	/* 10 leaked blocks of 500 bytes (calloc 10 x 50). */
	for (int i = 0; i < 10; i++)
		keep[i] = calloc(10, 50);
	/* A realloc chain: 3 calls, the old blocks released by the reallocs. */
	p = malloc(10);
	p = realloc(p, 1000);
	p = realloc(p, 100000);
	free(p);
	/* The memalign family, reallocarray, free(NULL). */
	/* Through the volatile array: the compiler may not drop an allocation it sees freed. */
	r = posix_memalign(&q, 64, 256);
	if (r == 0)
		free(q);
	keep[11] = aligned_alloc(128, 384);
	free(keep[11]);
	keep[12] = memalign(32, 96);
	free(keep[12]);
	keep[13] = valloc(4000);
	free(keep[13]);
	keep[14] = pvalloc(5000);
	free(keep[14]);
	keep[15] = reallocarray(NULL, 10, 20);
	free(keep[15]);
	free(NULL);
	/* The peak: 40 blocks of 10000 bytes at once, plus the 10 leaked ones. */
	for (int i = 0; i < 40; i++)
		keep[20 + i] = malloc(10000);
	for (int i = 0; i < 40; i++)
		free(keep[20 + i]);
	/* realloc(p, 0) frees p and returns NULL in glibc. */
	p = malloc(77);
	p = realloc(p, 0);
	/* calls: 1000 + 10 + 3 + 5 + 1 + 40 + 1 (+ the realloc to 0, which returns nothing) */
	n = snprintf(line, sizeof(line),
		     "{\"calls\": %d, \"frees\": %d, \"leaked_bytes\": %d, \"leaked_blocks\": %d, "
		     "\"peak_bytes\": %d, \"temporary\": %d, \"realloc_null\": %d}\n",
		     1000 + 10 + 3 + 5 + 1 + 40 + 1, 1000 + 1 + 5 + 1 + 40 + 1, 10 * 500, 10,
		     10 * 500 + 100000 > 10 * 500 + 40 * 10000 ? 10 * 500 + 100000
							       : 10 * 500 + 40 * 10000,
		     1000 + 3 + 6 + 1, p == NULL);
	(void)!write(1, line, (size_t)n);
	return 0;
}
