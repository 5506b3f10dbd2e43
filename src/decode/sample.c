/* SPDX-License-Identifier: MIT */
/* perf sample records and data-source words. */
#include <errno.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <string.h>

#include "decode/sample.h"

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, 8);
	r->p += 8;
	return v;
}

static void skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		return;
	}
	r->p += n;
}

/* Position in enum mt_reg of perf register bit b (AX..FLAGS, R8..R15), or -1. */
static int reg_slot(unsigned b)
{
	if (b <= 9)
		return (int)b;
	if (b >= 16 && b <= 23)
		return MT_REG_R8 + (int)(b - 16);
	return -1;
}

int mt_perf_sample_parse(const void *rec, size_t size, uint64_t st, uint64_t regs_mask,
			 struct mt_perf_sample *out)
{
	struct rd r = { (const uint8_t *)rec + sizeof(struct perf_event_header),
			(const uint8_t *)rec + size, false };

	memset(out, 0, sizeof(*out));
	if (st & ~(uint64_t)MT_SAMPLE_SUPPORTED)
		return -EINVAL;
	if (size < sizeof(struct perf_event_header))
		return -EBADMSG;
	if (st & PERF_SAMPLE_IDENTIFIER)
		out->id = u64(&r);
	if (st & PERF_SAMPLE_IP)
		out->ip = u64(&r);
	if (st & PERF_SAMPLE_TID) {
		uint64_t v = u64(&r);

		out->pid = (uint32_t)v;
		out->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		out->time = u64(&r);
	if (st & PERF_SAMPLE_ADDR)
		out->addr = u64(&r);
	if (st & PERF_SAMPLE_ID)
		out->id = u64(&r);
	if (st & PERF_SAMPLE_STREAM_ID)
		(void)u64(&r);
	if (st & PERF_SAMPLE_CPU)
		out->cpu = (uint32_t)u64(&r);
	if (st & PERF_SAMPLE_PERIOD)
		out->period = u64(&r);
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n = 0;

		if (r.end - r.p < 4)
			return -EBADMSG;
		memcpy(&n, r.p, 4);
		r.p += 4;
		out->raw = r.p;
		out->raw_size = n;
		skip(&r, n); /* u32 size + data, padded to 8 bytes by the kernel within n */
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = u64(&r);

		if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
			out->has_regs = abi == PERF_SAMPLE_REGS_ABI_64;
			for (unsigned b = 0; b < 64; b++) {
				uint64_t v;
				int slot;

				if (!(regs_mask & (1ull << b)))
					continue;
				v = u64(&r);
				slot = reg_slot(b);
				if (slot >= 0)
					out->regs.r[slot] = v;
			}
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t copied = u64(&r);

		if (copied) {
			const uint8_t *data = r.p;

			skip(&r, copied);
			out->stack_size = u64(&r); /* dyn_size: what was copied, at most the size */
			if (r.bad || out->stack_size > copied)
				return -EBADMSG;
			out->stack = data;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		out->weight = u64(&r);
		out->latency =
			st & PERF_SAMPLE_WEIGHT_STRUCT
				? (uint32_t)out->weight
				: (uint32_t)(out->weight > UINT32_MAX ? UINT32_MAX : out->weight);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		out->data_src = u64(&r);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		out->phys_addr = u64(&r);
	return r.bad ? -EBADMSG : 0;
}

void mt_data_src_decode(uint64_t w, struct mt_data_src *o)
{
	unsigned op = (unsigned)(w >> PERF_MEM_OP_SHIFT) & 0x1f;
	unsigned lvl = (unsigned)(w >> PERF_MEM_LVL_SHIFT) & 0x3fff;
	unsigned snoop = (unsigned)(w >> PERF_MEM_SNOOP_SHIFT) & 0x1f;
	unsigned lock = (unsigned)(w >> PERF_MEM_LOCK_SHIFT) & 0x3;
	unsigned tlb = (unsigned)(w >> PERF_MEM_TLB_SHIFT) & 0x7f;
	unsigned num = (unsigned)(w >> PERF_MEM_LVLNUM_SHIFT) & 0xf;
	unsigned remote = (unsigned)(w >> PERF_MEM_REMOTE_SHIFT) & 0x1;

	memset(o, 0, sizeof(*o));
	o->op = op & PERF_MEM_OP_LOAD ? 0 : op & PERF_MEM_OP_STORE ? 1 : -1;
	o->hit = lvl & PERF_MEM_LVL_HIT ? 1 : lvl & PERF_MEM_LVL_MISS ? 0 : -1;
	o->remote = remote || (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2 |
				      PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2));
	o->hitm = snoop & PERF_MEM_SNOOP_HITM;
	o->locked = lock & PERF_MEM_LOCK_LOCKED;
	o->tlb = tlb & PERF_MEM_TLB_HIT ? "hit" : tlb & PERF_MEM_TLB_MISS ? "miss" : "unknown";
	/* The level number (newer kernels, AMD and recent Intel) is more exact when present. */
	switch (num) {
	case PERF_MEM_LVLNUM_L1:
		o->level = "L1";
		return;
	case PERF_MEM_LVLNUM_L2:
		o->level = "L2";
		return;
	case PERF_MEM_LVLNUM_L3:
		o->level = "L3";
		return;
	case PERF_MEM_LVLNUM_L4:
		o->level = "L4";
		return;
	case PERF_MEM_LVLNUM_CXL:
		o->level = "CXL";
		return;
	case PERF_MEM_LVLNUM_IO:
		o->level = "IO";
		return;
	case PERF_MEM_LVLNUM_ANY_CACHE:
		o->level = o->remote ? "remote cache" : "any cache";
		return;
	case PERF_MEM_LVLNUM_LFB:
		o->level = "LFB";
		return;
	case PERF_MEM_LVLNUM_RAM:
		o->level = o->remote ? "remote RAM" : "RAM";
		return;
	case PERF_MEM_LVLNUM_PMEM:
		o->level = "PMEM";
		return;
	default:
		break;
	}
	if (lvl & PERF_MEM_LVL_L1)
		o->level = "L1";
	else if (lvl & PERF_MEM_LVL_LFB)
		o->level = "LFB";
	else if (lvl & PERF_MEM_LVL_L2)
		o->level = "L2";
	else if (lvl & PERF_MEM_LVL_L3)
		o->level = "L3";
	else if (lvl & PERF_MEM_LVL_LOC_RAM)
		o->level = "RAM";
	else if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
		o->level = "remote RAM";
	else if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		o->level = "remote cache";
	else if (lvl & PERF_MEM_LVL_IO)
		o->level = "IO";
	else if (lvl & PERF_MEM_LVL_UNC)
		o->level = "uncached";
	else
		o->level = "unknown";
}

/*
 * Format lines look like
 *	field:unsigned int mm_id;	offset:8;	size:4;	signed:0;
 * The field's name is the last identifier before ';' (after any array suffix is gone).
 */
int mt_tp_format_field(const char *format, const char *name, struct mt_tp_field *out)
{
	size_t nl = strlen(name);
	const char *p = format;

	while ((p = strstr(p, "field:")) != NULL) {
		const char *semi = strchr(p, ';'), *e, *q;
		unsigned long off, size, sgn;

		if (!semi)
			break;
		e = semi;
		if (e > p && e[-1] == ']') /* an array: name[N] */
			while (e > p && *e != '[')
				e--;
		q = e;
		while (q > p && (q[-1] == '_' || (q[-1] >= '0' && q[-1] <= '9') ||
				 (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z')))
			q--;
		if ((size_t)(e - q) == nl && !strncmp(q, name, nl)) {
			const char *o = strstr(semi, "offset:"), *z = strstr(semi, "size:"),
				   *g = strstr(semi, "signed:"), *eol = strchr(semi, '\n');

			if (!o || !z || (eol && (o > eol || z > eol)))
				return -ENOENT;
			off = strtoul(o + 7, NULL, 10);
			size = strtoul(z + 5, NULL, 10);
			sgn = g && (!eol || g < eol) ? strtoul(g + 7, NULL, 10) : 0;
			if (off > 65535 || !size || size > 4096)
				return -ENOENT;
			out->offset = (unsigned)off;
			out->size = (unsigned)size;
			out->is_signed = sgn != 0;
			return 0;
		}
		p = semi + 1;
	}
	return -ENOENT;
}

uint64_t mt_tp_value(const uint8_t *rec, size_t n, const struct mt_tp_field *f)
{
	uint64_t v = 0;

	if (!rec || f->offset + f->size > n || f->size > 8)
		return 0;
	memcpy(&v, rec + f->offset, f->size); /* little-endian */
	if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ull << (f->size * 8);
	return v;
}
