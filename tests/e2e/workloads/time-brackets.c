/* SPDX-License-Identifier: MIT */
/*
 * Allocation times against the program's own clock, as tightly as a program can bracket
 * them: each of two threads runs N iterations of { r0 = clock; p = malloc(100 + i % 16);
 * write it; free(p); r1 = clock }, with a 200 us nap every 50 iterations (the recorder's
 * calibration rounds fall between busy and idle stretches). The real free and the clock's
 * own entry are all that lie between a free's stamp and r1: ~20 ns. Writes "tid r0 r1 addr"
 * per iteration to LOG.
 * Usage: time-brackets LOG N
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mono.h"

struct it {
	unsigned long long r0, r1;
	void *p;
};

static int n;
static struct it *its[2];
static long tids[2];

static void *loop(void *arg)
{
	int k = (int)(long)arg;
	struct it *r = its[k];
	struct timespec nap = { 0, 200000 };

	tids[k] = syscall(SYS_gettid);
	for (int i = 0; i < n; i++) {
		char *p;

		r[i].r0 = mono_ns();
		p = malloc(100 + (size_t)(i % 16));
		if (!p)
			abort();
		((volatile char *)p)[0] = 1;
		free(p);
		r[i].r1 = mono_ns();
		r[i].p = p;
		if (i % 50 == 49)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	FILE *f;

	if (argc < 3 || (n = atoi(argv[2])) <= 0)
		return 2;
	for (int k = 0; k < 2; k++)
		if (!(its[k] = calloc((size_t)n, sizeof(struct it))))
			return 1;
	pthread_create(&t, NULL, loop, (void *)1L);
	loop((void *)0L);
	pthread_join(t, NULL);
	if (!(f = fopen(argv[1], "w")))
		return 1;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < n; i++)
			fprintf(f, "%ld %llu %llu %lx\n", tids[k], its[k][i].r0, its[k][i].r1,
				(unsigned long)its[k][i].p);
	fclose(f);
	return 0;
}
