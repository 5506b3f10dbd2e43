/* SPDX-License-Identifier: MIT */
/* Page faults with known counts and places.
 *   faults-truth anon MIB        touches every page of a fresh anonymous mapping once
 *   faults-truth file PATH       drops PATH from the page cache, then reads one byte of each
 *                                page through a MAP_PRIVATE mapping, in random order: one
 *                                major fault per page (readahead off)
 *   faults-truth maploop N       N times: mmap 64 KiB, touch it, madvise(DONTNEED), munmap
 * Prints "range LO HI" of the mapping it faulted in. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "anon")) {
		size_t n = (size_t)atol(argv[2]) << 20;
		volatile char *p =
			mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		printf("range %llu %llu\n", (unsigned long long)(uintptr_t)p,
		       (unsigned long long)(uintptr_t)(p + n));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "file")) {
		int fd = open(argv[2], O_RDONLY);
		struct stat st;
		volatile char *p;
		size_t pages, x = 1;
		long sum = 0;

		if (fd < 0 || fstat(fd, &st) < 0)
			return 1;
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return 1;
		madvise((void *)p, (size_t)st.st_size, MADV_RANDOM);
		pages = (size_t)st.st_size / 4096;
		/* Every page once, in a scrambled order (pages is a power of two, x odd-stepped). */
		for (size_t i = 0; i < pages; i++) {
			x = (x * 5 + 1) % pages;
			sum += p[x * 4096];
		}
		printf("range %llu %llu %ld\n", (unsigned long long)(uintptr_t)p,
		       (unsigned long long)(uintptr_t)(p + st.st_size), sum & 1);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "maploop")) {
		long n = atol(argv[2]);

		for (long i = 0; i < n; i++) {
			char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return 1;
			p[0] = p[32768] = 1;
			madvise(p, 65536, MADV_DONTNEED);
			munmap(p, 65536);
		}
		printf("range 0 0\n");
		return 0;
	}
	fprintf(stderr, "usage: %s anon MIB | file PATH | maploop N\n", argv[0]);
	return 2;
}
