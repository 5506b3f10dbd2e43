/* SPDX-License-Identifier: MIT */
/*
 * Many threads allocating at once: THREADS threads start, meet at a barrier, then each makes
 * ITERATIONS malloc/free pairs (sizes 100..611 bytes) and exits. With hundreds of threads
 * the runtime's slots run out and threads must wait for the recorder: a wait that polls
 * leaves the recorder, the one that could free them, no CPU. Prints
 *   threadstorm threads=<n> allocs=<n>
 * usage: threadstorm THREADS ITERATIONS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t start;
static long iters;

static void *work(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		void *volatile p = malloc(100 + (size_t)(i % 512));

		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500;
	pthread_t *t;

	iters = argc > 2 ? atol(argv[2]) : 2000;
	if (n < 1 || n > 4096 || iters < 0) {
		fprintf(stderr, "usage: threadstorm THREADS(1-4096) ITERATIONS\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threadstorm threads=%d allocs=%ld\n", n, (long)n * iters);
	free(t);
	return 0;
}
