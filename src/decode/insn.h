/* SPDX-License-Identifier: MIT */
/*
 * Data addresses from ordinary samples: the instruction at a sampled IP and the one before
 * it are decoded (Zydis 4) and their memory operands computed from the sampled user
 * registers. See docs/metrics.md ("Access sampling") for the rules and their reasons.
 */
#ifndef MEMTAP_DECODE_INSN_H
#define MEMTAP_DECODE_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

/* User registers in the order perf delivers them for MT_PERF_REGS_MASK. */
enum mt_reg {
	MT_REG_AX,
	MT_REG_BX,
	MT_REG_CX,
	MT_REG_DX,
	MT_REG_SI,
	MT_REG_DI,
	MT_REG_BP,
	MT_REG_SP,
	MT_REG_IP,
	MT_REG_FLAGS,
	MT_REG_R8,
	MT_REG_R9,
	MT_REG_R10,
	MT_REG_R11,
	MT_REG_R12,
	MT_REG_R13,
	MT_REG_R14,
	MT_REG_R15,
	MT_NREGS,
};

/* perf's sample_regs_user bits for the registers above (AX..FLAGS, R8..R15; asking for
 * the segment registers is refused with EINVAL). */
#define MT_PERF_REGS_MASK 0xff03ffull

struct mt_regs {
	uint64_t r[MT_NREGS];
	uint64_t fs_base, gs_base;
	bool fs_known, gs_known;
};

struct mt_access {
	uint64_t addr;
	uint32_t size;
	uint8_t kind; /* enum mt_access_kind */
};

#define MT_DECODE_MAX_ACCESSES 4

struct mt_decoded {
	unsigned reason; /* enum mt_unresolved (trace-format.h); MT_UNRES_NONE when n > 0 */
	unsigned how; /* enum mt_resolved_how */
	unsigned back; /* MT_HOW_PREVIOUS: instructions before the IP (1 = the one just before) */
	uint64_t insn_ip; /* the instruction the accesses belong to */
	unsigned n;
	struct mt_access acc[MT_DECODE_MAX_ACCESSES];
};

/* How many code bytes the decoder wants on each side of the IP. */
#define MT_DECODE_BEFORE 64
#define MT_DECODE_AFTER 64

/*
 * Decodes one sample. code[before] is the byte at regs->r[MT_REG_IP]; before (≤
 * MT_DECODE_BEFORE) bytes precede it and after bytes follow from it (≥ 1). Never reads
 * outside [code, code + before + after). Returns the number of accesses (0: see
 * out->reason).
 */
unsigned mt_decode_sample(const uint8_t *code, size_t before, size_t after,
			  const struct mt_regs *regs, struct mt_decoded *out);

#endif
