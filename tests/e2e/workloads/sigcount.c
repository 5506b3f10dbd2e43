/* SPDX-License-Identifier: MIT */
/*
 * Counts each SIGTERM, SIGHUP and SIGINT it receives over SECONDS (default 1.5), then
 * prints "TERM=n HUP=n INT=n". With "self" it first sends SIGTERM to its own process group
 * (kill(0, ...)), as programs that stop their helpers do. Writes "ready" to stderr once
 * its handlers are in place.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t n[3];

static void on_sig(int sig)
{
	n[sig == SIGTERM ? 0 : sig == SIGHUP ? 1 : 2]++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	double end = now() + (argc > 1 && strcmp(argv[1], "self") ? atof(argv[1]) : 1.5);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	(void)!write(2, "ready\n", 6);
	if (argc > 1 && !strcmp(argv[argc - 1], "self"))
		kill(0, SIGTERM);
	while (now() < end) {
		struct timespec nap = { 0, 10000000 };

		nanosleep(&nap, NULL);
	}
	printf("TERM=%d HUP=%d INT=%d\n", (int)n[0], (int)n[1], (int)n[2]);
	return 0;
}
