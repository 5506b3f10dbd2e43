/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for access sampling: phases with known access patterns over arrays whose
 * address ranges it prints, each phase's start and end in CLOCK_MONOTONIC ns, so a test can
 * check where every sampled access of each phase must fall and whether it must be a load
 * or a store. Lines on stdout:
 *   array NAME LO HI            [LO, HI) of a heap array
 *   tls TID LO HI               a thread's TLS array
 *   phase NAME TID START END    a phase ran on thread TID (0: every thread) between START, END
 * usage: access-truth [SCALE]   (SCALE multiplies each phase's repetitions, default 1)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N (4u << 20) /* longs per array: 32 MiB, beyond the caches */
#define TLS_N 16384 /* longs per thread: 128 KiB of static TLS */
#define NTHREADS 3

static long *A, *B, *C;
static double scale = 1;
static __thread long tls[TLS_N];
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void phase(const char *name, long tid, uint64_t t0, uint64_t t1)
{
	pthread_mutex_lock(&out);
	printf("phase %s %ld %llu %llu\n", name, tid, (unsigned long long)t0,
	       (unsigned long long)t1);
	pthread_mutex_unlock(&out);
}

static long reps(double base)
{
	long r = (long)(base * scale);

	return r < 1 ? 1 : r;
}

/* C = A + B: sequential loads of A and B, stores to C (vectorized at -O3). */
__attribute__((noinline, optimize("O3"))) static void
add_arrays(long *restrict c, const long *restrict a, const long *restrict b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i] = a[i] + b[i];
}

/* Random loads of A. */
__attribute__((noinline, optimize("O2"))) static long random_reads(const long *a, long steps)
{
	unsigned long x = 88172645463325252ull;
	long s = 0;

	for (long i = 0; i < steps; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s += a[x & (N - 1)];
	}
	return s;
}

/* Sequential stores to B (not vectorized: one scalar store per element). */
__attribute__((noinline, optimize("O2", "no-tree-vectorize"))) static void fill(volatile long *b,
										size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (long)i;
}

static void rep_movsb(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static void rep_stosq(void *dst, long v, size_t n)
{
	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(n) : "a"(v) : "memory");
}

/* Pointer chasing through a random cycle over A: every load's address is the previous
 * load's value, which no register keeps. */
__attribute__((noinline, optimize("O2"))) static long chase(const long *a, long steps)
{
	const long *p = a;

	/* In assembly, so every compiler emits the self-overwriting load p = *p. */
	for (long i = 0; i < steps; i++)
		__asm__ volatile("mov (%0), %0" : "+r"(p) : : "memory");
	return (long)p;
}

static void *tls_writer(void *arg)
{
	long tid = syscall(SYS_gettid);
	uint64_t t0, t1;

	pthread_mutex_lock(&out);
	printf("tls %ld %llu %llu\n", tid, (unsigned long long)(uintptr_t)tls,
	       (unsigned long long)(uintptr_t)(tls + TLS_N));
	pthread_mutex_unlock(&out);
	t0 = now();
	for (long r = 0; r < reps(40000); r++)
		for (size_t i = 0; i < TLS_N; i++)
			((volatile long *)tls)[i] = r + (long)i;
	t1 = now();
	phase("tls_writes", tid, t0, t1);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	uint64_t t0, t1;
	long sink = 0;

	if (argc > 1)
		scale = atof(argv[1]);
	A = aligned_alloc(4096, N * sizeof(long));
	B = aligned_alloc(4096, N * sizeof(long));
	C = aligned_alloc(4096, N * sizeof(long));
	if (!A || !B || !C)
		return 1;
	printf("array A %llu %llu\narray B %llu %llu\narray C %llu %llu\n",
	       (unsigned long long)(uintptr_t)A, (unsigned long long)(uintptr_t)(A + N),
	       (unsigned long long)(uintptr_t)B, (unsigned long long)(uintptr_t)(B + N),
	       (unsigned long long)(uintptr_t)C, (unsigned long long)(uintptr_t)(C + N));
	for (size_t i = 0; i < N; i++)
		A[i] = B[i] = (long)i;
	memset(C, 0, N * sizeof(long));

	t0 = now();
	for (long r = 0; r < reps(96); r++)
		add_arrays(C, A, B, N);
	t1 = now();
	phase("seq_add", 0, t0, t1);

	t0 = now();
	sink += random_reads(A, reps(30e6));
	t1 = now();
	phase("random_reads", 0, t0, t1);

	t0 = now();
	for (long r = 0; r < reps(200); r++)
		fill(B, N);
	t1 = now();
	phase("seq_writes", 0, t0, t1);

	t0 = now();
	for (long r = 0; r < reps(220); r++)
		rep_movsb(C, A, N * sizeof(long));
	t1 = now();
	phase("rep_movsb", 0, t0, t1);

	t0 = now();
	for (long r = 0; r < reps(330); r++)
		rep_stosq(B, r, N);
	t1 = now();
	phase("rep_stosq", 0, t0, t1);

	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, tls_writer, NULL))
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);

	/* A random cycle through A (Sattolo's shuffle of the element order). */
	{
		unsigned long x = 2463534242ull;
		long *idx = malloc(N * sizeof(long));

		if (!idx)
			return 1;
		for (size_t i = 0; i < N; i++)
			idx[i] = (long)i;
		for (size_t i = N - 1; i > 0; i--) {
			size_t j;
			long tmp;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			j = x % i;
			tmp = idx[i];
			idx[i] = idx[j];
			idx[j] = tmp;
		}
		for (size_t i = 0; i < N; i++)
			A[idx[i]] = (long)(uintptr_t)&A[idx[(i + 1) % N]];
		free(idx);
	}
	t0 = now();
	sink += chase(A, reps(2e6));
	t1 = now();
	phase("pointer_chase", 0, t0, t1);

	fprintf(stderr, "sink %ld\n", sink);
	return 0;
}
