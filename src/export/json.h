/* SPDX-License-Identifier: MIT */
/* A streaming JSON writer: always valid output, strings escaped, invalid UTF-8 replaced. */
#ifndef MEMTAP_EXPORT_JSON_H
#define MEMTAP_EXPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MT_JSON_MAX_DEPTH 32

struct mt_json {
	FILE *f;
	bool pretty;
	bool html_safe; /* escape < > & too, for JSON embedded in HTML */
	int depth;
	bool first[MT_JSON_MAX_DEPTH];
	bool after_key;
};

void mt_json_init(struct mt_json *j, FILE *f, bool pretty);
void mt_json_begin_object(struct mt_json *j);
void mt_json_end_object(struct mt_json *j);
void mt_json_begin_array(struct mt_json *j);
void mt_json_end_array(struct mt_json *j);
void mt_json_key(struct mt_json *j, const char *key);
void mt_json_str(struct mt_json *j, const char *s);
void mt_json_strn(struct mt_json *j, const char *s, size_t n);
void mt_json_u64(struct mt_json *j, uint64_t v);
void mt_json_i64(struct mt_json *j, int64_t v);
void mt_json_double(struct mt_json *j, double v);
void mt_json_bool(struct mt_json *j, bool v);
void mt_json_null(struct mt_json *j);
/* A value written as given: n bytes that must be valid JSON on their own. */
void mt_json_raw(struct mt_json *j, const char *s, size_t n);
/* "0x..." strings: JSON numbers lose precision above 2^53, and addresses read better. */
void mt_json_hex(struct mt_json *j, uint64_t v);

/* key + value in one call */
void mt_json_kv_str(struct mt_json *j, const char *key, const char *s);
void mt_json_kv_u64(struct mt_json *j, const char *key, uint64_t v);
void mt_json_kv_i64(struct mt_json *j, const char *key, int64_t v);
void mt_json_kv_double(struct mt_json *j, const char *key, double v);
void mt_json_kv_bool(struct mt_json *j, const char *key, bool v);
void mt_json_kv_null(struct mt_json *j, const char *key);

/* A uint64_t member of a struct written as "key": value: a renderer lists a struct's plain
 * figures once, in output order (MT_JSON_U64 checks the member's type when compiling). */
struct mt_json_u64 {
	const char *key;
	size_t off;
};
#define MT_JSON_U64(key, type, member)                                                \
	{                                                                             \
		key, _Generic(((type *)0)->member, uint64_t : offsetof(type, member)) \
	}
/* base NULL: each key with null (a figure not measured). */
void mt_json_kv_u64s(struct mt_json *j, const void *base, const struct mt_json_u64 *f, size_t n);
#define MT_JSON_KV_U64S(j, base, fields) \
	mt_json_kv_u64s(j, base, fields, sizeof(fields) / sizeof((fields)[0]))
/* The same, with null for the keys in nulls (NULL-terminated; NULL: none). */
void mt_json_kv_u64s_but(struct mt_json *j, const void *base, const struct mt_json_u64 *f, size_t n,
			 const char *const *nulls);
#define MT_JSON_KV_U64S_BUT(j, base, fields, nulls) \
	mt_json_kv_u64s_but(j, base, fields, sizeof(fields) / sizeof((fields)[0]), nulls)

/* Writes s as a JSON string literal (with quotes) to f. */
void mt_json_write_string(FILE *f, const char *s, size_t n, bool html_safe);

#endif
