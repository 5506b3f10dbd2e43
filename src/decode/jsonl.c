/* SPDX-License-Identifier: MIT */
/* One JSON line as an object's wanted members (jsonl.h). */
#include "decode/jsonl.h"

#include <emmintrin.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct scan {
	const unsigned char *p, *end;
	char *scratch; /* unescaped strings go here, one after another */
	size_t used;
};

static void ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool lit(struct scan *s, const char *w, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
		return false;
	s->p += n;
	return true;
}

static int hex4(const unsigned char *q, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = q[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 32) >= 'a' && (c | 32) <= 'f')
			d = (c | 32) - 'a' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* The code point cp as UTF-8 (a lone surrogate too, as Python keeps it); its length. */
static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 63));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 63));
		o[2] = (char)(0x80 | (cp & 63));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 63));
	o[2] = (char)(0x80 | (cp >> 6 & 63));
	o[3] = (char)(0x80 | (cp & 63));
	return 4;
}

/* The length of the valid UTF-8 sequence at q (a non-ASCII lead byte), or 0. */
static size_t utf8_len(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0];
	size_t n = c >= 0xc2 && c <= 0xdf   ? 2
		   : c >= 0xe0 && c <= 0xef ? 3
		   : c >= 0xf0 && c <= 0xf4 ? 4
					    : 0;

	if (!n || (size_t)(end - q) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((q[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates (ED A0..BF), beyond U+10FFFF */
	if ((c == 0xe0 && q[1] < 0xa0) || (c == 0xed && q[1] >= 0xa0) ||
	    (c == 0xf0 && q[1] < 0x90) || (c == 0xf4 && q[1] >= 0x90))
		return 0;
	return n;
}

static int string_slow(struct scan *s, struct mt_jv *v);

/* One escape after the backslash at *qp; its text into o (if o), *qp past it. */
static int escape(const unsigned char **qp, const unsigned char *end, char *o, size_t *k)
{
	const unsigned char *q = *qp + 1;
	unsigned cp, lo;
	char tmp[4];
	size_t n = 1;
	static const char simple[] = "\"\\/bfnrt", out[] = "\"\\/\b\f\n\r\t";
	const char *hit;

	if (q >= end)
		return MT_JSONL_SYNTAX;
	if (*q != 'u') {
		if (!(hit = memchr(simple, *q, sizeof(simple) - 1)))
			return MT_JSONL_SYNTAX;
		tmp[0] = out[hit - simple];
		q++;
	} else {
		if (end - q < 5 || hex4(q + 1, &cp) < 0)
			return MT_JSONL_SYNTAX;
		q += 5;
		if (cp >= 0xd800 && cp < 0xdc00 && end - q >= 6 && q[0] == '\\' && q[1] == 'u' &&
		    hex4(q + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			q += 6;
		}
		n = put_utf8(tmp, cp);
	}
	if (o)
		memcpy(o + *k, tmp, n);
	*k += n;
	*qp = q;
	return 0;
}

/*
 * The first byte at or after q that ends a plain run of a string: a quote, a backslash, a
 * control character or a non-ASCII byte (or end). Sixteen bytes at a time: bytes 0x80-0xff
 * are negative as signed bytes, so one signed compare finds them with the controls.
 */
static const unsigned char *plain_run(const unsigned char *q, const unsigned char *end)
{
	const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'),
		      space = _mm_set1_epi8(0x20);

	while (end - q >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bs)),
				     _mm_cmplt_epi8(x, space)));

		if (m)
			return q + __builtin_ctz(m);
		q += 16;
	}
	while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
		q++;
	return q;
}

/* A string at the quote; when v is wanted, its text: in place when it has no escape and is
 * ASCII (most), else unescaped into scratch. */
static int string(struct scan *s, struct mt_jv *v)
{
	const unsigned char *first = plain_run(s->p + 1, s->end);

	if (first < s->end && *first == '"') { /* the common case: nothing to unescape */
		if (v)
			*v = (struct mt_jv){ .type = MT_JV_STRING,
					     .s = (const char *)s->p + 1,
					     .len = (size_t)(first - s->p - 1) };
		s->p = first + 1;
		return 0;
	}
	return string_slow(s, v);
}

/* A string with escapes or non-ASCII text: unescaped into scratch (when v), checked. */
static int string_slow(struct scan *s, struct mt_jv *v)
{
	const unsigned char *q = s->p + 1, *end = s->end;
	char *o = v ? s->scratch + s->used : NULL;
	size_t k = 0;
	int r;

	for (;;) {
		const unsigned char *run = q;

		q = plain_run(q, end);
		if (o && q > run)
			memcpy(o + k, run, (size_t)(q - run));
		k += (size_t)(q - run);
		if (q >= end || *q < 0x20)
			return MT_JSONL_SYNTAX;
		if (*q == '"')
			break;
		if (*q == '\\') {
			if ((r = escape(&q, end, o, &k)) < 0)
				return r;
			continue;
		}
		{
			size_t n = utf8_len(q, end);

			if (!n)
				return MT_JSONL_UTF8;
			if (o)
				memcpy(o + k, q, n);
			k += n;
			q += n;
		}
	}
	if (v) {
		*v = (struct mt_jv){ .type = MT_JV_STRING, .s = o, .len = k };
		s->used += k;
	}
	s->p = q + 1;
	return 0;
}

static bool digit(const unsigned char *q, const unsigned char *end)
{
	return q < end && *q >= '0' && *q <= '9';
}

/* One or more digits at q: past them, or NULL. */
static const unsigned char *digits(const unsigned char *q, const unsigned char *end)
{
	if (!digit(q, end))
		return NULL;
	while (digit(q, end))
		q++;
	return q;
}

/* Its digits at *qp into *m (counting the significant ones in *sig, the fraction's in *frac
 * when frac): past them, false when there is none. */
static inline __attribute__((always_inline)) bool
mantissa(const unsigned char **qp, const unsigned char *end, uint64_t *m, int *sig, int *frac)
{
	const unsigned char *q = *qp;

	if (!digit(q, end))
		return false;
	for (; digit(q, end); q++) {
		if (*m || *q != '0')
			++*sig;
		*m = *m * 10 + (unsigned)(*q - '0'); /* wraps past 19 digits: strtod then */
		if (frac)
			++*frac;
	}
	*qp = q;
	return true;
}

/*
 * A number (or NaN, Infinity, -Infinity) at s->p, checked and converted in one pass. A
 * decimal without an exponent and with at most 15 significant digits becomes its digits as
 * an integer (exact below 2^53) divided by a power of ten (exact up to 10^22): one correctly
 * rounded division, the double strtod gives (Clinger's fast path); others go to strtod.
 */
static int number(struct scan *s, struct mt_jv *v)
{
	static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,
					1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
					1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	const unsigned char *b = s->p, *q = b, *end = s->end;
	bool integer = true, fast = true;
	uint64_t m = 0;
	int sig = 0, frac = 0;
	double d = 0;

	if (q < end && *q == '-')
		q++;
	if ((size_t)(end - q) >= 8 && !memcmp(q, "Infinity", 8)) {
		q += 8;
		d = *b == '-' ? -INFINITY : INFINITY;
		integer = false;
		goto done;
	}
	if (q < end && *q == '0')
		q++;
	else if (!mantissa(&q, end, &m, &sig, NULL))
		return MT_JSONL_SYNTAX;
	if (q < end && *q == '.') {
		integer = false;
		q++;
		if (!mantissa(&q, end, &m, &sig, &frac))
			return MT_JSONL_SYNTAX;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		integer = fast = false;
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (!(q = digits(q, end)))
			return MT_JSONL_SYNTAX;
	}
	if (!v)
		goto done;
	if (fast && sig <= 15 && frac <= 22) {
		d = frac ? (double)m / pow10[frac] : (double)m;
		if (*b == '-')
			d = -d;
	} else {
		char buf[64], *heap = NULL, *t = buf;
		size_t n = (size_t)(q - b);

		if (n >= sizeof(buf) && !(t = heap = malloc(n + 1)))
			return MT_JSONL_SYNTAX;
		memcpy(t, b, n);
		t[n] = 0;
		d = strtod(t, NULL);
		free(heap);
	}
done:
	if (v)
		*v = (struct mt_jv){ .type = MT_JV_NUMBER,
				     .s = (const char *)b,
				     .len = (size_t)(q - b),
				     .num = d,
				     .integer = integer };
	s->p = q;
	return 0;
}

static int value(struct scan *s, int depth, struct mt_jv *v);

/* An object or array at its bracket (validated; its members are not kept). */
static int container(struct scan *s, int depth, struct mt_jv *v)
{
	const unsigned char *b = s->p;
	bool obj = *b == '{';
	unsigned char close = obj ? '}' : ']';
	int r;

	if (depth >= MT_JSONL_MAX_DEPTH)
		return MT_JSONL_DEPTH;
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		goto done;
	}
	for (;;) {
		if (obj) {
			if (s->p >= s->end || *s->p != '"')
				return MT_JSONL_SYNTAX;
			if ((r = string(s, NULL)) < 0)
				return r;
			ws(s);
			if (s->p >= s->end || *s->p != ':')
				return MT_JSONL_SYNTAX;
			s->p++;
		}
		if ((r = value(s, depth + 1, NULL)) < 0)
			return r;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			break;
		}
		return MT_JSONL_SYNTAX;
	}
done:
	if (v)
		*v = (struct mt_jv){ .type = obj ? MT_JV_OBJECT : MT_JV_ARRAY,
				     .s = (const char *)b,
				     .len = (size_t)(s->p - b) };
	return 0;
}

static int value(struct scan *s, int depth, struct mt_jv *v)
{
	enum mt_jv_type t;

	ws(s);
	if (s->p >= s->end)
		return MT_JSONL_SYNTAX;
	switch (*s->p) {
	case '"':
		return string(s, v);
	case '{':
	case '[':
		return container(s, depth, v);
	case 't':
		t = MT_JV_TRUE;
		if (!lit(s, "true", 4))
			return MT_JSONL_SYNTAX;
		break;
	case 'f':
		t = MT_JV_FALSE;
		if (!lit(s, "false", 5))
			return MT_JSONL_SYNTAX;
		break;
	case 'n':
		t = MT_JV_NULL;
		if (!lit(s, "null", 4))
			return MT_JSONL_SYNTAX;
		break;
	case 'N':
		if (!lit(s, "NaN", 3))
			return MT_JSONL_SYNTAX;
		if (v)
			*v = (struct mt_jv){ .type = MT_JV_NUMBER,
					     .s = (const char *)s->p - 3,
					     .len = 3,
					     .num = NAN };
		return 0;
	default:
		return number(s, v);
	}
	if (v)
		*v = (struct mt_jv){ .type = t,
				     .s = (const char *)s->p - (t == MT_JV_FALSE ? 5 : 4),
				     .len = t == MT_JV_FALSE ? 5 : 4 };
	return 0;
}

/* a == b for a key's few bytes, without a call. */
static inline bool eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Which wanted key the member's key is (-1: none), the key at s->p's quote. The keys of a
 * file usually come in one order: the one after the last found is tried first. */
static int key(struct scan *s, struct mt_jsonl_keys *ks, int *which)
{
	struct mt_jv k;
	size_t mark = s->used;
	int r = string(s, &k);
	unsigned g = ks->guess;

	*which = -1;
	if (r < 0)
		return r;
	if (g < ks->n && ks->len[g] == k.len && eq(ks->keys[g], k.s, k.len)) {
		*which = (int)g;
	} else {
		for (unsigned i = 0; i < ks->n; i++)
			if (ks->len[i] == k.len && k.len && ks->keys[i][0] == k.s[0] &&
			    eq(ks->keys[i], k.s, k.len)) {
				*which = (int)i;
				break;
			}
	}
	if (*which >= 0)
		ks->guess = (unsigned)*which + 1;
	s->used = mark; /* the key's text is not kept */
	return 0;
}

void mt_jsonl_keys_init(struct mt_jsonl_keys *ks, const char *const *keys, unsigned nkeys)
{
	ks->n = nkeys > MT_JSONL_MAX_KEYS ? MT_JSONL_MAX_KEYS : nkeys;
	ks->keys = keys;
	ks->guess = 0;
	for (unsigned i = 0; i < ks->n; i++)
		ks->len[i] = strlen(keys[i]);
}

int mt_jsonl_object(const char *p, size_t n, const char *const *keys, unsigned nkeys,
		    struct mt_jv *vals, char *scratch)
{
	struct mt_jsonl_keys ks;

	mt_jsonl_keys_init(&ks, keys, nkeys);
	return mt_jsonl_object_k(p, n, &ks, vals, scratch);
}

int mt_jsonl_object_k(const char *p, size_t n, struct mt_jsonl_keys *ks, struct mt_jv *vals,
		      char *scratch)
{
	struct scan s = { (const unsigned char *)p, (const unsigned char *)p + n, scratch, 0 };
	int r, which;

	for (unsigned i = 0; i < ks->n; i++)
		vals[i] = (struct mt_jv){ .type = MT_JV_MISSING };
	ks->guess = 0;
	ws(&s);
	if (s.p >= s.end || *s.p != '{') {
		/* JSON of another kind, or not JSON */
		r = value(&s, 0, NULL);
		ws(&s);
		return r < 0 ? r : s.p == s.end ? MT_JSONL_NOT_OBJECT : MT_JSONL_SYNTAX;
	}
	s.p++;
	ws(&s);
	if (s.p < s.end && *s.p == '}') {
		s.p++;
		goto end;
	}
	for (;;) {
		if (s.p >= s.end || *s.p != '"')
			return MT_JSONL_SYNTAX;
		if ((r = key(&s, ks, &which)) < 0)
			return r;
		ws(&s);
		if (s.p >= s.end || *s.p != ':')
			return MT_JSONL_SYNTAX;
		s.p++;
		/* a later duplicate replaces the earlier value, as in Python */
		if ((r = value(&s, 1, which >= 0 ? &vals[which] : NULL)) < 0)
			return r;
		ws(&s);
		if (s.p < s.end && *s.p == ',') {
			s.p++;
			ws(&s);
			continue;
		}
		if (s.p < s.end && *s.p == '}') {
			s.p++;
			break;
		}
		return MT_JSONL_SYNTAX;
	}
end:
	ws(&s);
	return s.p == s.end ? MT_JSONL_OK : MT_JSONL_SYNTAX;
}

const char *mt_jsonl_errname(int err)
{
	switch (err) {
	case MT_JSONL_OK:
		return "ok";
	case MT_JSONL_SYNTAX:
		return "not JSON";
	case MT_JSONL_NOT_OBJECT:
		return "not an object";
	case MT_JSONL_UTF8:
		return "invalid UTF-8";
	case MT_JSONL_DEPTH:
		return "nested too deeply";
	default:
		return "?";
	}
}
