/* SPDX-License-Identifier: MIT */
/*
 * Page-write tracking without labels (issue 16), with a known answer: large blocks and a
 * large anonymous mapping, written in known patterns across epochs. Prints, per case, the
 * whole pages the runtime tracks and how many of them are written in two epochs or more.
 * usage: pw-auto EPOCH_MS
 *        pw-auto huge BYTES: a 64 TiB MAP_NORESERVE reservation and a BYTES mapping, one page
 *        of each touched (ranges memtap must not track: their page tables would not fit)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/*
 * Writes [p, p + n) with exactly one store per page it touches: a page is then written in
 * exactly one epoch. A memset could be cut by an epoch's scan in the middle of a page, which
 * then is truly written in two epochs, and the known answer would depend on timing; so
 * could two stores to one page (p's partial page, then its first whole page when p is
 * page-aligned: an mmap), which a scan can fall between.
 */
static void touch(char *p, size_t n, char v)
{
	uintptr_t q = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;

	if (q != (uintptr_t)p)
		*(volatile char *)p = v; /* the partial page before the first whole one */
	for (; q < (uintptr_t)p + n; q += 4096)
		*(volatile char *)q = v;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The whole pages of [p, p + n), and how many of them [p, p + w) touches. */
static void expect(const char *name, const void *p, size_t n, size_t w)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095,
		  hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	uintptr_t wlo = (uintptr_t)p & ~(uintptr_t)4095,
		  whi = ((uintptr_t)p + w + 4095) & ~(uintptr_t)4095;
	uintptr_t a = wlo > lo ? wlo : lo, b = whi < hi ? whi : hi;

	printf("%s pages %zu rewritten %zu\n", name, (size_t)((hi - lo) / 4096),
	       (size_t)(b > a ? (b - a) / 4096 : 0));
}

__attribute__((noinline)) static char *alloc_kept(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static char *alloc_freed(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static char *alloc_small(size_t n)
{
	return malloc(n);
}

static int huge(size_t n)
{
	char *r = mmap(NULL, 64ull << 40, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED || b == MAP_FAILED) {
		printf("huge unavailable\n"); /* strict overcommit: nothing to show */
		return 0;
	}
	r[1ull << 40] = 1;
	b[n / 2] = 1;
	printf("huge %zu\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;

	if (argc > 2 && !strcmp(argv[1], "huge"))
		return huge((size_t)strtoull(argv[2], NULL, 10));
	size_t na = 4u << 20, nb = 2u << 20, nc = 2u << 20, nd = 64u << 10;
	char *a = alloc_kept(na), *c = alloc_freed(nc), *d = alloc_small(nd);
	char *b = mmap(NULL, nb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!a || !c || !d || b == MAP_FAILED)
		return 1;
	/* kept: every page once, then its first MiB again in two later epochs */
	touch(a, na, 1);
	touch(b, nb, 2); /* the mapping: every page once */
	touch(c, nc, 3);
	touch(d, nd, 4);
	nap(15 * ms);
	touch(a, 1u << 20, 5);
	touch(c, nc, 6); /* freed: all again, then freed at once (the runtime's last scan) */
	expect("freed", c, nc, nc);
	free(c);
	nap(15 * ms);
	touch(a, 1u << 20, 7);
	expect("kept", a, na, 1u << 20);
	expect("mapping", b, nb, 0);
	nap(15 * ms);
	munmap(b, nb);
	printf("done %d\n", a[0] + d[0]);
	return 0;
}
