/* SPDX-License-Identifier: MIT */
/* The reader's private state, shared by reader.c and cursor.c only. */
#ifndef MEMTAP_FORMAT_READER_INTERNAL_H
#define MEMTAP_FORMAT_READER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hash.h"
#include "format/chunk.h"
#include "format/reader.h"

/* The most string bytes a reader holds (a bound on a damaged or hostile trace). */
#define MT_READER_STR_MAX (1ull << 30)

struct mt_chunk_ref {
	uint64_t off;
	struct mt_chunk_hdr h;
	bool bad;
	uint32_t decodes; /* times its payload was decoded (mt_reader_decode_stats) */
};

/* String and stack tables of one producer stream; ids are looked up through maps. */
struct mt_stream {
	uint32_t id;
	struct mt_map64 str_ix; /* string id -> index into str_off/str_len */
	/* A text written again under a new id (the writer forgot it: writer.c, strtab): its
	 * first id by the text's hash, and every later id -> the first (mt_reader_canon_strs) */
	struct mt_map64 str_first, str_alias;
	size_t nalias;
	uint64_t *str_off; /* offset into the reader's arena */
	uint32_t *str_len;
	size_t nstr, str_cap, str_len_cap;
	struct mt_map64 stk_ix; /* stack node id -> index, for ids beyond the dense run */
	size_t dense; /* nodes 0..dense-1 have ids 1..dense: no map entry */
	uint64_t *stk_parent; /* parent node id, 0 for a root */
	uint64_t *stk_ip;
	size_t nstk, stk_cap, stk_ip_cap;
	uint64_t *stk_id; /* by index: the node's id */
	size_t stk_id_cap;
	uint64_t *stk_canon; /* by index: the first id with the same frames (built at open) */
};

struct mt_reader {
	int fd;
	bool own_fd;
	struct mt_file_info file;
	struct mt_integrity integ;
	mt_progress_fn progress;
	void *progress_ctx;

	struct mt_chunk_ref *chunks; /* EVENTS chunks in file order */
	size_t nchunks, chunks_cap;
	uint64_t counts[_MT_EV_MAX];
	uint64_t unknown_events;

	struct mt_stream *streams;
	size_t nstreams, streams_cap;
	struct mt_map64 stream_ix;
	struct mt_buf arena; /* all strings, NUL-terminated */
	uint64_t str_bytes;
	uint64_t str_aliases; /* string ids that repeat an earlier id's text (note_repeat) */

	struct mt_kvlist *metas, *colls, *streamkv;
	size_t nmetas, metas_cap, ncolls, colls_cap, nstreamkv, streamkv_cap;
	const struct mt_kvlist **coll_view;
	size_t ncoll_view;
	const char **meta_keys, **meta_vals;
	struct mt_kvlist end;
	bool has_end;

	struct mt_buf zbuf; /* on-disk payload */
	struct mt_buf raw; /* decompressed payload */
	void *dctx; /* ZSTD_DCtx */
};

/* The stream's tables (created when create and absent), or NULL. */
/* reader-strings.c: a STRINGS chunk's strings into the stream's table (0, -errno or
 * -MT_ERR_*); the event's string fields given their text's first id (when the trace has
 * repeats). */
int mt_reader_load_strings(struct mt_reader *r, const struct mt_chunk_hdr *h, const uint8_t *p,
			   size_t n);
void mt_reader_canon_strs(struct mt_reader *r, struct mt_event *ev);
struct mt_stream *mt_stream_get(struct mt_reader *r, uint32_t id, bool create);
/* reader-stacks.c: a STACKS or STACKS2 chunk's payload into its stream's table; after the last chunk,
 * each node's canonical id (the first id with the same frames). */
int mt_reader_load_stacks(struct mt_reader *r, const struct mt_chunk_hdr *h, const uint8_t *p,
			  size_t n);
int mt_reader_canon_stacks(struct mt_stream *s);

/* Reads, checks and decompresses the payload of the chunk at off into out. */
int mt_reader_payload(struct mt_reader *r, uint64_t off, const struct mt_chunk_hdr *h,
		      struct mt_buf *out);
/* Decodes an EVENTS chunk into b (re-initialised as needed); marks it bad on corruption. */
int mt_reader_decode_chunk(struct mt_reader *r, struct mt_chunk_ref *c, struct mt_block *b);
void mt_reader_mark_bad(struct mt_reader *r, struct mt_chunk_ref *c);

#endif
