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

/* Why a sample gave no data address (stored in the trace: keep the numbers). */
enum mt_unresolved {
	MT_UNRES_NONE = 0,
	MT_UNRES_KERNEL = 1, /* no user registers, or a kernel IP */
	MT_UNRES_NO_CODE = 2, /* the code bytes could not be read */
	MT_UNRES_UNDECODABLE = 3, /* no valid instruction at the IP */
	MT_UNRES_NO_MEMOP = 4, /* neither instruction touches memory (or only hints: nop, prefetch) */
	MT_UNRES_POINTER_CHASE = 5, /* the previous access overwrote its own address register */
	MT_UNRES_BRANCH = 6, /* the previous instruction is a branch, or the IP a branch target */
	MT_UNRES_VECTOR_INDEX = 7, /* a gather/scatter: its per-lane indexes are not sampled */
	MT_UNRES_NO_FS_BASE = 8, /* an fs:/gs: operand with the thread's segment base unknown */
	MT_UNRES_IMAGE_GONE = 9, /* the process exited or exec'd before its code could be read */
	MT_UNRES_STRING_DONE = 10, /* a rep string instruction with nothing left to do */
	MT_UNRES_CLOBBERED = 11, /* an address register was overwritten after the access */
	_MT_UNRES_MAX,
};

const char *mt_unresolved_name(unsigned reason);

/* Which instruction gave the address. */
enum mt_resolved_how {
	MT_HOW_AT_IP = 1, /* the instruction at the IP (about to run) */
	MT_HOW_PREVIOUS = 2, /* the one before it (skid: the usual case) */
	MT_HOW_PRECISE = 3, /* the hardware reported the address (PEBS, IBS, SPE) */
};

enum mt_access_kind { MT_ACCESS_LOAD = 0, MT_ACCESS_STORE = 1, MT_ACCESS_UNRESOLVED = 2 };

struct mt_access {
	uint64_t addr;
	uint32_t size;
	uint8_t kind; /* enum mt_access_kind */
};

#define MT_DECODE_MAX_ACCESSES 4

struct mt_decoded {
	unsigned reason; /* enum mt_unresolved; MT_UNRES_NONE when n > 0 */
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
