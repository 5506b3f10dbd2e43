/* SPDX-License-Identifier: MIT */
/* The trace reader: validates the header, indexes chunks, loads tables, reads payloads. */
#include "common/array.h"
#include "common/hash.h"
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "common/varint.h"
#include "format/block.h"
#include "format/reader-internal.h"
#include "format/schema.h"

#define RESYNC_WINDOW (1u << 20)
#define MAX_STREAMS (1u << 20)

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, p + got, n - got, (off_t)(off + got));

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!k)
			break;
		got += (size_t)k;
	}
	return (int)got;
}

const char *mt_reader_errmsg(int err)
{
	switch (-err) {
	case MT_ERR_FORMAT:
		return "not a memtap trace (bad magic)";
	case MT_ERR_VERSION:
		return "unsupported trace format version";
	case MT_ERR_TRUNCATED:
		return "truncated file header";
	case MT_ERR_CORRUPT:
		return "corrupted file header (checksum mismatch)";
	default:
		return mt_strerror(err);
	}
}

/* ---- per-stream tables ---- */

struct mt_stream *mt_stream_get(struct mt_reader *r, uint32_t id, bool create)
{
	uint64_t *slot = mt_map64_get(&r->stream_ix, id);
	struct mt_stream *s;

	if (slot)
		return &r->streams[*slot];
	if (!create || r->nstreams >= MAX_STREAMS)
		return NULL;
	if (mt_grow_array(&r->streams, &r->streams_cap, r->nstreams + 1, sizeof(*r->streams)) < 0)
		return NULL;
	if (mt_map64_put(&r->stream_ix, id, &slot) < 0)
		return NULL;
	*slot = r->nstreams;
	s = &r->streams[r->nstreams++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	mt_map64_init(&s->str_ix);
	mt_map64_init(&s->str_first);
	mt_map64_init(&s->str_alias);
	mt_map64_init(&s->stk_ix);
	return s;
}

static void stream_release(struct mt_stream *s)
{
	mt_map64_release(&s->str_ix);
	mt_map64_release(&s->str_first);
	mt_map64_release(&s->str_alias);
	mt_map64_release(&s->stk_ix);
	free(s->str_off);
	free(s->str_len);
	free(s->stk_parent);
	free(s->stk_ip);
	free(s->stk_canon);
	free(s->stk_id);
}

/* ---- payloads ---- */

int mt_reader_payload(struct mt_reader *r, uint64_t off, const struct mt_chunk_hdr *h,
		      struct mt_buf *out)
{
	uint8_t *dst;
	int n, rc;

	mt_buf_reset(&r->zbuf);
	rc = mt_buf_reserve(&r->zbuf, h->payload_size ? h->payload_size : 1);
	if (rc < 0)
		return rc;
	n = pread_all(r->fd, r->zbuf.data, h->payload_size, off + MT_CHUNK_HEADER_SIZE);
	if (n < 0)
		return n;
	if ((uint32_t)n != h->payload_size)
		return -MT_ERR_TRUNCATED;
	if (!mt_crc_ok(h->payload_crc, mt_crc32c(0, r->zbuf.data, h->payload_size)))
		return -MT_ERR_CORRUPT;
	mt_buf_reset(out);
	rc = mt_buf_reserve(out, h->raw_size ? h->raw_size : 1);
	if (rc < 0)
		return rc;
	dst = out->data;
	if (h->compression == MT_COMP_NONE) {
		memcpy(dst, r->zbuf.data, h->raw_size);
	} else {
		unsigned long long fcs = ZSTD_getFrameContentSize(r->zbuf.data, h->payload_size);
		size_t z;

		if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != h->raw_size)
			return -MT_ERR_CORRUPT;
		if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
			return -ENOMEM;
		z = ZSTD_decompressDCtx(r->dctx, dst, h->raw_size, r->zbuf.data, h->payload_size);
		if (ZSTD_isError(z) || z != h->raw_size)
			return -MT_ERR_CORRUPT;
	}
	out->len = h->raw_size;
	return 0;
}

static int add_kvlist(struct mt_kvlist **arr, size_t *n, size_t *cap, const struct mt_kvlist *l)
{
	if (mt_grow_array(arr, cap, *n + 1, sizeof(**arr)) < 0)
		return -ENOMEM;
	(*arr)[(*n)++] = *l;
	return 0;
}

/* Loads a non-event chunk's content into the reader's tables. */
static int load_chunk(struct mt_reader *r, uint64_t off, const struct mt_chunk_hdr *h)
{
	struct mt_kvlist l;
	int rc = mt_reader_payload(r, off, h, &r->raw);

	if (rc < 0)
		return rc;
	switch (h->type) {
	case MT_CHUNK_STRINGS:
		return mt_reader_load_strings(r, h, r->raw.data, r->raw.len);
	case MT_CHUNK_STACKS:
	case MT_CHUNK_STACKS2:
		return mt_reader_load_stacks(r, h, r->raw.data, r->raw.len);
	case MT_CHUNK_META:
	case MT_CHUNK_COLLECTOR:
	case MT_CHUNK_STREAM:
	case MT_CHUNK_END:
		rc = mt_kvlist_decode(r->raw.data, r->raw.len, &l);
		if (rc < 0)
			return rc;
		if (h->type == MT_CHUNK_META)
			rc = add_kvlist(&r->metas, &r->nmetas, &r->metas_cap, &l);
		else if (h->type == MT_CHUNK_COLLECTOR)
			rc = add_kvlist(&r->colls, &r->ncolls, &r->colls_cap, &l);
		else if (h->type == MT_CHUNK_STREAM)
			rc = add_kvlist(&r->streamkv, &r->nstreamkv, &r->streamkv_cap, &l);
		else {
			mt_kvlist_release(&r->end);
			r->end = l;
			r->has_end = true;
		}
		if (rc < 0)
			mt_kvlist_release(&l);
		return rc;
	default:
		return 0; /* a chunk type from a newer minor version: skipped */
	}
}

/* ---- indexing ---- */

static int add_event_chunk(struct mt_reader *r, uint64_t off, const struct mt_chunk_hdr *h)
{
	struct mt_chunk_ref *c;

	if (mt_grow_array(&r->chunks, &r->chunks_cap, r->nchunks + 1, sizeof(*r->chunks)) < 0)
		return -ENOMEM;
	c = &r->chunks[r->nchunks++];
	*c = (struct mt_chunk_ref){ .off = off, .h = *h };
	if (h->subtype < _MT_EV_MAX && mt_type_desc(h->subtype))
		r->counts[h->subtype] += h->count;
	else
		r->unknown_events += h->count;
	return 0;
}

void mt_reader_mark_bad(struct mt_reader *r, struct mt_chunk_ref *c)
{
	struct mt_integrity *in = &r->integ;

	if (c->bad)
		return;
	c->bad = true;
	if (c->h.subtype < _MT_EV_MAX && mt_type_desc(c->h.subtype))
		r->counts[c->h.subtype] -= c->h.count;
	else
		r->unknown_events -= c->h.count;
	in->chunks--;
	in->corrupt_chunks++;
	in->corrupt_events += c->h.count;
	if (!in->first_damage_offset || c->off < in->first_damage_offset)
		in->first_damage_offset = c->off;
}

/* Finds the next valid chunk header at or after off; returns its offset or the file size. */
static int resync(struct mt_reader *r, uint64_t off, uint64_t *ret)
{
	uint64_t size = r->file.file_size;
	uint8_t *win;
	int rc = 0;

	win = malloc(RESYNC_WINDOW + MT_CHUNK_HEADER_SIZE);
	if (!win)
		return -ENOMEM;
	while (off + MT_CHUNK_HEADER_SIZE <= size) {
		int n = pread_all(r->fd, win, RESYNC_WINDOW + MT_CHUNK_HEADER_SIZE, off);

		if (n < 0) {
			rc = n;
			goto out;
		}
		for (int i = 0; i + MT_CHUNK_HEADER_SIZE <= n; i++) {
			struct mt_chunk_hdr h;

			if (win[i] == 'M' && win[i + 1] == 'T' && win[i + 2] == 'C' &&
			    win[i + 3] == 'H' && mt_chunk_hdr_unpack(win + i, &h) == 0) {
				*ret = off + (uint64_t)i;
				goto out;
			}
		}
		if ((uint64_t)n < RESYNC_WINDOW + MT_CHUNK_HEADER_SIZE)
			break;
		off += RESYNC_WINDOW;
	}
	*ret = size;
out:
	free(win);
	return rc;
}

static void progress(struct mt_reader *r, uint64_t done)
{
	if (r->progress)
		r->progress(r->progress_ctx, done, r->file.file_size);
}

static int index_chunks(struct mt_reader *r)
{
	struct mt_integrity *in = &r->integ;
	uint64_t off = r->file.header_size, size = r->file.file_size;
	uint8_t hb[MT_CHUNK_HEADER_SIZE];
	int rc;

	while (off < size) {
		struct mt_chunk_hdr h;
		uint64_t next;
		int n;

		if (r->has_end) {
			/* Bytes after END: appended garbage or a second recording; not ours. */
			in->damaged_regions++;
			in->skipped_bytes += size - off;
			if (!in->first_damage_offset)
				in->first_damage_offset = off;
			break;
		}
		n = pread_all(r->fd, hb, sizeof(hb), off);
		if (n < 0)
			return n;
		if (n < MT_CHUNK_HEADER_SIZE) {
			in->truncated = true;
			in->truncated_offset = off;
			in->truncated_bytes = (uint64_t)n;
			break;
		}
		rc = mt_chunk_hdr_unpack(hb, &h);
		if (rc < 0) {
			rc = resync(r, off + 1, &next);
			if (rc < 0)
				return rc;
			in->damaged_regions++;
			in->skipped_bytes += next - off;
			if (!in->first_damage_offset)
				in->first_damage_offset = off;
			off = next;
			continue;
		}
		if (off + MT_CHUNK_HEADER_SIZE + h.payload_size > size) {
			in->truncated = true;
			in->truncated_offset = off;
			in->truncated_bytes = size - off;
			in->truncated_hdr_known = true;
			in->truncated_hdr = h;
			break;
		}
		if (h.type == MT_CHUNK_EVENTS) {
			rc = add_event_chunk(r, off, &h);
			if (rc < 0)
				return rc;
			in->chunks++;
		} else {
			rc = load_chunk(r, off, &h);
			if (rc == -ENOMEM || rc == -EIO)
				return rc;
			if (rc < 0) {
				in->corrupt_chunks++;
				in->corrupt_events += h.type == MT_CHUNK_EVENTS ? h.count : 0;
				if (!in->first_damage_offset)
					in->first_damage_offset = off;
			} else {
				in->chunks++;
				if (h.type == MT_CHUNK_END)
					in->complete = true;
			}
		}
		off += MT_CHUNK_HEADER_SIZE + h.payload_size;
		progress(r, off);
	}
	return 0;
}

static int read_header(struct mt_reader *r)
{
	uint8_t h[4096];
	uint32_t hsize;
	int n;

	n = pread_all(r->fd, h, MT_FILE_HEADER_SIZE, 0);
	if (n < 0)
		return n;
	if (n == 0)
		return -MT_ERR_FORMAT;
	if (n < MT_FILE_MAGIC_LEN || memcmp(h, MT_FILE_MAGIC, MT_FILE_MAGIC_LEN))
		return -MT_ERR_FORMAT;
	if (n < MT_FILE_HDR_OFF_MINOR + 2)
		return -MT_ERR_TRUNCATED;
	r->file.major = mt_get_le16(h + MT_FILE_HDR_OFF_MAJOR);
	r->file.minor = mt_get_le16(h + MT_FILE_HDR_OFF_MINOR);
	/* The major version is checked before anything else: a new major may change the rest. */
	if (r->file.major != MT_FORMAT_MAJOR)
		return -MT_ERR_VERSION;
	hsize = mt_get_le32(h + MT_FILE_HDR_OFF_SIZE);
	if (hsize < MT_FILE_HEADER_SIZE || hsize > sizeof(h))
		return -MT_ERR_CORRUPT;
	if (n < MT_FILE_HEADER_SIZE)
		return -MT_ERR_TRUNCATED;
	n = pread_all(r->fd, h, hsize, 0);
	if (n < 0)
		return n;
	if ((uint32_t)n < hsize)
		return -MT_ERR_TRUNCATED;
	if (!mt_crc_ok(mt_get_le32(h + hsize - 4), mt_crc32c(0, h, hsize - 4)))
		return -MT_ERR_CORRUPT;
	r->file.header_size = hsize;
	memcpy(r->file.run_id, h + MT_FILE_HDR_OFF_RUN_ID, 16);
	r->file.realtime_ns = mt_get_le64(h + MT_FILE_HDR_OFF_REALTIME);
	r->file.monotonic_ns = mt_get_le64(h + MT_FILE_HDR_OFF_MONOTONIC);
	memcpy(r->file.writer, h + MT_FILE_HDR_OFF_WRITER, MT_FILE_HDR_WRITER_LEN);
	r->file.writer[MT_FILE_HDR_WRITER_LEN] = 0;
	for (char *c = r->file.writer; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	return 0;
}

int mt_reader_open_fd(int fd, struct mt_reader **ret)
{
	struct mt_reader *r;
	struct stat st;
	int rc;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	mt_buf_init(&r->zbuf, MT_MAX_CHUNK_PAYLOAD + 1);
	mt_buf_init(&r->raw, MT_MAX_CHUNK_RAW + 1);
	mt_buf_init(&r->arena, MT_READER_STR_MAX + MT_MAX_STRING);
	mt_map64_init(&r->stream_ix);
	r->fd = fd;
	r->file.file_size = (uint64_t)st.st_size;
	rc = read_header(r);
	if (rc < 0)
		goto err;
	rc = index_chunks(r);
	if (rc < 0)
		goto err;
	for (size_t i = 0; i < r->nstreams; i++) {
		rc = mt_reader_canon_stacks(&r->streams[i]);
		if (rc < 0)
			goto err;
	}
	*ret = r;
	return 0;
err:
	r->fd = -1;
	mt_reader_free(r);
	return rc;
}

int mt_reader_open(const char *path, struct mt_reader **ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = mt_reader_open_fd(fd, ret);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	(*ret)->own_fd = true;
	return 0;
}

void mt_reader_free(struct mt_reader *r)
{
	if (!r)
		return;
	if (getenv("MEMTAP_DECODE_STATS")) { /* a developer's check: docs/architecture.md */
		struct mt_decode_stats st;

		mt_reader_decode_stats(r, &st);
		fprintf(stderr,
			"memtap: decode stats: %" PRIu64 " event chunks, %" PRIu64
			" decoded, %" PRIu64 " decodes, %" PRIu64
			" decoded more than once (at most %" PRIu64 " times)\n",
			st.chunks, st.decoded, st.decodes, st.repeated, st.max);
	}
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nstreams; i++)
		stream_release(&r->streams[i]);
	free(r->streams);
	mt_map64_release(&r->stream_ix);
	for (size_t i = 0; i < r->nmetas; i++)
		mt_kvlist_release(&r->metas[i]);
	for (size_t i = 0; i < r->ncolls; i++)
		mt_kvlist_release(&r->colls[i]);
	for (size_t i = 0; i < r->nstreamkv; i++)
		mt_kvlist_release(&r->streamkv[i]);
	free(r->metas);
	free(r->colls);
	free(r->streamkv);
	free(r->coll_view);
	free(r->meta_keys);
	free(r->meta_vals);
	mt_kvlist_release(&r->end);
	free(r->chunks);
	mt_buf_release(&r->zbuf);
	mt_buf_release(&r->raw);
	mt_buf_release(&r->arena);
	ZSTD_freeDCtx(r->dctx);
	free(r);
}

const struct mt_file_info *mt_reader_file(const struct mt_reader *r)
{
	return &r->file;
}

const struct mt_integrity *mt_reader_integrity(const struct mt_reader *r)
{
	return &r->integ;
}

void mt_reader_set_progress(struct mt_reader *r, mt_progress_fn fn, void *ctx)
{
	r->progress = fn;
	r->progress_ctx = ctx;
}

int mt_reader_decode_chunk(struct mt_reader *r, struct mt_chunk_ref *c, struct mt_block *b)
{
	int rc;

	if (c->bad)
		return -MT_ERR_CORRUPT;
	if (b->type != c->h.subtype || b->cap < c->h.count) {
		mt_block_release(b);
		rc = mt_block_init(b, c->h.subtype, c->h.count ? c->h.count : 1);
		if (rc < 0)
			return rc;
	}
	progress(r, c->off + MT_CHUNK_HEADER_SIZE + c->h.payload_size); /* passes show progress */
	c->decodes++;
	rc = mt_reader_payload(r, c->off, &c->h, &r->raw);
	if (rc >= 0)
		rc = mt_block_decode(b, r->raw.data, r->raw.len, c->h.count);
	if (rc >= 0 && c->h.count) {
		uint64_t lo, hi;

		mt_block_time_range(b, &lo, &hi);
		if (lo != c->h.t_min || hi != c->h.t_max)
			rc = -MT_ERR_CORRUPT;
	}
	if (rc == -MT_ERR_CORRUPT || rc == -MT_ERR_TRUNCATED || rc == -MT_ERR_LIMIT)
		mt_reader_mark_bad(r, c);
	return rc;
}

void mt_reader_decode_stats(const struct mt_reader *r, struct mt_decode_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < r->nchunks; i++) {
		const struct mt_chunk_ref *c = &r->chunks[i];

		st->chunks++;
		st->decodes += c->decodes;
		st->decoded += c->decodes > 0;
		st->repeated += c->decodes > 1;
		if (c->decodes > st->max)
			st->max = c->decodes;
	}
}

int mt_reader_verify(struct mt_reader *r)
{
	struct mt_block b = { 0 };
	int rc = 0;

	for (size_t i = 0; i < r->nchunks; i++) {
		struct mt_chunk_ref *c = &r->chunks[i];

		if (c->bad)
			continue;
		if (!mt_type_desc(c->h.subtype)) {
			/* Unknown type: checksum and decompression only. */
			rc = mt_reader_payload(r, c->off, &c->h, &r->raw);
			if (rc == -MT_ERR_CORRUPT || rc == -MT_ERR_TRUNCATED)
				mt_reader_mark_bad(r, c);
		} else {
			rc = mt_reader_decode_chunk(r, c, &b);
		}
		if (rc < 0 && rc != -MT_ERR_CORRUPT && rc != -MT_ERR_TRUNCATED &&
		    rc != -MT_ERR_LIMIT)
			break;
		rc = 0;
		progress(r, c->off + MT_CHUNK_HEADER_SIZE + c->h.payload_size);
	}
	mt_block_release(&b);
	if (rc >= 0)
		r->integ.verified = true;
	return rc;
}

int mt_reader_next_block(struct mt_reader *r, size_t *pos, uint64_t type_mask, struct mt_block *b,
			 uint32_t *stream)
{
	while (*pos < r->nchunks) {
		struct mt_chunk_ref *c = &r->chunks[(*pos)++];
		int rc;

		if (c->bad || !mt_type_desc(c->h.subtype))
			continue;
		if (type_mask && !(c->h.subtype < 64 && (type_mask & (1ull << c->h.subtype))))
			continue;
		rc = mt_reader_decode_chunk(r, c, b);
		if (rc == -MT_ERR_CORRUPT || rc == -MT_ERR_TRUNCATED || rc == -MT_ERR_LIMIT)
			continue;
		if (rc < 0)
			return rc;
		if (stream)
			*stream = c->h.stream;
		return 1;
	}
	return 0;
}

/* ---- lookups ---- */

const char *mt_reader_meta(const struct mt_reader *r, const char *key)
{
	for (size_t i = r->nmetas; i-- > 0;) {
		const char *v = mt_kvlist_get(&r->metas[i], key);

		if (v)
			return v;
	}
	return NULL;
}

size_t mt_reader_meta_all(const struct mt_reader *r, const char ***keys, const char ***vals)
{
	struct mt_reader *w = (struct mt_reader *)r;
	size_t n = 0, total = 0;

	for (size_t i = 0; i < r->nmetas; i++)
		total += r->metas[i].n;
	free(w->meta_keys);
	free(w->meta_vals);
	w->meta_keys = calloc(total + 1, sizeof(char *));
	w->meta_vals = calloc(total + 1, sizeof(char *));
	if (!w->meta_keys || !w->meta_vals) {
		*keys = NULL;
		*vals = NULL;
		return 0;
	}
	for (size_t i = 0; i < r->nmetas; i++) {
		for (uint32_t k = 0; k < r->metas[i].n; k++) {
			const char *key = r->metas[i].keys[k];
			size_t j;

			for (j = 0; j < n && strcmp(w->meta_keys[j], key); j++)
				;
			w->meta_keys[j] = key;
			w->meta_vals[j] = r->metas[i].vals[k];
			if (j == n)
				n++;
		}
	}
	*keys = w->meta_keys;
	*vals = w->meta_vals;
	return n;
}

static void build_coll_view(struct mt_reader *r)
{
	size_t n = 0;

	free(r->coll_view);
	r->coll_view = calloc(r->ncolls + 1, sizeof(*r->coll_view));
	if (!r->coll_view)
		return;
	for (size_t i = 0; i < r->ncolls; i++) {
		const char *name = mt_kvlist_get(&r->colls[i], "name");
		size_t j;

		for (j = 0; j < n; j++) {
			const char *other = mt_kvlist_get(r->coll_view[j], "name");

			if (name && other && !strcmp(name, other))
				break;
		}
		r->coll_view[j] = &r->colls[i];
		if (j == n)
			n++;
	}
	r->ncoll_view = n;
}

size_t mt_reader_ncollectors(const struct mt_reader *r)
{
	struct mt_reader *w = (struct mt_reader *)r;

	if (!w->coll_view)
		build_coll_view(w);
	return w->ncoll_view;
}

const struct mt_kvlist *mt_reader_collector(const struct mt_reader *r, size_t i)
{
	return i < mt_reader_ncollectors(r) ? r->coll_view[i] : NULL;
}

const struct mt_kvlist *mt_reader_collector_named(const struct mt_reader *r, const char *name)
{
	for (size_t i = 0; i < mt_reader_ncollectors(r); i++) {
		const struct mt_kvlist *kv = mt_reader_collector(r, i);
		const char *n = mt_kvlist_get(kv, "name");

		if (n && !strcmp(n, name))
			return kv;
	}
	return NULL;
}

const struct mt_kvlist *mt_reader_end(const struct mt_reader *r)
{
	return r->has_end ? &r->end : NULL;
}

uint64_t mt_reader_event_count(const struct mt_reader *r, unsigned type)
{
	return type < _MT_EV_MAX ? r->counts[type] : 0;
}

uint64_t mt_reader_unknown_events(const struct mt_reader *r)
{
	return r->unknown_events;
}

bool mt_reader_time_range(const struct mt_reader *r, uint64_t *t_min, uint64_t *t_max)
{
	bool any = false;

	for (size_t i = 0; i < r->nchunks; i++) {
		const struct mt_chunk_ref *c = &r->chunks[i];

		if (c->bad || !c->h.count)
			continue;
		if (!any || c->h.t_min < *t_min)
			*t_min = c->h.t_min;
		if (!any || c->h.t_max > *t_max)
			*t_max = c->h.t_max;
		any = true;
	}
	return any;
}
