/* SPDX-License-Identifier: MIT */
/* `memtap report`: the sections of a trace's report, rendered as text, Markdown, JSON or CSV. */
#ifndef MEMTAP_EXPORT_REPORT_H
#define MEMTAP_EXPORT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/procs.h"
#include "analysis/run.h"

struct mt_reader;

enum mt_report_format { MT_REPORT_TEXT, MT_REPORT_MD, MT_REPORT_JSON, MT_REPORT_CSV };

/* Sections (bits); a section whose data the trace lacks is left out. */
enum {
	MT_SEC_RUN = 1 << 0,
	MT_SEC_PROCESSES = 1 << 1,
	MT_SEC_ALL = MT_SEC_RUN | MT_SEC_PROCESSES,
};

struct mt_report {
	struct mt_reader *r;
	const char *path;
	struct mt_run run;
	struct mt_procs procs;
};

/* Section bits from a comma-separated list; -1 for an unknown name (*bad set to it). */
int mt_report_sections(const char *list, const char **bad);
/* The list of section names, for help and errors. */
const char *mt_report_section_names(void);

int mt_report_load(struct mt_report *rep, struct mt_reader *r, const char *path);
void mt_report_release(struct mt_report *rep);
struct mt_json;
struct mt_table;

/* Pieces shared with `memtap info`. */
void mt_report_json_collectors(struct mt_json *j, const struct mt_run *run);
/* One process object; full adds argv, start_offset_ns, exit_code/signal, execs, children. */
void mt_report_json_process(struct mt_json *j, const struct mt_procs *ps, size_t i, uint64_t t0,
			    bool full);
void mt_report_collector_table(const struct mt_run *run, struct mt_table *t);
/* raw: creation order and nanoseconds (for CSV); else the tree, indented, human units. */
void mt_report_process_table(const struct mt_procs *ps, uint64_t t0, bool raw, struct mt_table *t);

/* CSV prints one table: the first selected section that is a table (processes). */
int mt_report_print(const struct mt_report *rep, enum mt_report_format fmt, int sections, FILE *f);

#endif
