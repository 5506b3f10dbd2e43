/* SPDX-License-Identifier: MIT */
/* A whole tracepoint's format description (tracefs events/SUBSYS/NAME/format), for --event. */
#ifndef MEMTAP_DECODE_TPFORMAT_H
#define MEMTAP_DECODE_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a field's bytes become one 64-bit column value. */
enum mt_tpf_kind {
	MT_TPF_UINT, /* unsigned integer of 1, 2, 4 or 8 bytes */
	MT_TPF_INT, /* signed integer: sign-extended */
	MT_TPF_PTR, /* a pointer or an address: shown in hex */
	MT_TPF_STR, /* char NAME[N]: a NUL-terminated string stored as a string id */
	MT_TPF_DYNSTR, /* __data_loc char[] NAME: the string lives after the fixed fields */
};

#define MT_TPF_MAX_FIELDS 28 /* the trace's tracepoint event has 28 value columns */
#define MT_TPF_NAME_MAX 64

struct mt_tpf_field {
	char name[MT_TPF_NAME_MAX];
	unsigned offset, size;
	enum mt_tpf_kind kind;
	char *symbols; /* "2=NOT_SPECIFIED,3=NO_SOCKET,..." from __print_symbolic, or NULL */
};

struct mt_tpf {
	char name[128]; /* the description's "name:" line */
	int id; /* its "ID:" line: the perf config and the records' common_type; -1 if none */
	unsigned nfields;
	struct mt_tpf_field f[MT_TPF_MAX_FIELDS];
	unsigned skipped; /* fields not stored: arrays of non-char, sizes other than 1/2/4/8,
			   * or beyond MT_TPF_MAX_FIELDS */
};

/* Parses the format text (NUL-terminated) into d: the fields after the common_ ones, and the
 * value names of fields the print format passes through __print_symbolic. 0, -EPROTO when
 * the text has no usable field description, -ENOMEM. Free with mt_tpf_release. */
int mt_tpf_parse(const char *text, struct mt_tpf *d);
void mt_tpf_release(struct mt_tpf *d);

/* The column value of field f in the raw record rec[0..n): an integer, a pointer, or for
 * strings the string's start and length (*str, *len; the value is then 0). Out-of-range
 * fields read as 0 and an empty string. */
uint64_t mt_tpf_value(const struct mt_tpf_field *f, const uint8_t *rec, size_t n, const char **str,
		      size_t *len);

/* The kind's name in descriptions: "u64", "i64", "hex", "str". */
const char *mt_tpf_kind_name(enum mt_tpf_kind k);

/* The name the symbol list "V=NAME,..." gives value v: copied to buf, or NULL. */
const char *mt_tpf_symbol(const char *symbols, uint64_t v, char *buf, size_t size);

#endif
