/* SPDX-License-Identifier: MIT */
/*
 * Spans with a known answer (memtap.h): three probes over two views. Each span of probe p
 * makes CALLS[p] malloc calls of SIZE[p] bytes, frees every other block again, and writes
 * PAGES[p] fresh pages of a private mapping (one page fault each). Between the spans it
 * allocates and faults as much again outside any span, which must count nowhere. Nested
 * spans ("inner") take their own figures from their parent. Prints, per probe and view, the
 * expected allocated and freed bytes, calls and faults, and the faults its own thread
 * counted inside each span (getrusage), as "want KEY spans N alloc_bytes B alloc_calls C
 * freed_bytes F free_calls G faults P rusage_faults R".
 * usage: spans ROUNDS
 *        spans samples: two spans of 300 ms each, one reading and writing a labelled
 *        8 MiB buffer (region type kv_cache), one an unlabelled heap block: their access
 *        samples must lie there
 *        spans edge: 600 nested spans (90 beyond the runtime's 510: refused with their
 *        ends), a span with 5000 bytes of fields (left out), a fork child ending its
 *        parent's span (unmatched), a thread that exits inside a span
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <memtap/memtap.h>

#define NPROBES 3

static const char *const PROBE[NPROBES] = { "p-small", "p-large", "p-faulty" };
static const char *const VIEW[NPROBES] = { "v1", "v2", "v1" };
static const size_t SIZE[NPROBES] = { 96, 20000, 512 };
static const unsigned CALLS[NPROBES] = { 40, 10, 4 };
static const unsigned PAGES[NPROBES] = { 2, 8, 64 };

struct want {
	unsigned long long spans, alloc_bytes, alloc_calls, freed_bytes, free_calls, faults, rusage;
};

static long faults_now(void)
{
	struct rusage r;

	getrusage(RUSAGE_THREAD, &r);
	return r.ru_minflt + r.ru_majflt;
}

/* The work of one span of probe p (also done outside spans, to be counted nowhere). */
static void work(int p, struct want *w)
{
	void *b[64];
	char *m = mmap(NULL, PAGES[p] * 4096ul, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	for (unsigned i = 0; i < CALLS[p]; i++) {
		b[i] = malloc(SIZE[p]);
		memset(b[i], (int)i, 16);
	}
	for (unsigned i = 0; i < CALLS[p]; i += 2)
		free(b[i]);
	for (unsigned i = 0; m != MAP_FAILED && i < PAGES[p]; i++)
		m[i * 4096ul] = 1;
	for (unsigned i = 1; i < CALLS[p]; i += 2)
		free(b[i]); /* the rest: freed outside the span's own figures when called there */
	if (m != MAP_FAILED)
		munmap(m, PAGES[p] * 4096ul);
	if (w) {
		w->spans++;
		w->alloc_calls += CALLS[p];
		w->alloc_bytes += CALLS[p] * SIZE[p];
		w->free_calls += CALLS[p];
		w->freed_bytes += CALLS[p] * SIZE[p];
		w->faults += PAGES[p];
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads and writes b for 300 ms, a word every 64 bytes. */
static unsigned long scan(volatile unsigned long *b, size_t n)
{
	unsigned long sum = 0;
	double end = now() + 0.3;

	while (now() < end)
		for (size_t i = 0; i < n / sizeof(*b); i += 8)
			b[i] = b[i] + ++sum;
	return sum;
}

static int samples(void)
{
	size_t n = 8u << 20;
	unsigned long *kv = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				 0),
		      *heap = malloc(n);
	unsigned long s = 0;

	if (kv == MAP_FAILED || !heap)
		return 1;
	memtap_label(kv, n, "kv_cache", "kv0");
	memtap_span_begin("scan", "{\"probe\":\"scan-kv\"}");
	s += scan(kv, n);
	memtap_span_end();
	memtap_span_begin("scan", "{\"probe\":\"scan-heap\"}");
	s += scan(heap, n);
	memtap_span_end();
	printf("done %lu\n", s & 1);
	return 0;
}

static void *volatile sink; /* allocations the compiler may not remove */

static void *left_open(void *arg)
{
	(void)arg;
	memtap_span_begin("left-open", "{\"probe\":\"thread\"}");
	sink = malloc(100);
	free(sink);
	return NULL; /* exits inside the span */
}

static int edge(void)
{
	static char big[5001];
	int refused = 0, ended = 0, status;
	pthread_t th;
	pid_t pid;

	for (int i = 0; i < 600; i++)
		refused += memtap_span_begin("deep", "{\"probe\":\"deep\"}") != 0;
	for (int i = 0; i < 600; i++)
		ended += memtap_span_end() == 0;
	memset(big, 'x', sizeof(big) - 1);
	memtap_span_begin("big", big); /* not JSON and too long: left out, the span kept */
	sink = malloc(1000);
	free(sink);
	memtap_span_end();
	memtap_span_begin("parent", "{\"probe\":\"parent\"}");
	if ((pid = fork()) == 0)
		_exit(memtap_span_end() == 0 ? 3 : 4); /* the parent's span: not the child's */
	waitpid(pid, &status, 0);
	memtap_span_end();
	pthread_create(&th, NULL, left_open, NULL);
	pthread_join(th, NULL);
	printf("refused %d ended %d child %d\n", refused, ended, WEXITSTATUS(status));
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;

	if (argc > 1 && !strcmp(argv[1], "samples"))
		return samples();
	if (argc > 1 && !strcmp(argv[1], "edge"))
		return edge();
	struct want probe[NPROBES] = { { 0 } }, inner = { 0 };
	char fields[128];

	/* The heap's pages faulted once and kept: the spans' faults are their mappings' only. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 16 << 20); /* at most 32 MiB */
	free(memset(malloc(4 << 20), 0, 4 << 20));
	for (int p = 0; p < NPROBES; p++) /* the code paths and the stack, once */
		work(p, NULL);
	memtap_span_begin("warmup", NULL);
	memtap_span_end();
	for (int r = 0; r < rounds; r++) {
		for (int p = 0; p < NPROBES; p++) {
			long f0;

			snprintf(fields, sizeof(fields),
				 "{\"probe\":\"%s\",\"view_id\":\"%s\",\"hit\":%s,\"top_k\":%d}",
				 PROBE[p], VIEW[p], r % 2 ? "true" : "false", p + 1);
			memtap_span_begin("score", fields);
			f0 = faults_now();
			work(p, &probe[p]);
			if (p == 2) { /* a nested span: its figures are its own */
				memtap_span_begin("inner",
						  "{\"probe\":\"inner\",\"view_id\":\"v9\"}");
				work(1, &inner);
				memtap_span_end();
				probe[p].rusage -= PAGES[1]; /* the inner span's, counted below */
			}
			probe[p].rusage += (unsigned long long)(faults_now() - f0);
			memtap_span_end();
			work(p, NULL); /* outside any span */
		}
		memtap_event("round", "{\"probe\":\"round-marker\"}");
	}
	inner.rusage = inner.faults;
	for (int p = 0; p <= NPROBES; p++) {
		const struct want *w = p < NPROBES ? &probe[p] : &inner;

		printf("want %s spans %llu alloc_bytes %llu alloc_calls %llu freed_bytes %llu "
		       "free_calls %llu faults %llu rusage_faults %llu\n",
		       p < NPROBES ? PROBE[p] : "inner", w->spans, w->alloc_bytes, w->alloc_calls,
		       w->freed_bytes, w->free_calls, w->faults, w->rusage);
	}
	return 0;
}
