/* SPDX-License-Identifier: MIT */
/* Builds a known process tree and prints, as JSON lines, what the trace must contain:
 * every process with its parent and exit status, and the thread count of the root. */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void *spin(void *arg)
{
	(void)arg;
	usleep(5000);
	return NULL;
}

static int status_of(int st)
{
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	pid_t pids[4];
	int st, n = 0;

	if (argc == 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "term")) {
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
		return 99;
	}
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* fork + exec of ourselves, exiting 7 */
	if ((pids[n] = fork()) == 0) {
		execl("/proc/self/exe", "forky", "exit", "7", (char *)NULL);
		_exit(127);
	}
	n++;
	/* fork without exec, exiting 3 */
	if ((pids[n] = fork()) == 0)
		_exit(3);
	n++;
	/* posix_spawn (clone with CLONE_VFORK in glibc), killed by SIGTERM */
	{
		char *args[] = { "forky", "term", NULL };

		posix_spawn(&pids[n], "/proc/self/exe", NULL, NULL, args, environ);
		n++;
	}
	/* vfork + exec, exiting 0 */
	if ((pids[n] = vfork()) == 0) {
		execl("/proc/self/exe", "forky", "exit", "0", (char *)NULL);
		_exit(127);
	}
	n++;
	for (int i = 0; i < n; i++) {
		waitpid(pids[i], &st, 0);
		printf("{\"pid\": %d, \"ppid\": %d, \"exit_status\": %d}\n", (int)pids[i],
		       (int)getpid(), status_of(st));
	}
	printf("{\"pid\": %d, \"ppid\": %d, \"exit_status\": 5, \"threads\": 3}\n", (int)getpid(),
	       (int)getppid());
	return 5;
}
