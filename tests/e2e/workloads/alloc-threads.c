/* SPDX-License-Identifier: MIT */
/* Allocation stress: N threads, each M iterations of malloc/realloc/free over a private
 * ring of live blocks. Prints the allocation calls it made, as the trace must count them.
 * usage: alloc-threads THREADS ITERATIONS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 64

static long iters;

static void *work(void *arg)
{
	void *ring[RING] = { 0 };
	unsigned seed = (unsigned)(size_t)arg * 2654435761u + 1;
	long calls = 0;

	for (long i = 0; i < iters; i++) {
		unsigned k = (seed = seed * 1103515245u + 12345u) >> 8;
		void **slot = &ring[k % RING];
		size_t n = 16 + (k >> 8) % 2000;

		if (*slot && (k & 7) == 0) {
			void *q = realloc(*slot, n);

			if (q) {
				*slot = q;
				calls++;
			}
		} else {
			free(*slot);
			*slot = malloc(n);
			if (*slot) {
				memset(*slot, (int)k, 8);
				calls++;
			}
		}
	}
	for (int i = 0; i < RING; i++)
		free(ring[i]);
	return (void *)calls;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t *t;
	long total = 0;

	iters = argc > 2 ? atol(argv[2]) : 100000;
	if (nt < 1 || nt > 1024 || iters < 0)
		return 2;
	t = calloc((size_t)nt, sizeof(*t));
	if (!t)
		return 1;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(size_t)i))
			return 1;
	for (int i = 0; i < nt; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (long)r;
	}
	free(t);
	printf("{\"threads\": %d, \"thread_calls\": %ld}\n", nt, total);
	return 0;
}
