/* SPDX-License-Identifier: MIT */
/*
 * libmemtap-heap.so: the workload's heap placed where an experiment asks (memtap run,
 * heap: {pmem_dir | numa_node}), as Heimdallr's tracealloc does: preloaded, it answers
 * malloc and its family from a memkind "fixed" kind over one region —
 *   pmem:DIR   a sparse file in DIR (a PMEM/DAX file system, or any other), mapped shared;
 *   numa:N     anonymous memory bound to NUMA node N (mbind MPOL_BIND).
 * Configured by MEMTAP_HEAP ("pmem:DIR" or "numa:N"). Blocks from before the region exists
 * (the loader's, the library's own start-up) stay glibc's and go back to it: a pointer is
 * ours when it lies in the region. When the region cannot be made the process is stopped
 * with one line on stderr and exit status 126: a heap that is not where it was asked would
 * make the run's figures lie. When the region is full, malloc fails (ENOMEM), as a full
 * device would. Under memtap record its runtime comes first in LD_PRELOAD and reaches these
 * functions as "the next allocator".
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <memkind.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	size_t (*usable)(void *);
} real;

static memkind_t kind;
static char *base;
static size_t size;
static int state; /* 0 not yet, 1 being made, 2 ready, 3 the process is exiting */

/* dlsym may allocate before the real functions are known: a small pool, never freed. */
static char boot[16384] __attribute__((aligned(64)));
static size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 63) & ~(size_t)63, __ATOMIC_RELAXED);

	return at + n <= sizeof(boot) ? boot + at : NULL;
}

static bool in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static bool ours(const void *p)
{
	return base && (const char *)p >= base && (const char *)p < base + size;
}

static void die(const char *what, int err)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "memtap-heap: cannot place the heap (%s): %s: %s\n",
			 getenv("MEMTAP_HEAP") ? getenv("MEMTAP_HEAP") : "MEMTAP_HEAP unset", what,
			 strerror(err));

	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	_exit(126);
}

static size_t half_of_ram(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 2 : (size_t)1 << 30;
}

/* The region: a sparse file in dir, mapped shared (its size: half of RAM, or what the file
 * system has free). */
static void make_pmem(const char *dir)
{
	char path[4096];
	struct statvfs vfs;
	int fd;

	if (statvfs(dir, &vfs) < 0)
		die(dir, errno);
	size = half_of_ram();
	if ((size_t)vfs.f_bavail * vfs.f_frsize < size)
		size = (size_t)vfs.f_bavail * vfs.f_frsize;
	size &= ~(size_t)((2u << 20) - 1);
	if (size < (64u << 20))
		die("less than 64 MiB free", ENOSPC);
	snprintf(path, sizeof(path), "%s/memtap-heap.%d.XXXXXX", dir, (int)getpid());
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		die(dir, errno);
	unlink(path); /* gone with the process */
	if (ftruncate(fd, (off_t)size) < 0)
		die("ftruncate", errno);
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		base = NULL;
		die("mmap", errno);
	}
}

#define MPOL_BIND_MODE 2

static void make_numa(int node)
{
	unsigned long mask[16] = { 0 };

	if (node < 0 || node >= 1024)
		die("node number", EINVAL);
	size = half_of_ram();
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (base == MAP_FAILED) {
		base = NULL;
		die("mmap", errno);
	}
	mask[node / 64] |= 1ul << (node % 64);
	if (syscall(SYS_mbind, base, size, MPOL_BIND_MODE, mask, 1024ul + 1, 0ul) < 0)
		die("mbind", errno);
}

static void init(void)
{
	int expect = 0;
	const char *spec = getenv("MEMTAP_HEAP");

	if (!__atomic_compare_exchange_n(&state, &expect, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return; /* made, or being made by another thread: glibc's meanwhile */
	real.malloc = dlsym(RTLD_NEXT, "malloc");
	real.free = dlsym(RTLD_NEXT, "free");
	real.calloc = dlsym(RTLD_NEXT, "calloc");
	real.realloc = dlsym(RTLD_NEXT, "realloc");
	real.usable = dlsym(RTLD_NEXT, "malloc_usable_size");
	if (!real.malloc || !real.free || !real.calloc || !real.realloc || !real.usable)
		die("the next allocator's functions", ENOENT);
	if (spec && !strncmp(spec, "pmem:", 5) && spec[5])
		make_pmem(spec + 5);
	else if (spec && !strncmp(spec, "numa:", 5) && spec[5])
		make_numa(atoi(spec + 5));
	else
		die("MEMTAP_HEAP must be pmem:DIR or numa:N", EINVAL);
	if (memkind_create_fixed(base, size, &kind) != MEMKIND_SUCCESS)
		die("memkind_create_fixed", ENOMEM);
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}

/* Runs before libmemkind's own destructor (this library depends on it): from here on the
 * region's blocks are left as they are (the process is ending) and new ones are glibc's,
 * since other libraries' destructors (libnuma's) still free and allocate. */
__attribute__((destructor)) static void fini(void)
{
	__atomic_store_n(&state, 3, __ATOMIC_RELEASE);
}

static bool exiting(void)
{
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == 3;
}

static bool ready(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (s == 0) {
		init();
		s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	}
	return s == 2;
}

EXPORT void *malloc(size_t n)
{
	void *p;

	if (ready()) {
		p = memkind_malloc(kind, n ? n : 1);
		if (!p)
			errno = ENOMEM;
		return p;
	}
	return real.malloc ? real.malloc(n) : boot_alloc(n);
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	if (ours(p)) {
		if (!exiting())
			memkind_free(kind, p);
	} else if (real.free)
		real.free(p);
}

EXPORT void *calloc(size_t n, size_t m)
{
	void *p;

	if (m && n > SIZE_MAX / m) {
		errno = ENOMEM;
		return NULL;
	}
	if (ready()) {
		p = memkind_calloc(kind, n ? n : 1, m ? m : 1);
		if (!p)
			errno = ENOMEM;
		return p;
	}
	if (real.calloc)
		return real.calloc(n, m);
	p = boot_alloc(n * m);
	return p; /* the pool is zero: it is never reused */
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p || in_boot(p))
		return 0;
	if (ours(p))
		return exiting() ? 0 : memkind_malloc_usable_size(kind, p);
	return real.usable ? real.usable(p) : 0;
}

EXPORT void *realloc(void *p, size_t n)
{
	void *q;
	size_t old;

	if (!p)
		return malloc(n);
	if (ours(p) && exiting()) { /* memkind is gone: a copy, bounded by the region */
		size_t left = (size_t)(base + size - (char *)p);

		if ((q = real.malloc(n)))
			memcpy(q, p, n < left ? n : left);
		return q;
	}
	if (ours(p)) {
		q = memkind_realloc(kind, p, n ? n : 1);
		if (!q)
			errno = ENOMEM;
		return q;
	}
	if (!ready())
		return in_boot(p) ? NULL : real.realloc(p, n);
	/* a block from before the region: moved into it */
	old = in_boot(p) ? 0 : real.usable(p);
	q = malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	free(p);
	return q;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	if (!ready())
		return ENOMEM; /* not before the region: nothing asks this so early */
	return memkind_posix_memalign(kind, out, align, n ? n : 1) ? ENOMEM : 0;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p = NULL;
	int e = posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n);

	if (e)
		errno = e;
	return e ? NULL : p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	return aligned_alloc(align, n);
}

EXPORT void *valloc(size_t n)
{
	return aligned_alloc((size_t)sysconf(_SC_PAGESIZE), n);
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return aligned_alloc(page, (n + page - 1) & ~(page - 1));
}
