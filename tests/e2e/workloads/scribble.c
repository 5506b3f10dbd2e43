/* SPDX-License-Identifier: MIT */
/*
 * A hostile program (issue 36): it allocates in two threads while writing garbage over the
 * shared region memtap's runtime records into (found in its own /proc/self/maps as
 * memfd:memtap-rt), header and slots alike; then it blocks every signal, makes itself
 * undumpable, gives up its credentials (when root: to nobody), closes every descriptor
 * above 2 (the runtime's socket), allocates on, and finally unmaps the region and leaves
 * with _exit. What it does to the runtime is its own business; the recorder must not crash,
 * hang, or give its rows to another process.
 *
 * usage: scribble ROUNDS SEED   prints "scribbled N bytes", "regions R", "done"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

struct range {
	uintptr_t lo, hi;
};

static struct range regions[8];
static int nregions;
static volatile int stop;

static void find_regions(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nregions < 8) {
		uintptr_t lo, hi;

		if (strstr(line, "memfd:memtap-rt") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			regions[nregions++] = (struct range){ lo, hi };
	}
	fclose(f);
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *churn(void *arg)
{
	void *keep[64] = { 0 };
	uint64_t s = (uintptr_t)arg | 1;

	while (!stop) {
		unsigned i = rng(&s) % 64;

		free(keep[i]);
		keep[i] = malloc(rng(&s) % 4096 + 1);
	}
	for (unsigned i = 0; i < 64; i++)
		free(keep[i]);
	return NULL;
}

/* Garbage over the regions: random words at random places, the first page (the header)
 * more often than the rest. */
static size_t scribble(uint64_t *s, int rounds)
{
	size_t n = 0;

	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nregions; k++) {
			size_t len = regions[k].hi - regions[k].lo;
			size_t off = (rng(s) & 1) ? rng(s) % 4096 : rng(s) % len;
			uint64_t *p = (uint64_t *)(regions[k].lo + (off & ~(size_t)7));

			if ((uintptr_t)(p + 1) > regions[k].hi)
				continue;
			*p = rng(s);
			n += 8;
			if (r % 64 == 0)
				usleep(100);
		}
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	pthread_t th[2];
	sigset_t all;
	size_t n;

	seed |= 1;
	free(malloc(16)); /* the runtime attaches its region at the first event */
	find_regions();
	printf("regions %d\n", nregions);
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, churn, (void *)(uintptr_t)(i + 7));
	n = scribble(&seed, rounds);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("scribbled %zu bytes\n", n);
	fflush(stdout);
	/* every signal blocked, undumpable, credentials given up, descriptors closed */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (getuid() == 0) {
		if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
			perror("setresuid");
	}
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (int i = 0; i < 20000; i++)
		free(malloc((size_t)i % 512 + 1));
	n += scribble(&seed, rounds / 4);
	puts("done");
	fflush(stdout);
	for (int k = 0; k < nregions; k++)
		munmap((void *)regions[k].lo, regions[k].hi - regions[k].lo);
	_exit(0);
}
