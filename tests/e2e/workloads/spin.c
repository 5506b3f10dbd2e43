/* SPDX-License-Identifier: MIT */
/*
 * A spin-wait beside data traffic: a second thread waits on a flag by re-reading it (as
 * thread pools wait at barriers), while the main thread streams over a 64 MiB array for
 * ~0.6 s, then sets the flag. Prints
 *   flag ADDR          (the waited-on word)
 *   array START END
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (64u << 20)

static _Alignas(64) atomic_int flag;
static volatile long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *waiter(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&flag, memory_order_acquire))
		;
	return NULL;
}

int main(void)
{
	unsigned char *a = malloc(N);
	pthread_t t;
	double end;
	long s = 0;

	if (!a)
		return 1;
	for (unsigned i = 0; i < N; i++)
		a[i] = (unsigned char)i;
	printf("flag %p\narray %p %p\n", (void *)&flag, (void *)a, (void *)(a + N));
	fflush(stdout);
	pthread_create(&t, NULL, waiter, NULL);
	for (end = now() + 0.6; now() < end;)
		for (unsigned i = 0; i < N; i += 64)
			s += a[i];
	atomic_store_explicit(&flag, 1, memory_order_release);
	pthread_join(t, NULL);
	sink = s;
	free(a);
	return 0;
}
