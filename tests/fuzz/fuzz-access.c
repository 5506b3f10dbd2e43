/* SPDX-License-Identifier: MIT */
/* libFuzzer target: perf sample records, data-source words and the sampled-instruction
 * decoder. Byte 0 picks the parser; the rest is its input:
 *   even: sample_type (8 bytes, masked to what the parser knows), then a whole record;
 *   odd:  18 register values and fs base (8 bytes each), `before` (1 byte), code bytes;
 *   byte 0 == 2: a tracepoint format description, and a record read with its fields (both
 *   the single-field lookup and the whole description of --event, with every field's
 *   value, string and symbol read from the same bytes). */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/insn.h"
#include "decode/sample.h"
#include "decode/tpformat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take64(const uint8_t **p, size_t *n)
{
	uint64_t v = 0;
	size_t k = *n < 8 ? *n : 8;

	memcpy(&v, *p, k);
	*p += k;
	*n -= k;
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 1;
	size_t n;

	if (!size)
		return 0;
	n = size - 1;
	if (data[0] == 2) {
		char *fmt = malloc(n + 1);
		struct mt_tp_field f;

		if (!fmt)
			return 0;
		memcpy(fmt, p, n);
		fmt[n] = 0;
		if (mt_tp_format_field(fmt, "size", &f) == 0) {
			if (!f.size || f.size > 4096)
				abort();
			(void)mt_tp_value(p, n, &f);
		}
		(void)mt_tp_format_field(fmt, "mm_id", &f);
		{
			struct mt_tpf d;

			if (mt_tpf_parse(fmt, &d) == 0) {
				if (d.nfields > MT_TPF_MAX_FIELDS)
					abort();
				for (unsigned i = 0; i < d.nfields; i++) {
					const char *str;
					size_t len;
					char sym[64];

					(void)mt_tpf_value(&d.f[i], p, n, &str, &len);
					if (len && (str < (const char *)p ||
						    str + len > (const char *)p + n))
						abort(); /* a string outside the record */
					if (d.f[i].symbols)
						(void)mt_tpf_symbol(d.f[i].symbols, 3, sym,
								    sizeof(sym));
				}
				mt_tpf_release(&d);
			}
		}
		free(fmt);
		return 0;
	}
	if (!(data[0] & 1)) {
		uint64_t st = take64(&p, &n) & MT_SAMPLE_SUPPORTED;
		struct mt_perf_sample s;
		struct mt_data_src ds;
		uint8_t *rec = malloc(n + 1);

		if (!rec)
			return 0;
		memcpy(rec, p, n);
		if (mt_perf_sample_parse(rec, n, st, MT_PERF_REGS_MASK, &s) == 0) {
			mt_data_src_decode(s.data_src, &ds);
			if (!ds.level || !ds.tlb)
				abort();
		}
		free(rec);
		return 0;
	}
	{
		struct mt_regs r = { 0 };
		struct mt_decoded d;
		size_t before;
		uint8_t *code;
		unsigned k;

		for (int i = 0; i < MT_NREGS; i++)
			r.r[i] = take64(&p, &n);
		r.fs_base = take64(&p, &n);
		r.fs_known = r.fs_base & 1;
		before = n ? *p++ % (MT_DECODE_BEFORE + 1) : 0;
		n = n ? n - 1 : 0;
		if (before > n)
			before = n;
		/* An exact-size copy, so reads past either end are caught. */
		code = malloc(n ? n : 1);
		if (!code)
			return 0;
		memcpy(code, p, n);
		k = mt_decode_sample(code, before, n - before, &r, &d);
		if (k > MT_DECODE_MAX_ACCESSES || (k == 0) != (d.reason != MT_UNRES_NONE) ||
		    d.reason >= _MT_UNRES_MAX)
			abort();
		free(code);
	}
	return 0;
}
