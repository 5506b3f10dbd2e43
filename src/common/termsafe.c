/* SPDX-License-Identifier: MIT */
/* Control characters escaped for terminals (termsafe.h). */
#include "common/termsafe.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The escape of byte c (a control, or a byte that is not UTF-8), into out (at least 5
 * bytes); its length. */
static size_t escape(unsigned char c, char *out)
{
	static const char named[] = {
		[0x1b] = 'e', ['\r'] = 'r', ['\n'] = 'n', ['\t'] = 't', ['\b'] = 'b', ['\a'] = 'a'
	};
	static const char hex[] = "0123456789abcdef";

	if (c < sizeof(named) && named[c]) {
		out[0] = '\\';
		out[1] = named[c];
		return 2;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

int mt_utf8_at(const unsigned char *p, size_t n, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	int len = p[0] < 0x80			 ? 1
		  : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
		  : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		  : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
						 : 0;
	uint32_t c;

	if (len <= 1) {
		*cp = p[0];
		return len;
	}
	c = p[0] & (0x7f >> len);
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool mt_is_ctl(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* What to write for the character at p (n bytes there): its escape into e (a control,
 * or a byte that is not UTF-8), or itself; *used takes the bytes consumed, 0 when the
 * bytes are an unfinished sequence (more may come). Returns the bytes of e, or 0 to copy
 * *used bytes of p as they are. keep_nl: a newline is copied. */
static size_t classify(const unsigned char *p, size_t n, bool keep_nl, char *e, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t c = 0;
	int len = mt_utf8_at(p, n, &c);

	*used = len < 0 ? 0 : len ? (size_t)len : 1;
	if (len < 0)
		return 0;
	if (!len) /* not UTF-8: the byte itself, escaped */
		return escape(p[0], e);
	if (!mt_is_ctl(c) || (keep_nl && c == '\n'))
		return 0;
	if (c < 0x100)
		return escape((unsigned char)c, e);
	memcpy(e, "\\u", 2);
	for (int i = 0; i < 4; i++)
		e[2 + i] = hex[(c >> (12 - 4 * i)) & 15];
	return 6;
}

int mt_has_ctl(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), used;
	char e[8];

	while (n) {
		if (classify(p, n, false, e, &used) || !used)
			return 1;
		p += used;
		n -= used;
	}
	return 0;
}

char *mt_escape_ctl(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n = strlen(s), used, k;
	char e[8];

	if (!size)
		return buf;
	while (n) {
		k = classify(p, n, false, e, &used);
		if (!used) /* a sequence cut short at the end: its bytes escaped one by one */
			k = escape(p[0], e), used = 1;
		if (!k) {
			k = used;
			memcpy(e, p, used);
		}
		if (o + k >= size)
			break;
		memcpy(buf + o, e, k);
		o += k;
		p += used;
		n -= used;
	}
	buf[o] = 0;
	return buf;
}

struct ctl_stream {
	FILE *to;
	unsigned char held[4]; /* the start of a UTF-8 sequence the last write cut short */
	size_t nheld;
};

/* Writes the bytes of b that form whole characters, escaped; keeps an unfinished
 * sequence at the end in cs->held (unless final: then its bytes are escaped). */
static void ctl_put(struct ctl_stream *cs, const unsigned char *b, size_t n, bool final)
{
	const unsigned char *plain = b; /* a run of bytes written as they are, in one call */
	char e[8];

	while (n) {
		size_t used, k = classify(b, n, true, e, &used);

		if (!used && !final) {
			memcpy(cs->held, b, n);
			cs->nheld = n;
			break;
		}
		if (!used) {
			k = escape(b[0], e);
			used = 1;
		}
		if (k) {
			fwrite(plain, 1, (size_t)(b - plain), cs->to);
			fwrite(e, 1, k, cs->to);
			plain = b + used;
		}
		b += used;
		n -= used;
	}
	fwrite(plain, 1, (size_t)(b - plain), cs->to);
}

static ssize_t ctl_write(void *cookie, const char *b, size_t n)
{
	struct ctl_stream *cs = cookie;
	const unsigned char *u = (const unsigned char *)b;
	size_t i = 0;

	/* an unfinished sequence first completed from the new bytes (at most 3 more) */
	while (cs->nheld && i < n) {
		unsigned char t[4];
		uint32_t cp;
		size_t h = cs->nheld;
		int len;

		memcpy(t, cs->held, h);
		t[h] = u[i];
		len = mt_utf8_at(t, h + 1, &cp);
		if (len < 0 && h + 1 < sizeof(t)) {
			cs->held[cs->nheld++] = u[i++];
			continue;
		}
		cs->nheld = 0;
		if (len > 0) {
			ctl_put(cs, t, h + 1, true);
			i++;
		} else { /* not a sequence after all: its bytes escaped, the new one read anew */
			ctl_put(cs, t, h, true);
		}
	}
	ctl_put(cs, u + i, n - i, false);
	return ferror(cs->to) ? -1 : (ssize_t)n;
}

static int ctl_close(void *cookie)
{
	struct ctl_stream *cs = cookie;
	int r;

	ctl_put(cs, cs->held, cs->nheld, true);
	r = fflush(cs->to);
	free(cs);
	return r;
}

FILE *mt_ctl_stream(FILE *to)
{
	struct ctl_stream *cs = calloc(1, sizeof(*cs));
	FILE *f;

	if (!cs)
		return NULL;
	cs->to = to;
	f = fopencookie(cs, "w", (cookie_io_functions_t){ .write = ctl_write, .close = ctl_close });
	if (!f)
		free(cs);
	return f;
}
