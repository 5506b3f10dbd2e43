/* SPDX-License-Identifier: MIT */
/* The --event tracepoints of a trace: their field names and kinds, and the hit counts. */
#ifndef MEMTAP_ANALYSIS_TRACEPOINTS_H
#define MEMTAP_ANALYSIS_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/tpformat.h"

struct mt_reader;
struct mt_event;

struct mt_tp_info {
	const char *event; /* SUBSYS:NAME (the collector's string) */
	unsigned nfields;
	struct {
		char name[MT_TPF_NAME_MAX];
		enum mt_tpf_kind kind; /* MT_TPF_STR for both string kinds */
		const char *symbols; /* "V=NAME,...", or NULL */
	} f[MT_TPF_MAX_FIELDS];
};

struct mt_tp_infos {
	struct mt_tp_info *v;
	size_t n;
};

/* The descriptions from the "events" collector's keys (docs/trace-format.md). 0 (n = 0 when
 * the trace has none), -EBADMSG for a malformed description, -ENOMEM. */
int mt_tp_infos_load(const struct mt_reader *r, struct mt_tp_infos *out);
void mt_tp_infos_release(struct mt_tp_infos *t);
const struct mt_tp_info *mt_tp_info_find(const struct mt_tp_infos *t, const char *event,
					 size_t len);

/* Counts every tracepoint event's hits, and per symbolic field (reason, ...) per value. */
struct mt_tp_count {
	const struct mt_tp_info *tp;
	unsigned field; /* its index, or ~0u for the tracepoint's total */
	uint64_t value, hits;
};

struct mt_tp_counts {
	struct mt_tp_count *v; /* totals first per tracepoint, then values by hits */
	size_t n;
	uint64_t events, undescribed; /* hits of tracepoints without a description */
};

struct mt_pass;
/* The counting pass; t must live until the run is over. */
int mt_tp_count_pass(struct mt_reader *r, const struct mt_tp_infos *t, struct mt_tp_counts *out,
		     struct mt_pass *pass);
int mt_tp_count(struct mt_reader *r, const struct mt_tp_infos *t, struct mt_tp_counts *out);
void mt_tp_counts_release(struct mt_tp_counts *c);

#endif
