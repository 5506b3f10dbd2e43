/* SPDX-License-Identifier: MIT */
/* Names its memory with include/memtap/memtap.h, for the label test; prints what it named:
 *   phase load; label weights (mmap, 1 MiB) "weight" "model.weights", then fill them;
 *   phase generation; label a 64 KiB malloc "kv_cache" "block0", then unlabel it;
 *   a label with an unmapped range (address 16, 4096 bytes) "bogus" "nowhere";
 *   phase end (NULL).
 * Without memtap every call returns -1 and the program behaves the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <memtap/memtap.h>

int main(void)
{
	char *w = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *kv;
	int rc = 0;

	if (w == MAP_FAILED)
		return 1;
	rc |= memtap_phase("load");
	rc |= memtap_label(w, 1 << 20, "weight", "model.weights");
	memset(w, 1, 1 << 20); /* its 256 page faults belong to the label */
	rc |= memtap_phase("generation");
	kv = malloc(65536);
	memset(kv, 2, 65536);
	rc |= memtap_label(kv, 65536, "kv_cache", "block0");
	rc |= memtap_unlabel(kv);
	free(kv);
	rc |= memtap_label((void *)16, 4096, "bogus", "nowhere");
	rc |= memtap_phase(NULL);
	printf("weights %p 1048576\nkv %p 65536\nrecorded %s\n", (void *)w, (void *)kv,
	       rc ? "no" : "yes");
	return 0;
}
