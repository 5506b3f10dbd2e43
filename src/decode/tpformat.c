/* SPDX-License-Identifier: MIT */
/* Tracepoint format descriptions: fields, their kinds, and __print_symbolic value names. */
#include "decode/tpformat.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYMBOLS_MAX (64u << 10) /* bytes of value names kept per field */

/*
 * A description looks like (tracefs events/skb/kfree_skb/format):
 *
 *	name: kfree_skb
 *	ID: 2310
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *		...
 *		field:void * skbaddr;	offset:8;	size:8;	signed:0;
 *		field:__data_loc char[] name;	offset:40;	size:4;	signed:0;
 *	print fmt: "... reason: %s", ..., __print_symbolic(REC->reason, { 2, "NOT_SPECIFIED" }, ...)
 */

static bool ident_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

static const char *line_value(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n))
			return p + n;
	return NULL;
}

static unsigned long num_after(const char *from, const char *eol, const char *key, bool *ok)
{
	const char *k = strstr(from, key);
	char *end;
	unsigned long v;

	if (!k || (eol && k > eol)) {
		*ok = false;
		return 0;
	}
	v = strtoul(k + strlen(key), &end, 10);
	if (end == k + strlen(key))
		*ok = false;
	return v;
}

/* One "field:DECL;" line into f: 1 stored, 0 unsupported, 2 a common_ field, -1 malformed. */
static int parse_field(const char *p, struct mt_tpf_field *f)
{
	const char *semi = strchr(p, ';'), *eol = strchr(p, '\n'), *e, *q;
	bool ok = true, is_signed, array, dyn, chr;
	unsigned long off, size;
	size_t nl;

	if (!semi || (eol && semi > eol))
		return -1;
	e = semi;
	array = e > p && e[-1] == ']';
	if (array)
		while (e > p && *e != '[')
			e--;
	q = e;
	while (q > p && ident_char(q[-1]))
		q--;
	nl = (size_t)(e - q);
	if (!nl || nl >= MT_TPF_NAME_MAX)
		return -1;
	off = num_after(semi, eol, "offset:", &ok);
	size = num_after(semi, eol, "size:", &ok);
	is_signed = num_after(semi, eol, "signed:", &ok) != 0;
	if (!ok || off > 65535 || !size || size > 65535)
		return -1;
	if (nl > 7 && !strncmp(q, "common_", 7))
		return 2;
	dyn = !strncmp(p, "__data_loc", 10) || !strncmp(p, "__rel_loc", 9);
	chr = false;
	for (const char *c = p; c + 4 <= q; c++)
		if (!strncmp(c, "char", 4) && (c == p || !ident_char(c[-1])) && !ident_char(c[4]))
			chr = true;
	memset(f, 0, sizeof(*f));
	memcpy(f->name, q, nl);
	f->offset = (unsigned)off;
	f->size = (unsigned)size;
	if (dyn) {
		if (!chr || size != 4)
			return 0; /* a dynamic array of something else */
		f->kind = MT_TPF_DYNSTR;
		if (!strncmp(p, "__rel_loc", 9))
			f->size =
				0x10004; /* marks a relative location (offset from the field's end) */
	} else if (array) {
		if (!chr)
			return 0;
		f->kind = MT_TPF_STR;
	} else {
		if (size != 1 && size != 2 && size != 4 && size != 8)
			return 0;
		f->kind = memchr(p, '*', (size_t)(q - p)) ? MT_TPF_PTR
			  : is_signed			  ? MT_TPF_INT
							  : MT_TPF_UINT;
	}
	return 1;
}

/* Appends "V=NAME" entries of one __print_symbolic(REC->x, { V, "NAME" }, ...) to *out. */
static int parse_symbols(const char *p, char **out)
{
	size_t cap = 0, len = 0;
	char *s = NULL;
	int depth = 1;

	/* p is just after the field name; the list runs to the call's closing parenthesis */
	while (*p && depth > 0) {
		if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			depth--;
		} else if (*p == '{') {
			char *end;
			long long v;
			const char *name, *close;

			p++;
			while (*p == ' ')
				p++;
			v = strtoll(p, &end, 0);
			if (end == p) { /* an enum name the kernel did not resolve: no value */
				p = strchr(p, '}');
				if (!p)
					break;
				p++;
				continue;
			}
			name = strchr(end, '"');
			close = name ? strchr(name + 1, '"') : NULL;
			if (!close)
				break;
			name++;
			if (len + (size_t)(close - name) + 32 < SYMBOLS_MAX) {
				size_t need = len + (size_t)(close - name) + 32;

				if (need > cap) {
					char *ns = realloc(s, need * 2);

					if (!ns) {
						free(s);
						return -ENOMEM;
					}
					s = ns;
					cap = need * 2;
				}
				len += (size_t)snprintf(s + len, cap - len,
							"%s%lld=", len ? "," : "", v);
				for (const char *c = name; c < close;
				     c++) /* keep the list parsable */
					s[len++] = *c == ',' || *c == '=' ? '_' : *c;
				s[len] = 0;
			}
			p = strchr(close, '}');
			if (!p)
				break;
		} else if (*p == '"') {
			const char *close = strchr(p + 1, '"');

			if (!close)
				break;
			p = close;
		}
		p++;
	}
	*out = s;
	return 0;
}

int mt_tpf_parse(const char *text, struct mt_tpf *d)
{
	const char *v, *pf;
	int fields = 0;

	memset(d, 0, sizeof(*d));
	d->id = -1;
	if ((v = line_value(text, "name: ")) != NULL) {
		size_t n = strcspn(v, "\n");

		if (n >= sizeof(d->name))
			n = sizeof(d->name) - 1;
		memcpy(d->name, v, n);
	}
	if ((v = line_value(text, "ID: ")) != NULL) {
		char *end;
		long id = strtol(v, &end, 10);

		if (end != v && id >= 0 && id <= 65535)
			d->id = (int)id;
	}
	for (const char *p = strstr(text, "field:"); p; p = strstr(p + 6, "field:")) {
		struct mt_tpf_field f;
		int r = parse_field(p + 6, &f);

		if (r < 0)
			continue;
		fields++;
		if (r == 2)
			continue;
		if (r == 0 || d->nfields == MT_TPF_MAX_FIELDS) {
			d->skipped++;
			continue;
		}
		d->f[d->nfields++] = f;
	}
	if (!fields)
		return -EPROTO;
	pf = strstr(text, "print fmt:");
	for (const char *p = pf ? strstr(pf, "__print_symbolic(") : NULL; p;
	     p = strstr(p + 1, "__print_symbolic(")) {
		const char *a = p + 17, *e;

		while (*a == ' ')
			a++;
		if (strncmp(a, "REC->", 5))
			continue;
		a += 5;
		e = a;
		while (ident_char(*e))
			e++;
		for (unsigned i = 0; i < d->nfields; i++) {
			if (strlen(d->f[i].name) != (size_t)(e - a) ||
			    strncmp(d->f[i].name, a, (size_t)(e - a)) || d->f[i].symbols)
				continue;
			if (parse_symbols(e, &d->f[i].symbols) < 0) {
				mt_tpf_release(d);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

void mt_tpf_release(struct mt_tpf *d)
{
	for (unsigned i = 0; i < d->nfields && i < MT_TPF_MAX_FIELDS; i++) {
		free(d->f[i].symbols);
		d->f[i].symbols = NULL;
	}
}

uint64_t mt_tpf_value(const struct mt_tpf_field *f, const uint8_t *rec, size_t n, const char **str,
		      size_t *len)
{
	uint64_t v = 0;

	*str = "";
	*len = 0;
	switch (f->kind) {
	case MT_TPF_STR:
		if ((size_t)f->offset + f->size <= n) {
			const uint8_t *z = memchr(rec + f->offset, 0, f->size);

			*str = (const char *)rec + f->offset;
			*len = z ? (size_t)(z - (rec + f->offset)) : f->size;
		}
		return 0;
	case MT_TPF_DYNSTR:
		if ((size_t)f->offset + 4 <= n) {
			uint32_t loc;
			size_t at, l;

			memcpy(&loc, rec + f->offset, 4);
			at = loc & 0xffff;
			l = loc >> 16;
			if (f->size == 0x10004) /* __rel_loc: from the end of this field */
				at += (size_t)f->offset + 4;
			if (at <= n && l <= n - at) {
				const uint8_t *z = memchr(rec + at, 0, l);

				*str = (const char *)rec + at;
				*len = z ? (size_t)(z - (rec + at)) : l;
			}
		}
		return 0;
	default:
		break;
	}
	if ((size_t)f->offset + f->size > n)
		return 0;
	memcpy(&v, rec + f->offset, f->size); /* little-endian: the low bytes */
	if (f->kind == MT_TPF_INT && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ull << (f->size * 8);
	return v;
}

const char *mt_tpf_kind_name(enum mt_tpf_kind k)
{
	switch (k) {
	case MT_TPF_INT:
		return "i64";
	case MT_TPF_PTR:
		return "hex";
	case MT_TPF_STR:
	case MT_TPF_DYNSTR:
		return "str";
	default:
		return "u64";
	}
}

const char *mt_tpf_symbol(const char *symbols, uint64_t v, char *buf, size_t size)
{
	const char *p = symbols;

	while (p && *p) {
		char *end;
		long long x = strtoll(p, &end, 10);
		const char *comma;

		if (end == p || *end != '=')
			return NULL;
		comma = strchr(end + 1, ',');
		if ((uint64_t)x == v) {
			size_t l = comma ? (size_t)(comma - end - 1) : strlen(end + 1);

			if (l >= size)
				l = size - 1;
			memcpy(buf, end + 1, l);
			buf[l] = 0;
			return buf;
		}
		p = comma ? comma + 1 : NULL;
	}
	return NULL;
}
