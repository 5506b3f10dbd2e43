/* SPDX-License-Identifier: MIT */
/* Names its memory and a phase with argv[1] (for the view's escaping test: markup, quotes):
 * labels 1 MiB of heap with region type and name argv[1], enters phase argv[1], writes and
 * reads the buffer for a while, leaves the phase. Prints "ok". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <memtap/memtap.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "plain";
	size_t n = 1 << 20;
	char *p = malloc(n);
	volatile unsigned long sum = 0;
	struct timespec t0, t;

	if (!p)
		return 1;
	memtap_label(p, n, name, name);
	memtap_phase(name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		memset(p, 1, n);
		for (size_t i = 0; i < n; i += 64)
			sum += (unsigned char)p[i];
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
	memtap_phase(NULL);
	memtap_unlabel(p);
	free(p);
	puts("ok");
	return 0;
}
