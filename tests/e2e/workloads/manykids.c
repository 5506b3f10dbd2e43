/* SPDX-License-Identifier: MIT */
/*
 * N children alive at once (default 1100): each allocates (its runtime connects to the
 * recorder), then waits until every child has been forked, then exits. Prints
 * "children=N" when all have exited cleanly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1100, p[2], ok = 0;

	if (pipe(p) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			char *volatile b = malloc(1000 + (size_t)i);
			char c;

			close(p[1]);
			memset(b, 1, 1000);
			(void)!read(p[0], &c, 1); /* EOF once the parent closes its end */
			free(b);
			_exit(0);
		}
	}
	close(p[1]);
	for (int i = 0; i < n; i++) {
		int st;

		if (wait(&st) > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	printf("children=%d\n", ok);
	return ok == n ? 0 : 1;
}
