/* SPDX-License-Identifier: MIT */
/* The workloads' own clock: CLOCK_MONOTONIC, the trace's clock, in nanoseconds. */
#ifndef MEMTAP_WORKLOAD_MONO_H
#define MEMTAP_WORKLOAD_MONO_H

#include <time.h>

static inline unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

#endif
