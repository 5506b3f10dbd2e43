/* SPDX-License-Identifier: MIT */
/*
 * The analysis model: what every report section and export renders. Loaded in one read of
 * the trace (analysis/pass.h): the run, the process tree, and per section its figures,
 * rankings and names, with one index of the file mappings for every symbolized frame.
 * Renderers (src/export) read it and never go back to the trace's events.
 */
#ifndef MEMTAP_ANALYSIS_MODEL_H
#define MEMTAP_ANALYSIS_MODEL_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/access.h"
#include "analysis/placement.h"
#include "analysis/alloc.h"
#include "analysis/pass.h"
#include "analysis/procs.h"
#include "analysis/rss.h"
#include "analysis/run.h"
#include "analysis/syscalls.h"
#include "analysis/tracepoints.h"
#include "analysis/symbols.h"

struct mt_reader;
struct mt_passes;

/* Sections (bits); a section whose data the trace lacks is left out. */
enum {
	MT_SEC_RUN = 1 << 0,
	MT_SEC_PROCESSES = 1 << 1,
	MT_SEC_ALLOC = 1 << 2,
	MT_SEC_ACCESS = 1 << 3,
	MT_SEC_FAULTS = 1 << 4,
	MT_SEC_RSS = 1 << 5,
	MT_SEC_SYSCALLS = 1 << 6,
	MT_SEC_EVENTS = 1 << 7,
	MT_SEC_METRICS = 1 << 8,
	MT_SEC_CANDIDATES = 1 << 9,
	MT_SEC_PLACEMENT = 1 << 10,
	MT_SEC_ALL = MT_SEC_RUN | MT_SEC_PROCESSES | MT_SEC_ALLOC | MT_SEC_ACCESS | MT_SEC_FAULTS |
		     MT_SEC_RSS | MT_SEC_SYSCALLS | MT_SEC_EVENTS | MT_SEC_METRICS |
		     MT_SEC_CANDIDATES | MT_SEC_PLACEMENT,
};

/* The rankings of allocation sites. */
enum { MT_RANK_CALLS, MT_RANK_PEAK, MT_RANK_LEAKED, MT_RANK_TEMPORARY, MT_NRANKS };

/* A site that made one of the rankings, with its symbolized stack. */
struct mt_report_site {
	size_t site; /* index into alloc.sites */
	unsigned rank[MT_NRANKS]; /* 1-based place in each ranking, 0 when not in it */
	size_t first_frame, nframes; /* into mt_report_alloc.frames, innermost first */
	bool stack_incomplete; /* the stack table lacks some of its nodes */
};

struct mt_report_alloc {
	bool loaded;
	struct mt_alloc_stats st;
	struct mt_sym_stats sym;
	struct mt_report_site *sel;
	size_t nsel;
	size_t *rank[MT_NRANKS]; /* indices into sel, best first */
	size_t nrank[MT_NRANKS];
	struct mt_frame *frames;
	size_t nframes;
	const struct mt_collector_info *coll; /* the "alloc" collector, or NULL */
	struct mt_symbolizer *symbolizer; /* owns the frames' strings */
};

struct mt_report_access {
	bool loaded; /* the access section has something to say */
	bool faults_loaded; /* the faults section has */
	bool pass_done;
	bool metrics_loaded; /* the metrics section has (samples, faults or page writes) */
	size_t *fault_regions; /* regions with faults, most first */
	size_t nfault_regions;
	const struct mt_collector_info *faults_coll;
	struct mt_access_stats st;
	size_t *regions, *sites, *pages; /* indices with samples, most sampled first */
	size_t nregions, nsites, npages;
	const struct mt_collector_info *coll; /* the "access" collector, or NULL */
	struct mt_symbolizer *symbolizer;
	size_t spin[MT_SPIN_SITES]; /* st.spin by samples, most first */
};

struct mt_report_rss {
	bool loaded;
	struct mt_rss_stats st;
	const struct mt_collector_info *coll;
};

struct mt_report_syscalls {
	bool loaded;
	struct mt_syscalls_stats st;
	const struct mt_collector_info *coll;
};

struct mt_report_events {
	bool loaded;
	struct mt_tp_infos infos;
	struct mt_tp_counts counts;
	const struct mt_collector_info *coll;
};

struct mt_report {
	struct mt_reader *r;
	const char *path;
	struct mt_run run;
	struct mt_procs procs;
	unsigned top; /* sites per ranking */
	struct mt_access_opts access_opts; /* working-set window, MRM thresholds */
	int by; /* enum mt_report_by: the metrics section's table */
	struct mt_report_alloc alloc;
	struct mt_report_access access;
	struct mt_report_rss rss;
	struct mt_report_syscalls syscalls;
	struct mt_report_events events;
	struct mt_symbolizer *sym; /* the trace's file mappings: the sections' symbolizers copy it */
	struct mt_candidate *cands; /* MRM candidates, most movable bytes first */
	size_t ncands;
	struct mt_tiers tiers; /* the tier model of what-if placement */
	struct mt_placement *places; /* each candidate on each other tier, ranked */
	size_t nplaces;
};

/* Section bits from a comma-separated list; -1 for an unknown name (*bad set to it). */
int mt_report_sections(const char *list, const char **bad);
/* The list of section names, for help and errors. */
const char *mt_report_section_names(void);

/* Loads what the sections need; top: sites per ranking (0: the default, 10). */
int mt_report_load(struct mt_report *rep, struct mt_reader *r, const char *path, int sections,
		   unsigned top, const struct mt_access_opts *ao);
void mt_report_release(struct mt_report *rep);
/* The same in steps, for a caller with passes of its own in the same read: setup adds the
 * report's passes to ps; the caller adds its own and runs them (mt_passes_run); done settles
 * the sections with the run's status (on failure it releases the report). */
int mt_report_setup(struct mt_report *rep, struct mt_reader *r, const char *path, int sections,
		    unsigned top, const struct mt_access_opts *ao, struct mt_passes *ps);
int mt_report_done(struct mt_report *rep, int sections, int rc);

/* Per section: adds its passes to the read; after it, settles the section; frees it. */
int mt_report_alloc_setup(struct mt_report *rep, struct mt_passes *ps);
int mt_report_alloc_done(struct mt_report *rep);
void mt_report_alloc_release(struct mt_report *rep);
int mt_report_access_setup(struct mt_report *rep, struct mt_passes *ps);
int mt_report_access_done(struct mt_report *rep);
void mt_report_access_release(struct mt_report *rep);
int mt_report_rss_setup(struct mt_report *rep, struct mt_passes *ps);
int mt_report_rss_done(struct mt_report *rep);
void mt_report_rss_release(struct mt_report *rep);
int mt_report_syscalls_setup(struct mt_report *rep, struct mt_passes *ps);
int mt_report_syscalls_done(struct mt_report *rep);
void mt_report_syscalls_release(struct mt_report *rep);
int mt_report_events_setup(struct mt_report *rep, struct mt_passes *ps);
int mt_report_events_done(struct mt_report *rep);
void mt_report_events_release(struct mt_report *rep);

/* The run's collector of that name, or NULL. */
const struct mt_collector_info *mt_report_collector(const struct mt_report *rep, const char *name);
/* Names the renderers share: an allocation site's innermost useful frame, a region's type
 * (its label's, a rule's, or the built-in one) and label. */
const char *mt_report_site_name(const struct mt_report *rep, size_t site, char *buf, size_t size);
/* The site's native frames, "module+0xOFFSET;..." innermost first (tools match stacks by them). */
const char *mt_report_site_stack(const struct mt_report *rep, size_t site, char *buf, size_t size);
const char *mt_report_region_type(const struct mt_report *rep, const struct mt_access_region *g);
/* What gave g its type: "memtap_label", the rule ("profile NAME: symbol RE", "FILE:LINE:
 * path GLOB") in buf, or NULL for the built-in type of its mapping or heap blocks. */
const char *mt_report_typed_by(const struct mt_access_region *g, char *buf, size_t size);
/* A spin-wait site's code: "function (file:line)" or "module+0xoff". */
const char *mt_report_spin_name(const struct mt_report *rep, const struct mt_spin_site *s,
				char *buf, size_t size);
const char *mt_report_region_label(const struct mt_report *rep, const struct mt_access_region *g,
				   char *buf, size_t size);
/* The allocation tracer's site for an access site (NULL: none); the access sites with
 * samples, faults or touched pages, most first (*n of them; free the array). */
const struct mt_alloc_site *mt_report_alloc_site(const struct mt_report *rep,
						 const struct mt_access_site *s);
size_t *mt_report_ranked_sites(const struct mt_access_stats *st, size_t *n);
/* The access sampling behind sample-based figures: its period or frequency (0 when none)
 * and the period's unit ("ns", "cycles", "loads"; NULL without sampling). */
void mt_report_sampling(const struct mt_report *rep, uint64_t *period, uint64_t *hz,
			const char **unit);

#endif
