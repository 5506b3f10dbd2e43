/* SPDX-License-Identifier: MIT */
/*
 * DWARF call-frame information (.eh_frame_hdr, .eh_frame) to the runtime's packed rules: how
 * to step from a frame at pc to its caller on x86-64. Pure functions over memory given with
 * its bounds: no read leaves [lo, hi), whatever the bytes say (unit-tested against libdw,
 * fuzzed).
 */
#ifndef MEMTAP_RT_CFI_H
#define MEMTAP_RT_CFI_H

#include <stdbool.h>
#include <stdint.h>

#include "format/rt-proto.h"

enum rule_kind { RULE_NORMAL = 0, RULE_END = 1, RULE_SIGNAL = 2, RULE_UNSUPPORTED = 3 };

/* A packed rule: kind (2 bits), CFA from rbp (bit 2), rbp saved (bit 3), the saved rbp's
 * offset from the CFA (bits 16..31, signed), the CFA offset (bits 32..63, signed). */
#define R_KIND(r) ((unsigned)((r)&3))
#define R_CFA_RBP(r) (((r) >> 2) & 1)
#define R_SAVES_RBP(r) (((r) >> 3) & 1)
#define R_RBP_OFF(r) ((int16_t)(uint16_t)((r) >> 16))
#define R_CFA_OFF(r) ((int32_t)(uint32_t)((r) >> 32))

static inline uint64_t rule_pack(unsigned kind, bool cfa_rbp, bool saves_rbp, int rbp_off,
				 int cfa_off)
{
	return (uint64_t)kind | (uint64_t)cfa_rbp << 2 | (uint64_t)saves_rbp << 3 |
	       (uint64_t)(uint16_t)(int16_t)rbp_off << 16 | (uint64_t)(uint32_t)cfa_off << 32;
}

/* A frame the walker cannot step past, and why (enum mt_rt_trunc, in the offset field). */
#define UNSUPPORTED(why) rule_pack(RULE_UNSUPPORTED, 0, 0, 0, (why))
#define R_WHY(r) ((unsigned)R_CFA_OFF(r))

/*
 * The rule at pc (the call site, or the exact pc after a signal frame) from the object whose
 * .eh_frame_hdr is at hdr; every byte read lies in [lo, hi) (the object's mapping).
 */
uint64_t mt_cfi_rule(const uint8_t *hdr, uint64_t pc, const uint8_t *lo, const uint8_t *hi);

/*
 * Where the tables are read from, when not from the object's memory in place: get returns
 * the len bytes that are at address addr of the object (a copy, or the memory itself), valid
 * until the next call with the same slot (0 or 1: two records are read at once), or NULL.
 * It is asked only for [lo, hi); a record longer than MT_CFI_RECORD_MAX is refused.
 */
struct mt_cfi_src {
	const uint8_t *(*get)(void *ctx, uint64_t addr, uint64_t len, int slot);
	void *ctx;
	uint64_t lo, hi;
};

#define MT_CFI_RECORD_MAX (64u << 10)

/* mt_cfi_rule through a source: the .eh_frame_hdr at address hdr. */
uint64_t mt_cfi_rule_src(const struct mt_cfi_src *s, uint64_t hdr, uint64_t pc);

#endif
