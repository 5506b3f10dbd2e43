/* SPDX-License-Identifier: MIT */
/*
 * A rewrite-heavy workload for bench/pagewrites.sh: one large buffer (a heap block of MIB
 * MiB, page-write tracked by default) rewritten whole, ROUNDS times, with a little
 * arithmetic per byte: every epoch every page is written again, the worst case of
 * page-write tracking (one write-protect fault per page per epoch).
 * usage: pw-rewrite MIB ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 64) << 20;
	long rounds = argc > 2 ? atol(argv[2]) : 20;
	unsigned char *b = malloc(n);
	unsigned long sum = 0;

	if (!b)
		return 1;
	for (long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n; i += 64)
			b[i] = (unsigned char)(b[i] * 31 + r + i);
		for (size_t i = 0; i < n; i += 4096)
			sum += b[i];
	}
	printf("%lu\n", sum);
	free(b);
	return 0;
}
