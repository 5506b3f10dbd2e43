/* SPDX-License-Identifier: MIT */
/*
 * Page-write tracking without labels (issue 16), with a known answer: large blocks and a
 * large anonymous mapping, written in known patterns across epochs. Prints, per case, the
 * whole pages the runtime tracks and how many of them are written in two epochs or more.
 * usage: pw-auto EPOCH_MS
 *        pw-auto huge BYTES: a 64 TiB MAP_NORESERVE reservation and a BYTES mapping, one page
 *        of each touched (ranges memtap must not track: their page tables would not fit)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/*
 * Writes [p, p + n) with exactly one store per page it touches: a page is then written in
 * exactly one epoch. A memset could be cut by an epoch's scan in the middle of a page, which
 * then is truly written in two epochs, and the known answer would depend on timing; so
 * could two stores to one page (p's partial page, then its first whole page when p is
 * page-aligned: an mmap), which a scan can fall between.
 *
 * One race is left, the kernel's: a scan that passes a page while its write fault is being
 * resolved reports it written and protects it again before the store retires; the store
 * faults once more and the page is reported in the next epoch too. That costs an extra
 * fault, which this thread's fault count shows. Every whole page a loop stores to is in the
 * same state (fresh, or protected by end_epoch), so each store takes the loop's least
 * number of faults unless a scan fell on it: the faults beyond that least, summed, bound the
 * pages that can be counted twice. Returned as the slack the known answer allows (0 when no
 * scan fell inside the loop).
 */
static long minflt(void)
{
	struct rusage r;

	getrusage(RUSAGE_THREAD, &r);
	return r.ru_minflt;
}

static long touch(char *p, size_t n, char v)
{
	uintptr_t q = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	long least = -1, sum = 0, stores = 0, f;

	if (q != (uintptr_t)p)
		*(volatile char *)p = v; /* the partial page before the first whole one */
	for (; q < (uintptr_t)p + n; q += 4096) {
		f = minflt();
		*(volatile char *)q = v;
		f = minflt() - f;
		if (q + 4096 > (uintptr_t)p + n)
			break; /* the partial page after the last whole one: not tracked */
		sum += f;
		stores++;
		least = least < 0 || f < least ? f : least;
	}
	return stores ? sum - least * stores : 0;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h), asked without write-protecting. */
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
struct page_region {
	uint64_t start, end, categories;
};
#define PAGEMAP_SCAN_ _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WPALLOWED_ (1ull << 0)
#define PAGE_IS_WRITTEN_ (1ull << 1)

/* The pages of [p, p + n) that are in category `want` (all categories asked must hold). */
static long pages_in(const void *p, size_t n, uint64_t want)
{
	static int fd = -2;
	struct page_region vec[64];
	struct pm_scan_arg a = {
		.size = sizeof(a),
		.start = (uintptr_t)p & ~(uintptr_t)4095,
		.end = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095,
		.vec = (uintptr_t)vec,
		.vec_len = 64,
		.category_mask = want,
		.return_mask = want,
	};
	long r, pages = 0;

	if (fd == -2)
		fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (r = ioctl(fd, PAGEMAP_SCAN_, &a)) < 0)
		return -1;
	for (long i = 0; i < r; i++)
		pages += (long)((vec[i].end - vec[i].start) / 4096);
	return pages;
}

/*
 * A mapping of its own (tracked: 1 MiB or more) of which each epoch's end writes one fresh
 * page: a page written once is protected again by the next scan whether the recorder settles
 * pages written in two epochs (its default: those stay unprotected, so a rewritten range's
 * pages never look protected again) or not (--page-writes=full). Printed ("sentinel"), so
 * that the test leaves it out.
 */
#define SENTINEL_PAGES 512
static char *sentinel;
static size_t sentinel_next;

/*
 * The end of an epoch: nap `ms`, and while the recorder tracks [p, p + n) (its pages are
 * registered for write-protection) until its scan has protected the sentinel's fresh page
 * again (ms > 0), or [p, p + n)'s written pages (ms 0: a range written once, right after an
 * end of epoch). A fixed nap alone is not enough on a loaded machine: a scan that comes late
 * would put two epochs' writes in one. At most 60 s, then "late" is said.
 */
static void end_epoch(long ms, const void *p, size_t n)
{
	nap(ms);
	if (pages_in(p, n, PAGE_IS_WPALLOWED_) <= 0)
		return; /* not tracked (not under memtap, or not by this recording) */
	if (ms > 0 && sentinel) {
		p = sentinel + (sentinel_next++ % SENTINEL_PAGES) * 4096;
		n = 4096;
		*(volatile char *)p = 1;
	}
	for (long waited = 0; pages_in(p, n, PAGE_IS_WPALLOWED_ | PAGE_IS_WRITTEN_) > 0;
	     waited += ms ? ms : 1) {
		if (waited > 60000) {
			printf("late scan\n");
			return;
		}
		nap(ms ? ms : 1);
	}
}

/* The whole pages of [p, p + n), how many of them [p, p + w) touches, and the slack. */
static void expect(const char *name, const void *p, size_t n, size_t w, long slack)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095,
		  hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	uintptr_t wlo = (uintptr_t)p & ~(uintptr_t)4095,
		  whi = ((uintptr_t)p + w + 4095) & ~(uintptr_t)4095;
	uintptr_t a = wlo > lo ? wlo : lo, b = whi < hi ? whi : hi;

	printf("%s pages %zu rewritten %zu slack %ld\n", name, (size_t)((hi - lo) / 4096),
	       (size_t)(b > a ? (b - a) / 4096 : 0), slack);
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
	sentinel = mmap(NULL, SENTINEL_PAGES * 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sentinel == MAP_FAILED)
		return 1;
	madvise(sentinel, SENTINEL_PAGES * 4096, MADV_NOHUGEPAGE);
	printf("sentinel %lx %d\n", (unsigned long)sentinel, SENTINEL_PAGES * 4096);
	/* kept: every page once, then its first MiB again in two later epochs */
	long sa = touch(a, na, 1), sb = touch(b, nb, 2); /* the mapping: every page once */
	long sc = touch(c, nc, 3);

	touch(d, nd, 4);
	nap(14 * ms);
	end_epoch(ms, a, na);
	end_epoch(0, b, nb);
	end_epoch(0, c, nc);
	sa += touch(a, 1u << 20, 5);
	sc += touch(c, nc, 6); /* freed: all again, then freed at once (the runtime's last scan) */
	expect("freed", c, nc, nc, sc);
	free(c);
	nap(14 * ms);
	end_epoch(ms, a, na);
	sa += touch(a, 1u << 20, 7);
	expect("kept", a, na, 1u << 20, sa);
	expect("mapping", b, nb, 0, sb);
	nap(15 * ms);
	munmap(b, nb);
	printf("done %d\n", a[0] + d[0]);
	return 0;
}
