/* SPDX-License-Identifier: MIT */
/* String, number and small-file helpers. */
#include "strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

size_t mt_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t k = n < size - 1 ? n : size - 1;

		memcpy(dst, src, k);
		dst[k] = 0;
	}
	return n;
}

int mt_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int mt_parse_size(const char *s, uint64_t *ret)
{
	char num[32], *end;
	uint64_t v, mul = 1;
	size_t n;
	int r;

	if (!s || !*s)
		return -EINVAL;
	n = strspn(s, "0123456789");
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = 0;
	r = mt_parse_u64(num, &v);
	if (r < 0)
		return r;
	end = (char *)s + n;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	case 't':
	case 'T':
		mul = 1ULL << 40;
		end++;
		break;
	default:
		break;
	}
	if (mul > 1 && *end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (v && mul > UINT64_MAX / v)
		return -ERANGE;
	*ret = v * mul;
	return 0;
}

long mt_read_small_file(const char *path, char *buf, size_t size)
{
	size_t got = 0;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < size - 1) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (long)n;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	buf[got] = 0;
	close(fd);
	return (long)got;
}

int mt_read_line_file(const char *path, char *buf, size_t size)
{
	long n = mt_read_small_file(path, buf, size);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

bool mt_str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *mt_fmt_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	int u = 0;

	if (n < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", n);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
	return buf;
}

const char *mt_fmt_duration(uint64_t ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	return buf;
}

const char *mt_fmt_count(uint64_t n, char *buf, size_t size)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, n), o = 0;

	for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

const char *mt_fmt_argv(const char *argv, size_t len, char *buf, size_t size)
{
	size_t o = 0, i = 0;

	buf[0] = 0;
	while (i < len && o + 4 < size) {
		const char *a = argv + i;
		size_t alen = strnlen(a, len - i);
		bool q = alen == 0;

		for (size_t k = 0; k < alen; k++)
			if (strchr(" \t\n'\"\\$`;|&<>()*?[]{}!#~", a[k]))
				q = true;
		if (i && o + 1 < size)
			buf[o++] = ' ';
		if (q && o + 1 < size)
			buf[o++] = '\'';
		for (size_t k = 0; k < alen && o + 2 < size; k++) {
			if (a[k] == '\'' && q) {
				if (o + 5 >= size)
					break;
				memcpy(buf + o, "'\\''", 4);
				o += 4;
			} else {
				buf[o++] = a[k];
			}
		}
		if (q && o + 1 < size)
			buf[o++] = '\'';
		i += alen + 1;
	}
	buf[o < size ? o : size - 1] = 0;
	return buf;
}

unsigned mt_edit_distance(const char *a, const char *b)
{
	unsigned row[256];
	size_t la = strnlen(a, 255), lb = strnlen(b, 255);

	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *mt_fmt_uuid(const uint8_t id[16], char *buf, size_t size)
{
	size_t o = 0;

	for (int i = 0; i < 16 && o + 3 < size; i++) {
		o += (size_t)snprintf(buf + o, size - o, "%02x", id[i]);
		if ((i == 3 || i == 5 || i == 7 || i == 9) && o + 1 < size)
			buf[o++] = '-';
	}
	buf[o < size ? o : size - 1] = 0;
	return buf;
}

const char *mt_fmt_realtime(uint64_t ns, char *buf, size_t size)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char tmp[64];

	if (!gmtime_r(&sec, &tm) || !strftime(tmp, sizeof(tmp), "%Y-%m-%d %H:%M:%S", &tm)) {
		mt_strlcpy(buf, "?", size);
		return buf;
	}
	snprintf(buf, size, "%s.%03u UTC", tmp, (unsigned)(ns / 1000000 % 1000));
	return buf;
}

bool mt_list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if ((len == n && !strncmp(p, name, n)) || (len == 3 && !strncmp(p, "all", 3)))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

int mt_mkdir_p(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		p[i] = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		p[i] = i < n ? '/' : 0;
	}
	return 0;
}

void mt_fputs_sh(FILE *f, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "@%+=:,./_-") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}
