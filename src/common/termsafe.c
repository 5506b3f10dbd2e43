/* SPDX-License-Identifier: MIT */
/* Control characters escaped for terminals (termsafe.h). */
#include "common/termsafe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The escape of byte c (a control), into out (at least 5 bytes); its length. */
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

static bool is_c0(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* A C1 control in UTF-8: C2 followed by 80..9F. */
static bool is_c1(const unsigned char *s)
{
	return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f;
}

int mt_has_ctl(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (is_c0(*p) || is_c1(p))
			return 1;
	return 0;
}

char *mt_escape_ctl(const char *s, char *buf, size_t size)
{
	size_t o = 0;
	char e[8];

	if (!size)
		return buf;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n;

		if (is_c1(p)) {
			n = escape(*++p, e);
		} else if (is_c0(*p)) {
			n = escape(*p, e);
		} else {
			e[0] = (char)*p;
			n = 1;
		}
		if (o + n >= size)
			break;
		memcpy(buf + o, e, n);
		o += n;
	}
	buf[o] = 0;
	return buf;
}

struct ctl_stream {
	FILE *to;
	bool c2; /* the last byte written was 0xC2, held back: a C1 control may follow */
};

static ssize_t ctl_write(void *cookie, const char *b, size_t n)
{
	struct ctl_stream *cs = cookie;
	char e[8];

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if (cs->c2) {
			cs->c2 = false;
			if (c >= 0x80 && c <= 0x9f) {
				fwrite(e, 1, escape(c, e), cs->to);
				continue;
			}
			fputc(0xc2, cs->to);
		}
		if (c == 0xc2)
			cs->c2 = true;
		else if (is_c0(c) && c != '\n')
			fwrite(e, 1, escape(c, e), cs->to);
		else
			fputc(c, cs->to);
	}
	return ferror(cs->to) ? -1 : (ssize_t)n;
}

static int ctl_close(void *cookie)
{
	struct ctl_stream *cs = cookie;
	int r;

	if (cs->c2)
		fputc(0xc2, cs->to);
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
