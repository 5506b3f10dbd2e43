/* SPDX-License-Identifier: MIT */
/* Access-sample decoding: instructions at a sampled IP (skid rules), perf sample records,
 * precise-sample data sources. Byte sequences are assembled by hand (objdump in comments). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <linux/perf_event.h>

#include "common/strutil.h"
#include "decode/insn.h"
#include "decode/jsonl.h"
#include "decode/sample.h"
#include "decode/syscalls.h"
#include "decode/tpformat.h"
#include "mt-test.h"

MT_TEST_MAIN()

/* ---- JSON lines (decode/jsonl.c) ---- */

static const char *const jkeys[] = { "probe", "wall_ms", "hit", "view_id", "top_k" };

static int jline(const char *line, struct mt_jv *v)
{
	static char scratch[4096];

	return mt_jsonl_object(line, strlen(line), jkeys, 5, v, scratch);
}

TEST(jsonl_members)
{
	struct mt_jv v[5];

	ASSERT_EQ(jline(" {\"probe\": \"d\\u00e9lta\\n\", \"wall_ms\": 12.5, \"hit\": true, "
			"\"other\": {\"a\": [1, {\"b\": null}]}, \"top_k\": -7}\r",
			v),
		  MT_JSONL_OK);
	ASSERT_EQ(v[0].type, MT_JV_STRING);
	ASSERT_EQ((int)v[0].len, 7);
	ASSERT_TRUE(!memcmp(v[0].s, "d\xc3\xa9lta\n", 7));
	ASSERT_TRUE(v[1].type == MT_JV_NUMBER && v[1].num == 12.5 && !v[1].integer);
	ASSERT_EQ(v[2].type, MT_JV_TRUE);
	ASSERT_EQ(v[3].type, MT_JV_MISSING);
	ASSERT_TRUE(v[4].type == MT_JV_NUMBER && v[4].num == -7 && v[4].integer);
	/* the last of duplicate keys wins; escaped keys match; a pair of surrogates */
	ASSERT_EQ(jline("{\"hit\": 1, \"h\\u0069t\": false, \"probe\": \"\\ud83d\\ude00\"}", v),
		  MT_JSONL_OK);
	ASSERT_EQ(v[2].type, MT_JV_FALSE);
	ASSERT_TRUE(v[0].len == 4 && !memcmp(v[0].s, "\xf0\x9f\x98\x80", 4));
	/* Python's extensions, big and exact numbers */
	ASSERT_EQ(jline("{\"wall_ms\": NaN, \"top_k\": -Infinity, \"hit\": 1e400}", v),
		  MT_JSONL_OK);
	ASSERT_TRUE(isnan(v[1].num) && isinf(v[4].num) && v[4].num < 0 && isinf(v[2].num));
	ASSERT_EQ(jline("{\"wall_ms\": 12345678901234567890123}", v), MT_JSONL_OK);
	ASSERT_TRUE(v[1].num > 1.2345678901e22 && v[1].num < 1.2345678902e22);
	ASSERT_EQ(jline("{}", v), MT_JSONL_OK);
}

TEST(jsonl_rejects)
{
	static const struct {
		const char *line;
		int err;
	} bad[] = {
		{ "", MT_JSONL_SYNTAX },
		{ "{\"a\": 1", MT_JSONL_SYNTAX },
		{ "{\"a\": 1} x", MT_JSONL_SYNTAX },
		{ "{\"a\": 01}", MT_JSONL_SYNTAX },
		{ "{\"a\": 1.}", MT_JSONL_SYNTAX },
		{ "{\"a\": -NaN}", MT_JSONL_SYNTAX },
		{ "{\"a\": \"tab\there\"}", MT_JSONL_SYNTAX },
		{ "{\"a\": \"\\x\"}", MT_JSONL_SYNTAX },
		{ "{\"a\": [1,]}", MT_JSONL_SYNTAX },
		{ "{'a': 1}", MT_JSONL_SYNTAX },
		{ "{\"a\": tru}", MT_JSONL_SYNTAX },
		{ "[1, 2]", MT_JSONL_NOT_OBJECT },
		{ "\"probe\"", MT_JSONL_NOT_OBJECT },
		{ "42", MT_JSONL_NOT_OBJECT },
		{ "{\"a\": \"\xff\"}", MT_JSONL_UTF8 },
		{ "{\"a\": \"\xed\xa0\x80\"}", MT_JSONL_UTF8 },
		{ "{\"a\": \"\xc0\xaf\"}", MT_JSONL_UTF8 },
		{ "\xef\xbb\xbf{}", MT_JSONL_SYNTAX },
	};
	struct mt_jv v[5];
	char deep[2 * MT_JSONL_MAX_DEPTH + 32];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(jline(bad[i].line, v), bad[i].err);
	n += (size_t)snprintf(deep, sizeof(deep), "{\"a\": ");
	for (int i = 0; i < MT_JSONL_MAX_DEPTH + 1; i++)
		deep[n++] = '[';
	deep[n] = 0;
	ASSERT_EQ(jline(deep, v), MT_JSONL_DEPTH);
}

#define BASE 0x401000ull

struct dcase {
	const uint8_t *code;
	size_t len, ipo; /* bytes, and the sampled IP's offset */
	struct mt_regs regs;
};

static unsigned run(const uint8_t *code, size_t len, size_t ipo, struct mt_regs *r,
		    struct mt_decoded *d)
{
	r->r[MT_REG_IP] = BASE + ipo;
	return mt_decode_sample(code, ipo, len - ipo, r, d);
}

#define RUN(d, r, ipo, ...)                                  \
	({                                                   \
		static const uint8_t c_[] = { __VA_ARGS__ }; \
		run(c_, sizeof(c_), ipo, r, d);              \
	})

static void expect1(const struct mt_decoded *d, uint64_t addr, uint32_t size, unsigned kind,
		    unsigned how)
{
	ASSERT_EQ(d->reason, MT_UNRES_NONE);
	ASSERT_EQ(d->n, 1);
	ASSERT_EQ_U(d->acc[0].addr, addr);
	ASSERT_EQ(d->acc[0].size, size);
	ASSERT_EQ(d->acc[0].kind, kind);
	ASSERT_EQ(d->how, how);
}

TEST(random_load_one_past)
{
	struct mt_regs r = { .r[MT_REG_SI] = 0x10000, .r[MT_REG_DX] = 5 };
	struct mt_decoded d;

	/* mov rax,[rsi+rdx*8]; sub rcx,1 <- IP */
	ASSERT_EQ(RUN(&d, &r, 4, 0x48, 0x8b, 0x04, 0xd6, 0x48, 0x83, 0xe9, 0x01), 1);
	expect1(&d, 0x10028, 8, MT_ACCESS_LOAD, MT_HOW_PREVIOUS);
	ASSERT_EQ(d.back, 1);
	ASSERT_EQ_U(d.insn_ip, BASE);
}

TEST(sequential_load_two_past_undoes_add)
{
	struct mt_regs r = { .r[MT_REG_AX] = 0x20008 };
	struct mt_decoded d;

	/* add rbx,[rax]; add rax,8; cmp rax,rdx <- IP */
	ASSERT_EQ(RUN(&d, &r, 7, 0x48, 0x03, 0x18, 0x48, 0x83, 0xc0, 0x08, 0x48, 0x39, 0xd0), 1);
	expect1(&d, 0x20000, 8, MT_ACCESS_LOAD, MT_HOW_PREVIOUS);
	ASSERT_EQ(d.back, 2);
}

TEST(store_undoes_inc)
{
	struct mt_regs r = { .r[MT_REG_DI] = 0x30000, .r[MT_REG_CX] = 11 };
	struct mt_decoded d;

	/* mov [rdi+rcx*4],eax; inc rcx; nop <- IP */
	ASSERT_EQ(RUN(&d, &r, 6, 0x89, 0x04, 0x8f, 0x48, 0xff, 0xc1, 0x90), 1);
	expect1(&d, 0x30028, 4, MT_ACCESS_STORE, MT_HOW_PREVIOUS);
}

TEST(pointer_chase_is_unresolved)
{
	struct mt_regs r = { .r[MT_REG_AX] = 0x1234 };
	struct mt_decoded d;

	/* mov rax,[rax]; test rax,rax <- IP */
	ASSERT_EQ(RUN(&d, &r, 3, 0x48, 0x8b, 0x00, 0x48, 0x85, 0xc0), 0);
	ASSERT_EQ(d.reason, MT_UNRES_POINTER_CHASE);
}

TEST(clobbered_address_register)
{
	struct mt_regs r = { .r[MT_REG_DX] = 0x99, .r[MT_REG_BX] = 0x98 };
	struct mt_decoded d;

	/* mov rcx,[rdx]; mov rdx,rbx; add rdx,1; nop <- IP */
	ASSERT_EQ(RUN(&d, &r, 10, 0x48, 0x8b, 0x0a, 0x48, 0x89, 0xda, 0x48, 0x83, 0xc2, 0x01, 0x90),
		  0);
	ASSERT_EQ(d.reason, MT_UNRES_CLOBBERED);
}

TEST(tls_store_needs_fs_base)
{
	struct mt_regs r = { .fs_base = 0x7f0000, .fs_known = true };
	struct mt_decoded d;

	/* mov fs:[0x10],rax; add rcx,1 <- IP */
	ASSERT_EQ(RUN(&d, &r, 9, 0x64, 0x48, 0x89, 0x04, 0x25, 0x10, 0, 0, 0, 0x48, 0x83, 0xc1,
		      0x01),
		  1);
	expect1(&d, 0x7f0010, 8, MT_ACCESS_STORE, MT_HOW_PREVIOUS);
	r.fs_known = false;
	ASSERT_EQ(RUN(&d, &r, 9, 0x64, 0x48, 0x89, 0x04, 0x25, 0x10, 0, 0, 0, 0x48, 0x83, 0xc1,
		      0x01),
		  0);
	ASSERT_EQ(d.reason, MT_UNRES_NO_FS_BASE);
}

TEST(rep_movsb_mid_copy)
{
	struct mt_regs r = { .r[MT_REG_CX] = 5, .r[MT_REG_SI] = 0x100, .r[MT_REG_DI] = 0x200 };
	struct mt_decoded d;

	/* nop; rep movsb <- IP */
	ASSERT_EQ(RUN(&d, &r, 1, 0x90, 0xf3, 0xa4), 2);
	ASSERT_EQ(d.how, MT_HOW_AT_IP);
	for (unsigned i = 0; i < 2; i++) {
		uint64_t want = d.acc[i].kind == MT_ACCESS_LOAD ? 0x100 : 0x200;

		ASSERT_EQ_U(d.acc[i].addr, want);
		ASSERT_EQ(d.acc[i].size, 1);
	}
	ASSERT_TRUE(d.acc[0].kind != d.acc[1].kind);
	r.r[MT_REG_CX] = 0;
	ASSERT_EQ(RUN(&d, &r, 1, 0x90, 0xf3, 0xa4), 0);
	ASSERT_EQ(d.reason, MT_UNRES_STRING_DONE);
}

TEST(stosq_as_predecessor_steps_back)
{
	struct mt_regs r = { .r[MT_REG_DI] = 0x408 };
	struct mt_decoded d;

	/* stosq; nop <- IP */
	ASSERT_EQ(RUN(&d, &r, 2, 0x48, 0xab, 0x90), 1);
	expect1(&d, 0x400, 8, MT_ACCESS_STORE, MT_HOW_PREVIOUS);
	r.r[MT_REG_FLAGS] = 1u << 10; /* DF: downwards */
	r.r[MT_REG_DI] = 0x3f8;
	ASSERT_EQ(RUN(&d, &r, 2, 0x48, 0xab, 0x90), 1);
	expect1(&d, 0x400, 8, MT_ACCESS_STORE, MT_HOW_PREVIOUS);
}

TEST(stack_push_pop_call)
{
	struct mt_regs r = { .r[MT_REG_SP] = 0x8000 };
	struct mt_decoded d;

	/* push rbx <- IP: the store goes to rsp - 8 */
	ASSERT_EQ(RUN(&d, &r, 0, 0x53), 1);
	expect1(&d, 0x7ff8, 8, MT_ACCESS_STORE, MT_HOW_AT_IP);
	/* call rel32 <- IP */
	ASSERT_EQ(RUN(&d, &r, 0, 0xe8, 0, 0, 0, 0), 1);
	expect1(&d, 0x7ff8, 8, MT_ACCESS_STORE, MT_HOW_AT_IP);
	/* push rbx; nop <- IP: rsp already points at the slot */
	r.r[MT_REG_SP] = 0x7ff8;
	ASSERT_EQ(RUN(&d, &r, 1, 0x53, 0x90), 1);
	expect1(&d, 0x7ff8, 8, MT_ACCESS_STORE, MT_HOW_PREVIOUS);
	/* pop rbx; mov rcx,rdx <- IP: the load was at rsp - 8 */
	r.r[MT_REG_SP] = 0x8008;
	ASSERT_EQ(RUN(&d, &r, 1, 0x5b, 0x48, 0x89, 0xd1), 1);
	expect1(&d, 0x8000, 8, MT_ACCESS_LOAD, MT_HOW_PREVIOUS);
}

TEST(rip_relative)
{
	struct mt_regs r = { 0 };
	struct mt_decoded d;

	/* mov eax,[rip+0x100]; nop <- IP */
	ASSERT_EQ(RUN(&d, &r, 6, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0x90), 1);
	expect1(&d, BASE + 6 + 0x100, 4, MT_ACCESS_LOAD, MT_HOW_PREVIOUS);
}

TEST(read_modify_write_is_two_accesses)
{
	struct mt_regs r = { .r[MT_REG_AX] = 0x5000 };
	struct mt_decoded d;

	/* add [rax],ebx; mov ecx,edx <- IP */
	ASSERT_EQ(RUN(&d, &r, 2, 0x01, 0x18, 0x89, 0xd1), 2);
	ASSERT_EQ(d.acc[0].kind, MT_ACCESS_LOAD);
	ASSERT_EQ(d.acc[1].kind, MT_ACCESS_STORE);
	ASSERT_EQ_U(d.acc[0].addr, 0x5000);
	ASSERT_EQ_U(d.acc[1].addr, 0x5000);
}

TEST(loop_head_is_a_branch_target)
{
	struct mt_regs r = { .r[MT_REG_DX] = 0x6000, .r[MT_REG_SI] = 0x9000 };
	struct mt_decoded d;

	/* mov rcx,[rdx]; L: mov rbx,[rsi] <- IP; add rsi,8; jne L. The loop's own jump reaches
	 * the IP, so the instruction before it need not have run: use the one at the IP. */
	ASSERT_EQ(RUN(&d, &r, 3, 0x48, 0x8b, 0x0a, 0x48, 0x8b, 0x1e, 0x48, 0x83, 0xc6, 0x08, 0x75,
		      0xf7),
		  1);
	expect1(&d, 0x9000, 8, MT_ACCESS_LOAD, MT_HOW_AT_IP);
}

TEST(branch_before_ip)
{
	struct mt_regs r = { 0 };
	struct mt_decoded d;

	/* je +0; nop <- IP */
	ASSERT_EQ(RUN(&d, &r, 2, 0x74, 0x00, 0x90), 0);
	ASSERT_EQ(d.reason, MT_UNRES_BRANCH);
}

TEST(gather_and_hints_are_not_guessed)
{
	struct mt_regs r = { .r[MT_REG_AX] = 0x1000 };
	struct mt_decoded d;

	/* vpgatherdd ymm0,[rax+ymm1*4],ymm2 <- IP */
	ASSERT_EQ(RUN(&d, &r, 0, 0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88), 0);
	ASSERT_EQ(d.reason, MT_UNRES_VECTOR_INDEX);
	/* prefetcht0 [rax]; mov ecx,edx <- IP */
	ASSERT_EQ(RUN(&d, &r, 3, 0x0f, 0x18, 0x08, 0x89, 0xd1), 0);
	ASSERT_EQ(d.reason, MT_UNRES_NO_MEMOP);
	/* lea rax,[rbx+8] <- IP: address generation, not an access */
	ASSERT_EQ(RUN(&d, &r, 0, 0x48, 0x8d, 0x43, 0x08), 0);
	ASSERT_EQ(d.reason, MT_UNRES_NO_MEMOP);
}

TEST(kernel_ip_and_garbage)
{
	struct mt_regs r = { .r[MT_REG_IP] = 0xffffffff81000000ull };
	struct mt_decoded d;
	uint8_t junk[32];

	ASSERT_EQ(mt_decode_sample((const uint8_t *)"\x90", 0, 1, &r, &d), 0);
	ASSERT_EQ(d.reason, MT_UNRES_KERNEL);
	memset(junk, 0x0f, sizeof(junk));
	r.r[MT_REG_IP] = BASE + 16;
	ASSERT_EQ(mt_decode_sample(junk, 16, 16, &r, &d), 0);
	ASSERT_TRUE(d.reason != MT_UNRES_NONE);
	ASSERT_EQ(mt_decode_sample(junk, 16, 0, &r, &d), 0);
	ASSERT_EQ(d.reason, MT_UNRES_NO_CODE);
}

/* A sample record as the kernel writes it: header, then the fields in ABI order. */
static size_t put(uint8_t *p, size_t o, uint64_t v)
{
	memcpy(p + o, &v, 8);
	return o + 8;
}

TEST(regs_sample_record)
{
	uint8_t rec[512];
	struct perf_event_header *h = (void *)rec;
	struct mt_perf_sample s;
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
		      PERF_SAMPLE_REGS_USER;
	size_t o = sizeof(*h);

	o = put(rec, o, 0x401234);
	o = put(rec, o, (77ull << 32) | 42);
	o = put(rec, o, 123456789);
	o = put(rec, o, 100000);
	o = put(rec, o, PERF_SAMPLE_REGS_ABI_64);
	for (unsigned b = 0; b < 24; b++)
		if (MT_PERF_REGS_MASK & (1ull << b))
			o = put(rec, o, 0x1000 + b);
	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)o;
	ASSERT_EQ(mt_perf_sample_parse(rec, o, st, MT_PERF_REGS_MASK, &s), 0);
	ASSERT_EQ_U(s.ip, 0x401234);
	ASSERT_EQ(s.pid, 42);
	ASSERT_EQ(s.tid, 77);
	ASSERT_EQ_U(s.time, 123456789);
	ASSERT_EQ_U(s.period, 100000);
	ASSERT_TRUE(s.has_regs);
	ASSERT_EQ_U(s.regs.r[MT_REG_AX], 0x1000);
	ASSERT_EQ_U(s.regs.r[MT_REG_IP], 0x1008);
	ASSERT_EQ_U(s.regs.r[MT_REG_FLAGS], 0x1009);
	ASSERT_EQ_U(s.regs.r[MT_REG_R8], 0x1010);
	ASSERT_EQ_U(s.regs.r[MT_REG_R15], 0x1017);
	/* Cut short anywhere: refused, never read past the end. */
	for (size_t cut = sizeof(*h); cut < o; cut += 8)
		ASSERT_EQ(mt_perf_sample_parse(rec, cut, st, MT_PERF_REGS_MASK, &s), -EBADMSG);
	/* A sample taken in a kernel thread has no user registers. */
	o = put(rec, sizeof(*h) + 32, PERF_SAMPLE_REGS_ABI_NONE);
	ASSERT_EQ(mt_perf_sample_parse(rec, o, st, MT_PERF_REGS_MASK, &s), 0);
	ASSERT_TRUE(!s.has_regs);
	ASSERT_EQ(mt_perf_sample_parse(rec, o, st | PERF_SAMPLE_CALLCHAIN, 0, &s), -EINVAL);
}

static uint64_t dsrc(uint64_t op, uint64_t lvl, uint64_t snoop, uint64_t tlb, uint64_t num,
		     uint64_t remote)
{
	return op << PERF_MEM_OP_SHIFT | lvl << PERF_MEM_LVL_SHIFT | snoop << PERF_MEM_SNOOP_SHIFT |
	       tlb << PERF_MEM_TLB_SHIFT | num << PERF_MEM_LVLNUM_SHIFT |
	       remote << PERF_MEM_REMOTE_SHIFT;
}

TEST(pebs_load_latency_record)
{
	/* Intel PEBS load latency (mem-loads, ldlat): IP, TID, TIME, ADDR, CPU, PERIOD,
	 * WEIGHT_STRUCT (var1 = load latency, var2 = instruction latency), DATA_SRC. */
	uint8_t rec[256];
	struct perf_event_header *h = (void *)rec;
	struct mt_perf_sample s;
	struct mt_data_src ds;
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_STRUCT |
		      PERF_SAMPLE_DATA_SRC;
	size_t o = sizeof(*h);

	o = put(rec, o, 0x401100);
	o = put(rec, o, (8ull << 32) | 8);
	o = put(rec, o, 5000);
	o = put(rec, o, 0x7fff12345678);
	o = put(rec, o, 1); /* cpu 1 */
	o = put(rec, o, 2003);
	o = put(rec, o, (12ull << 32) | 245); /* var1_dw = 245 cycles, var2_w = 12 */
	o = put(rec, o,
		dsrc(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, PERF_MEM_SNOOP_HITM,
		     PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, PERF_MEM_LVLNUM_L3, 0));
	h->size = (uint16_t)o;
	ASSERT_EQ(mt_perf_sample_parse(rec, o, st, 0, &s), 0);
	ASSERT_EQ_U(s.addr, 0x7fff12345678);
	ASSERT_EQ(s.cpu, 1);
	ASSERT_EQ_U(s.period, 2003);
	ASSERT_EQ(s.latency, 245);
	mt_data_src_decode(s.data_src, &ds);
	ASSERT_STREQ(ds.level, "L3");
	ASSERT_EQ(ds.hit, 1);
	ASSERT_EQ(ds.op, MT_ACCESS_LOAD);
	ASSERT_STREQ(ds.tlb, "hit");
	ASSERT_TRUE(ds.hitm);
	ASSERT_TRUE(!ds.remote);
	/* PEBS stores: no level number, old-style bits; an L1 miss, TLB miss. */
	mt_data_src_decode(dsrc(PERF_MEM_OP_STORE, PERF_MEM_LVL_MISS | PERF_MEM_LVL_L1, 0,
				PERF_MEM_TLB_MISS | PERF_MEM_TLB_L2, 0, 0),
			   &ds);
	ASSERT_STREQ(ds.level, "L1");
	ASSERT_EQ(ds.hit, 0);
	ASSERT_EQ(ds.op, MT_ACCESS_STORE);
	ASSERT_STREQ(ds.tlb, "miss");
	/* Remote DRAM, 1 hop. */
	mt_data_src_decode(
		dsrc(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_RAM1, 0, 0, 0, 0), &ds);
	ASSERT_STREQ(ds.level, "remote RAM");
	ASSERT_EQ(ds.remote, 1);
}

TEST(ibs_op_record)
{
	/* AMD IBS op through perf (Linux 6.1+): ADDR and DATA_SRC with level numbers, WEIGHT as
	 * the plain load latency; a RAW blob (the IBS registers) precedes them. */
	uint8_t rec[256];
	struct mt_perf_sample s;
	struct mt_data_src ds;
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT |
		      PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	size_t o = sizeof(struct perf_event_header);
	uint32_t rawlen = 60;

	o = put(rec, o, 0x401100);
	o = put(rec, o, (9ull << 32) | 9);
	o = put(rec, o, 7000);
	o = put(rec, o, 0x55550000);
	o = put(rec, o, 4096);
	memcpy(rec + o, &rawlen, 4);
	memset(rec + o + 4, 0xab, rawlen);
	o += 4 + rawlen;
	o = put(rec, o, 310);
	o = put(rec, o,
		dsrc(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT, 0, PERF_MEM_TLB_MISS, PERF_MEM_LVLNUM_RAM,
		     1));
	o = put(rec, o, 0x12340000);
	ASSERT_EQ(mt_perf_sample_parse(rec, o, st, 0, &s), 0);
	ASSERT_EQ_U(s.addr, 0x55550000);
	ASSERT_EQ(s.latency, 310);
	ASSERT_EQ_U(s.phys_addr, 0x12340000);
	mt_data_src_decode(s.data_src, &ds);
	ASSERT_STREQ(ds.level, "remote RAM");
	ASSERT_STREQ(ds.tlb, "miss");
}

TEST(tracepoint_format)
{
	static const char fmt[] =
		"name: rss_stat\nID: 646\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned int mm_id;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int curr;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:int member;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:long size;\toffset:24;\tsize:8;\tsigned:1;\n"
		"\tfield:char comm[16];\toffset:32;\tsize:16;\tsigned:0;\n";
	struct mt_tp_field f;
	uint8_t rec[48] = { 0 };
	int32_t member = -1;
	int64_t size = 123456;

	ASSERT_EQ(mt_tp_format_field(fmt, "member", &f), 0);
	ASSERT_EQ(f.offset, 16);
	ASSERT_EQ(f.size, 4);
	ASSERT_TRUE(f.is_signed);
	memcpy(rec + 16, &member, 4);
	ASSERT_EQ((int64_t)mt_tp_value(rec, sizeof(rec), &f), -1); /* sign-extended */
	ASSERT_EQ(mt_tp_format_field(fmt, "size", &f), 0);
	ASSERT_EQ(f.offset, 24);
	memcpy(rec + 24, &size, 8);
	ASSERT_EQ(mt_tp_value(rec, sizeof(rec), &f), 123456);
	ASSERT_EQ(mt_tp_value(rec, 30, &f), 0); /* record too short */
	ASSERT_EQ(mt_tp_format_field(fmt, "mm_id", &f), 0);
	ASSERT_EQ(f.offset, 8);
	ASSERT_EQ(mt_tp_format_field(fmt, "comm", &f), 0); /* an array: found, not a number */
	ASSERT_EQ(f.offset, 32);
	ASSERT_EQ(f.size, 16);
	ASSERT_EQ(mt_tp_value(rec, sizeof(rec), &f), 0);
	ASSERT_EQ(mt_tp_format_field(fmt, "id", &f), -ENOENT); /* a suffix of mm_id is not it */
	ASSERT_EQ(mt_tp_format_field(fmt, "nosuch", &f), -ENOENT);
}

/* --event descriptions: the recorded skb:kfree_skb format of this VM's kernel (6.18, its
 * __print_symbolic list cut short) and sched:sched_process_exec's __data_loc string. */
TEST(tracepoint_description)
{
	static const char drop[] =
		"name: kfree_skb\nID: 2310\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:void * skbaddr;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:void * location;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:void * rx_sk;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned short protocol;\toffset:32;\tsize:2;\tsigned:0;\n"
		"\tfield:enum skb_drop_reason reason;\toffset:36;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"skbaddr=%p rx_sk=%p protocol=%u location=%pS reason: %s\", "
		"REC->skbaddr, REC->rx_sk, REC->protocol, REC->location, "
		"__print_symbolic(REC->reason, { 2, \"NOT_SPECIFIED\" }, { 3, \"NO_SOCKET\" }, "
		"{ SKB_DROP_REASON_X, \"UNRESOLVED\" }, { 0x1f, \"HEX, ODD=NAME\" })\n";
	static const char exec[] =
		"name: sched_process_exec\nID: 312\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned long args[6];\toffset:24;\tsize:48;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:72;\tsize:16;\tsigned:0;\n";
	struct mt_tpf d;
	uint8_t rec[112] = { 0 };
	uint16_t proto = 0x800;
	uint32_t reason = 3, loc = 88 | 10u << 16;
	int32_t pid = -5;
	const char *str;
	size_t len;
	char sym[32];

	ASSERT_EQ(mt_tpf_parse(drop, &d), 0);
	ASSERT_STREQ(d.name, "kfree_skb");
	ASSERT_EQ(d.id, 2310);
	ASSERT_EQ(d.nfields, 5); /* the common_ fields are left out */
	ASSERT_STREQ(d.f[0].name, "skbaddr");
	ASSERT_EQ(d.f[0].kind, MT_TPF_PTR);
	ASSERT_EQ(d.f[3].kind, MT_TPF_UINT);
	ASSERT_STREQ(d.f[4].name, "reason");
	ASSERT_STREQ(d.f[4].symbols, "2=NOT_SPECIFIED,3=NO_SOCKET,31=HEX_ ODD_NAME");
	ASSERT_TRUE(d.f[3].symbols == NULL);
	memcpy(rec + 32, &proto, 2);
	memcpy(rec + 36, &reason, 4);
	ASSERT_EQ(mt_tpf_value(&d.f[3], rec, 40, &str, &len), 0x800);
	ASSERT_EQ(mt_tpf_value(&d.f[4], rec, 40, &str, &len), 3);
	ASSERT_EQ(mt_tpf_value(&d.f[4], rec, 39, &str, &len), 0); /* cut short */
	ASSERT_STREQ(mt_tpf_symbol(d.f[4].symbols, 3, sym, sizeof(sym)), "NO_SOCKET");
	ASSERT_STREQ(mt_tpf_symbol(d.f[4].symbols, 31, sym, sizeof(sym)), "HEX_ ODD_NAME");
	ASSERT_TRUE(mt_tpf_symbol(d.f[4].symbols, 4, sym, sizeof(sym)) == NULL);
	mt_tpf_release(&d);

	ASSERT_EQ(mt_tpf_parse(exec, &d), 0);
	ASSERT_EQ(d.nfields, 4); /* args[6] is not stored */
	ASSERT_EQ(d.skipped, 1);
	ASSERT_EQ(d.f[0].kind, MT_TPF_DYNSTR);
	ASSERT_EQ(d.f[1].kind, MT_TPF_INT);
	ASSERT_EQ(d.f[3].kind, MT_TPF_STR);
	memcpy(rec + 8, &loc, 4);
	memcpy(rec + 88, "/bin/true\0", 10);
	memcpy(rec + 12, &pid, 4);
	memcpy(rec + 72, "true\0", 5);
	(void)mt_tpf_value(&d.f[0], rec, sizeof(rec), &str, &len);
	ASSERT_EQ(len, 9);
	ASSERT_TRUE(!memcmp(str, "/bin/true", 9));
	(void)mt_tpf_value(&d.f[0], rec, 95, &str, &len); /* the string past the end: none */
	ASSERT_EQ(len, 0);
	ASSERT_EQ((int64_t)mt_tpf_value(&d.f[1], rec, sizeof(rec), &str, &len), -5);
	(void)mt_tpf_value(&d.f[3], rec, sizeof(rec), &str, &len);
	ASSERT_EQ(len, 4);
	mt_tpf_release(&d);

	ASSERT_EQ(mt_tpf_parse("name: x\nID: 1\nformat:\n", &d), -EPROTO);
	ASSERT_EQ(mt_edit_distance("kfree_skbb", "kfree_skb"), 1);
	ASSERT_EQ(mt_edit_distance("", "abc"), 3);
	ASSERT_EQ(mt_edit_distance("opnat", "openat"), 1);
}

TEST(syscall_names_and_arguments)
{
	char buf[160];
	uint64_t mm[6] = { 0, 65536, 3, 0x22, (uint64_t)-1, 0 };
	uint64_t ma[6] = { 0x7f0000, 65536, 4, 0, 0, 0 };
	uint64_t pr[6] = { 3, 0x1000, 4096, 8192, 0, 0 };
	const char *bad = NULL;

	ASSERT_STREQ(mt_syscall_name(0, buf, sizeof(buf)), "read");
	ASSERT_STREQ(mt_syscall_name(462, buf, sizeof(buf)), "mseal");
	ASSERT_STREQ(mt_syscall_name(999, buf, sizeof(buf)), "syscall_999");
	ASSERT_EQ(mt_syscall_by_name("mmap"), 9);
	ASSERT_EQ(mt_syscall_by_name("nosuch"), -1);
	ASSERT_TRUE(mt_syscall_classes(9) & MT_SC_MEMORY);
	ASSERT_TRUE(mt_syscall_classes(257) & MT_SC_FILE);
	ASSERT_EQ(mt_syscall_parse_classes("memory,file", &bad), MT_SC_MEMORY | MT_SC_FILE);
	ASSERT_EQ(mt_syscall_parse_classes("summary", &bad), MT_SC_ALL | MT_SC_SUMMARY);
	ASSERT_EQ(mt_syscall_parse_classes("memory,bogus", &bad), -1);
	ASSERT_STREQ(bad, "bogus");
	mt_syscall_format_args(9, mm, buf, sizeof(buf));
	ASSERT_STREQ(buf, "0x0, 65536, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0");
	mt_syscall_format_args(28, ma, buf, sizeof(buf));
	ASSERT_STREQ(buf, "0x7f0000, 65536, MADV_DONTNEED");
	mt_syscall_format_args(17, pr, buf, sizeof(buf));
	ASSERT_STREQ(buf, "3, 0x1000, 4096, 8192");
	ASSERT_EQ(mt_syscall_format_args(9, mm, buf, 8), 7); /* truncated, terminated */
	ASSERT_EQ(strlen(buf), 7);
}
