/* SPDX-License-Identifier: MIT */
/*
 * Application events (`memtap events`): JSON lines of an application's own calls, one per
 * line, summarised as the sway trace analyzer (seed 001) does: per probe and per view,
 * wall time and cache hits, and the slowest calls. Its semantics exactly: every field is
 * converted as Python converts it (float(), int(), str(), bool(), a falsy probe is
 * "<unassigned>"); a line that is not a JSON object or whose fields do not convert is
 * skipped, and counted with its reason; sums run in file order and sorts are stable (ties
 * keep first-seen order), so the figures equal the seed's to the last bit. Memory grows
 * with the number of groups and the slowest-k, never with the file.
 */
#ifndef MEMTAP_ANALYSIS_APPEV_H
#define MEMTAP_ANALYSIS_APPEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/quantile.h"
#include "common/hash.h"
#include "decode/jsonl.h"

/*
 * What a span did to memory (`memtap events TRACE.mtap`, analysis/spans.c): its own
 * allocations and frees (the allocation functions called on its thread while it was the
 * innermost open span: exact), the page faults of its thread while it was innermost (exact:
 * one clock), access samples likewise; the process's largest live heap and its resident
 * memory change over the span's window (whole-process figures).
 */
#define MT_AE_STYPES 16 /* sample kinds a span counts apart (mt_appev.stype_names) */

struct mt_appev_mem {
	uint64_t alloc_bytes, alloc_calls, freed_bytes, free_calls, faults, samples;
	uint64_t samples_by[MT_AE_STYPES]; /* by where the address lay: mt_appev.stype_names */
	uint64_t heap_peak; /* bytes: the process's live heap at its largest in the window */
	int64_t rss_change; /* bytes, when rss_known */
	bool rss_known;
};

/* The join of a trace's spans with memory (analysis/spans.c). */
struct mt_spans_stats {
	uint64_t spans, events; /* ended spans and point events handed to the summary */
	uint64_t open_at_end; /* begun, never ended, the trace ended first */
	uint64_t ended_by_exit; /* their thread ended first: ended there */
	uint64_t unmatched_ends; /* an end whose begin is not in the trace */
	uint64_t allocs_attributed, allocs_unattributed; /* span id unknown or already closed */
	uint64_t frees_unknown_size; /* a free in a span of a block allocated before the trace */
	uint64_t faults_in_spans, samples_in_spans;
	uint64_t faults_memtap; /* faults in spans on memtap's own memory or of its page-write
				 * tracking: left out */
	uint64_t rss_records; /* resident-memory records seen (0: no RSS figures) */
};

/* A group's key: the probe's or view's text, and for a probe, its JSON kind (a probe 5 and a
 * probe "5" are two groups, as in Python; the JSON output keeps the number a number). */
struct mt_appev_group {
	char *key; /* shown; followed by a NUL and the identity (idlen bytes) */
	size_t len, idlen;
	bool raw; /* key is JSON text to write as is (a number, true), not a string */
	uint64_t n, hits, misses;
	double ms;
	uint64_t first; /* the line that opened it: sorts are stable */
	uint64_t fp; /* the identity's first 8 bytes and its length: a quick inequality */
	struct mt_appev_mem mem; /* sums (heap_peak: the largest; rss: over rss_spans) */
	uint64_t rss_spans;
	struct mt_qs qs; /* --group-by: the times in ns, for the percentiles */
	double pct[3]; /* p50, p90, p99 of the time (NaN: none) */
	bool pct_exact; /* from every time (else the histogram's: within 1/128) */
};

struct mt_appev_event {
	double ts, wall_ms;
	char *probe; /* NULL: absent or null (rendered "—" and null) */
	bool probe_raw;
	char *view_id, *prompt_hash, *op;
	int64_t top_k;
	bool hit;
	uint64_t line;
	struct mt_appev_mem mem; /* a span's */
	uint32_t pid, tid; /* a span's */
	char *gkey; /* --group-by: its group's shown key (mt_appev_group.key), gkey_len bytes */
	size_t gkey_len;
};

struct mt_appev_groups {
	struct mt_appev_group *v;
	size_t n, cap;
	struct mt_map64 ix; /* hash of (raw, key) -> index + 1 */
	uint32_t recent[64]; /* index + 1 by the identity's fingerprint: most lines hit, no hash */
};

enum mt_appev_skip {
	MT_AE_SYNTAX, /* not JSON */
	MT_AE_NOT_OBJECT,
	MT_AE_UTF8,
	MT_AE_DEPTH,
	MT_AE_TYPES, /* a field that does not convert (float(None), int("1.5"), ...) */
	MT_AE_TOO_LONG, /* a line longer than the limit */
	MT_AE_NSKIP,
};

#define MT_AE_FIRST_SKIPPED 5
#define MT_AE_MAX_GROUP 8
#define MT_AE_MAX_WHERE 8
#define MT_AE_MAX_KEYS (MT_AE_MAX_GROUP + 2 + MT_AE_MAX_WHERE)

/* Another schema than sway's (memtap events --group-by, --time, --hit, --where). */
struct mt_appev_schema {
	const char *group_by[MT_AE_MAX_GROUP]; /* a group is one tuple of these keys' values */
	unsigned ngroup;
	const char *time_key, *hit_key; /* NULL: none */
	struct {
		const char *key, *value; /* an event counts only where str(key's value) == value */
	} where[MT_AE_MAX_WHERE];
	unsigned nwhere;
};

struct mt_appev {
	unsigned slowest_k;
	struct mt_jsonl_keys jk; /* the keys read: sway's, or the schema's */
	int input; /* enum mt_instream_kind: plain, gzip, zstd */
	uint64_t lines; /* non-blank lines read */
	uint64_t total_events, hits;
	double total_ms;
	uint64_t skipped[MT_AE_NSKIP];
	uint64_t first_skipped[MT_AE_FIRST_SKIPPED]; /* line numbers */
	unsigned nfirst;
	struct mt_appev_groups probes, views;
	struct mt_appev_event *slow; /* a min-heap of slowest_k while reading; sorted at the end */
	size_t nslow;
	/* --group-by and friends: one grouping by the schema, keys[] the distinct keys read */
	bool generic;
	struct mt_appev_schema sc;
	const char *keys[MT_AE_MAX_KEYS];
	unsigned nkeys, kgroup[MT_AE_MAX_GROUP], ktime, khit, kwhere[MT_AE_MAX_WHERE];
	struct mt_appev_groups groups;
	uint64_t filtered; /* events left out by --where */
	char *tbuf[2]; /* scratch: a tuple's identity and shown key */
	size_t tcap[2];
	bool memory; /* the events are spans of a trace, with their memory figures */
	/* what a span's samples hit: 0 "heap" (a live block), 1 "other", 2 "unresolved" (no
	 * address), then the region types the workload labelled, as met (the 17th and later
	 * count as "labelled-other", the last) */
	char *stype_names[MT_AE_STYPES]; /* owned: the trace's strings go with its reader */
	unsigned nstypes;
	bool from_trace;
	struct mt_spans_stats trace;
	struct mt_appev_mem mem; /* over every span */
	uint64_t rss_spans;
};

/* A span of a trace as an event: its duration is its wall time, its begin its ts (unless its
 * fields give one), its name its op (unless its fields give one). */
struct mt_appev_span {
	double wall_ms, ts;
	const char *name;
	size_t name_len;
	const struct mt_appev_mem *mem;
	uint32_t pid, tid;
};

const char *mt_appev_skip_name(unsigned why);

void mt_appev_init(struct mt_appev *a, unsigned slowest_k);
/* Switches to a schema of the caller's (its strings must outlive a); -EINVAL for none. */
int mt_appev_schema(struct mt_appev *a, const struct mt_appev_schema *sc);
/* One line (no newline), its number from 1; scratch holds at least n bytes. 0 or -ENOMEM. */
int mt_appev_line(struct mt_appev *a, const char *p, size_t n, uint64_t lineno, char *scratch);
/* One span: fields is the JSON object it was given (n 0: none), ordinal its number from 1 (in
 * place of a line number); scratch holds at least n bytes. 0 or -ENOMEM. */
int mt_appev_span(struct mt_appev *a, const char *fields, size_t n, uint64_t ordinal, char *scratch,
		  const struct mt_appev_span *sp);
/* Reads fd to its end (gzip or zstd decompressed), line by line, lines longer than max_line
 * skipped (counted); 0 or -errno (-EBADMSG: damaged compressed data, the lines before it
 * read). */
int mt_appev_read_fd(struct mt_appev *a, int fd, size_t max_line);
/* Sorts the groups (total wall time, descending, stable) and the slowest calls. */
void mt_appev_finish(struct mt_appev *a);
void mt_appev_release(struct mt_appev *a);

/* Python's float repr (shortest round trip: "12.5", "1e+16", "nan", "inf"), into buf. */
char *mt_py_float_repr(double d, char *buf, size_t size);

#endif
