/* SPDX-License-Identifier: MIT */
/* Names, kinds and documentation of every event type and field of the trace format. */
#ifndef MEMTAP_FORMAT_SCHEMA_H
#define MEMTAP_FORMAT_SCHEMA_H

#include <stdint.h>

#include <memtap/trace-format.h>

/* How a field's u64 value is interpreted and rendered. */
enum mt_field_kind {
	MT_FK_U64, /* unsigned decimal */
	MT_FK_I64, /* signed decimal (two's complement in the u64) */
	MT_FK_HEX, /* address or bit mask: "0x..." */
	MT_FK_STR, /* string id of the chunk's stream; 0 is "" */
	MT_FK_ARGV, /* string id of NUL-separated arguments */
	MT_FK_ENUM, /* index into enum_names */
	MT_FK_PROT, /* PROT_* bits rendered as "rwx" */
	MT_FK_STACK, /* stack id of the chunk's stream; 0 is "no stack" */
};

struct mt_field_desc {
	const char *name;
	enum mt_field_kind kind;
	const char *const *enum_names; /* MT_FK_ENUM only */
	unsigned n_enum;
	const char *doc;
};

struct mt_type_desc {
	const char *name; /* as used by `memtap dump --type` */
	unsigned nfields; /* including the common time, pid, tid */
	const struct mt_field_desc *fields;
	const char *doc;
};

/* The description of event type t, or NULL if this memtap does not know it. */
const struct mt_type_desc *mt_type_desc(unsigned type);
/* Event type number by name, or -1. */
int mt_type_by_name(const char *name);
/* Name of value v of an MT_FK_ENUM field; "?" when out of range. */
const char *mt_field_enum_name(const struct mt_field_desc *f, uint64_t v);
/* Writes the "rwx" form of PROT_* bits into buf[4]. */
const char *mt_prot_str(uint64_t prot, char buf[4]);

#endif
