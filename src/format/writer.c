/* SPDX-License-Identifier: MIT */
/* The trace writer: interns strings, batches rows per type, frames zstd chunks. */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <zstd.h>

#include "common/outfile.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/varint.h"
#include "format/block.h"
#include "format/chunk.h"
#include "format/schema.h"

#define STRINGS_CHUNK_MAX (4u << 20)
#define STRTAB_MAX_BYTES (1ull << 30)

/*
 * The strings of the writer's stream. Each distinct string gets one id while it is held;
 * once more than `keep` bytes are held and all of them are written, they are forgotten
 * (ids go on from where they were): a string seen again then gets a new id, and readers
 * make every id of one text the first one (reader.c, load_strings). A long recording's
 * memory does not grow with every distinct path and argument list it saw.
 */
struct strtab {
	struct mt_buf arena; /* the strings held, back to back */
	uint64_t *off; /* off[id - base], base <= id < next */
	uint32_t *len;
	uint32_t *slots; /* open addressing over ids; 0 = empty */
	uint32_t nslots;
	uint32_t base; /* the first id held: the ones before are written and forgotten */
	uint32_t next; /* next id to assign */
	uint32_t flushed; /* ids below this are written */
	uint64_t keep; /* bytes held before forgetting */
	uint64_t forgotten; /* times the table was emptied */
};

#define STRTAB_KEEP_BYTES (1ull << 20)
#define S_OFF(st, id) ((st)->off[(id) - (st)->base])
#define S_LEN(st, id) ((st)->len[(id) - (st)->base])

struct mt_writer {
	int fd;
	bool own_fd;
	int err;
	int level;
	uint32_t stream;
	uint32_t block_events;
	ZSTD_CCtx *cctx;
	struct mt_buf raw;
	struct mt_buf frame;
	struct mt_block blocks[_MT_EV_MAX];
	struct strtab st;
	struct mt_writer_stats stats;
	uint64_t win_lo, win_hi; /* mt_writer_window */
	uint32_t win_types;
	uint64_t outside;
	uint64_t exclude_pid, excluded; /* mt_writer_exclude_pid */
	uint64_t limit; /* mt_writer_limit; 0: none */
	uint32_t tap_types; /* mt_writer_tap */
	void (*tap)(void *ctx, unsigned type, const uint64_t *row);
	void *tap_ctx;
};

static int set_err(struct mt_writer *w, int r)
{
	if (r < 0 && !w->err)
		w->err = r;
	return r;
}

static int write_all(struct mt_writer *w, const void *p, size_t n)
{
	const uint8_t *q = p;

	while (n) {
		ssize_t k = write(w->fd, q, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return set_err(w, -errno);
		}
		q += k;
		n -= (size_t)k;
		w->stats.bytes += (uint64_t)k;
	}
	return 0;
}

static int write_header(struct mt_writer *w, const struct mt_writer_opts *o)
{
	uint8_t h[MT_FILE_HEADER_SIZE] = { 0 };
	char name[MT_FILE_HDR_WRITER_LEN + 1];
	uint8_t id[16];

	if (o->run_id) {
		memcpy(id, o->run_id, 16);
	} else if (getrandom(id, sizeof(id), 0) != sizeof(id)) {
		uint64_t t = mt_now_ns() ^ ((uint64_t)getpid() << 32);

		memcpy(id, &t, 8);
		t = mt_hash_u64(t);
		memcpy(id + 8, &t, 8);
	}
	id[6] = (id[6] & 0x0f) | 0x40; /* a version-4 UUID */
	id[8] = (id[8] & 0x3f) | 0x80;
	memcpy(h, MT_FILE_MAGIC, MT_FILE_MAGIC_LEN);
	mt_put_le32(h + MT_FILE_HDR_OFF_SIZE, MT_FILE_HEADER_SIZE);
	mt_put_le16(h + MT_FILE_HDR_OFF_MAJOR, MT_FORMAT_MAJOR);
	mt_put_le16(h + MT_FILE_HDR_OFF_MINOR, MT_FORMAT_MINOR);
	memcpy(h + MT_FILE_HDR_OFF_RUN_ID, id, 16);
	mt_put_le64(h + MT_FILE_HDR_OFF_REALTIME,
		    o->realtime_ns ? o->realtime_ns : mt_clock_ns(CLOCK_REALTIME));
	mt_put_le64(h + MT_FILE_HDR_OFF_MONOTONIC, o->monotonic_ns ? o->monotonic_ns : mt_now_ns());
	snprintf(name, sizeof(name), "%s",
		 o->writer_name ? o->writer_name : "memtap " MEMTAP_VERSION);
	memcpy(h + MT_FILE_HDR_OFF_WRITER, name, strlen(name));
	mt_put_le32(h + MT_FILE_HEADER_SIZE - 4, mt_crc32c(0, h, MT_FILE_HEADER_SIZE - 4));
	return write_all(w, h, sizeof(h));
}

int mt_writer_open_fd(int fd, const struct mt_writer_opts *opts, struct mt_writer **ret)
{
	static const struct mt_writer_opts defaults;
	const struct mt_writer_opts *o = opts ? opts : &defaults;
	struct mt_writer *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->level = o->zstd_level ? o->zstd_level : 3;
	w->stream = o->stream;
	w->block_events = o->block_events ? o->block_events : 16384;
	if (w->block_events > MT_MAX_BLOCK_EVENTS)
		w->block_events = MT_MAX_BLOCK_EVENTS;
	mt_buf_init(&w->raw, MT_MAX_CHUNK_RAW);
	mt_buf_init(&w->frame, MT_CHUNK_HEADER_SIZE + MT_MAX_CHUNK_PAYLOAD);
	mt_buf_init(&w->st.arena, STRTAB_MAX_BYTES);
	w->st.next = 1;
	w->st.flushed = 1;
	w->st.base = 1;
	w->st.keep = o->strtab_keep ? o->strtab_keep : STRTAB_KEEP_BYTES;
	if (w->level > 0) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx) {
			r = -ENOMEM;
			goto err;
		}
	}
	r = write_header(w, o);
	if (r < 0)
		goto err;
	*ret = w;
	return 0;
err:
	w->own_fd = false;
	mt_writer_free(w);
	return r;
}

int mt_writer_open(const char *path, bool force, const struct mt_writer_opts *opts,
		   struct mt_writer **ret)
{
	int fd, r;

	/* In place (a trace cut short reads up to its last chunk), never through a symlink;
	 * 0600 unless asked: a trace holds argv, paths and the address layout. */
	fd = mt_outfile_direct(path, force, opts && opts->mode ? opts->mode : 0600);
	if (fd < 0)
		return fd;
	r = mt_writer_open_fd(fd, opts, ret);
	if (r < 0) {
		/* nothing of a trace was written (a full disk at the start): no empty file left
		 * to block the retry */
		close(fd);
		unlink(path);
		return r;
	}
	(*ret)->own_fd = true;
	return 0;
}

/* A data chunk past the limit, or after the seal: counted, not written. */
static bool left_out(struct mt_writer *w, const struct mt_chunk_hdr *h, size_t psize)
{
	struct mt_writer_stats *st = &w->stats;
	bool data = h->type == MT_CHUNK_EVENTS || h->type == MT_CHUNK_STRINGS ||
		    h->type == MT_CHUNK_STACKS || h->type == MT_CHUNK_STACKS2;

	if (!data ||
	    (!st->sealed && (!w->limit || st->bytes + MT_CHUNK_HEADER_SIZE + psize <= w->limit)))
		return false;
	st->sealed = true;
	st->left_out_chunks++;
	if (h->type == MT_CHUNK_EVENTS && h->count) {
		if (h->subtype < _MT_EV_MAX)
			st->left_out_events[h->subtype] += h->count;
		if (!st->left_out_from || h->t_min < st->left_out_from)
			st->left_out_from = h->t_min;
	}
	return true;
}

int mt_writer_chunk(struct mt_writer *w, const struct mt_chunk_hdr *tmpl, const void *raw, size_t n)
{
	struct mt_chunk_hdr h = *tmpl;
	uint8_t *payload;
	size_t psize = n;
	int r;

	if (w->err)
		return w->err;
	if (n > MT_MAX_CHUNK_RAW)
		return set_err(w, -MT_ERR_LIMIT);
	mt_buf_reset(&w->frame);
	r = mt_buf_reserve(&w->frame, MT_CHUNK_HEADER_SIZE + ZSTD_compressBound(n));
	if (r < 0)
		return set_err(w, r);
	payload = w->frame.data + MT_CHUNK_HEADER_SIZE;
	h.compression = MT_COMP_NONE;
	if (w->cctx && n >= 64) {
		size_t z = ZSTD_compressCCtx(w->cctx, payload, ZSTD_compressBound(n), raw, n,
					     w->level);

		if (!ZSTD_isError(z) && z < n) {
			h.compression = MT_COMP_ZSTD;
			psize = z;
		}
	}
	if (h.compression == MT_COMP_NONE && n)
		memcpy(payload, raw, n);
	if (left_out(w, &h, psize))
		return 0;
	h.payload_size = (uint32_t)psize;
	h.raw_size = (uint32_t)n;
	h.payload_crc = mt_crc32c(0, payload, psize);
	mt_chunk_hdr_pack(&h, w->frame.data);
	r = write_all(w, w->frame.data, MT_CHUNK_HEADER_SIZE + psize);
	if (r < 0)
		return r;
	w->stats.chunks++;
	if (h.type == MT_CHUNK_EVENTS && h.subtype < _MT_EV_MAX)
		w->stats.events[h.subtype] += h.count;
	return 0;
}

/* ---- strings ---- */

static uint32_t str_find_slot(const struct strtab *st, const char *s, size_t len, uint64_t hash)
{
	uint32_t mask = st->nslots - 1, i = (uint32_t)hash & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t id = st->slots[i];

		if (!id)
			return i;
		if (S_LEN(st, id) == len && !memcmp(st->arena.data + S_OFF(st, id), s, len))
			return i;
	}
}

static int str_grow(struct strtab *st)
{
	uint32_t ncap = st->nslots ? st->nslots * 2 : 1024;
	uint32_t *slots = calloc(ncap, sizeof(*slots));
	uint64_t *off = realloc(st->off, (size_t)ncap * sizeof(*off));
	uint32_t *len;

	if (off)
		st->off = off;
	len = realloc(st->len, (size_t)ncap * sizeof(*len));
	if (len)
		st->len = len;
	if (!slots || !off || !len) {
		free(slots);
		return -ENOMEM;
	}
	for (uint32_t id = st->base; id < st->next; id++) {
		const char *s = (const char *)st->arena.data + S_OFF(st, id);
		struct strtab tmp = *st;
		uint32_t i;

		tmp.slots = slots;
		tmp.nslots = ncap;
		i = str_find_slot(&tmp, s, S_LEN(st, id), mt_hash64(s, S_LEN(st, id), 0));
		slots[i] = id;
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = ncap;
	return 0;
}

uint32_t mt_writer_strn(struct mt_writer *w, const char *s, size_t len)
{
	struct strtab *st = &w->st;
	uint64_t hash;
	uint32_t i, id;
	int r;

	if (!len || w->err)
		return 0;
	if (len > MT_MAX_STRING)
		len = MT_MAX_STRING; /* cut, never refuse: a name is better truncated than lost */
	if ((uint64_t)(st->next - st->base) * 2 >= st->nslots) {
		r = str_grow(st);
		if (r < 0) {
			set_err(w, r);
			return 0;
		}
	}
	hash = mt_hash64(s, len, 0);
	i = str_find_slot(st, s, len, hash);
	if (st->slots[i])
		return st->slots[i];
	id = st->next;
	S_OFF(st, id) = st->arena.len;
	S_LEN(st, id) = (uint32_t)len;
	r = mt_buf_append(&st->arena, s, len);
	if (r < 0) {
		set_err(w, r);
		return 0;
	}
	st->slots[i] = id;
	st->next++;
	w->stats.strings++;
	return id;
}

uint32_t mt_writer_str(struct mt_writer *w, const char *s)
{
	return s ? mt_writer_strn(w, s, strlen(s)) : 0;
}

static int flush_strings(struct mt_writer *w)
{
	struct strtab *st = &w->st;

	while (st->flushed < st->next) {
		struct mt_chunk_hdr h = { .type = MT_CHUNK_STRINGS, .stream = w->stream };
		uint32_t first = st->flushed, id = first;
		size_t bytes = 0;
		int r;

		while (id < st->next &&
		       (id == first || bytes + S_LEN(st, id) < STRINGS_CHUNK_MAX)) {
			bytes += S_LEN(st, id) + MT_VARINT_MAX;
			id++;
		}
		mt_buf_reset(&w->raw);
		r = mt_buf_put_varint(&w->raw, first);
		if (r >= 0)
			r = mt_buf_put_varint(&w->raw, id - first);
		for (uint32_t k = first; r >= 0 && k < id; k++) {
			r = mt_buf_put_varint(&w->raw, S_LEN(st, k));
			if (r >= 0)
				r = mt_buf_append(&w->raw, st->arena.data + S_OFF(st, k),
						  S_LEN(st, k));
		}
		if (r < 0)
			return set_err(w, r);
		h.count = id - first;
		r = mt_writer_chunk(w, &h, w->raw.data, w->raw.len);
		if (r < 0)
			return r;
		st->flushed = id;
	}
	if (st->arena.len > st->keep) {
		/* All written: forget them (a repeated string gets a new id, one text). */
		mt_buf_release(&st->arena);
		mt_buf_init(&st->arena, STRTAB_MAX_BYTES);
		free(st->slots);
		st->slots = NULL;
		st->nslots = 0;
		st->base = st->next;
		st->forgotten++;
		w->stats.strings_forgotten++;
	}
	return 0;
}

/* ---- events ---- */

static int write_block(struct mt_writer *w, uint32_t stream, struct mt_block *b)
{
	struct mt_chunk_hdr h = { .type = MT_CHUNK_EVENTS, .stream = stream };
	int r;

	if (!b->count)
		return 0;
	/* Strings first, so that a reader streaming the file meets definitions before uses. */
	r = flush_strings(w);
	if (r < 0)
		return r;
	r = mt_block_sort(b, NULL);
	if (r < 0)
		return set_err(w, r);
	mt_buf_reset(&w->raw);
	r = mt_block_encode(b, &w->raw);
	if (r < 0)
		return set_err(w, r);
	h.subtype = b->type;
	h.count = b->count;
	mt_block_time_range(b, &h.t_min, &h.t_max);
	r = mt_writer_chunk(w, &h, w->raw.data, w->raw.len);
	b->count = 0;
	return r;
}

static int flush_block(struct mt_writer *w, struct mt_block *b)
{
	return write_block(w, w->stream, b);
}

int mt_writer_block(struct mt_writer *w, uint32_t stream, struct mt_block *b)
{
	if (w->err)
		return w->err;
	return write_block(w, stream, b);
}

int mt_writer_event(struct mt_writer *w, unsigned type, const uint64_t *row)
{
	struct mt_block *b;
	int r;

	if (w->err)
		return w->err;
	if (type >= _MT_EV_MAX || !mt_type_desc(type))
		return -EINVAL;
	if (w->exclude_pid && row[MT_F_PID] == w->exclude_pid) {
		w->excluded++;
		return 1;
	}
	if (((w->win_types >> type) & 1) && (row[0] < w->win_lo || row[0] > w->win_hi)) {
		w->outside++;
		return 1;
	}
	if ((w->tap_types >> type) & 1)
		w->tap(w->tap_ctx, type, row);
	b = &w->blocks[type];
	if (!b->cap) {
		r = mt_block_init(b, type, w->block_events);
		if (r < 0)
			return set_err(w, r);
	}
	if (b->count == b->cap) {
		r = flush_block(w, b);
		if (r < 0)
			return r;
	}
	return mt_block_add(b, row);
}

void mt_writer_window(struct mt_writer *w, uint64_t lo, uint64_t hi, uint32_t types)
{
	w->win_lo = lo;
	w->win_hi = hi;
	w->win_types = types;
}

uint64_t mt_writer_outside(const struct mt_writer *w)
{
	return w->outside;
}

void mt_writer_tap(struct mt_writer *w, uint32_t types,
		   void (*fn)(void *ctx, unsigned type, const uint64_t *row), void *ctx)
{
	w->tap_types = fn ? types : 0;
	w->tap = fn;
	w->tap_ctx = ctx;
}

void mt_writer_exclude_pid(struct mt_writer *w, uint64_t pid)
{
	w->exclude_pid = pid;
}

uint64_t mt_writer_excluded(const struct mt_writer *w)
{
	return w->excluded;
}

void mt_writer_limit(struct mt_writer *w, uint64_t max_bytes)
{
	w->limit = max_bytes;
}

void mt_writer_seal(struct mt_writer *w)
{
	w->stats.sealed = true;
}

int mt_writer_stacks(struct mt_writer *w, uint32_t stream, uint64_t first_id, size_t n,
		     const uint64_t *parents, const uint64_t *ips)
{
	struct mt_chunk_hdr h = { .type = MT_CHUNK_STACKS2, .stream = stream };
	int r;

	if (w->err)
		return w->err;
	if (n > UINT32_MAX)
		return -EINVAL;
	mt_buf_reset(&w->raw);
	r = mt_stacks2_encode(first_id, n, parents, ips, &w->raw);
	if (r == -EINVAL)
		return r;
	if (r < 0)
		return set_err(w, r);
	h.count = (uint32_t)n;
	return mt_writer_chunk(w, &h, w->raw.data, w->raw.len);
}

int mt_writer_kv(struct mt_writer *w, unsigned chunk_type, const struct mt_kv *kv)
{
	struct mt_chunk_hdr h = { .type = (uint16_t)chunk_type, .stream = w->stream };
	int r;

	if (w->err)
		return w->err;
	mt_buf_reset(&w->raw);
	r = mt_kv_encode(kv, &w->raw);
	if (r < 0)
		return set_err(w, r);
	h.count = kv->n;
	return mt_writer_chunk(w, &h, w->raw.data, w->raw.len);
}

int mt_writer_flush(struct mt_writer *w)
{
	int r = flush_strings(w);

	for (unsigned t = 0; r >= 0 && t < _MT_EV_MAX; t++)
		r = flush_block(w, &w->blocks[t]);
	return r;
}

int mt_writer_finish(struct mt_writer *w, const struct mt_kv *end)
{
	struct mt_kv empty;
	int r;

	mt_kv_init(&empty);
	r = mt_writer_flush(w);
	if (r >= 0)
		r = mt_writer_kv(w, MT_CHUNK_END, end ? end : &empty);
	mt_kv_release(&empty);
	if (r >= 0 && w->own_fd) {
		if (close(w->fd) < 0)
			r = set_err(w, -errno);
		w->own_fd = false;
	}
	return r;
}

void mt_writer_free(struct mt_writer *w)
{
	if (!w)
		return;
	if (w->own_fd)
		close(w->fd);
	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		mt_block_release(&w->blocks[t]);
	ZSTD_freeCCtx(w->cctx);
	mt_buf_release(&w->raw);
	mt_buf_release(&w->frame);
	mt_buf_release(&w->st.arena);
	free(w->st.off);
	free(w->st.len);
	free(w->st.slots);
	free(w);
}

int mt_writer_error(const struct mt_writer *w)
{
	return w->err;
}

const struct mt_writer_stats *mt_writer_stats(const struct mt_writer *w)
{
	return &w->stats;
}
