/* SPDX-License-Identifier: MIT */
/* Reads parts of a 1 MiB file twice, through pread, read and mappings, for the re-read
 * test. Prints the ranges read more than once (the truth the trace must show):
 *   pread [0, 256K) twice; read [768K, 832K) twice (lseek back); pread [512K, 576K) once;
 *   each page of [256K, 512K) mapped alone and read, then each of [256K, 384K) again: every
 *   page faults (a one-page mapping leaves the kernel no neighbour to map with it), so
 *   [256K, 384K) is read twice through faults;
 *   [896K, 1M) mapped whole and read twice over (two mappings): the kernel maps cached
 *   neighbours with each faulting page, so only the pages that faulted both times are
 *   known to be re-read (the test checks them against the fault records).
 * usage: rereads FILE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define K 1024
#define SIZE (1024 * K)

static char buf[256 * K];

static void touch_pages(const char *file, int fd, size_t from, size_t to)
{
	unsigned sum = 0;

	for (size_t o = from; o < to; o += 4096) {
		volatile char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)o);

		if (m == MAP_FAILED) {
			perror(file);
			exit(1);
		}
		sum += (unsigned)m[0];
		munmap((void *)m, 4096);
	}
	if (sum == 12345)
		puts("");
}

static void touch(const char *file, int fd, size_t from, size_t to)
{
	/* 2 MiB-aligned, so that the kernel's fault-around windows align with file offsets */
	char *area = mmap(NULL, 4u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *at = (char *)(((uintptr_t)area + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	volatile char *m;
	unsigned sum = 0;

	if (area == MAP_FAILED)
		exit(1);
	m = mmap(at, SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (m == MAP_FAILED) {
		perror(file);
		exit(1);
	}
	for (size_t o = from; o < to; o += 4096)
		sum += (unsigned)m[o];
	munmap((void *)m, SIZE);
	munmap(area, 4u << 20);
	if (sum == 12345)
		puts("");
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 4; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	if (pread(fd, buf, 256 * K, 0) != 256 * K || pread(fd, buf, 256 * K, 0) != 256 * K ||
	    pread(fd, buf, 64 * K, 512 * K) != 64 * K)
		return 1;
	for (int i = 0; i < 2; i++)
		if (lseek(fd, 768 * K, SEEK_SET) != 768 * K || read(fd, buf, 64 * K) != 64 * K)
			return 1;
	touch_pages(argv[1], fd, 256 * K, 512 * K);
	touch_pages(argv[1], fd, 256 * K, 384 * K);
	touch(argv[1], fd, 896 * K, 1024 * K);
	touch(argv[1], fd, 896 * K, 1024 * K);
	close(fd);
	printf("0 393216 2\n786432 851968 2\n"); /* [0, 256K) and [256K, 384K): adjacent */
	return 0;
}
