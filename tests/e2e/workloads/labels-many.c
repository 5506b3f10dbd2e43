/* SPDX-License-Identifier: MIT */
/* Labels 5000 separate pages (every other page of one mapping, so no two merge), then maps
 * 60000 more pages one by one: memtap's page-write tracking must stop at its limit rather
 * than use up the process's mappings (vm.max_map_count). Prints "ok" when every mmap worked. */
#include <stdio.h>
#include <sys/mman.h>

#include <memtap/memtap.h>

int main(void)
{
	char *p = mmap(NULL, 10000 * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	int failed = 0;

	if (p == MAP_FAILED)
		return 1;
	for (int i = 0; i < 5000; i++) {
		memtap_label(p + 2L * i * 4096, 4096, "page", "p");
		p[2L * i * 4096] = 1;
	}
	for (int i = 0; i < 60000; i++) {
		char *q = mmap(NULL, 4096, i & 1 ? PROT_READ : PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (q == MAP_FAILED)
			failed++;
	}
	printf(failed ? "%d mmap calls failed\n" : "ok\n", failed);
	return failed != 0;
}
