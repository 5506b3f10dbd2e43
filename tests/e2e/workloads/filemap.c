/* SPDX-License-Identifier: MIT */
/*
 * A read-only file mapping of a length that is not a whole number of pages, as inference
 * engines map their model files: mmap(file, 1 MiB + 100), reads from it for ~0.4 s, then
 * munmap with the same length, and reads its buffer for ~0.2 s more. The kernel rounds
 * both to pages; the preload runtime reports the caller's lengths. Prints
 *   file START END PATH      (the mapping, END as the kernel has it)
 *   unmap T0 T1              (CLOCK_MONOTONIC ns just before and after the munmap)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LEN ((1u << 20) + 100)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile long sink;

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "filemap.dat";
	unsigned char *p, *buf = malloc(LEN);
	uint64_t end, t0, t1;
	long acc = 0;
	int fd;

	for (unsigned i = 0; buf && i < LEN; i++)
		buf[i] = (unsigned char)(i * 7);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (!buf || fd < 0 || write(fd, buf, LEN) != LEN)
		return 1;
	p = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	close(fd);
	printf("file %#lx %#lx %s\n", (unsigned long)p, (unsigned long)p + ((LEN + 4095) & ~4095u),
	       path);
	for (end = now_ns() + 400000000; now_ns() < end;)
		for (unsigned i = 0; i < LEN; i += 64) /* a line at a time, partial page included */
			acc += p[i];
	sink = acc;
	t0 = now_ns();
	munmap(p, LEN);
	t1 = now_ns();
	printf("unmap %llu %llu\n", (unsigned long long)t0, (unsigned long long)t1);
	for (end = now_ns() + 200000000; now_ns() < end;)
		for (int i = 0; i < 100000; i++)
			sink += buf[i];
	free(buf);
	return 0;
}
