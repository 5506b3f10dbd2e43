/* SPDX-License-Identifier: MIT */
/*
 * Page faults with known answers under page-write tracking (issue 35): the program's own
 * faults must be what a run without memtap takes, and memtap's write-protect faults exactly
 * the pages it protected and the program wrote again. Sleeps of EPOCH_GAP_US let at least two
 * of the recorder's 100 ms scans pass between writes, so each pass over a tracked page after
 * the first takes one tracking fault.
 *
 *   faults-bare rewrite MIB PASSES   a malloc'd block written whole PASSES times
 *   faults-bare strided MIB          a calloc'd block of MIB + 12 KiB: every other page written,
 *                                    then all pages twice (a second layout and name)
 *   faults-bare threads MIB          two threads, each writing its half of one block twice
 *   faults-bare discard MIB          a mapping written whole, its first half discarded
 *                                    (MADV_DONTNEED), then written whole again
 *   faults-bare huge MIB SMALL       MIB of MADV_HUGEPAGE memory written three times, and a
 *                                    SMALL MiB block of 4 KiB pages written twice
 *   faults-bare fork MIB             a block written, then a fork (the child writes its copy),
 *                                    then written twice more by the parent
 *   faults-bare mapped MIB           a mapping of its own and a malloc'd block of MIB each,
 *                                    written three times (for THP always: both huge)
 *
 * Prints "tracking N" (the tracking faults memtap must report with its default settling: a
 * page written in two epochs is not protected again, so each page takes at most one),
 * "tracking_most N" (settling, when a scan fell inside a pass: a page written after that
 * scan's first walk and before its second is protected again, once more),
 * "tracking_full N" (with --page-writes=full: one per pass after a scan protected it again)
 * and, for huge, "anon_huge_kb N" (AnonHugePages at the end, which must not change under
 * memtap).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define EPOCH_GAP_US 250000
#define PAGE 4096

static void write_all(volatile char *p, size_t n, int v, size_t step)
{
	for (size_t i = 0; i < n; i += step)
		p[i] = (char)v;
}

static long anon_huge_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "AnonHugePages:", 14))
			v = atol(line + 14);
	if (f)
		fclose(f);
	return v;
}

struct half {
	volatile char *p;
	size_t n;
};

static void *writer(void *arg)
{
	struct half *h = arg;

	write_all(h->p, h->n, 1, PAGE);
	usleep(EPOCH_GAP_US);
	write_all(h->p, h->n, 2, PAGE);
	return NULL;
}

/* The whole pages of a block: the ones memtap tracks (a page shared with another block is
 * not). */
static size_t whole_pages(const volatile char *p, size_t n)
{
	uintptr_t lo = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);

	return hi > lo ? (hi - lo) / PAGE : 0;
}

/* The whole pages of the block at an even distance from the page p is in. */
static size_t strided_pages(const volatile char *p, size_t n)
{
	uintptr_t first = (uintptr_t)p & ~(uintptr_t)(PAGE - 1);
	uintptr_t lo = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);
	size_t k = 0;

	for (uintptr_t a = lo; a < hi; a += PAGE)
		k += ((a - first) / PAGE) % 2 == 0;
	return k;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 0, n = mib << 20;
	const char *mode = argc > 1 ? argv[1] : "";

	if (!n)
		return 2;
	if (!strcmp(mode, "rewrite") && argc == 4) {
		int passes = atoi(argv[3]);
		volatile char *p = malloc(n);

		for (int k = 0; p && k < passes; k++) {
			write_all(p, n, k + 1, PAGE);
			usleep(EPOCH_GAP_US);
		}
		printf("tracking %zu\n", passes > 1 ? whole_pages(p, n) : 0);
		printf("tracking_most %zu\n",
		       whole_pages(p, n) * (size_t)(passes > 2 ? 2 : passes - 1));
		printf("tracking_full %zu\n", whole_pages(p, n) * (size_t)(passes - 1));
		free((void *)p);
		return 0;
	}
	if (!strcmp(mode, "strided")) {
		size_t len = n + 3 * PAGE;
		volatile char *p = calloc(1, len);

		if (!p)
			return 1;
		write_all(p, len, 1, 2 * PAGE); /* first touches of every other page */
		usleep(EPOCH_GAP_US);
		write_all(p, len, 2, PAGE); /* the others' first touches; the first ones again */
		usleep(EPOCH_GAP_US);
		write_all(p, len, 3, PAGE); /* every page again */
		usleep(EPOCH_GAP_US);
		/* calloc's large block is fresh memory: the second pass takes a tracking fault on
		 * each whole page the first wrote (every other one from p's page), the third pass
		 * on every whole page (settling: on the others only, the first ones settled) */
		printf("tracking %zu\n", whole_pages(p, len));
		printf("tracking_most %zu\n", strided_pages(p, len) + whole_pages(p, len));
		printf("tracking_full %zu\n", strided_pages(p, len) + whole_pages(p, len));
		free((void *)p);
		return 0;
	}
	if (!strcmp(mode, "threads")) {
		volatile char *p = malloc(n);
		struct half h[2] = { { p, n / 2 }, { p + n / 2, n / 2 } };
		pthread_t t[2];

		if (!p)
			return 1;
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, writer, &h[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		usleep(EPOCH_GAP_US);
		printf("tracking %zu\n", whole_pages(p, n));
		printf("tracking_full %zu\n", whole_pages(p, n));
		free((void *)p);
		return 0;
	}
	if (!strcmp(mode, "discard")) {
		volatile char *p =
			mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		write_all(p, n, 1, PAGE);
		usleep(EPOCH_GAP_US);
		madvise((void *)p, n / 2, MADV_DONTNEED);
		write_all(p, n, 2, PAGE); /* the first half faults in afresh: the program's own */
		usleep(EPOCH_GAP_US);
		printf("tracking %zu\n", n / 2 / PAGE);
		printf("tracking_full %zu\n", n / 2 / PAGE);
		munmap((void *)p, n);
		return 0;
	}
	if (!strcmp(mode, "huge") && argc == 4) {
		size_t small = (size_t)atol(argv[3]) << 20, huge = 2u << 20;
		char *m = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		volatile char *p, *s;

		if (m == MAP_FAILED)
			return 1;
		p = (volatile char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
		madvise((void *)p, n, MADV_HUGEPAGE);
		s = malloc(small);
		for (int k = 0; k < 3; k++) {
			write_all(p, n, k + 1, PAGE);
			if (k < 2 && s)
				write_all(s, small, k + 1, PAGE);
			usleep(EPOCH_GAP_US);
		}
		/* the huge pages are never protected; the small block's second pass is */
		printf("tracking %zu\n", s ? whole_pages(s, small) : 0);
		printf("tracking_full %zu\n", s ? whole_pages(s, small) : 0);
		printf("anon_huge_kb %ld\n", anon_huge_kb());
		free((void *)s);
		return 0;
	}
	if (!strcmp(mode, "mapped")) {
		volatile char *m =
			mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		volatile char *b = malloc(n);

		if (m == MAP_FAILED || !b)
			return 1;
		for (int k = 0; k < 3; k++) {
			write_all(m, n, k + 1, PAGE);
			write_all(b, n, k + 1, PAGE);
			usleep(EPOCH_GAP_US);
		}
		printf("anon_huge_kb %ld\n", anon_huge_kb());
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		volatile char *p = malloc(n);
		pid_t c;

		if (!p)
			return 1;
		write_all(p, n, 1, PAGE);
		usleep(EPOCH_GAP_US); /* protected again by the scans */
		c = fork();
		if (c == 0) {
			write_all(p, n, 9, PAGE); /* the child's copy-on-write faults: its own */
			_exit(0);
		}
		waitpid(c, NULL, 0);
		write_all(p, n, 2, PAGE); /* copy-on-write faults, as bare (the child is gone: the
					   * pages are reused, still one fault each) */
		usleep(EPOCH_GAP_US);
		write_all(p, n, 3, PAGE); /* full: protected again, one tracking fault per page;
					   * settling: written in a second epoch, so settled */
		usleep(EPOCH_GAP_US);
		printf("tracking 0\n");
		printf("tracking_most %zu\n", whole_pages(p, n));
		printf("tracking_full %zu\n", whole_pages(p, n));
		free((void *)p);
		return 0;
	}
	return 2;
}
