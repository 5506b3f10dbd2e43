/* SPDX-License-Identifier: MIT */
/* Prints its own CLOCK_MONOTONIC at the start and end of main, in the parent and a child:
 * the trace's exec/exit times of each process must bracket these. */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(void)
{
	unsigned long long start = now();
	pid_t c;

	fflush(stdout);
	c = fork();
	if (c == 0) {
		unsigned long long cs = now();

		usleep(20000);
		printf("child %d %llu %llu\n", (int)getpid(), cs, now());
		return 0;
	}
	waitpid(c, NULL, 0);
	usleep(10000);
	printf("parent %d %llu %llu\n", (int)getpid(), start, now());
	return 0;
}
