/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the runtime's CFI reader (rt/cfi.c). Input: a pc as a signed offset from
 * the .eh_frame_hdr (8 bytes), the header's offset in the memory (4 bytes), then the memory
 * (an .eh_frame_hdr and .eh_frame as they lie in an object). The reader is given exactly
 * that memory as its bounds: ASan stops any read outside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cfi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t pc_off;
	uint32_t hdr_off;
	uint8_t *mem;
	size_t n;
	uint64_t rule;

	if (size < 12 + 4)
		return 0;
	memcpy(&pc_off, data, 8);
	memcpy(&hdr_off, data + 8, 4);
	n = size - 12;
	mem = malloc(n);
	if (!mem)
		return 0;
	memcpy(mem, data + 12, n);
	hdr_off %= (uint32_t)n;
	rule = mt_cfi_rule(mem + hdr_off, (uint64_t)(uintptr_t)(mem + hdr_off) + (uint64_t)pc_off,
			   mem, mem + n);
	if (R_KIND(rule) == RULE_NORMAL && R_CFA_OFF(rule) <= 0)
		abort(); /* a normal rule always has a positive CFA offset */
	free(mem);
	return 0;
}
