/* SPDX-License-Identifier: MIT */
/*
 * Accesses to globals and to mappings the program splits. The loader's RELRO mprotect
 * splits the executable's data mapping, and this program splits an anonymous mapping with
 * mprotect, a partial munmap and an mremap; every access below must be attributed to the
 * mapping that holds it (the rest of a split mapping stays mapped, as in the kernel). Then
 * it recurses 4 MiB deep, so that the kernel grows its stack mapping down many times: one
 * stack, one region. Prints one line per array: NAME START END (hex), runs each phase
 * ~0.3 s, then prints /proc/self/maps (each line after "map ").
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const char *const relro_names[] = { "relro", "table" }; /* .data.rel.ro */
int data_arr[1 << 18] = { 1 }; /* 1 MiB of .data, behind the RELRO page */
int bss_arr[1 << 18]; /* 1 MiB of .bss */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile long sink;

/* Loads from [p, p + n) in a pseudo-random order for sec seconds. */
static void reads(const int *p, size_t n, double sec)
{
	double end = now() + sec;
	unsigned x = 12345;
	long s = 0;

	while (now() < end)
		for (int i = 0; i < 100000; i++) {
			unsigned long k;
			long v;

			x = x * 1103515245u + 12345u;
			k = (x >> 4) % n;
			/* In assembly, so no compiler loads into the index register (the address
			 * would then be gone from the registers at the sample). */
			__asm__ volatile("movslq (%1,%2,4), %0"
					 : "=&r"(v)
					 : "r"(p), "r"(k)
					 : "memory");
			s += v;
		}
	sink = s;
}

/* 4 KiB frames d deep; the deepest one reads its own buffer for sec seconds. */
__attribute__((noinline)) static long deep(int d, double sec)
{
	int buf[1024];
	long s;

	for (int i = 0; i < 1024; i += 16)
		((volatile int *)buf)[i] = d;
	if (d > 0) {
		s = deep(d - 1, sec);
	} else {
		printf("deep %#lx %#lx\n", (unsigned long)buf, (unsigned long)(buf + 1024));
		fflush(stdout);
		reads(buf, 1024, sec);
		s = sink;
	}
	return s + ((volatile int *)buf)[d & 1023];
}

int main(void)
{
	size_t page = 4096, n = 256 * page;
	char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *r;

	if (m == MAP_FAILED)
		return 1;
	memset(m, 1, n);
	/* Split it three ways (a read-only page in the middle), then drop its first quarter. */
	mprotect(m + 128 * page, page, PROT_READ);
	munmap(m, 64 * page);
	/* A second mapping, moved by mremap to a new, larger place. */
	r = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(r, 2, 64 * page);
	r = mremap(r, 64 * page, 128 * page, MREMAP_MAYMOVE);
	if (r == MAP_FAILED)
		return 1;
	printf("data %#lx %#lx\n", (unsigned long)data_arr, (unsigned long)(data_arr + (1 << 18)));
	printf("bss %#lx %#lx\n", (unsigned long)bss_arr, (unsigned long)(bss_arr + (1 << 18)));
	printf("split %#lx %#lx\n", (unsigned long)(m + 64 * page), (unsigned long)(m + n));
	printf("moved %#lx %#lx\n", (unsigned long)r, (unsigned long)(r + 64 * page));
	printf("%s\n", relro_names[sink & 1]);
	fflush(stdout);
	reads(data_arr, 1 << 18, 0.3);
	reads(bss_arr, 1 << 18, 0.3);
	reads((const int *)(m + 64 * page), (n - 64 * page) / sizeof(int), 0.3);
	reads((const int *)r, 64 * page / sizeof(int), 0.3);
	sink = deep(1024, 0.3);
	/* The mappings as the kernel has them now: the test's ground truth. */
	{
		FILE *f = fopen("/proc/self/maps", "r");
		char line[512];

		while (f && fgets(line, sizeof(line), f))
			printf("map %s", line);
		if (f)
			fclose(f);
	}
	return 0;
}
