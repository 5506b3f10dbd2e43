/* SPDX-License-Identifier: MIT */
/*
 * Six allocation sites whose blocks are read 1, 2, 4, 8, 16 and 32 times over (times SCALE):
 * the known order of per-site reads that memtap's sampled loads and DHAT's exact bytes read
 * must both give (tests/e2e/dhat-sites.sh).
 *   dhat-sites SCALE seq      each block read whole, word by word
 *   dhat-sites SCALE strided  each block read one word per cache line (a second layout:
 *                             blocks of other sizes from calloc, sites in another order)
 * Prints "site NAME READS" for each site: the words it read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 20) /* bytes per block */

/* One function per site, kept out of line and not a tail call (the block's first word is
 * written after the call), so that each is its own allocation stack in every build. */
#define SITE(name, call)                                      \
	__attribute__((noinline)) static long *name(size_t n) \
	{                                                     \
		long *p = call;                               \
		if (p)                                        \
			*(volatile long *)p = 0;              \
		return p;                                     \
	}
SITE(alpha, malloc(n))
SITE(bravo, malloc(n))
SITE(charlie, malloc(n))
SITE(delta, calloc(1, n))
SITE(echo, calloc(1, n))
SITE(foxtrot, calloc(1, n))

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		long *(*alloc)(size_t);
	} sites[6] = { { "alpha", alpha }, { "bravo", bravo }, { "charlie", charlie },
		       { "delta", delta }, { "echo", echo },   { "foxtrot", foxtrot } };
	long scale = argc > 1 ? atol(argv[1]) : 1;
	int strided = argc > 2 && !strcmp(argv[2], "strided");
	volatile long sum = 0;

	if (scale < 1)
		return 2;
	for (int k = 0; k < 6; k++) {
		/* strided: the sites in reverse order, blocks of N + k pages */
		int s = strided ? 5 - k : k;
		size_t n = strided ? N + (size_t)k * 4096 : N, step = strided ? 8 : 1;
		long *p = sites[s].alloc(n), reads = 0;

		if (!p)
			return 1;
		memset(p, 1, n);
		for (long r = 0; r < scale << s; r++)
			for (size_t i = 0; i < n / sizeof(long); i += step, reads++)
				sum += p[i];
		printf("site %s %ld\n", sites[s].name, reads);
		free(p);
	}
	return sum == 0;
}
