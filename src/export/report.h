/* SPDX-License-Identifier: MIT */
/* `memtap report`: the model's sections (analysis/model.h) rendered as text, Markdown, JSON
 * or CSV. */
#ifndef MEMTAP_EXPORT_REPORT_H
#define MEMTAP_EXPORT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/model.h"

enum mt_report_format { MT_REPORT_TEXT, MT_REPORT_MD, MT_REPORT_JSON, MT_REPORT_CSV };

struct mt_json;
struct mt_table;

/* Pieces shared with `memtap info`. */
void mt_report_json_collectors(struct mt_json *j, const struct mt_run *run);
/* "argv": [...] of a process. */
void mt_report_json_argv(struct mt_json *j, const struct mt_proc *p);
/* One process object; full adds argv, start_offset_ns, exit_code/signal, execs, children. */
/* A process's members without the braces (mt_report_json_process adds them). */
void mt_report_json_process_fields(struct mt_json *j, const struct mt_procs *ps, size_t i,
				   uint64_t t0, bool full);
/* Did the collector run (active or degraded)? Its figures are then counts, else null. */
bool mt_report_collector_ran(const struct mt_run *run, const char *name);
/* A process's own figures, each with whether it was measured: faults and RSS peak from
 * their passes (memtap's own memory left out), system calls and access samples from the
 * process pass. */
struct mt_proc_figures {
	bool has_faults, has_rss, has_syscalls, has_samples;
	uint64_t minor, major, rss_peak, syscalls, samples;
};
void mt_report_proc_figures(const struct mt_report *rep, const struct mt_proc *p,
			    struct mt_proc_figures *f);
/* The report's "processes": each with its own figures (report-procs.c). */
void mt_report_procs_json(const struct mt_report *rep, struct mt_json *j);
/* An attached or system-wide recording's processes ranked by their page faults. */
void mt_report_top_processes_text(const struct mt_report *rep, bool md, FILE *f);
void mt_report_json_process(struct mt_json *j, const struct mt_procs *ps, size_t i, uint64_t t0,
			    bool full);
void mt_report_collector_table(const struct mt_run *run, struct mt_table *t);
/* Under the candidates and placement headings: what a --max-size fold did to the joins. */
void mt_report_fold_note(const struct mt_report *rep, bool md, FILE *f);
/* What record --max-size did, in one line (run->budget.max must be set). */
void mt_report_budget_line(const struct mt_run *run, char *text, size_t n);
/* raw: creation order and nanoseconds (for CSV); else the tree, indented, human units. */
void mt_report_process_table(const struct mt_procs *ps, uint64_t t0, bool raw, struct mt_table *t);

void mt_report_alloc_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_alloc_text(const struct mt_report *rep, bool md, FILE *f);
/* The sites table (every ranked site) for CSV. */
void mt_report_alloc_sites_table(const struct mt_report *rep, struct mt_table *t);
void mt_report_access_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_access_text(const struct mt_report *rep, bool md, FILE *f);
void mt_report_access_regions_table(const struct mt_report *rep, struct mt_table *t);
void mt_report_faults_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_faults_text(const struct mt_report *rep, bool md, FILE *f);
/* The regions list in JSON: once, after the access and faults sections. */
void mt_report_regions_json(const struct mt_report *rep, struct mt_json *j);
/* One region type's object of metrics.by_type. */
void mt_report_type_json(struct mt_json *j, const struct mt_access_stats *st,
			 const struct mt_type_metrics *m);
/* report-metrics.c */
enum mt_report_by { MT_BY_TYPE, MT_BY_REGION, MT_BY_SITE, MT_BY_PHASE };
void mt_report_metrics_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_metrics_text(const struct mt_report *rep, bool md, FILE *f);
void mt_report_candidates_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_candidates_text(const struct mt_report *rep, bool md, FILE *f);
/* report-placement.c: what-if placement, and why columns are null ("" when none is) */
void mt_report_placement_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_placement_text(const struct mt_report *rep, bool md, FILE *f);
const char *mt_report_placement_missing(const struct mt_report *rep, char *buf, size_t size);
/* The metrics table by region type, for CSV. */
void mt_report_metrics_table(const struct mt_report *rep, struct mt_table *t);
/* A region's behaviour fields, inside its object of the regions list. */
void mt_report_region_behavior_json(struct mt_json *j, const struct mt_access_stats *st,
				    const struct mt_access_region *g);
/* An MRM label with its evidence, for people: "high_mrm (write_once+retention, 2,345 reads)". */
const char *mt_report_mrm_text(unsigned label, unsigned by, uint64_t reads, char *buf, size_t size);
/* report-evidence.c */
/* A duration in s for people ("228.0 ms", "-"), "≥ " before it when censored. */
const char *mt_report_secs(double s, bool censored, char *buf, size_t size);
/*
 * Why censoring left an MRM label open (open: MT_MRM_NEEDS_*), and the run that could
 * settle it: "alive at the end of a 0.40 s run (retention ≥ 400.1 ms so far); high_mrm
 * needs 10 s: a run of at least 10.0 s". born_ns: where the region's retention counts from
 * (0 for a type: no run length); alive of `of` regions when of > 0. "" when nothing is
 * open. *run_s: the run length (NaN when none).
 */
const char *mt_report_censor_note(const struct mt_access_stats *st, unsigned open,
				  double retention_s, uint64_t born_ns, uint64_t alive, uint64_t of,
				  char *buf, size_t size, double *run_s);
/* mrm_note and run_needed_s of a label censoring left open (nulls when nothing is). */
void mt_report_censor_note_json(struct mt_json *j, const struct mt_access_stats *st, unsigned open,
				double retention_s, uint64_t born_ns, uint64_t alive, uint64_t of);
/* WHAT_censored, WHAT_estimator and WHAT_lower_bound_from of a set of durations. */
void mt_report_censoring_json(struct mt_json *j, const char *what, const struct mt_surv *sv,
			      unsigned lower_from);
/* A site's "behaviour" object: its verdict (nulls: none) and the counts behind it. */
void mt_report_behaviour_json(struct mt_json *j, const struct mt_site_behaviour *b);
void mt_report_rss_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_rss_text(const struct mt_report *rep, bool md, FILE *f);
void mt_report_events_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_events_text(const struct mt_report *rep, bool md, FILE *f);

/* report-syscalls.c */
/* key: a list of {name, nr, calls, errors, total_ns, no_return[, min_ns, max_ns]}. */
void mt_report_syscall_list_json(struct mt_json *j, const char *key,
				 const struct mt_syscall_table *tb, bool extremes);
void mt_report_syscalls_json(const struct mt_report *rep, struct mt_json *j);
void mt_report_syscalls_text(const struct mt_report *rep, bool md, FILE *f);
/* Markdown rendering of a table (report.c). */
void mt_report_md_table(const struct mt_table *t, FILE *f);

/* CSV prints one table: the first selected section that is a table (processes, alloc sites). */
int mt_report_print(const struct mt_report *rep, enum mt_report_format fmt, int sections, FILE *f);

#endif
