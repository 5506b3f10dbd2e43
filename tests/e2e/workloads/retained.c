/* SPDX-License-Identifier: MIT */
/*
 * Memory written once and read for a set time, in three layouts, for the censored
 * lifetimes and retentions of issue 37 (tests/e2e/censored.sh):
 *   retained lut SECONDS          a 4 MiB const table (the program's .rodata)
 *   retained file SECONDS PATH    a 4 MiB file the program writes, then maps read-only
 *   retained bss SECONDS [again]  a 16 MiB .bss table the program fills once (with "again":
 *                                 fills it a second time 0.3 s later, then reads)
 *   retained data SECONDS         a 2 MiB initialised .data table the program overwrites once
 *   retained block SECONDS keep|free
 *                                 an 8 MiB malloc block written once, then read; "free"
 *                                 frees it and runs 0.3 s more, so the block's lifetime
 *                                 ends before the recording does
 * Prints "NAME START END" (hex) for the memory read, and for a freed block
 * "life MIN MAX": its lifetime on the program's own clock (CLOCK_MONOTONIC, as the trace)
 * lies between the return of malloc to the call of free (MIN) and the call of malloc to the
 * return of free (MAX), in ns.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mono.h"

#define LUT_WORDS (1 << 20) /* 4 MiB of 32-bit words */

/* Non-zero, so it stays in .rodata (a zero table could go to .bss). */
static const uint32_t lut[LUT_WORDS] = { 7, 11, 13 };

/* Memory that exists before the runtime starts: .bss, and .data (non-zero: not .bss). */
static uint32_t zeros[4 << 20];
static uint32_t inited[512 << 10] = { 1, 2, 3 };

static volatile long sink;

/* Loads from [p, p + n) words in a pseudo-random order for sec seconds. */
static void reads(const uint32_t *p, size_t n, double sec)
{
	unsigned long long end = mono_ns() + (unsigned long long)(sec * 1e9);
	unsigned x = 2463534242u;
	long s = 0;

	while (mono_ns() < end)
		for (int i = 0; i < 50000; i++) {
			unsigned long k;
			long v;

			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			k = x % n;
			__asm__ volatile("movl (%1,%2,4), %k0"
					 : "=&r"(v)
					 : "r"(p), "r"(k)
					 : "memory");
			s += v;
		}
	sink = s;
}

static void burn(double sec)
{
	unsigned long long end = mono_ns() + (unsigned long long)(sec * 1e9);
	long s = 0;

	while (mono_ns() < end)
		for (int i = 0; i < 10000; i++)
			s += i ^ (s >> 3);
	sink = s;
}

static void fill(uint32_t *p, size_t n, uint32_t salt)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint32_t)i * 2246822519u ^ salt;
}

static int statics(const char *which, double sec, int again)
{
	uint32_t *p = !strcmp(which, "bss") ? zeros : inited;
	size_t n = p == zeros ? sizeof(zeros) / 4 : sizeof(inited) / 4;

	printf("%s %#lx %#lx\n", which, (unsigned long)p, (unsigned long)(p + n));
	fflush(stdout);
	fill(p, n, 1);
	if (again) { /* a second epoch's writes: rewritten memory */
		burn(0.3);
		fill(p, n, 2);
	}
	reads(p, n, sec);
	return 0;
}

static int from_file(double sec, const char *path)
{
	size_t n = (size_t)LUT_WORDS * 4;
	uint32_t *w = malloc(n);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *m;

	if (!w || fd < 0)
		return 1;
	for (size_t i = 0; i < LUT_WORDS; i++)
		w[i] = (uint32_t)(i * 2654435761u);
	if (write(fd, w, n) != (ssize_t)n)
		return 1;
	free(w);
	m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 1;
	printf("file %#lx %#lx\n", (unsigned long)m, (unsigned long)m + n);
	fflush(stdout);
	reads(m, LUT_WORDS, sec);
	return 0;
}

static int block(double sec, int release)
{
	size_t n = 8u << 20;
	unsigned long long t0 = mono_ns(), ta, tf, t1;
	uint32_t *b = malloc(n);

	ta = mono_ns();
	if (!b)
		return 1;
	for (size_t i = 0; i < n / 4; i++)
		b[i] = (uint32_t)i * 40503u;
	printf("block %#lx %#lx\n", (unsigned long)b, (unsigned long)b + n);
	fflush(stdout);
	reads(b, n / 4, sec);
	if (!release)
		return 0;
	tf = mono_ns();
	free(b);
	t1 = mono_ns();
	printf("life %llu %llu\n", tf - ta, t1 - t0);
	fflush(stdout);
	burn(0.3);
	return 0;
}

int main(int argc, char **argv)
{
	double sec = argc > 2 ? atof(argv[2]) : 0.4;

	if (argc > 1 && !strcmp(argv[1], "lut")) {
		printf("lut %#lx %#lx\n", (unsigned long)lut, (unsigned long)(lut + LUT_WORDS));
		fflush(stdout);
		reads(lut, LUT_WORDS, sec);
		return 0;
	}
	if (argc > 2 && (!strcmp(argv[1], "bss") || !strcmp(argv[1], "data")))
		return statics(argv[1], sec, argc > 3 && !strcmp(argv[3], "again"));
	if (argc > 3 && !strcmp(argv[1], "file"))
		return from_file(sec, argv[3]);
	if (argc > 3 && !strcmp(argv[1], "block"))
		return block(sec, !strcmp(argv[3], "free"));
	fprintf(stderr, "usage: retained lut|bss|data|file|block SECONDS [again|PATH|keep|free]\n");
	return 2;
}
