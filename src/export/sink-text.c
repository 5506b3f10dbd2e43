/* SPDX-License-Identifier: MIT */
/* Table sinks as text: CSV (RFC 4180, a header row, nulls empty) and JSON lines (one object
 * per row, nulls as null, every column present). */
#include "export/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/outfile.h"
#include "common/buf.h"
#include "export/json.h"
#include "export/table.h"

#define MAX_ROW (64u << 20) /* bytes of one row's values */

struct cell {
	bool set, quote; /* quote: a string (JSON) */
	size_t off, len; /* in row */
};

struct text_sink {
	struct mt_sink s;
	FILE *f;
	struct mt_outfile of; /* the new file, renamed into place at commit */
	bool jsonl;
	int err;
	const struct mt_col *cols;
	unsigned ncols;
	struct cell *cells;
	struct mt_buf row;
};

static struct cell *slot(struct text_sink *t, unsigned col)
{
	if (col >= t->ncols || t->err || t->cells[col].set)
		return NULL;
	t->cells[col].off = t->row.len;
	return &t->cells[col];
}

static void put(struct text_sink *t, struct cell *c, const char *p, size_t n, bool quote)
{
	if (mt_buf_append(&t->row, p, n) < 0) {
		t->err = -ENOMEM;
		return;
	}
	c->len = n;
	c->set = true;
	c->quote = quote;
}

/* Decimal digits of v into the end of buf; returns the first. */
static char *dec(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static void t_u64(struct mt_sink *s, unsigned col, uint64_t v)
{
	struct text_sink *t = (struct text_sink *)s;
	struct cell *c = slot(t, col);
	char b[24], *p;

	if (!c)
		return;
	p = dec(b + sizeof(b), v);
	put(t, c, p, (size_t)(b + sizeof(b) - p), false);
}

static void t_i64(struct mt_sink *s, unsigned col, int64_t v)
{
	struct text_sink *t = (struct text_sink *)s;
	struct cell *c = slot(t, col);
	char b[24], *p;

	if (!c)
		return;
	p = dec(b + sizeof(b), v < 0 ? -(uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--p = '-';
	put(t, c, p, (size_t)(b + sizeof(b) - p), false);
}

static void t_dbl(struct mt_sink *s, unsigned col, double v)
{
	struct text_sink *t = (struct text_sink *)s;
	struct cell *c;
	char b[40];
	int n;

	if (!isfinite(v)) /* no value JSON or a CSV reader would take: null */
		return;
	c = slot(t, col);
	if (!c)
		return;
	/* the shortest of %.15g and %.17g that reads back as v */
	n = snprintf(b, sizeof(b), "%.15g", v);
	if (strtod(b, NULL) != v)
		n = snprintf(b, sizeof(b), "%.17g", v);
	put(t, c, b, (size_t)n, false);
}

static void t_str(struct mt_sink *s, unsigned col, const char *v)
{
	struct text_sink *t = (struct text_sink *)s;
	struct cell *c;

	if (!v)
		return;
	c = slot(t, col);
	if (c)
		put(t, c, v, strlen(v), true);
}

static int t_end_row(struct mt_sink *s)
{
	struct text_sink *t = (struct text_sink *)s;

	for (unsigned i = 0; i < t->ncols && !t->err; i++)
		if (!t->cells[i].set && !t->cols[i].optional)
			t->err = -EINVAL; /* a REQUIRED column without a value */
	if (t->err)
		return t->err;
	if (t->jsonl)
		fputc('{', t->f);
	for (unsigned i = 0; i < t->ncols; i++) {
		const struct cell *c = &t->cells[i];
		const char *v = (const char *)t->row.data + c->off;

		if (t->jsonl) {
			if (i)
				fputc(',', t->f);
			mt_json_write_string(t->f, t->cols[i].name, strlen(t->cols[i].name), false);
			fputc(':', t->f);
			if (!c->set)
				fputs("null", t->f);
			else if (c->quote)
				mt_json_write_string(t->f, v, c->len, false);
			else
				fwrite(v, 1, c->len, t->f);
		} else if (c->set && c->quote && !c->len) {
			/* an empty string, apart from null (unquoted empty), as PostgreSQL's CSV */
			fputs(i ? ",\"\"" : "\"\"", t->f);
		} else {
			mt_csv_cell(t->f, c->set ? v : "", c->set ? c->len : 0, i == 0);
		}
	}
	fputs(t->jsonl ? "}\n" : "\n", t->f);
	memset(t->cells, 0, t->ncols * sizeof(*t->cells));
	mt_buf_reset(&t->row);
	if (ferror(t->f))
		t->err = -EIO;
	return t->err;
}

static int t_close(struct mt_sink *s, bool commit)
{
	struct text_sink *t = (struct text_sink *)s;
	int rc = t->err;

	if (t->f) {
		if (fflush(t->f) != 0 && !rc)
			rc = -errno;
		if (commit && !rc && fsync(fileno(t->f)) < 0)
			rc = -errno;
		if (commit && !rc)
			rc = mt_outfile_commit(&t->of);
		else
			mt_outfile_abort(&t->of);
	} else {
		mt_outfile_abort(&t->of);
	}
	mt_buf_release(&t->row);
	free(t->cells);
	free(t);
	return commit ? rc : 0;
}

static const struct mt_sink_ops text_ops = {
	.i64 = t_i64,
	.u64 = t_u64,
	.dbl = t_dbl,
	.str = t_str,
	.end_row = t_end_row,
	.close = t_close,
};

int mt_sink_text_open(const char *path, bool force, bool jsonl, const struct mt_col *cols,
		      unsigned ncols, struct mt_sink **ret)
{
	struct text_sink *t;
	int r;

	if (!force && mt_path_exists(path))
		return -EEXIST;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->of.fd = -1;
	t->s.ops = &text_ops;
	t->jsonl = jsonl;
	t->cols = cols;
	t->ncols = ncols;
	t->cells = calloc(ncols ? ncols : 1, sizeof(*t->cells));
	mt_buf_init(&t->row, MAX_ROW);
	if (!t->cells) {
		t_close(&t->s, false);
		return -ENOMEM;
	}
	r = mt_outfile_open(&t->of, path, force, 0666);
	if (r < 0 || !(t->f = mt_outfile_stream(&t->of))) {
		r = r < 0 ? r : -errno;
		t_close(&t->s, false);
		return r;
	}
	setvbuf(t->f, NULL, _IOFBF, 1u << 20);
	if (!jsonl) {
		for (unsigned i = 0; i < ncols; i++)
			mt_csv_cell(t->f, cols[i].name, strlen(cols[i].name), i == 0);
		fputc('\n', t->f);
	}
	*ret = &t->s;
	return 0;
}
