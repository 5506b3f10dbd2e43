/* SPDX-License-Identifier: MIT */
/*
 * A pre-fork server without exec: the parent loads nothing after forking its workers, each
 * worker allocates from its own function and touches the blocks. The workers' stacks must
 * symbolize through the mappings they inherited. Prints "worker PID" per worker.
 * usage: prefork [WORKERS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;

static __attribute__((noinline)) void *worker_alloc(size_t n)
{
	void *p = malloc(n);

	memset(p, 1, n);
	__asm__ volatile("" ::: "memory");
	return p;
}

static __attribute__((noinline)) void serve(int requests)
{
	for (int i = 0; i < requests; i++) {
		void *p = worker_alloc(4096 + (size_t)i);

		sink = p;
		free(p);
	}
	sink = worker_alloc(1 << 20); /* kept until exit */
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	fflush(stdout);
	for (int w = 0; w < n; w++) {
		pid_t pid = fork();

		if (pid == 0) {
			serve(200);
			_exit(0);
		}
		printf("worker %d\n", (int)pid);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
