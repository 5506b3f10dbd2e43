/* SPDX-License-Identifier: MIT */
/* Data addresses from the instruction at a sampled IP and the few before it (Zydis 4). */
#include "insn.h"

#include <string.h>

#include <Zydis/Zydis.h>

/*
 * Skid: an interrupt is taken after the instruction that stalled, so the sampled IP is
 * usually one or two instructions past the access. The registers in the sample are those
 * at the IP, so:
 *
 * - the instruction at the IP has not run yet: its address is exact from the registers;
 * - an instruction before it has run: its address is exact when nothing since changed its
 *   address registers, or changed them only by a known amount (add/sub/inc/dec of a
 *   constant, lea reg,[reg+disp], push/pop), which is undone; and only when it really
 *   ran just before, i.e. no branch lies between it and the IP and no branch targets the
 *   IP or anything between.
 *
 * Instruction boundaries before the IP are found by a linear sweep started up to
 * MT_DECODE_BEFORE bytes earlier that must land exactly on the IP; x86 code
 * resynchronises within a few instructions, so the first start that lands is right
 * 99.9% of the time (measured on libc when this decoder was written).
 */

#define MAX_BACK 3 /* instructions walked back from the IP */
#define MAX_SWEEP 64 /* instructions remembered in a sweep */

/* Hardware register numbers (ModRM order) of the sampled registers; 16: not a GPR. */
static const uint8_t hw_id[MT_NREGS] = {
	[MT_REG_AX] = 0,   [MT_REG_BX] = 3,	[MT_REG_CX] = 1,   [MT_REG_DX] = 2,
	[MT_REG_SI] = 6,   [MT_REG_DI] = 7,	[MT_REG_BP] = 5,   [MT_REG_SP] = 4,
	[MT_REG_IP] = 16,  [MT_REG_FLAGS] = 16, [MT_REG_R8] = 8,   [MT_REG_R9] = 9,
	[MT_REG_R10] = 10, [MT_REG_R11] = 11,	[MT_REG_R12] = 12, [MT_REG_R13] = 13,
	[MT_REG_R14] = 14, [MT_REG_R15] = 15,
};

struct ctx {
	ZydisDecoder dec;
	const uint8_t *code; /* code[0] is at address base */
	uint64_t base;
	size_t len;
	const struct mt_regs *regs;
	uint64_t gpr[16]; /* by hardware number, values right after the instruction looked at */
};

static ZydisDecoder decoder(void)
{
	ZydisDecoder d;

	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return d;
}

/* Hardware number of a general-purpose register of any width, or -1. */
static int gpr_id(ZydisRegister r)
{
	ZydisRegister big;

	if (r == ZYDIS_REGISTER_NONE)
		return -1;
	big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (ZydisRegisterGetClass(big) != ZYDIS_REGCLASS_GPR64)
		return -1;
	return ZydisRegisterGetId(big);
}

static bool is_branch(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return true;
	default:
		return false;
	}
}

/* Instructions whose memory syntax is not a data access. */
static bool is_hint(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
		return true;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_CLFLUSH:
	case ZYDIS_MNEMONIC_CLFLUSHOPT:
	case ZYDIS_MNEMONIC_CLWB:
	case ZYDIS_MNEMONIC_CLDEMOTE:
		return true;
	default:
		return false;
	}
}

static bool is_rep(const ZydisDecodedInstruction *in)
{
	return in->attributes &
	       (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE);
}

static bool is_string(const ZydisDecodedInstruction *in)
{
	return in->meta.category == ZYDIS_CATEGORY_STRINGOP;
}

/* The target of a direct relative branch, or 0. */
static uint64_t branch_target(const ZydisDecodedInstruction *in, uint64_t at)
{
	if (!is_branch(in) || !in->raw.imm[0].is_relative)
		return 0;
	return at + in->length + (uint64_t)in->raw.imm[0].value.s;
}

struct sweep {
	size_t n;
	uint64_t at[MAX_SWEEP]; /* instruction addresses, the last ones before the IP */
	uint64_t targets[2 * MAX_SWEEP]; /* direct branch targets seen around the IP */
	size_t ntargets;
};

static void note_target(struct sweep *s, uint64_t t)
{
	if (t && s->ntargets < sizeof(s->targets) / sizeof(s->targets[0]))
		s->targets[s->ntargets++] = t;
}

/* Linear sweep from code offset start to the IP (offset ipo); false if it does not land. */
static bool sweep_from(const struct ctx *c, size_t start, size_t ipo, struct sweep *s)
{
	size_t off = start;

	s->n = 0;
	s->ntargets = 0;
	while (off < ipo) {
		ZydisDecodedInstruction in;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&c->dec, NULL, c->code + off,
							      c->len - off, &in)))
			return false;
		if (s->n == MAX_SWEEP) {
			memmove(s->at, s->at + 1, (MAX_SWEEP - 1) * sizeof(s->at[0]));
			s->n--;
		}
		s->at[s->n++] = c->base + off;
		note_target(s, branch_target(&in, c->base + off));
		off += in.length;
	}
	return off == ipo;
}

/* Branches after the IP (loops jump back to their head). */
static void sweep_forward(const struct ctx *c, size_t ipo, struct sweep *s)
{
	size_t off = ipo;

	while (off < c->len) {
		ZydisDecodedInstruction in;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&c->dec, NULL, c->code + off,
							      c->len - off, &in)))
			return;
		note_target(s, branch_target(&in, c->base + off));
		off += in.length;
	}
}

static bool targeted(const struct sweep *s, uint64_t at)
{
	for (size_t i = 0; i < s->ntargets; i++)
		if (s->targets[i] == at)
			return true;
	return false;
}

static void fill_context(ZydisRegisterContext *zc, const uint64_t gpr[16])
{
	for (int id = 0; id < 16; id++) {
		zc->values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR64, (ZyanU8)id)] = gpr[id];
		zc->values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR32, (ZyanU8)id)] =
			(uint32_t)gpr[id];
		zc->values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR16, (ZyanU8)id)] =
			(uint16_t)gpr[id];
	}
}

/* Does the instruction write the register (any width) with hardware number id? */
static bool writes_gpr(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, int id)
{
	for (unsigned i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    gpr_id(ops[i].reg.value) == id)
			return true;
	return false;
}

/*
 * The accesses of one instruction at address at, with c->gpr holding the registers
 * right after it ran (executed) or right before it runs (!executed). Returns the number
 * of accesses, or 0 with *reason set.
 */
static unsigned accesses(const struct ctx *c, const ZydisDecodedInstruction *in,
			 const ZydisDecodedOperand *ops, uint64_t at, bool executed,
			 struct mt_decoded *out, unsigned *reason)
{
	ZydisRegisterContext zc;
	unsigned n = 0;
	bool df = c->regs->r[MT_REG_FLAGS] & (1u << 10);

	*reason = MT_UNRES_NO_MEMOP;
	if (is_hint(in))
		return 0;
	if (!executed && is_string(in) && is_rep(in) && c->gpr[1] == 0) {
		*reason = MT_UNRES_STRING_DONE;
		return 0;
	}
	fill_context(&zc, c->gpr);
	for (unsigned i = 0; i < in->operand_count && n < MT_DECODE_MAX_ACCESSES; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		int base = gpr_id(op->mem.base), index = gpr_id(op->mem.index);
		uint64_t addr;
		uint32_t size;

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (op->mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
			*reason = MT_UNRES_VECTOR_INDEX;
			return 0;
		}
		if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM)
			continue; /* lea (address generation), MIB */
		if (!(op->actions &
		      (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)))
			continue;
		size = op->size ? op->size / 8 : 1;
		if (executed) {
			if (is_string(in)) {
				/* rsi/rdi stepped past the element (rep: past the last one). */
				if (base == 6 || base == 7)
					zc.values[op->mem.base] += df ? size
								      : (uint64_t) - (int64_t)size;
			} else if (base == 4 && op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
				   (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
				   writes_gpr(in, ops, 4)) {
				/* pop: read [rsp] before rsp moved up. */
				zc.values[op->mem.base] -= size;
			} else if ((base >= 0 && writes_gpr(in, ops, base) && base != 4) ||
				   (index >= 0 && writes_gpr(in, ops, index))) {
				/* p = *p: the address register now holds what was loaded. */
				*reason = MT_UNRES_POINTER_CHASE;
				return 0;
			}
		}
		if (ZYAN_FAILED(ZydisCalcAbsoluteAddressEx(in, op, at, &zc, &addr))) {
			*reason = MT_UNRES_UNDECODABLE;
			return 0;
		}
		if (executed && is_string(in) && (base == 6 || base == 7))
			zc.values[op->mem.base] = c->gpr[base]; /* restore for the next operand */
		if (!executed && base == 4 && op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
		    (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && !is_string(in))
			addr -= size; /* push, call: the store goes below rsp */
		if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS) {
			bool fs = op->mem.segment == ZYDIS_REGISTER_FS;

			if (!(fs ? c->regs->fs_known : c->regs->gs_known)) {
				*reason = MT_UNRES_NO_FS_BASE;
				return 0;
			}
			addr += fs ? c->regs->fs_base : c->regs->gs_base;
		}
		if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
			out->acc[n++] = (struct mt_access){ addr, size, MT_ACCESS_LOAD };
		if ((op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && n < MT_DECODE_MAX_ACCESSES)
			out->acc[n++] = (struct mt_access){ addr, size, MT_ACCESS_STORE };
	}
	return n;
}

static bool has_memop(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	if (is_hint(in))
		return false;
	for (unsigned i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN &&
		    ops[i].mem.type != ZYDIS_MEMOP_TYPE_MIB)
			return true;
	return false;
}

/*
 * Between a candidate access and the IP, the instruction in (already run) changed some
 * registers: undo what can be undone in c->gpr, and mark the rest unknown.
 */
static void undo(struct ctx *c, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
		 bool unknown[16])
{
	int dst = in->operand_count_visible >= 1 && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER
			  ? gpr_id(ops[0].reg.value)
			  : -1;
	bool full = dst >= 0 && ZydisRegisterGetClass(ops[0].reg.value) == ZYDIS_REGCLASS_GPR64;
	int64_t delta = 0;
	bool known = false;

	if (full) {
		switch (in->mnemonic) {
		case ZYDIS_MNEMONIC_ADD:
		case ZYDIS_MNEMONIC_SUB:
			if (in->operand_count_visible == 2 &&
			    ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
				delta = ops[1].imm.value.s;
				if (in->mnemonic == ZYDIS_MNEMONIC_SUB)
					delta = -delta;
				known = true;
			}
			break;
		case ZYDIS_MNEMONIC_INC:
		case ZYDIS_MNEMONIC_DEC:
			delta = in->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : -1;
			known = true;
			break;
		case ZYDIS_MNEMONIC_LEA:
			if (ops[1].mem.index == ZYDIS_REGISTER_NONE &&
			    gpr_id(ops[1].mem.base) == dst) {
				delta = ops[1].mem.disp.value;
				known = true;
			}
			break;
		default:
			break;
		}
	}
	for (unsigned i = 0; i < in->operand_count; i++) {
		int id;

		if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    !(ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		id = gpr_id(ops[i].reg.value);
		if (id < 0)
			continue;
		if (id == dst && known)
			c->gpr[id] -= (uint64_t)delta;
		else if (id == 4 && (in->mnemonic == ZYDIS_MNEMONIC_PUSH ||
				     in->mnemonic == ZYDIS_MNEMONIC_POP))
			c->gpr[4] += in->mnemonic == ZYDIS_MNEMONIC_PUSH ? 8 : (uint64_t)-8;
		else
			unknown[id] = true;
	}
}

static bool uses_unknown(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			 const bool unknown[16])
{
	for (unsigned i = 0; i < in->operand_count; i++) {
		int b, x;

		if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		b = gpr_id(ops[i].mem.base);
		x = gpr_id(ops[i].mem.index);
		if ((b >= 0 && unknown[b]) || (x >= 0 && unknown[x]))
			return true;
	}
	return false;
}

static unsigned walk_back(struct ctx *c, const struct sweep *s, uint64_t ip, struct mt_decoded *out)
{
	bool unknown[16] = { false };
	unsigned reason = MT_UNRES_NO_MEMOP;

	if (targeted(s, ip))
		return MT_UNRES_BRANCH;
	for (size_t k = 0; k < MAX_BACK && k < s->n; k++) {
		uint64_t at = s->at[s->n - 1 - k];
		size_t off = (size_t)(at - c->base);
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		unsigned n;

		if (ZYAN_FAILED(
			    ZydisDecoderDecodeFull(&c->dec, c->code + off, c->len - off, &in, ops)))
			return MT_UNRES_UNDECODABLE;
		if (is_branch(&in))
			return MT_UNRES_BRANCH;
		if (has_memop(&in, ops)) {
			if (uses_unknown(&in, ops, unknown))
				return MT_UNRES_CLOBBERED;
			n = accesses(c, &in, ops, at, true, out, &reason);
			if (n) {
				out->how = MT_HOW_PREVIOUS;
				out->back = (unsigned)k + 1;
				out->insn_ip = at;
				out->n = n;
			}
			return n ? MT_UNRES_NONE : reason;
		}
		undo(c, &in, ops, unknown);
		if (targeted(s, at))
			return MT_UNRES_BRANCH; /* reached from elsewhere: what ran before is unknown */
	}
	return reason;
}

unsigned mt_decode_sample(const uint8_t *code, size_t before, size_t after,
			  const struct mt_regs *regs, struct mt_decoded *out)
{
	struct ctx c;
	struct sweep s = { 0 };
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t ip = regs->r[MT_REG_IP];
	unsigned back, here = MT_UNRES_NO_MEMOP, n;
	bool swept = false;

	memset(out, 0, sizeof(*out));
	if (ip >= 0x800000000000ull) {
		out->reason = MT_UNRES_KERNEL;
		return 0;
	}
	if (!after) {
		out->reason = MT_UNRES_NO_CODE;
		return 0;
	}
	if (before > MT_DECODE_BEFORE) {
		code += before - MT_DECODE_BEFORE;
		before = MT_DECODE_BEFORE;
	}
	c.dec = decoder();
	c.code = code;
	c.base = ip - before;
	c.len = before + after;
	c.regs = regs;
	for (int i = 0; i < MT_NREGS; i++)
		if (hw_id[i] < 16)
			c.gpr[hw_id[i]] = regs->r[i];

	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&c.dec, code + before, after, &in, ops))) {
		out->reason = MT_UNRES_UNDECODABLE;
		return 0;
	}
	/* In the middle of a rep string instruction: the next element is exact. */
	if (is_string(&in) && is_rep(&in) && c.gpr[1] != 0) {
		n = accesses(&c, &in, ops, ip, false, out, &here);
		if (n) {
			out->how = MT_HOW_AT_IP;
			out->insn_ip = ip;
			out->n = n;
			return n;
		}
	}
	for (size_t start = 0; start < before && start < 16 && !swept; start++)
		swept = sweep_from(&c, start, before, &s);
	if (swept) {
		sweep_forward(&c, before, &s);
		back = walk_back(&c, &s, ip, out);
		if (back == MT_UNRES_NONE)
			return out->n;
		/* Restore the registers walk_back may have adjusted. */
		for (int i = 0; i < MT_NREGS; i++)
			if (hw_id[i] < 16)
				c.gpr[hw_id[i]] = regs->r[i];
	} else {
		back = MT_UNRES_UNDECODABLE;
	}
	n = accesses(&c, &in, ops, ip, false, out, &here);
	if (n) {
		out->how = MT_HOW_AT_IP;
		out->insn_ip = ip;
		out->n = n;
		return n;
	}
	/* Neither gave an address: the more telling reason. */
	if (here != MT_UNRES_NO_MEMOP)
		out->reason = here;
	else if (back == MT_UNRES_UNDECODABLE || back == MT_UNRES_NONE)
		out->reason = MT_UNRES_NO_MEMOP;
	else
		out->reason = back;
	return 0;
}
