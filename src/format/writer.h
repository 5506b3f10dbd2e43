/* SPDX-License-Identifier: MIT */
/* The writer half of the trace format: header, string table, event blocks, chunks. */
#ifndef MEMTAP_FORMAT_WRITER_H
#define MEMTAP_FORMAT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

struct mt_writer;
struct mt_kv;
struct mt_chunk_hdr;

struct mt_writer_opts {
	int zstd_level; /* 0: default (3); negative: store chunks uncompressed */
	uint32_t block_events; /* rows per event block before it is written; 0: 16384 */
	uint64_t strtab_keep; /* string bytes held for reuse before they are forgotten; 0: 1 MiB */
	const uint8_t *run_id; /* 16 bytes, or NULL for a random one */
	uint64_t realtime_ns; /* start of the recording; 0: now */
	uint64_t monotonic_ns; /* the same instant on CLOCK_MONOTONIC; 0: now */
	const char *writer_name; /* NULL: "memtap <version>" */
	uint32_t stream; /* stream id of the chunks this writer produces; 0 = recorder */
	unsigned mode; /* the new file's permissions (before the umask); 0: 0600 */
};

struct mt_writer_stats {
	uint64_t chunks;
	uint64_t bytes; /* file size so far */
	uint64_t events[_MT_EV_MAX];
	uint64_t strings;
	uint64_t strings_forgotten; /* times the string table was emptied (writer.c, strtab) */
	/* mt_writer_limit / mt_writer_seal: what was left out once the data was closed */
	bool sealed;
	uint64_t left_out_events[_MT_EV_MAX]; /* rows of event chunks left out, by type */
	uint64_t left_out_chunks; /* chunks of every kind left out (events, strings, stacks) */
	uint64_t left_out_from; /* the earliest time of an event left out; 0: none */
};

/*
 * Creates path and writes the file header. Refuses an existing file (-EEXIST) unless force.
 * The file is a valid, readable trace after every chunk; mt_writer_finish() marks it
 * complete with an END chunk.
 */
int mt_writer_open(const char *path, bool force, const struct mt_writer_opts *opts,
		   struct mt_writer **ret);
/* Same on an open descriptor positioned at offset 0, which the writer does not close. */
int mt_writer_open_fd(int fd, const struct mt_writer_opts *opts, struct mt_writer **ret);

/*
 * Interns a string into the writer's stream, returning its id (0 is the empty string).
 * Each distinct string is stored once. On failure returns 0 and the error becomes sticky
 * (see mt_writer_error()).
 */
uint32_t mt_writer_str(struct mt_writer *w, const char *s);
uint32_t mt_writer_strn(struct mt_writer *w, const char *s, size_t len);

/*
 * Writes a STACKS2 chunk defining n stack-trie nodes of the writer's stream (see
 * mt_stacks_encode()). Stack ids are allocated by the producer, which keeps the trie.
 */
int mt_writer_stacks(struct mt_writer *w, uint32_t stream, uint64_t first_id, size_t n,
		     const uint64_t *parents, const uint64_t *ips);

struct mt_block;
/*
 * Writes a block of events built elsewhere (e.g. from the preload runtime's rows) as one
 * EVENTS chunk of the given stream, after sorting it by time; then empties the block.
 */
int mt_writer_block(struct mt_writer *w, uint32_t stream, struct mt_block *b);

/* Appends one event: row[f] for every field f of the type (time, pid, tid first). */
int mt_writer_event(struct mt_writer *w, unsigned type, const uint64_t *row);

/* Writes a key/value chunk (MT_CHUNK_META, _COLLECTOR or _STREAM) now. */
int mt_writer_kv(struct mt_writer *w, unsigned chunk_type, const struct mt_kv *kv);

/*
 * Frames and writes a chunk whose raw payload is given; h supplies type, subtype, stream,
 * count and time range (sizes, compression and checksums are filled in). This is how the
 * recorder appends blocks produced elsewhere, e.g. by the preload runtime.
 */
int mt_writer_chunk(struct mt_writer *w, const struct mt_chunk_hdr *h, const void *raw, size_t n);

/* Writes pending strings and every non-empty event block. */
int mt_writer_flush(struct mt_writer *w);
/* Flushes, then writes the END chunk (end may be NULL) and closes an owned file. */
int mt_writer_finish(struct mt_writer *w, const struct mt_kv *end);
/* Frees the writer without an END chunk (an aborted recording). NULL is a no-op. */
void mt_writer_free(struct mt_writer *w);

/* The first error a write met, or 0. After an error every write returns it again. */
int mt_writer_error(const struct mt_writer *w);
const struct mt_writer_stats *mt_writer_stats(const struct mt_writer *w);
/*
 * Events of the types in the mask (bit = type) timed outside [lo, hi] are left out and
 * counted (mt_writer_event returns 1 for them): an attached recording keeps its counted
 * events to the window in which every collector ran.
 */
void mt_writer_window(struct mt_writer *w, uint64_t lo, uint64_t hi, uint32_t types);
uint64_t mt_writer_outside(const struct mt_writer *w);
/* fn sees every event of the types in the mask that goes into the trace (the recorder's
 * live figures, record/live.c). */
void mt_writer_tap(struct mt_writer *w, uint32_t types,
		   void (*fn)(void *ctx, unsigned type, const uint64_t *row), void *ctx);
/* Every event of process pid is left out and counted (record -a: the recorder's own). */
void mt_writer_exclude_pid(struct mt_writer *w, uint64_t pid);
uint64_t mt_writer_excluded(const struct mt_writer *w);
/*
 * The file never grows past max_bytes (0: no limit) with data: an events, strings or stacks
 * chunk that would cross it is left out, and so is every data chunk after it (the writer is
 * sealed), counted in the stats. Key/value chunks (collectors, END) are still written: the
 * caller keeps room for them below the size it promises.
 */
void mt_writer_limit(struct mt_writer *w, uint64_t max_bytes);
/* Leaves out every data chunk from now on, as a crossed limit does. */
void mt_writer_seal(struct mt_writer *w);

#endif
