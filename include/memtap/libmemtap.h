/* SPDX-License-Identifier: MIT */
/*
 * libmemtap: read memtap traces from C. Open a trace, walk its events, run the analysis
 * behind `memtap report` and read its figures, write the exports of `memtap export`.
 *
 *	#include <memtap/libmemtap.h>       cc prog.c $(pkg-config --cflags --libs memtap)
 *
 * Every function returns >= 0 on success and a negative error code on failure
 * (memtap_strerror() says what it means). The event types and field indices are those of
 * <memtap/trace-format.h> (MT_EV_*, MT_F_*), documented in docs/trace-format.md. Objects are
 * not shared between threads without a lock of the caller's.
 */
#ifndef MEMTAP_LIBMEMTAP_H
#define MEMTAP_LIBMEMTAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memtap/trace-format.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEMTAP_LIB_VERSION_MAJOR 0
#define MEMTAP_LIB_VERSION_MINOR 1

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *memtap_version(void);
/* One line explaining err (a negative return value of this library). */
const char *memtap_strerror(int err);

/* ---- traces ---- */

typedef struct memtap_trace memtap_trace;

/* Opens and indexes a trace; a damaged or cut trace opens and reads as far as it can. */
int memtap_trace_open(const char *path, memtap_trace **out);
void memtap_trace_close(memtap_trace *t);
/* Events of a type in the trace (type: MT_EV_*). */
uint64_t memtap_trace_event_count(const memtap_trace *t, unsigned type);
/* A string of the trace (event fields that name strings carry its id), or NULL. */
const char *memtap_trace_string(const memtap_trace *t, uint32_t stream, uint64_t id);
/* A metadata value ("command", "memtap_version", ...), or NULL. */
const char *memtap_trace_meta(const memtap_trace *t, const char *key);

/* ---- events ---- */

struct memtap_event {
	unsigned type; /* MT_EV_* */
	uint32_t stream; /* the producer: strings and stacks are per stream */
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint32_t pid, tid;
	unsigned nfields;
	uint64_t v[MT_MAX_FIELDS]; /* v[MT_F_*]: every field of the type */
};

typedef struct memtap_cursor memtap_cursor;

/* Events of the selected types (bit t: type t; 0: all) in time order. */
int memtap_cursor_open(memtap_trace *t, uint64_t type_mask, memtap_cursor **out);
/* 1 and *ev filled, 0 at the end, or a negative error. */
int memtap_cursor_next(memtap_cursor *c, struct memtap_event *ev);
void memtap_cursor_close(memtap_cursor *c);
/* "alloc", "access", ...; NULL for an unknown type. */
const char *memtap_event_type_name(unsigned type);
/* The name of field f of a type ("addr", "size", ...), or NULL. */
const char *memtap_event_field_name(unsigned type, unsigned f);

/* ---- the analysis (memtap report) ---- */

typedef struct memtap_report memtap_report;

/* Runs every analysis of `memtap report` over one read of the trace. */
int memtap_report_load(memtap_trace *t, memtap_report **out);
void memtap_report_free(memtap_report *r);
/* The report as `memtap report --format json` writes it. */
int memtap_report_write_json(const memtap_report *r, FILE *f);

/* Headline figures (the same as the report's JSON keys named beside them). A figure the
 * trace has nothing behind is marked by its has_* flag being 0. */
struct memtap_summary {
	uint64_t duration_ns; /* run.duration_ns */
	int has_exit, exit_status; /* run.exit_status */
	uint64_t processes; /* the number of processes */
	int has_alloc;
	uint64_t alloc_calls, alloc_bytes; /* alloc.calls, alloc.bytes */
	uint64_t heap_peak_bytes, leaked_bytes; /* alloc.peak_bytes, alloc.leaked_bytes */
	int has_access;
	uint64_t access_samples; /* access.samples */
	int has_faults;
	uint64_t faults_minor, faults_major; /* faults.minor, faults.major */
	int has_rss;
	uint64_t rss_tree_peak_bytes; /* rss.tree_peak_bytes */
	uint64_t regions; /* regions with samples or faults */
};
void memtap_report_summary(const memtap_report *r, struct memtap_summary *s);

/* One region of the analysis: a mapping, a large heap block, an allocation site's small
 * blocks, a labelled range (docs/metrics.md). */
struct memtap_region {
	uint32_t pid;
	const char *type; /* "heap", "allocation", "file", a label's type, ... */
	uint64_t start, end; /* 0, 0 for a site's small blocks */
	uint64_t samples, reads, writes; /* sampled accesses; weighted loads and stores */
	uint64_t faults_minor, faults_major;
	const char *mrm; /* the MRM class ("high_mrm", ...), or NULL when nothing backs one */
	double write_once; /* < 0: not known */
	double retention_s; /* NaN: no sampled read */
};
size_t memtap_report_nregions(const memtap_report *r);
/* Region i (0 .. memtap_report_nregions() - 1); strings live as long as the report. */
int memtap_report_region(const memtap_report *r, size_t i, struct memtap_region *out);

/* ---- exports (memtap export) ---- */

/*
 * Writes the trace as format: "parquet", "csv", "jsonl" (a directory of tables), "sqlite"
 * (a database, the run added), "perfetto" (a JSON timeline) or "folded" (allocation stacks
 * weighted by bytes). force replaces existing files.
 */
int memtap_export(memtap_trace *t, const char *format, const char *out, int force);

#ifdef __cplusplus
}
#endif

#endif
