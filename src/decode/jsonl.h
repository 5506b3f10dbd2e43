/* SPDX-License-Identifier: MIT */
/*
 * JSON lines of application events (`memtap events`): one line, one JSON object, of which
 * the caller wants a few members by key. A scanner of its own, because every maintained C
 * library measured here parses below the 500 MB/s the command needs before any work is
 * done (yajl 383 MB/s as one stream, cJSON 183, json-c 87; Python's json 48-60): it checks
 * the whole line (strict RFC 8259, plus the NaN, Infinity and -Infinity that Python's json
 * reads), validates nested values without building them, checks UTF-8 inside strings, and
 * keeps the wanted members (the last of duplicate keys wins, as in Python). A string with
 * escapes or non-ASCII text is unescaped (and checked) into the caller's scratch buffer,
 * others are pointed to in the line; nothing is allocated but a copy of a number written
 * with more than 63 characters.
 */
#ifndef MEMTAP_DECODE_JSONL_H
#define MEMTAP_DECODE_JSONL_H

#include <stdbool.h>
#include <stddef.h>

enum mt_jv_type {
	MT_JV_MISSING, /* the key is not in the object */
	MT_JV_NULL,
	MT_JV_FALSE,
	MT_JV_TRUE,
	MT_JV_NUMBER,
	MT_JV_STRING,
	MT_JV_OBJECT,
	MT_JV_ARRAY,
};

struct mt_jv {
	enum mt_jv_type type;
	const char *s; /* STRING: unescaped UTF-8 (in the line or scratch); others: raw text */
	size_t len;
	double num; /* NUMBER: its value (NaN and the infinities included) */
	bool integer; /* NUMBER: written without a fraction or an exponent */
};

/* Why a line is not an object of the kind wanted (mt_jsonl_errname()). */
enum mt_jsonl_err {
	MT_JSONL_OK = 0,
	MT_JSONL_SYNTAX = -1, /* not JSON */
	MT_JSONL_NOT_OBJECT = -2, /* JSON, but not an object */
	MT_JSONL_UTF8 = -3, /* invalid UTF-8 */
	MT_JSONL_DEPTH = -4, /* nested deeper than MT_JSONL_MAX_DEPTH */
};

#define MT_JSONL_MAX_DEPTH 512

/*
 * Parses [p, p + n) (one line, its newline excluded; surrounding whitespace allowed) as one
 * JSON object. For each of the nkeys keys (at most 64), vals[i] gets that member's value (type
 * MT_JV_MISSING when absent). scratch holds at least n bytes. Returns MT_JSONL_OK or an
 * error (vals are then unspecified).
 */
int mt_jsonl_object(const char *p, size_t n, const char *const *keys, unsigned nkeys,
		    struct mt_jv *vals, char *scratch);

#define MT_JSONL_MAX_KEYS 64

/* The wanted keys, measured once for many lines. */
struct mt_jsonl_keys {
	const char *const *keys;
	size_t len[MT_JSONL_MAX_KEYS];
	unsigned n, guess;
};

void mt_jsonl_keys_init(struct mt_jsonl_keys *ks, const char *const *keys, unsigned nkeys);
/* mt_jsonl_object with keys measured by mt_jsonl_keys_init. */
int mt_jsonl_object_k(const char *p, size_t n, struct mt_jsonl_keys *ks, struct mt_jv *vals,
		      char *scratch);

const char *mt_jsonl_errname(int err);

#endif
