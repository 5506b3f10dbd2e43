/* SPDX-License-Identifier: MIT */
/*
 * What a program sees of memtap in its environment, and whether it runs in secure-execution
 * mode (installed setuid, it does): prints
 *   envcheck secure=<0|1> euid=<n> memtap_rt=<present|absent> preload=<value or ->
 * and, with an argument, runs it (a child: what it inherits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *p = getenv("LD_PRELOAD");

	printf("envcheck secure=%lu euid=%u memtap_rt=%s preload=%s\n", getauxval(AT_SECURE),
	       (unsigned)geteuid(), getenv("MEMTAP_RT") ? "present" : "absent", p ? p : "-");
	fflush(stdout);
	if (argc > 1) {
		execvp(argv[1], argv + 1);
		perror("envcheck");
		return 127;
	}
	return 0;
}
