/* SPDX-License-Identifier: MIT */
/* Aligned text tables and CSV cells. */
#include "common/array.h"
#include "table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int mt_table_init(struct mt_table *t, size_t ncols, const char *const *heads)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->heads = calloc(ncols, sizeof(*t->heads));
	t->align = calloc(ncols, sizeof(*t->align));
	if (!t->heads || !t->align) {
		mt_table_release(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ncols; i++) {
		t->align[i] = heads[i][0] == '>' ? MT_RIGHT : MT_LEFT;
		t->heads[i] = heads[i] + (heads[i][0] == '>');
	}
	return 0;
}

void mt_table_release(struct mt_table *t)
{
	size_t n = t->nrows * t->ncols + t->cur;

	for (size_t i = 0; t->cells && i < n; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->heads);
	free(t->align);
	memset(t, 0, sizeof(*t));
}

int mt_table_add(struct mt_table *t, const char *cell)
{
	size_t n = t->nrows * t->ncols + t->cur;

	if (mt_grow_array(&t->cells, &t->cap, n + 1, sizeof(*t->cells)) < 0)
		return -ENOMEM;
	t->cells[n] = strdup(cell ? cell : "");
	if (!t->cells[n])
		return -ENOMEM;
	if (++t->cur == t->ncols) {
		t->cur = 0;
		t->nrows++;
	}
	return 0;
}

int mt_table_addf(struct mt_table *t, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return mt_table_add(t, buf);
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* A cell's width on the screen: at most MT_TABLE_CELL_MAX (a longer one is cut, with an
 * ellipsis: one 100 KB name must not push every other column off the screen). */
static size_t shown_width(const char *s)
{
	size_t w = width(s);

	return w > MT_TABLE_CELL_MAX ? MT_TABLE_CELL_MAX : w;
}

/* Appends a padded cell to the line; returns the new length (line has room: line_cap()). */
static size_t put_cell(char *line, size_t n, const char *s, size_t w, enum mt_align a)
{
	size_t sw = shown_width(s), cols = 0;
	bool cut = width(s) > MT_TABLE_CELL_MAX;

	if (a == MT_RIGHT)
		for (size_t i = sw; i < w; i++)
			line[n++] = ' ';
	for (const char *c = s; *c; c++) {
		if (((unsigned char)*c & 0xc0) != 0x80 && cut && ++cols > MT_TABLE_CELL_MAX - 1)
			break;
		line[n++] = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
	}
	if (cut) {
		memcpy(line + n, "\xe2\x80\xa6", 3); /* U+2026 HORIZONTAL ELLIPSIS */
		n += 3;
	}
	if (a == MT_LEFT)
		for (size_t i = sw; i < w; i++)
			line[n++] = ' ';
	return n;
}

/* Bytes a cell of the column can take on a line: each shown column 4 bytes of UTF-8 at
 * most, and its padding. */
static size_t cell_cap(size_t w)
{
	return 4 * MT_TABLE_CELL_MAX + w + 3;
}

void mt_table_print(const struct mt_table *t, FILE *f, int indent, bool header)
{
	size_t *w = calloc(t->ncols, sizeof(*w)), cap = (size_t)(indent > 0 ? indent : 0) + 2;
	char *line;

	if (!w)
		return;
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = header ? shown_width(t->heads[c]) : 0;
		for (size_t r = 0; r < t->nrows; r++) {
			size_t cw = shown_width(t->cells[r * t->ncols + c]);

			if (cw > w[c])
				w[c] = cw;
		}
		cap += cell_cap(w[c]) + 2;
	}
	line = malloc(cap);
	for (long r = header ? -1 : 0; line && r < (long)t->nrows; r++) {
		size_t n = 0;

		for (int i = 0; i < indent; i++)
			line[n++] = ' ';
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = r < 0 ? t->heads[c] : t->cells[(size_t)r * t->ncols + c];

			if (c) {
				line[n++] = ' ';
				line[n++] = ' ';
			}
			n = put_cell(line, n, s, w[c], t->align[c]);
		}
		while (n && line[n - 1] == ' ')
			n--;
		line[n++] = '\n';
		fwrite(line, 1, n, f);
	}
	free(line);
	free(w);
}

void mt_markup_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

bool mt_csv_raw;

/* A plain decimal number (a sign, digits, a point, an exponent): never a formula. */
static bool is_number(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (digits && i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = ++i;

		if (i < n && (s[i] == '-' || s[i] == '+'))
			i++;
		for (e = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == e)
			return false;
	}
	return digits && i == n;
}

/* OWASP's rule for CSV injection: a cell a spreadsheet would read as a formula. */
static bool formula_like(const char *s, size_t n)
{
	return n && strchr("=+-@\t\r", s[0]) && s[0] && !is_number(s, n);
}

void mt_csv_cell(FILE *f, const char *s, size_t n, bool first)
{
	bool quote = false, neutral = !mt_csv_raw && formula_like(s, n);

	if (!first)
		fputc(',', f);
	for (size_t i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			quote = true;
	if (!quote && !neutral) {
		fwrite(s, 1, n, f);
		return;
	}
	fputc('"', f);
	if (neutral)
		fputc('\'', f); /* shown as text, never evaluated */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

void mt_table_csv(const struct mt_table *t, FILE *f)
{
	for (size_t c = 0; c < t->ncols; c++)
		mt_csv_cell(f, t->heads[c], strlen(t->heads[c]), c == 0);
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];

			mt_csv_cell(f, cell, strlen(cell), c == 0);
		}
		fputc('\n', f);
	}
}

void mt_summary_row(FILE *f, bool md, const char *label, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s%-30s%s", md ? "| " : "  ", label, md ? " | " : "  ");
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputs(md ? " |\n" : "\n", f);
}
