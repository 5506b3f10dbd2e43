/* SPDX-License-Identifier: MIT */
/* DWARF CFI to packed unwind rules, every read inside given bounds (rt/cfi.h). */
#include "rt/cfi.h"

#include <stddef.h>
#include <string.h>

#define DW_EH_PE_omit 0xff
#define DW_EH_PE_absptr 0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2 0x02
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2 0x0a
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30
#define DW_EH_PE_indirect 0x80

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* The bytes at [addr, addr + len) of the object, through its source, or NULL: never outside
 * the source's bounds. */
static const uint8_t *get(const struct mt_cfi_src *s, uint64_t addr, uint64_t len, int slot)
{
	if (addr < s->lo || addr > s->hi || len > s->hi - addr)
		return NULL;
	return s->get(s->ctx, addr, len, slot);
}

/* The record (CIE or FDE) at addr, read through slot: its bytes after the length field in
 * [*p, *end), and the delta that turns a position there into its address. */
static bool fetch_record(const struct mt_cfi_src *s, uint64_t addr, int slot, const uint8_t **p,
			 const uint8_t **end, uint64_t *delta)
{
	const uint8_t *b = get(s, addr, 4, slot);
	uint64_t len, at = addr + 4;
	uint32_t l32;

	if (!b)
		return false;
	memcpy(&l32, b, 4);
	if (l32 == 0xffffffffu) {
		if (!(b = get(s, at, 8, slot)))
			return false;
		memcpy(&len, b, 8);
		at += 8;
	} else {
		len = l32;
	}
	if (len > MT_CFI_RECORD_MAX || !(b = get(s, at, len, slot)))
		return false;
	*p = b;
	*end = b + len;
	*delta = at - (uint64_t)(uintptr_t)b;
	return true;
}

static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return (int64_t)v;
}

/* A little-endian integer of n bytes (1, 2, 4 or 8), sign-extended if asked. */
static bool fixed(const uint8_t **p, const uint8_t *end, unsigned n, bool sign, uint64_t *v)
{
	uint64_t x = 0;

	if (end - *p < (ptrdiff_t)n)
		return false;
	memcpy(&x, *p, n);
	*p += n;
	if (sign && n < 8 && (x >> (8 * n - 1)) & 1)
		x |= ~0ull << (8 * n);
	*v = x;
	return true;
}

/* Reads a pointer in the given encoding; data is the base for datarel, delta what turns a
 * position in the bytes read into the address they were at (pcrel). Returns 0 and sets *ok
 * false for an encoding this walker does not handle. */
static uint64_t read_enc(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t data,
			 uint64_t delta, bool *ok)
{
	const uint8_t *start = *p;
	uint64_t v = 0;

	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (!fixed(p, end, 8, false, &v))
			goto bad;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		if (!fixed(p, end, 4, (enc & 0x0f) == DW_EH_PE_sdata4, &v))
			goto bad;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		if (!fixed(p, end, 2, (enc & 0x0f) == DW_EH_PE_sdata2, &v))
			goto bad;
		break;
	case DW_EH_PE_uleb128:
		v = uleb(p, end);
		break;
	case DW_EH_PE_sleb128:
		v = (uint64_t)sleb(p, end);
		break;
	default:
		goto bad;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += (uint64_t)(uintptr_t)start + delta;
		break;
	case DW_EH_PE_datarel:
		v += data;
		break;
	default:
		goto bad;
	}
	return v; /* DW_EH_PE_indirect only matters for personality pointers, which we skip */
bad:
	*ok = false;
	return 0;
}

struct cfi_regs {
	int cfa_reg;
	int64_t cfa_off;
	bool cfa_expr;
	int rbp_how; /* 0 unchanged, 1 saved at CFA + rbp_off, 2 other (unsupported) */
	int64_t rbp_off;
	int ra_how; /* 1 at CFA + ra_off, 2 undefined (end of stack), 3 other */
	int64_t ra_off;
};

struct cie_info {
	const uint8_t *insns, *end;
	uint64_t delta; /* of the CIE's bytes (read_enc) */
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	bool has_z;
	bool signal;
};

static bool parse_cie(const struct mt_cfi_src *s, uint64_t cie, struct cie_info *ci)
{
	const uint8_t *p, *end;
	uint32_t id;
	const char *aug;
	uint8_t version;
	size_t alen_str;
	bool ok = true;

	if (!fetch_record(s, cie, 1, &p, &end, &ci->delta) || end - p < 5)
		return false;
	memcpy(&id, p, 4);
	p += 4;
	if (id != 0)
		return false;
	version = *p++;
	if (version != 1 && version != 3)
		return false;
	aug = (const char *)p;
	alen_str = strnlen(aug, (size_t)(end - p));
	if (alen_str == (size_t)(end - p))
		return false; /* no terminating NUL inside the record */
	p += alen_str + 1;
	if (aug[0] == 'e' && aug[1] == 'h')
		return false; /* ancient GCC "eh" augmentation */
	ci->code_align = uleb(&p, end);
	ci->data_align = sleb(&p, end);
	if (version == 1) {
		if (p >= end)
			return false;
		p++;
	} else {
		(void)uleb(&p, end);
	}
	ci->fde_enc = DW_EH_PE_absptr;
	ci->has_z = aug[0] == 'z';
	ci->signal = false;
	if (ci->has_z) {
		uint64_t alen = uleb(&p, end);
		const uint8_t *adata = p;

		if (alen > (uint64_t)(end - p))
			return false;
		for (const char *a = aug + 1; *a; a++) {
			switch (*a) {
			case 'R':
				if (p >= end)
					return false;
				ci->fde_enc = *p++;
				break;
			case 'P': {
				uint8_t enc;

				if (p >= end)
					return false;
				enc = *p++;
				(void)read_enc(&p, end, enc & 0x7f, 0, ci->delta, &ok);
				break;
			}
			case 'L':
				if (p >= end)
					return false;
				p++;
				break;
			case 'S':
				ci->signal = true;
				break;
			default:
				break; /* unknown letters: skip via the length */
			}
		}
		p = adata + alen;
	}
	ci->insns = p;
	ci->end = end;
	return ok && p <= end;
}

/* A factored offset times the data alignment, wrapping as the machine would (bytes that
 * overflow it are nonsense, never undefined behaviour). */
static int64_t scaled(uint64_t v, const struct cie_info *ci)
{
	return (int64_t)(v * (uint64_t)ci->data_align);
}

/* Register reg saved at CFA + off (already scaled by the data alignment). */
static void saved_at(struct cfi_regs *st, uint64_t reg, int64_t off)
{
	if (reg == REG_RBP) {
		st->rbp_how = 1;
		st->rbp_off = off;
	} else if (reg == REG_RA) {
		st->ra_how = 1;
		st->ra_off = off;
	}
}

/* Register reg back to its rule in the CIE's initial instructions. */
static void restore(struct cfi_regs *st, uint64_t reg, const struct cfi_regs *init)
{
	if (reg == REG_RBP) {
		st->rbp_how = init->rbp_how;
		st->rbp_off = init->rbp_off;
	} else if (reg == REG_RA) {
		st->ra_how = init->ra_how;
		st->ra_off = init->ra_off;
	}
}

/* Register reg recovered some other way: rbp_how / ra_how as given. */
static void other(struct cfi_regs *st, uint64_t reg, int rbp_how, int ra_how)
{
	if (reg == REG_RBP)
		st->rbp_how = rbp_how;
	else if (reg == REG_RA)
		st->ra_how = ra_how;
}

/* Skips a block of n bytes (an expression); false when it leaves the instructions. */
static bool skip_block(const uint8_t **p, const uint8_t *end)
{
	uint64_t n = uleb(p, end);

	if (n > (uint64_t)(end - *p))
		return false;
	*p += n;
	return true;
}

/* The register rules of the CFA instructions that neither advance nor keep state. */
static bool run_rule_op(uint8_t op, const uint8_t **p, const uint8_t *end,
			const struct cie_info *ci, struct cfi_regs *st, const struct cfi_regs *init)
{
	uint64_t reg;

	switch (op) {
	case 0x05: /* offset_extended */
		reg = uleb(p, end);
		saved_at(st, reg, scaled(uleb(p, end), ci));
		return true;
	case 0x06: /* restore_extended */
		restore(st, uleb(p, end), init);
		return true;
	case 0x07: /* undefined */
		other(st, uleb(p, end), 0, 2);
		return true;
	case 0x08: /* same_value */
		other(st, uleb(p, end), 0, 3);
		return true;
	case 0x09: /* register */
		reg = uleb(p, end);
		(void)uleb(p, end);
		other(st, reg, 2, 3);
		return true;
	case 0x0c: /* def_cfa */
		st->cfa_reg = (int)uleb(p, end);
		st->cfa_off = (int64_t)uleb(p, end);
		st->cfa_expr = false;
		return true;
	case 0x0d: /* def_cfa_register */
		st->cfa_reg = (int)uleb(p, end);
		st->cfa_expr = false;
		return true;
	case 0x0e: /* def_cfa_offset */
		st->cfa_off = (int64_t)uleb(p, end);
		return true;
	case 0x0f: /* def_cfa_expression */
		st->cfa_expr = true;
		return skip_block(p, end);
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		reg = uleb(p, end);
		other(st, reg, 2, 3);
		return skip_block(p, end);
	case 0x11: /* offset_extended_sf */
		reg = uleb(p, end);
		saved_at(st, reg, scaled((uint64_t)sleb(p, end), ci));
		return true;
	case 0x12: /* def_cfa_sf */
		st->cfa_reg = (int)uleb(p, end);
		st->cfa_off = scaled((uint64_t)sleb(p, end), ci);
		st->cfa_expr = false;
		return true;
	case 0x13: /* def_cfa_offset_sf */
		st->cfa_off = scaled((uint64_t)sleb(p, end), ci);
		return true;
	case 0x14: /* val_offset */
	case 0x15: /* val_offset_sf */
		reg = uleb(p, end);
		if (op == 0x14)
			(void)uleb(p, end);
		else
			(void)sleb(p, end);
		other(st, reg, 2, 3);
		return true;
	case 0x2e: /* GNU_args_size */
		(void)uleb(p, end);
		return true;
	case 0x2f: /* GNU_negative_offset_extended */
		reg = uleb(p, end);
		saved_at(st, reg, scaled(0 - uleb(p, end), ci));
		return true;
	default:
		return false;
	}
}

/* Runs CFA instructions up to target, starting at loc. init is the CIE's state (for restore). */
static bool run_cfi(const uint8_t *p, const uint8_t *end, uint64_t delta, const struct cie_info *ci,
		    uint64_t loc, uint64_t target, struct cfi_regs *st, const struct cfi_regs *init)
{
	struct cfi_regs stack[8];
	unsigned depth = 0;
	bool ok = true;

	while (p < end) {
		uint8_t op = *p++, hi = op & 0xc0, lo = op & 0x3f;
		uint64_t d;

		switch (hi ? hi : op) {
		case 0x40: /* advance_loc */
			loc += lo * ci->code_align;
			if (loc > target)
				return true;
			break;
		case 0x80: /* offset */
			saved_at(st, lo, scaled(uleb(&p, end), ci));
			break;
		case 0xc0: /* restore */
			restore(st, lo, init);
			break;
		case 0x00: /* nop */
			break;
		case 0x01: /* set_loc */
			loc = read_enc(&p, end, ci->fde_enc, 0, delta, &ok);
			if (!ok)
				return false;
			if (loc > target)
				return true;
			break;
		case 0x02: /* advance_loc1, 2, 4 */
		case 0x03:
		case 0x04:
			if (!fixed(&p, end, op == 0x02 ? 1 : op == 0x03 ? 2 : 4, false, &d))
				return false;
			loc += d * ci->code_align;
			if (loc > target)
				return true;
			break;
		case 0x0a: /* remember_state */
			if (depth == 8)
				return false;
			stack[depth++] = *st;
			break;
		case 0x0b: /* restore_state: restores the CFA too (GCC's early-return epilogues) */
			if (!depth)
				return false;
			*st = stack[--depth];
			break;
		default:
			if (!run_rule_op(op, &p, end, ci, st, init))
				return false;
			break;
		}
	}
	return true;
}

/* The address of the FDE covering pc from the object's .eh_frame_hdr binary search table
 * at hdr, or 0. */
static uint64_t find_fde(const struct mt_cfi_src *s, uint64_t hdr, uint64_t pc)
{
	const uint8_t *h = get(s, hdr, 4, 0), *p, *end;
	uint64_t count, table, delta;
	bool ok = true;
	size_t lo, hi;
	int32_t e[2];

	if (!h || h[0] != 1 || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return 0;
	{
		uint8_t enc_ptr = h[1], enc_count = h[2];
		uint64_t avail = s->hi - (hdr + 4) < 16 ? s->hi - (hdr + 4) : 16;

		if (!(p = get(s, hdr + 4, avail, 0)))
			return 0;
		end = p + avail;
		delta = hdr + 4 - (uint64_t)(uintptr_t)p;
		(void)read_enc(&p, end, enc_ptr, hdr, delta, &ok);
		count = read_enc(&p, end, enc_count, hdr, delta, &ok);
		table = (uint64_t)(uintptr_t)p + delta;
	}
	if (!ok || !count || count > (s->hi - table) / 8)
		return 0;
	/* entries: (initial location, FDE address), both relative to hdr */
	lo = 0;
	hi = count;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (!(p = get(s, table + 8 * mid, 8, 0)))
			return 0;
		memcpy(e, p, 8);
		if (hdr + (uint64_t)(int64_t)e[0] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (!(p = get(s, table + 8 * lo, 8, 0)))
		return 0;
	memcpy(e, p, 8);
	if (hdr + (uint64_t)(int64_t)e[0] > pc)
		return 0;
	return hdr + (uint64_t)(int64_t)e[1];
}

uint64_t mt_cfi_rule_src(const struct mt_cfi_src *s, uint64_t hdr, uint64_t pc)
{
	const uint8_t *p, *end;
	uint64_t fde, cie, delta, start, range;
	struct cie_info ci;
	struct cfi_regs init = { .cfa_reg = REG_RSP, .cfa_off = 8, .ra_how = 1, .ra_off = -8 };
	struct cfi_regs st;
	uint32_t cie_off;
	bool ok = true;

	fde = find_fde(s, hdr, pc);
	if (!fde)
		return UNSUPPORTED(MT_RT_TRUNC_NO_CFI);
	if (!fetch_record(s, fde, 0, &p, &end, &delta) || end - p < 4)
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	memcpy(&cie_off, p, 4);
	if (!cie_off || cie_off > (uint64_t)(uintptr_t)p + delta - s->lo)
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	cie = (uint64_t)(uintptr_t)p + delta - cie_off;
	p += 4;
	if (!parse_cie(s, cie, &ci))
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	start = read_enc(&p, end, ci.fde_enc, 0, delta, &ok);
	range = read_enc(&p, end, ci.fde_enc & 0x0f, 0, delta, &ok);
	if (!ok)
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	if (pc < start || pc - start >= range) /* the nearest FDE ends before pc */
		return UNSUPPORTED(MT_RT_TRUNC_NO_CFI);
	if (ci.has_z) {
		uint64_t alen = uleb(&p, end);

		if (alen > (uint64_t)(end - p))
			return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
		p += alen;
	}
	if (!run_cfi(ci.insns, ci.end, ci.delta, &ci, 0, UINT64_MAX, &init, &init))
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	st = init;
	if (!run_cfi(p, end, delta, &ci, start, pc, &st, &init))
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	if (ci.signal)
		return rule_pack(RULE_SIGNAL, 0, 0, 0, 0);
	if (st.ra_how == 2)
		return rule_pack(RULE_END, 0, 0, 0, 0);
	if (st.cfa_expr || (st.cfa_reg != REG_RSP && st.cfa_reg != REG_RBP) || st.ra_how != 1 ||
	    st.ra_off != -8 || st.rbp_how == 2 || st.cfa_off <= 0 || st.cfa_off > INT32_MAX ||
	    (st.rbp_how == 1 && (st.rbp_off < INT16_MIN || st.rbp_off > INT16_MAX)))
		return UNSUPPORTED(MT_RT_TRUNC_CFI_UNSUPPORTED);
	return rule_pack(RULE_NORMAL, st.cfa_reg == REG_RBP, st.rbp_how == 1, (int)st.rbp_off,
			 (int)st.cfa_off);
}

/* The object's memory itself: its bytes, in place. */
static const uint8_t *mem_get(void *ctx, uint64_t addr, uint64_t len, int slot)
{
	(void)ctx;
	(void)len;
	(void)slot;
	return (const uint8_t *)(uintptr_t)addr;
}

uint64_t mt_cfi_rule(const uint8_t *hdr, uint64_t pc, const uint8_t *lo, const uint8_t *hi)
{
	const struct mt_cfi_src s = { mem_get, NULL, (uint64_t)(uintptr_t)lo,
				      (uint64_t)(uintptr_t)hi };

	return mt_cfi_rule_src(&s, (uint64_t)(uintptr_t)hdr, pc);
}
