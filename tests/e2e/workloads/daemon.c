/* SPDX-License-Identifier: MIT */
/*
 * A daemon's start: close every inherited descriptor from 3 to 1023, then open a file and a
 * socket pair, which take the lowest numbers (the ones memtap's runtime may have had), then
 * allocate N times (default 3 M) from the same sites, each block filled and hashed (a
 * request read and parsed: a few hundred bytes of work per allocation, as a server does).
 * Prints the loop's wall time in ms,
 * the allocations made, and whether anything foreign reached the file or the socket:
 *   daemon ms=<ms> allocs=<n> file_bytes=<b> socket_bytes=<b> fds=<file>,<sock>
 * With "fork" it forks first (the child is the daemon; the parent waits), as daemons do;
 * with "fill" its socket is also dup2()ed onto every number from 5 to 1023, so that any
 * descriptor number the runtime had is now the program's socket.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int run(long n, const char *file, bool fill)
{
	int fd, sp[2];
	void *keep[64] = { 0 };
	unsigned long sum = 0;
	double t0;
	struct stat st;
	char buf[256];
	ssize_t got;

	for (int i = 3; i < 1024; i++)
		close(i);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0) {
		perror("daemon");
		return 1;
	}
	for (int i = 5; fill && i < 1024; i++)
		dup2(sp[0], i);
	t0 = now_ms();
	for (long i = 0; i < n; i++) {
		size_t size = 16 + (size_t)(i % 121) * 8;
		char *p = malloc(size);

		if (!p)
			return 1;
		memset(p, (int)i, size);
		for (size_t k = 0; k + 8 <= size; k += 8) { /* FNV-1a over the block's words */
			unsigned long w;

			memcpy(&w, p + k, 8);
			sum = (sum ^ w) * 1099511628211ul;
		}
		free(keep[i % 64]);
		keep[i % 64] = p;
	}
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	/* What did the runtime, or anyone, write into the program's descriptors? */
	fstat(fd, &st);
	fcntl(sp[1], F_SETFL, O_NONBLOCK);
	got = read(sp[1], buf, sizeof(buf));
	printf("daemon ms=%.1f allocs=%ld file_bytes=%lld socket_bytes=%zd fds=%d,%d sum=%lu\n",
	       now_ms() - t0, n, (long long)st.st_size, got < 0 ? (ssize_t)0 : got, fd, sp[0],
	       sum % 7);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000;
	const char *file = argc > 2 ? argv[2] : "daemon.out";

	if (argc > 3 && !strcmp(argv[3], "fork")) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			/* the child's runtime connects before the closing */
			void *volatile early = malloc(100);

			free(early);
			setsid();
			_exit(run(n, file, false));
		}
		waitpid(pid, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	return run(n, file, argc > 3 && !strcmp(argv[3], "fill"));
}
