/* SPDX-License-Identifier: MIT */
/*
 * Three allocation sites, one of them scaled: grows_with(F) makes 200 * F allocations of
 * 1000 bytes, steady_a and steady_b 300 of 500 and 100 of 4000 whatever F. Two runs with F
 * 1 and 2 differ in that one site only, by a ratio of 2.0.
 * usage: diffsite F
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

__attribute__((noinline)) static void grows_with(int f)
{
	for (int i = 0; i < 200 * f; i++) {
		sink = malloc(1000);
		free(sink);
	}
}

__attribute__((noinline)) static void steady_a(void)
{
	for (int i = 0; i < 300; i++) {
		sink = malloc(500);
		free(sink);
	}
}

__attribute__((noinline)) static void steady_b(void)
{
	for (int i = 0; i < 100; i++) {
		sink = malloc(4000);
		free(sink);
	}
}

int main(int argc, char **argv)
{
	int f = argc > 1 ? atoi(argv[1]) : 1;

	steady_a();
	grows_with(f);
	steady_b();
	printf("done\n");
	return 0;
}
