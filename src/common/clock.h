/* SPDX-License-Identifier: MIT */
/* The one clock of every trace: CLOCK_MONOTONIC nanoseconds. */
#ifndef MEMTAP_COMMON_CLOCK_H
#define MEMTAP_COMMON_CLOCK_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline uint64_t mt_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mt_now_ns(void)
{
	return mt_clock_ns(CLOCK_MONOTONIC);
}

/* A struct timeval (getrusage's CPU times) in nanoseconds. */
static inline uint64_t mt_timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

#endif
