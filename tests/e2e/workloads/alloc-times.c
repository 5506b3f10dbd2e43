/* SPDX-License-Identifier: MIT */
/*
 * Allocation times against the workload's own clock: every call below is bracketed by
 * CLOCK_MONOTONIC readings, and calls come after idle gaps (sleep), blocking (a pipe read
 * another thread answers), busy computing and bursts. Big blocks are written whole after
 * their malloc, so their page faults and access samples must join to their site. Prints,
 * at the end (stdio allocates, so nothing is printed before), one line per bracketed call:
 *   alloc ADDR SIZE T_BEFORE T_AFTER SITE   (SITE: big or small)
 *   free ADDR T_BEFORE T_AFTER
 * usage: alloc-times [ROUNDS]
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BIG (16u << 20)
#define MAXREC 4096

struct rec {
	char what; /* 'a' big alloc, 's' small alloc, 'f' free */
	void *p;
	size_t size;
	uint64_t t0, t1;
};

static struct rec recs[MAXREC];
static int nrec;
static int pipefd[2];

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The big blocks' own site: one function, never inlined. */
static __attribute__((noinline)) void *big_alloc(size_t n)
{
	uint64_t t0 = now();
	void *p = malloc(n);
	uint64_t t1 = now();

	if (nrec < MAXREC)
		recs[nrec++] = (struct rec){ 'a', p, n, t0, t1 };
	__asm__ volatile("" ::: "memory");
	return p;
}

static __attribute__((noinline)) void *small_alloc(size_t n)
{
	uint64_t t0 = now();
	void *p = malloc(n);
	uint64_t t1 = now();

	if (nrec < MAXREC)
		recs[nrec++] = (struct rec){ 's', p, n, t0, t1 };
	__asm__ volatile("" ::: "memory");
	return p;
}

static void timed_free(void *p)
{
	uint64_t t0 = now();

	free(p);
	if (nrec < MAXREC)
		recs[nrec++] = (struct rec){ 'f', p, 0, t0, now() };
}

static void *answer(void *arg)
{
	(void)arg;
	usleep(40000);
	(void)!write(pipefd[1], "x", 1);
	return NULL;
}

static volatile uint64_t sink;

static void spin(unsigned ms)
{
	uint64_t end = now() + ms * 1000000ull, x = 1;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t th;
	char c;

	if (pipe(pipefd))
		return 1;
	/* Every big block its own mapping: without this, glibc raises its mmap threshold at
	 * the first free and later blocks reuse heap pages that already faulted. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	for (int r = 0; r < rounds; r++) {
		void *small[32], *big;

		/* A burst of small blocks, then an idle gap: the big block comes right after it. */
		for (int i = 0; i < 32; i++)
			small[i] = small_alloc(32 + (size_t)i);
		switch (r % 3) {
		case 0:
			usleep(60000);
			break;
		case 1:
			pthread_create(&th, NULL, answer, NULL);
			(void)!read(pipefd[0], &c, 1); /* blocks ~40 ms */
			pthread_join(th, NULL);
			break;
		default:
			spin(50); /* busy, no allocation, no system call */
			break;
		}
		big = big_alloc(BIG);
		/* Each page's first touch after malloc returned: a fault inside the block's life.
		 * No transparent huge pages, so that every 4 KiB page faults once. */
		madvise((void *)((uintptr_t)big & ~(uintptr_t)4095), BIG, MADV_NOHUGEPAGE);
		for (int pass = 0; pass < 8; pass++)
			memset(big, pass, BIG);
		usleep(30000);
		for (int i = 0; i < 32; i++)
			timed_free(small[i]);
		timed_free(big);
		spin(20);
	}
	for (int i = 0; i < nrec; i++) {
		if (recs[i].what == 'f')
			printf("free %#lx %llu %llu\n", (unsigned long)recs[i].p,
			       (unsigned long long)recs[i].t0, (unsigned long long)recs[i].t1);
		else
			printf("alloc %#lx %zu %llu %llu %s\n", (unsigned long)recs[i].p,
			       recs[i].size, (unsigned long long)recs[i].t0,
			       (unsigned long long)recs[i].t1,
			       recs[i].what == 'a' ? "big" : "small");
	}
	return 0;
}
