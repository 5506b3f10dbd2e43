/* SPDX-License-Identifier: MIT */
/* Process-lifecycle cases for the allocation runtime. Each allocates blocks of a size no
 * other code uses, so the test can count them per process in the trace, and prints what
 * the trace must show as JSON lines {"pid": P, "size": S, "count": N}.
 * usage: alloc-fork fork-exec | fork-thread | vfork | exit | signal | double-free */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;

static void alloc_n(size_t size, int n, int leak)
{
	for (int i = 0; i < n; i++) {
		void *p = malloc(size);

		sink = p;
		if (!leak)
			free(p);
	}
}

static void expect(long pid, size_t size, int count)
{
	/* One write per line: the lines of different processes must not interleave. */
	char line[128];
	int n = snprintf(line, sizeof(line), "{\"pid\": %ld, \"size\": %zu, \"count\": %d}\n", pid,
			 size, count);

	(void)!write(1, line, (size_t)n);
}

static void *forker(void *arg)
{
	pid_t c;
	int st;

	(void)arg;
	alloc_n(3003, 30, 0);
	c = fork();
	if (c == 0) {
		alloc_n(3004, 40, 1);
		expect(getpid(), 3004, 40);
		_exit(0);
	}
	waitpid(c, &st, 0);
	return NULL;
}

static volatile sig_atomic_t in_handler, handled;

static void on_alarm(int sig)
{
	(void)sig;
	/* malloc in a signal handler is not async-signal-safe; programs do it anyway, and a
	 * tracer must neither deadlock nor lose the call when it interrupts the runtime. */
	in_handler = 1;
	sink = malloc(5005);
	free(sink);
	handled++;
	in_handler = 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pid_t c;
	int st;

	if (!strcmp(mode, "child")) {
		/* The exec'd image. */
		alloc_n(2002, 20, 0);
		expect(getpid(), 2002, 20);
		return 0;
	}
	if (!strcmp(mode, "fork-exec")) {
		alloc_n(1001, 10, 0);
		expect(getpid(), 1001, 10);
		fflush(stdout);
		c = fork();
		if (c == 0) {
			alloc_n(1002, 12, 1);
			expect(getpid(), 1002, 12);
			execl("/proc/self/exe", argv[0], "child", (char *)NULL);
			_exit(127);
		}
		waitpid(c, &st, 0);
		return WEXITSTATUS(st);
	}
	if (!strcmp(mode, "fork-thread")) {
		pthread_t t;

		pthread_create(&t, NULL, forker, NULL);
		pthread_join(t, NULL);
		expect(getpid(), 3003, 30);
		return 0;
	}
	if (!strcmp(mode, "vfork")) {
		c = vfork();
		if (c == 0) {
			execl("/proc/self/exe", argv[0], "child", (char *)NULL);
			_exit(127);
		}
		waitpid(c, &st, 0);
		alloc_n(6006, 6, 0);
		expect(getpid(), 6006, 6);
		return WEXITSTATUS(st);
	}
	if (!strcmp(mode, "exit")) {
		/* _exit skips atexit and destructors: the rows still in the thread's slot must
		 * reach the trace anyway. */
		alloc_n(7007, 77, 1);
		expect(getpid(), 7007, 77);
		_exit(3);
	}
	if (!strcmp(mode, "signal")) {
		/* The main loop maps and unmaps (mmap is reentrant, malloc is not): the handler's
		 * mallocs interrupt the runtime while it records a mapping event. */
		struct itimerval it = { { 0, 200 }, { 0, 200 } };
		long n = 0;

		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		while (handled < 200) {
			void *m = mmap(NULL, 16384, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m != MAP_FAILED)
				munmap(m, 16384);
			n++;
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		expect(getpid(), 5005, handled);
		printf("{\"pid\": %d, \"mmaps\": %ld}\n", getpid(), n);
		return 0;
	}
	if (!strcmp(mode, "double-free")) {
		void *p = malloc(88); /* a tcache size: glibc detects the second free */

		sink = p;

		puts("freeing twice");
		fflush(stdout);
		free(p);
		free(p); /* glibc aborts here: the same with or without memtap */
		puts("not reached");
		return 0;
	}
	fprintf(stderr, "usage: %s fork-exec|fork-thread|vfork|exit|signal|double-free\n", argv[0]);
	return 2;
}
