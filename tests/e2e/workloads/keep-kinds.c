/* SPDX-License-Identifier: MIT */
/*
 * Three blocks that live the whole run, each kept the way an inference engine keeps one kind
 * of memory, with names and layouts no profile knows (tests/e2e/settle-typing.sh):
 *   a constant table: written once at the start, read to the end            (weight-like)
 *   a history: L lanes of rows, one row per lane per step appended, so each
 *     page fills over several steps and the block over the whole run        (KV-like)
 *   a work area: rewritten a chunk per step, whole every few steps          (activation-like)
 * Layout a: malloc'd table 8 MiB, calloc'd history 8 lanes x 512-byte rows, malloc'd work
 * area 4 MiB. Layout b: the work area first (posix_memalign, 6 MiB), the history filled from
 * its end backwards (12 lanes x 384-byte rows), the table last (calloc, 5 MiB).
 * Each step reads a chunk of each block, then sleeps to the next 5 ms. Prints "weight ADDR", "kv ADDR", "act ADDR"
 * (decimal) at the start.
 * usage: keep-kinds a|b SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STEP_NS 5000000ull /* a step every 5 ms */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* Reads n bytes of p from offset off (wrapping at size), one load per 64-byte line. */
static void read_chunk(const uint8_t *p, size_t size, size_t off, size_t n)
{
	uint64_t s = 0;
	size_t at = off % size;

	for (size_t i = 0; i < n; i += 64) {
		s += p[at];
		at = at + 64 < size ? at + 64 : 0;
	}
	sink += s;
}

int main(int argc, char **argv)
{
	int b = argc > 1 && !strcmp(argv[1], "b");
	double secs = argc > 2 ? atof(argv[2]) : 0;
	size_t table_sz = b ? 5u << 20 : 8u << 20, work_sz = b ? 6u << 20 : 4u << 20;
	size_t lanes = b ? 12 : 8, row = b ? 384 : 512;
	size_t steps = (size_t)(secs * 1e9 / (double)STEP_NS) + 1, hist_sz = lanes * steps * row;
	uint8_t *table, *hist, *work = NULL;
	uint64_t t0, next;

	if (secs <= 0 || (argc > 1 && strcmp(argv[1], "a") && !b)) {
		fprintf(stderr, "usage: keep-kinds a|b SECONDS\n");
		return 2;
	}
	if (b) {
		if (posix_memalign((void **)&work, 4096, work_sz))
			return 1;
		hist = malloc(hist_sz);
		table = calloc(1, table_sz);
	} else {
		table = malloc(table_sz);
		hist = calloc(1, hist_sz);
		work = malloc(work_sz);
	}
	if (!table || !hist || !work)
		return 1;
	for (size_t i = 0; i < table_sz; i++)
		table[i] = (uint8_t)(i * 31 + 7);
	printf("weight %lu\nkv %lu\nact %lu\n", (unsigned long)table, (unsigned long)hist,
	       (unsigned long)work);
	fflush(stdout);
	t0 = now_ns();
	next = t0;
	for (size_t s = 0; s < steps; s++) {
		/* one row per lane: lane l's rows are contiguous (position-major within a lane) */
		size_t pos = b ? steps - 1 - s : s;

		for (size_t l = 0; l < lanes; l++)
			memset(hist + (l * steps + pos) * row, (int)(s + l + 1), row);
		memset(work + (s % 4) * (work_sz / 4), (int)s, work_sz / 4);
		read_chunk(table, table_sz, s * (1u << 20), 1u << 20);
		read_chunk(work, work_sz, (s % 4) * (work_sz / 4), work_sz / 4);
		for (size_t l = 0; l < lanes; l++) /* attention over the rows so far */
			read_chunk(hist + l * steps * row, steps * row, (b ? pos : 0) * row,
				   (s + 1) * row < (128u << 10) ? (s + 1) * row : (128u << 10));
		next += STEP_NS; /* then asleep: each block's share of the CPU time is its work's */
		struct timespec ts = { (time_t)(next / 1000000000ull),
				       (long)(next % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	free(work);
	free(hist);
	free(table);
	return 0;
}
