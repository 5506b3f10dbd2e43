/* SPDX-License-Identifier: MIT */
/* The streaming JSON writer. */
#include "json.h"

#include "common/termsafe.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void mt_json_init(struct mt_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct mt_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator before a value or a key at the current depth. */
static void before_value(struct mt_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	if (j->depth)
		indent(j);
	j->first[j->depth] = false;
}

static void open_(struct mt_json *j, char c)
{
	before_value(j);
	fputc(c, j->f);
	if (j->depth + 1 < MT_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct mt_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void mt_json_begin_object(struct mt_json *j)
{
	open_(j, '{');
}

void mt_json_end_object(struct mt_json *j)
{
	close_(j, '}');
}

void mt_json_begin_array(struct mt_json *j)
{
	open_(j, '[');
}

void mt_json_end_array(struct mt_json *j)
{
	close_(j, ']');
}

void mt_json_write_string(FILE *f, const char *s, size_t n, bool html_safe)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	fputc('"', f);
	while (i < n) {
		unsigned char c = p[i];
		uint32_t cp;
		int k;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			i++;
			continue;
		case '\\':
			fputs("\\\\", f);
			i++;
			continue;
		case '\n':
			fputs("\\n", f);
			i++;
			continue;
		case '\r':
			fputs("\\r", f);
			i++;
			continue;
		case '\t':
			fputs("\\t", f);
			i++;
			continue;
		case '\b':
			fputs("\\b", f);
			i++;
			continue;
		case '\f':
			fputs("\\f", f);
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7f ||
		    (html_safe && (c == '<' || c == '>' || c == '&' || c == '\''))) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		k = mt_utf8_at(p + i, n - i, &cp);
		if (k <= 0) {
			fputs("\\ufffd", f); /* invalid UTF-8 byte */
			i++;
			continue;
		}
		if (mt_is_ctl(cp)) /* C1 and bidirectional controls: escaped, for terminals */
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p + i, 1, (size_t)k, f);
		i += (size_t)k;
	}
	fputc('"', f);
}

void mt_json_key(struct mt_json *j, const char *key)
{
	before_value(j);
	mt_json_write_string(j->f, key, strlen(key), j->html_safe);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void mt_json_strn(struct mt_json *j, const char *s, size_t n)
{
	before_value(j);
	mt_json_write_string(j->f, s, n, j->html_safe);
}

void mt_json_str(struct mt_json *j, const char *s)
{
	if (!s)
		return mt_json_null(j);
	mt_json_strn(j, s, strlen(s));
}

void mt_json_u64(struct mt_json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void mt_json_i64(struct mt_json *j, int64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRId64, v);
}

void mt_json_double(struct mt_json *j, double v)
{
	before_value(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (fabs(v) < 1e15 && v == (double)(int64_t)v) /* the range first: no UB cast */
		fprintf(j->f, "%" PRId64, (int64_t)v);
	else
		fprintf(j->f, "%.10g", v);
}

void mt_json_raw(struct mt_json *j, const char *s, size_t n)
{
	before_value(j);
	fwrite(s, 1, n, j->f);
}

void mt_json_bool(struct mt_json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void mt_json_null(struct mt_json *j)
{
	before_value(j);
	fputs("null", j->f);
}

void mt_json_hex(struct mt_json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}

void mt_json_kv_str(struct mt_json *j, const char *key, const char *s)
{
	mt_json_key(j, key);
	mt_json_str(j, s);
}

void mt_json_kv_u64(struct mt_json *j, const char *key, uint64_t v)
{
	mt_json_key(j, key);
	mt_json_u64(j, v);
}

void mt_json_kv_i64(struct mt_json *j, const char *key, int64_t v)
{
	mt_json_key(j, key);
	mt_json_i64(j, v);
}

void mt_json_kv_double(struct mt_json *j, const char *key, double v)
{
	mt_json_key(j, key);
	mt_json_double(j, v);
}

void mt_json_kv_bool(struct mt_json *j, const char *key, bool v)
{
	mt_json_key(j, key);
	mt_json_bool(j, v);
}

static bool listed(const char *const *keys, const char *key)
{
	for (; keys && *keys; keys++)
		if (!strcmp(*keys, key))
			return true;
	return false;
}

void mt_json_kv_u64s(struct mt_json *j, const void *base, const struct mt_json_u64 *f, size_t n)
{
	mt_json_kv_u64s_but(j, base, f, n, NULL);
}

void mt_json_kv_u64s_but(struct mt_json *j, const void *base, const struct mt_json_u64 *f, size_t n,
			 const char *const *nulls)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		if (!base || listed(nulls, f[i].key)) { /* not measured: null */
			mt_json_kv_null(j, f[i].key);
			continue;
		}
		memcpy(&v, (const char *)base + f[i].off, sizeof(v));
		mt_json_kv_u64(j, f[i].key, v);
	}
}

void mt_json_kv_null(struct mt_json *j, const char *key)
{
	mt_json_key(j, key);
	mt_json_null(j);
}
