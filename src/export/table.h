/* SPDX-License-Identifier: MIT */
/* Aligned text tables for people, and CSV cells for scripts. */
#ifndef MEMTAP_EXPORT_TABLE_H
#define MEMTAP_EXPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/compiler.h"

enum mt_align { MT_LEFT, MT_RIGHT };

/* A table of strings: columns declared once, rows added cell by cell, printed aligned. */
struct mt_table {
	size_t ncols;
	const char **heads;
	enum mt_align *align;
	char **cells; /* row-major, nrows * ncols */
	size_t nrows, cap;
	size_t cur; /* cells added to the current row */
};

/* heads: ncols column titles; a title starting with '>' is right-aligned (the '>' is not shown). */
int mt_table_init(struct mt_table *t, size_t ncols, const char *const *heads);
void mt_table_release(struct mt_table *t);
/* Adds the next cell (rows fill left to right, then wrap). NULL is an empty cell. */
int mt_table_add(struct mt_table *t, const char *cell);
int mt_table_addf(struct mt_table *t, const char *fmt, ...) MT_PRINTF(2, 3);
/* Prints with two spaces between columns and the given indent; control bytes shown as '?',
 * a cell wider than MT_TABLE_CELL_MAX columns cut there with an ellipsis (scripts read the
 * whole of it in JSON or CSV). */
#define MT_TABLE_CELL_MAX 256
void mt_table_print(const struct mt_table *t, FILE *f, int indent, bool header);

/* Writes one CSV cell (RFC 4180 quoting when needed), preceded by a comma unless first. A
 * text cell starting with =, +, -, @, TAB or CR (which a spreadsheet would evaluate as a
 * formula) is written quoted with a leading ' (OWASP's CSV-injection rule), numbers
 * excepted; unless mt_csv_raw (--csv-raw). */
extern bool mt_csv_raw;
void mt_csv_cell(FILE *f, const char *s, size_t n, bool first);
/* s as HTML or XML text: & < > " ' escaped, control characters but tab dropped. */
void mt_markup_text(FILE *f, const char *s);
/* Writes the whole table as CSV: its heads, then every row. */
void mt_table_csv(const struct mt_table *t, FILE *f);
/* One line of a report section's two-column summary: "  label  value" (label padded to 30)
 * in text, "| label | value |" in Markdown. */
void mt_summary_row(FILE *f, bool md, const char *label, const char *fmt, ...) MT_PRINTF(4, 5);

#endif
