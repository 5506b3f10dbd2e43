/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the trace reader must survive any bytes, within its memory bounds. */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/alloc.h"
#include "analysis/model.h"
#include "analysis/rereads.h"
#include "analysis/symbols.h"
#include "analysis/tracepoints.h"
#include "export/report.h"
#include "format/block.h"
#include "format/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	struct mt_reader *r;
	struct mt_cursor *c;
	struct mt_event ev;
	struct mt_block b = { 0 };
	uint64_t lo, hi, ips[64];
	size_t pos = 0;
	uint32_t stream;

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size)
		goto out;
	if (mt_reader_open_fd(fd, &r) < 0)
		goto out;
	(void)mt_reader_time_range(r, &lo, &hi);
	for (size_t i = 0; i < mt_reader_ncollectors(r); i++)
		(void)mt_kvlist_get(mt_reader_collector(r, i), "name");
	(void)mt_reader_meta(r, "command");
	if (mt_cursor_new(r, NULL, &c) == 0) {
		for (int n = 0; n < 100000 && mt_cursor_next(c, &ev) == 1; n++) {
			for (unsigned f = 0; f < 16; f++)
				(void)mt_reader_str(r, ev.stream, ev.v[f], NULL);
			(void)mt_reader_stack(r, ev.stream, ev.v[3], ips, 64);
		}
		mt_cursor_free(c);
	}
	{
		/* The allocation pass and symbolization (which reads files the trace names). */
		struct mt_alloc_stats st;
		struct mt_symbolizer *sym;

		if (mt_alloc_analyze(r, &st) == 0) {
			if (mt_sym_open(r, &sym) == 0) {
				for (size_t i = 0; i < st.nsites && i < 16; i++) {
					const struct mt_frame *fr;
					int n = mt_reader_stack(r, st.sites[i].stream,
								st.sites[i].stack, ips, 64);

					for (int k = 0; k < n; k++)
						(void)mt_sym_resolve(sym, st.sites[i].pid,
								     st.sites[i].first_ns, ips[k],
								     true, &fr);
				}
				mt_sym_close(sym);
			}
			mt_alloc_release(&st);
		}
	}
	{
		/* The whole report, in every format (extreme values reach the renderers), and the
		 * passes the report leaves out. */
		FILE *sink = fopen("/dev/null", "w");
		struct mt_report rep;
		struct mt_rereads rr;
		struct mt_tp_infos tps;
		struct mt_tp_counts tc;

		if (sink && mt_report_load(&rep, r, "fuzz", MT_SEC_ALL, 0, NULL) == 0) {
			for (int fmt = MT_REPORT_TEXT; fmt <= MT_REPORT_CSV; fmt++)
				(void)mt_report_print(&rep, (enum mt_report_format)fmt, MT_SEC_ALL,
						      sink);
			mt_report_release(&rep);
		}
		if (sink)
			fclose(sink);
		if (mt_rereads_analyze(r, 0, &rr) == 0)
			mt_rereads_release(&rr);
		if (mt_tp_infos_load(r, &tps) == 0) {
			if (mt_tp_count(r, &tps, &tc) == 0)
				mt_tp_counts_release(&tc);
			mt_tp_infos_release(&tps);
		}
	}
	(void)mt_reader_verify(r);
	while (mt_reader_next_block(r, &pos, 0, &b, &stream) == 1)
		;
	mt_block_release(&b);
	mt_reader_free(r);
out:
	close(fd);
	return 0;
}
