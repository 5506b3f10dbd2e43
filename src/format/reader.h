/* SPDX-License-Identifier: MIT */
/* The reader half of the trace format: validation, chunk index, tables, event cursors. */
#ifndef MEMTAP_FORMAT_READER_H
#define MEMTAP_FORMAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

#include "format/chunk.h"

struct mt_reader;
struct mt_cursor;
struct mt_block;
struct mt_type_desc;

struct mt_file_info {
	uint16_t major;
	uint16_t minor;
	uint32_t header_size;
	uint8_t run_id[16];
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
	char writer[MT_FILE_HDR_WRITER_LEN + 1];
	uint64_t file_size;
};

/*
 * What the reader found wrong with the file. A damaged file is not an error: the reader
 * returns everything readable and describes the rest here.
 */
struct mt_integrity {
	uint64_t chunks; /* valid chunks */
	uint64_t corrupt_chunks; /* chunks with a bad payload (checksum, compression, layout) */
	uint64_t corrupt_events; /* events in those chunks, from their headers */
	uint64_t damaged_regions; /* stretches of unreadable chunk headers that were skipped */
	uint64_t skipped_bytes; /* bytes in those stretches */
	uint64_t first_damage_offset; /* of the first corrupt chunk or damaged region */
	bool complete; /* the END chunk is present */
	bool truncated; /* the file ends inside a chunk */
	uint64_t truncated_offset; /* where that incomplete chunk starts */
	uint64_t truncated_bytes; /* bytes of it present */
	bool truncated_hdr_known; /* its header is complete, so what was lost is known */
	struct mt_chunk_hdr truncated_hdr;
	bool verified; /* every event payload has been checked */
};

/* One event as the cursor returns it: v[f] is field f (MT_F_TIME, MT_F_PID, ...). */
struct mt_event {
	uint16_t type;
	uint32_t stream;
	const struct mt_type_desc *desc;
	uint64_t v[MT_MAX_FIELDS];
};

/*
 * Opens a trace, validates its header and indexes its chunks (event chunks by their
 * headers; string, stack and key/value chunks are loaded). Errors: -errno;
 * -MT_ERR_FORMAT (empty, or not a trace); -MT_ERR_VERSION (major version not 1);
 * -MT_ERR_TRUNCATED or -MT_ERR_CORRUPT (the file header itself). mt_reader_errmsg() gives
 * details for the last error.
 */
int mt_reader_open(const char *path, struct mt_reader **ret);
/* Same on an open descriptor (not closed by the reader); name is used in messages. */
int mt_reader_open_fd(int fd, struct mt_reader **ret);
void mt_reader_free(struct mt_reader *r);

/* A one-line explanation of the error mt_reader_open() returned, in static storage. */
const char *mt_reader_errmsg(int err);

const struct mt_file_info *mt_reader_file(const struct mt_reader *r);
const struct mt_integrity *mt_reader_integrity(const struct mt_reader *r);

/* Progress of long operations: called after each chunk with bytes done and total. */
typedef void (*mt_progress_fn)(void *ctx, uint64_t done, uint64_t total);
void mt_reader_set_progress(struct mt_reader *r, mt_progress_fn fn, void *ctx);

/* How often event chunks were decoded: an analysis should decode each one once. */
struct mt_decode_stats {
	uint64_t chunks, decoded, decodes, repeated, max;
};
void mt_reader_decode_stats(const struct mt_reader *r, struct mt_decode_stats *st);

/* Checks every event chunk's payload (checksum, decompression, decoding). */
int mt_reader_verify(struct mt_reader *r);

/* Metadata: the last value of key across META chunks, or NULL. */
const char *mt_reader_meta(const struct mt_reader *r, const char *key);
/* All metadata pairs, later chunks overriding earlier ones; returns the count. */
size_t mt_reader_meta_all(const struct mt_reader *r, const char ***keys, const char ***vals);
/* Collectors: the latest COLLECTOR chunk for each collector name, in first-seen order. */
size_t mt_reader_ncollectors(const struct mt_reader *r);
const struct mt_kvlist *mt_reader_collector(const struct mt_reader *r, size_t i);
/* The collector of that name ("alloc", "access", ...), or NULL. */
const struct mt_kvlist *mt_reader_collector_named(const struct mt_reader *r, const char *name);
/* The END chunk's pairs, or NULL when the recording did not end cleanly. */
const struct mt_kvlist *mt_reader_end(const struct mt_reader *r);

/* Events of a type in valid chunks (minus chunks later found corrupt). */
uint64_t mt_reader_event_count(const struct mt_reader *r, unsigned type);
/* Events of types this memtap does not know (written by a newer minor version). */
uint64_t mt_reader_unknown_events(const struct mt_reader *r);
/* Time range of all events in valid chunks; false when there are none. */
bool mt_reader_time_range(const struct mt_reader *r, uint64_t *t_min, uint64_t *t_max);

/* String id of stream, or NULL when never defined; id 0 is "". *len may be NULL. */
const char *mt_reader_str(const struct mt_reader *r, uint32_t stream, uint64_t id, size_t *len);
/* Frames of a stack, innermost first, at most max (a deeper stack is cut at max); returns
 * how many were stored, or -1 if the stack is undefined. */
int mt_reader_stack(const struct mt_reader *r, uint32_t stream, uint64_t id, uint64_t *ips,
		    unsigned max);

/* The stack's canonical id: the first id of the same chain of frames (a stack interned
 * again after the runtime emptied its trie has a second id). id itself when unknown. */
uint64_t mt_reader_stack_canon(const struct mt_reader *r, uint32_t stream, uint64_t id);

/*
 * Whether the trace's faults say which were page-write tracking's (MT_F_FAULT_TRACKING, which
 * every cursor that returns faults derives: format/pwfault.h): NONE, the trace has no
 * page-write tracking; DERIVED, it has and the field is set; UNKNOWN, it has but was written
 * before format 1.4, whose tracking protected pages not present too (their first touch took
 * two faults) and whose events cannot tell them apart.
 */
enum mt_fault_tracking_basis { MT_FTB_NONE, MT_FTB_DERIVED, MT_FTB_UNKNOWN };
enum mt_fault_tracking_basis mt_reader_fault_tracking(const struct mt_reader *r);

/* Event cursors: every event of the selected types in time order (ties in file order). */
struct mt_cursor_opts {
	uint64_t type_mask; /* bit t selects type t; 0 selects all */
	bool by_pid;
	uint32_t pid;
	/* decode and merge in a second thread while the caller handles earlier events; the
	 * caller must then not decode chunks of the same reader itself until the cursor is
	 * freed (strings, stacks and metadata are safe) */
	bool ahead;
};

int mt_cursor_new(struct mt_reader *r, const struct mt_cursor_opts *opts, struct mt_cursor **ret);
/* 1 and *ev filled, 0 at the end, or -errno on an I/O error. Corrupt chunks are skipped
 * and counted in the reader's integrity. */
int mt_cursor_next(struct mt_cursor *c, struct mt_event *ev);
/* The next events in order, without a copy: n > 0 and *evs valid until the next call (of
 * either kind), 0 at the end, or -errno. An event has v[] up to desc->nfields. Mixing with
 * mt_cursor_next skips what remains of the batch. */
int mt_cursor_next_batch(struct mt_cursor *c, const struct mt_event **evs);
void mt_cursor_free(struct mt_cursor *c);

/*
 * Block iteration in file order, for passes that want columns rather than time order.
 * *pos starts at 0. Returns 1 with b filled (b must be initialised by the caller for
 * any type; it is re-initialised as needed), 0 at the end, -errno on I/O error.
 */
int mt_reader_next_block(struct mt_reader *r, size_t *pos, uint64_t type_mask, struct mt_block *b,
			 uint32_t *stream);

#endif
