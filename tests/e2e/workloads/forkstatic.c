/* SPDX-License-Identifier: MIT */
/*
 * Linked statically (nothing can be preloaded into it): forks 3 children that each allocate
 * and exit without an exec, then prints "forkstatic children=3". With "wait" it first sleeps
 * until killed (a process to attach to).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait"))
		for (;;)
			pause();
	for (int i = 0; i < 3; i++) {
		pid_t p = fork();

		if (p == 0) {
			void *volatile x = malloc(1000);

			free(x);
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	puts("forkstatic children=3");
	return 0;
}
