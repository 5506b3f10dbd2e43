/* SPDX-License-Identifier: MIT */
/* perf PERF_RECORD_SAMPLE bodies, and the data-source word of precise memory samples. */
#ifndef MEMTAP_DECODE_SAMPLE_H
#define MEMTAP_DECODE_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "decode/insn.h"

/* The sample_type bits the parser understands; others make it refuse the attr. */
#define MT_SAMPLE_SUPPORTED                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |      \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |       \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT | \
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |         \
	 PERF_SAMPLE_PHYS_ADDR)

struct mt_perf_sample {
	uint64_t ip, time, addr, period, data_src, phys_addr;
	uint64_t id; /* PERF_SAMPLE_IDENTIFIER or _ID: the event (an inherited one's parent) */
	uint32_t pid, tid, cpu;
	uint64_t weight; /* PERF_SAMPLE_WEIGHT, or the whole PERF_SAMPLE_WEIGHT_STRUCT word */
	uint32_t latency; /* cycles from issue to completion (the weight, or its var1_dw) */
	const uint8_t *raw; /* PERF_SAMPLE_RAW: the tracepoint record (inside the sample) */
	uint32_t raw_size;
	bool has_regs; /* user registers present (abi != NONE) */
	struct mt_regs regs; /* fs/gs bases are not part of a sample */
	const uint8_t *stack; /* PERF_SAMPLE_STACK_USER: the bytes copied from the user sp on */
	uint64_t stack_size; /* how many (the record's dyn_size) */
};

/*
 * Parses the body of a PERF_RECORD_SAMPLE (rec points at the perf_event_header, size is
 * its size) for an event opened with sample_type and sample_regs_user. Returns 0, or
 * -EINVAL if sample_type has bits it does not know, -EBADMSG if the record is too short.
 */
int mt_perf_sample_parse(const void *rec, size_t size, uint64_t sample_type, uint64_t regs_mask,
			 struct mt_perf_sample *out);

/* The data source word (union perf_mem_data_src), decoded. */
struct mt_data_src {
	const char *level; /* "L1", "LFB", "L2", "L3", "L4", "RAM", "remote RAM", "remote cache",
			    * "PMEM", "CXL", "IO", "uncached", "any cache", or "unknown" */
	int hit; /* 1 hit, 0 miss, -1 unknown */
	int remote; /* 1 remote, 0 local/unknown */
	const char *tlb; /* "hit", "miss", "unknown" */
	int op; /* enum mt_access_kind, or -1 when the word says neither load nor store */
	bool hitm; /* snoop hit modified (a cache line shared by cores) */
	bool locked;
};

void mt_data_src_decode(uint64_t word, struct mt_data_src *out);

/* A field of a tracepoint record, from the tracepoint's tracefs "format" description. */
struct mt_tp_field {
	unsigned offset, size;
	bool is_signed;
};

/* Finds field name in format (the text of events/SUBSYS/NAME/format). 0, or -ENOENT. */
int mt_tp_format_field(const char *format, const char *name, struct mt_tp_field *out);
/* The field's value in a record of size n (0 when the record is too short, or the field is
 * wider than 8 bytes: an array, whose elements are read at offset + i * element size). */
uint64_t mt_tp_value(const uint8_t *rec, size_t n, const struct mt_tp_field *f);

#endif
