/* SPDX-License-Identifier: MIT */
/*
 * A long-running program to attach to: two threads, each iteration of each timed with
 * CLOCK_MONOTONIC (the trace's clock) around a known amount of work — one mmap of 8 pages,
 * 8 first-touch page faults, one munmap, one getppid, one malloc of 1000 + 100 * thread +
 * iteration % 16 bytes and its free — then a 1 ms nap. It runs until
 * SIGTERM (or for SECONDS when given), then writes every iteration as "tid t0 t1" to LOG and
 * prints "iterations=N" on stdout. "ready" on stderr once both threads run.
 * Usage: attachloop LOG [SECONDS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mono.h"

#define PAGES 8
#define MAXIT 200000

struct it {
	long tid;
	unsigned long long t0, t1;
};

static struct it its[2][MAXIT];
static int nits[2];
static volatile sig_atomic_t stop;
static pthread_barrier_t started;

static void *loop(void *arg)
{
	int k = (int)(long)arg;
	long tid = syscall(SYS_gettid);
	struct timespec nap = { 0, 1000000 };

	/* the thread's malloc arena made now: an iteration's malloc is only its block's */
	free(malloc(1000 + 100 * (size_t)k));
	pthread_barrier_wait(&started);
	while (!stop && nits[k] < MAXIT) {
		struct it *r = &its[k][nits[k]];
		char *p;

		r->tid = tid;
		r->t0 = mono_ns();
		p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			abort();
		for (int i = 0; i < PAGES; i++)
			((volatile char *)p)[i * 4096] = 1;
		munmap(p, PAGES * 4096);
		(void)getppid();
		p = malloc(1000 + 100 * (size_t)k + (size_t)(nits[k] % 16));
		if (!p)
			abort();
		((volatile char *)p)[0] = 1;
		free(p);
		r->t1 = mono_ns();
		nits[k]++;
		nanosleep(&nap, NULL);
	}
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	pthread_t t;
	FILE *f;

	if (argc < 2)
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	/* the log's pages faulted now: an iteration's own faults are its mapping's only */
	for (size_t i = 0; i < sizeof(its); i += 4096)
		((volatile char *)its)[i] = 1;
	pthread_barrier_init(&started, NULL, 2);
	pthread_create(&t, NULL, loop, (void *)1L);
	if (argc > 2) {
		struct sigaction al = { .sa_handler = on_term };

		sigaction(SIGALRM, &al, NULL);
		alarm((unsigned)atoi(argv[2]));
	}
	fprintf(stderr, "ready\n");
	loop((void *)0L);
	pthread_join(t, NULL);
	if (!(f = fopen(argv[1], "w")))
		return 1;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < nits[k]; i++)
			fprintf(f, "%ld %llu %llu\n", its[k][i].tid, its[k][i].t0, its[k][i].t1);
	fclose(f);
	printf("iterations=%d\n", nits[0] + nits[1]);
	return 0;
}
