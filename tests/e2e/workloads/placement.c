/* SPDX-License-Identifier: MIT */
/*
 * What-if placement's known answer (tests/e2e/placement.sh): four anonymous mappings whose
 * sizes, write times, lifetimes and read shares are set.
 *   A 16 MiB, written once at the start, read 2 ms of every 3 ms of CPU time, unmapped at 7 s
 *   D 16 MiB, written once at the start, read 1 ms of every 3 ms, unmapped at 7 s
 *   B  8 MiB, written whole every 0.5 s (0, 0.5, ..., 6.5 s), never read, unmapped at 7 s
 *   C  4 MiB, written once at the start, never read, unmapped at 5 s
 * Huge pages are declined (MADV_NOHUGEPAGE), so that page-write tracking sees every page.
 * Prints each mapping's address, size, first write and unmapping (CLOCK_MONOTONIC ns), the
 * CPU time spent reading A and D, and the thread's user and system CPU time over the reading
 * (a sample is taken in user mode only: the reads' clock calls, ~5 % of the time, are the
 * kernel's).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "mono.h"

#define MiB (1ul << 20)
#define CHUNK (256ul << 10)

struct map {
	const char *name;
	size_t size;
	uint8_t *p;
	unsigned long long written, unmapped;
};

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static volatile uint64_t sink;

static long long tv_us(const struct timeval *tv)
{
	return (long long)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* Reads m from *off on, a chunk at a time, for ns of CPU time; returns the time taken. */
static unsigned long long read_for(const struct map *m, size_t *off, unsigned long long ns)
{
	unsigned long long t0 = cpu_ns(), t;
	uint64_t s = 0;

	do {
		const uint64_t *w = (const uint64_t *)(m->p + *off);

		for (size_t i = 0; i < CHUNK / 8; i++)
			s += w[i];
		*off = (*off + CHUNK) % m->size;
		t = cpu_ns();
	} while (t - t0 < ns);
	sink += s;
	return t - t0;
}

int main(void)
{
	struct map m[4] = {
		{ "A", 16 * MiB }, { "D", 16 * MiB }, { "B", 8 * MiB }, { "C", 4 * MiB }
	};
	unsigned long long t0, read_a = 0, read_d = 0, next_b;
	size_t off_a = 0, off_d = 0;
	unsigned b_writes = 0;
	struct rusage ru0, ru1;

	for (int i = 0; i < 4; i++) {
		m[i].p = mmap(NULL, m[i].size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
		if (m[i].p == MAP_FAILED)
			return 1;
		madvise(m[i].p, m[i].size, MADV_NOHUGEPAGE);
	}
	t0 = mono_ns();
	for (int i = 0; i < 4; i++) {
		m[i].written = mono_ns();
		memset(m[i].p, 0x40 + i, m[i].size);
	}
	b_writes = 1;
	next_b = t0 + 500000000ull;
	getrusage(RUSAGE_THREAD, &ru0);
	for (;;) {
		unsigned long long now = mono_ns();

		if (now >= t0 + 5000000000ull && !m[3].unmapped) {
			m[3].unmapped = mono_ns();
			munmap(m[3].p, m[3].size);
		}
		if (now >= t0 + 7000000000ull)
			break;
		if (now >= next_b && next_b <= t0 + 6500000000ull) {
			memset(m[2].p, 0x50 + (int)b_writes, m[2].size);
			b_writes++;
			next_b += 500000000ull;
		}
		read_a += read_for(&m[0], &off_a, 2000000);
		read_d += read_for(&m[1], &off_d, 1000000);
	}
	getrusage(RUSAGE_THREAD, &ru1);
	for (int i = 0; i < 3; i++) {
		m[i].unmapped = mono_ns();
		munmap(m[i].p, m[i].size);
	}
	for (int i = 0; i < 4; i++)
		printf("map %s %p %zu %llu %llu\n", m[i].name, (void *)m[i].p, m[i].size,
		       m[i].written, m[i].unmapped);
	printf("read_cpu_ns A %llu D %llu\nb_writes %u\n", read_a, read_d, b_writes);
	printf("cpu_us user %lld system %lld\n", tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime),
	       tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime));
	return 0;
}
