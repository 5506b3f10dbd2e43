/* SPDX-License-Identifier: MIT */
/* `memtap dump`: every event of a trace with all its fields, as JSON lines or CSV, written
 * by a pass of one read. */
#ifndef MEMTAP_EXPORT_DUMP_H
#define MEMTAP_EXPORT_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "analysis/tracepoints.h"

struct mt_reader;

/* CSV columns: common fields, then each selected type's own fields, merged by name. */
struct column {
	const char *name;
	int field[_MT_EV_MAX]; /* field id in each type, or -1 */
};

struct mt_dump_opts {
	int format; /* 0 JSON lines, 1 CSV */
	uint64_t type_mask; /* 0: every type */
	bool by_pid;
	uint32_t pid;
	bool stacks; /* stack ids followed by their frames */
	bool unresolved; /* also access samples without a data address */
};

struct mt_dump {
	struct mt_dump_opts o;
	struct mt_reader *r;
	const struct mt_tp_infos *tps;
	FILE *f;
	struct column cols[160];
	size_t ncols;
	uint64_t unresolved; /* string or stack references the trace lost */
};

/* The CSV columns of the selected types (at most max); returns their count. */
size_t mt_dump_columns(uint64_t mask, struct column *cols, size_t max);
/* The pass that writes every selected event to f (the CSV header at once); d, tps and f must
 * live until the run is over. */
int mt_dump_pass(struct mt_dump *d, struct mt_reader *r, const struct mt_dump_opts *o,
		 const struct mt_tp_infos *tps, FILE *f, struct mt_pass *pass);

#endif
