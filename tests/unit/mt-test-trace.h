/* SPDX-License-Identifier: MIT */
/* Traces in memory for the unit tests: written to a memfd, read back. */
#ifndef MT_TEST_TRACE_H
#define MT_TEST_TRACE_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/reader.h"

static inline int memfd(const void *data, size_t n)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (n && write(fd, data, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads all of fd into a malloc'd buffer. */
static inline uint8_t *slurp(int fd, size_t *n)
{
	off_t size = lseek(fd, 0, SEEK_END);
	uint8_t *p = malloc((size_t)size + 1);

	if (!p || pread(fd, p, (size_t)size, 0) != size)
		abort();
	*n = (size_t)size;
	return p;
}

static inline int open_bytes(const uint8_t *p, size_t n, struct mt_reader **r)
{
	int fd = memfd(p, n), rc;

	rc = mt_reader_open_fd(fd, r);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	/* The reader does not own fd; the test leaks nothing because close happens in drain(). */
	return fd;
}

#endif
