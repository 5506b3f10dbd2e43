/* SPDX-License-Identifier: MIT */
/*
 * A program that makes known system calls only when asked: each byte read on standard input
 * starts a burst of K iterations of getppid, an mmap of 4 pages, their 4 first-touch page
 * faults and a munmap; the burst ends with "done" on standard output. Idle, it waits in
 * read(). Exits at the end of its input. Usage: burst K
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1000;
	char c;

	(void)!write(2, "ready\n", 6);
	while (read(0, &c, 1) == 1) {
		for (long i = 0; i < k; i++) {
			char *p;

			(void)getppid();
			p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				abort();
			for (int j = 0; j < 4; j++)
				((volatile char *)p)[j * 4096] = 1;
			munmap(p, 4 * 4096);
		}
		(void)!write(1, "done\n", 5);
	}
	return 0;
}
