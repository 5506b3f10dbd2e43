/* SPDX-License-Identifier: MIT */
/* A small streaming Parquet writer on libzstd. */
#include "export/parquet.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "common/array.h"
#include "common/buf.h"

/*
 * File layout: "PAR1", then per row group and column one DATA_PAGE (v1: definition levels
 * for OPTIONAL columns, then the non-null values, PLAIN) compressed as one ZSTD frame, then
 * the FileMetaData in Thrift's compact protocol, its length (u32 LE) and "PAR1" again.
 * Row groups hold ROWS_PER_GROUP rows, so a page stays near 1 MiB for 8-byte values and the
 * writer's memory is bounded whatever the table's length.
 */

#define ROWS_PER_GROUP 131072
#define MAX_BUF (256u << 20)

enum { PQ_INT64 = 2, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6 };
enum {
	T_TRUE = 1,
	T_FALSE = 2,
	T_BYTE = 3,
	T_I32 = 5,
	T_I64 = 6,
	T_BINARY = 8,
	T_LIST = 9,
	T_STRUCT = 12
};

struct chunk_meta {
	uint64_t offset, uncompressed, compressed, num_values;
};

/* A column's data for one row group: two sets take turns, one filled by the caller while a
 * worker thread compresses and writes the other. */
struct col {
	struct mt_col def;
	struct mt_buf values[2]; /* PLAIN, non-null values of the row group */
	uint8_t *defs[2]; /* OPTIONAL: 1 (value) or 0 (null) per row of the group */
	bool set; /* the current row has a value */
};

struct group {
	uint64_t rows, bytes;
	struct chunk_meta *cols;
};

struct mt_pq {
	struct mt_sink sink; /* first: a struct mt_pq is a table sink */
	char *path, *tmp;
	int fd;
	uint64_t off; /* bytes written */
	int err;
	struct col *cols;
	unsigned ncols;
	uint64_t rows; /* in the current group */
	uint64_t total_rows;
	struct group *groups;
	size_t ngroups, groups_cap;
	char **meta_k, **meta_v;
	unsigned nmeta;
	ZSTD_CCtx *zc;
	struct mt_buf page, out; /* scratch (the writer's) */
	unsigned cur; /* the set being filled */
	/* The worker, started at the first full row group: it writes set job_set of job_rows
	 * rows while job is true; the caller waits for it before handing over the next. */
	bool threaded, job, stop;
	unsigned job_set;
	uint64_t job_rows;
	int werr; /* the worker's first error */
	pthread_t th;
	pthread_mutex_t lk;
	pthread_cond_t cv;
};

/* ---- Thrift compact protocol, write-only ---- */

struct tw {
	struct mt_buf *b;
	int16_t last[16];
	int depth;
	int err;
};

static void t_raw(struct tw *w, const void *p, size_t n)
{
	if (!w->err && mt_buf_append(w->b, p, n) < 0)
		w->err = -ENOMEM;
}

static void t_byte(struct tw *w, uint8_t c)
{
	t_raw(w, &c, 1);
}

static void t_varint(struct tw *w, uint64_t v)
{
	if (!w->err && mt_buf_put_varint(w->b, v) < 0)
		w->err = -ENOMEM;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void t_field(struct tw *w, int16_t id, uint8_t type)
{
	int delta = id - w->last[w->depth];

	if (delta > 0 && delta <= 15) {
		t_byte(w, (uint8_t)(delta << 4 | type));
	} else {
		t_byte(w, type);
		t_varint(w, zz(id));
	}
	w->last[w->depth] = id;
}

static void t_i32(struct tw *w, int16_t id, int32_t v)
{
	t_field(w, id, T_I32);
	t_varint(w, zz(v));
}

static void t_i64(struct tw *w, int16_t id, int64_t v)
{
	t_field(w, id, T_I64);
	t_varint(w, zz(v));
}

static void t_bin(struct tw *w, int16_t id, const char *s)
{
	size_t n = strlen(s);

	t_field(w, id, T_BINARY);
	t_varint(w, n);
	t_raw(w, s, n);
}

static void t_list(struct tw *w, int16_t id, uint8_t elem, size_t n)
{
	t_field(w, id, T_LIST);
	if (n < 15) {
		t_byte(w, (uint8_t)(n << 4 | elem));
	} else {
		t_byte(w, 0xf0 | elem);
		t_varint(w, n);
	}
}

/* A struct: as a field (id > 0) or as a list element (id 0). */
static void t_begin(struct tw *w, int16_t id)
{
	if (id)
		t_field(w, id, T_STRUCT);
	if (w->depth + 1 < 16)
		w->last[++w->depth] = 0;
	else
		w->err = -EINVAL;
}

static void t_end(struct tw *w)
{
	t_byte(w, 0);
	w->depth--;
}

/* ---- columns ---- */

static struct col *col_of(struct mt_pq *pq, unsigned col)
{
	return col < pq->ncols ? &pq->cols[col] : NULL;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "PLAIN values are stored as the host's: little-endian only"
#endif

/* An 8-byte PLAIN value (INT64, DOUBLE: little-endian, as the host's). */
static inline void put8(struct mt_pq *pq, unsigned col, uint64_t v)
{
	struct col *c = col_of(pq, col);
	struct mt_buf *b;

	if (!c || c->set || pq->err)
		return;
	b = &c->values[pq->cur];
	if (b->cap - b->len < 8 && mt_buf_reserve(b, 8) < 0) {
		pq->err = -ENOMEM;
		return;
	}
	memcpy(b->data + b->len, &v, 8);
	b->len += 8;
	c->set = true;
}

void mt_pq_i64(struct mt_pq *pq, unsigned col, int64_t v)
{
	put8(pq, col, (uint64_t)v);
}

void mt_pq_u64(struct mt_pq *pq, unsigned col, uint64_t v)
{
	put8(pq, col, v);
}

void mt_pq_double(struct mt_pq *pq, unsigned col, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	put8(pq, col, u);
}

void mt_pq_str(struct mt_pq *pq, unsigned col, const char *s)
{
	struct col *c = col_of(pq, col);
	size_t n = s ? strlen(s) : 0;
	uint32_t len = (uint32_t)n;

	struct mt_buf *b;

	if (!c || c->set || pq->err || !s)
		return;
	b = &c->values[pq->cur];
	if (n > UINT32_MAX || mt_buf_reserve(b, 4 + n) < 0) {
		pq->err = -ENOMEM;
		return;
	}
	memcpy(b->data + b->len, &len, 4); /* PLAIN BYTE_ARRAY: u32 length */
	memcpy(b->data + b->len + 4, s, n);
	b->len += 4 + n;
	c->set = true;
}

/* ---- files ---- */

/* Writes at the end of the file; the first failure goes to *err. */
static void wr(struct mt_pq *pq, int *err, const void *p, size_t n)
{
	const uint8_t *q = p;

	while (!*err && n) {
		ssize_t w = write(pq->fd, q, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			*err = -errno;
			return;
		}
		q += w;
		n -= (size_t)w;
		pq->off += (uint64_t)w;
	}
}

static int pq_type(enum mt_col_type t)
{
	switch (t) {
	case MT_COL_DOUBLE:
		return PQ_DOUBLE;
	case MT_COL_STRING:
		return PQ_BYTE_ARRAY;
	default:
		return PQ_INT64;
	}
}

/* RLE/bit-packed hybrid, bit width 1, as runs: varint(count << 1) + one value byte. */
static int put_defs(struct mt_buf *b, const uint8_t *defs, uint64_t n)
{
	size_t at = b->len;
	uint32_t len;

	if (mt_buf_append(b, "\0\0\0\0", 4) < 0)
		return -ENOMEM;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;

		while (j < n && defs[j] == defs[i])
			j++;
		if (mt_buf_put_varint(b, (j - i) << 1) < 0 || mt_buf_putc(b, defs[i]) < 0)
			return -ENOMEM;
		i = j;
	}
	len = (uint32_t)(b->len - at - 4);
	for (int k = 0; k < 4; k++)
		b->data[at + (size_t)k] = (uint8_t)(len >> (8 * k));
	return 0;
}

/* a then b as one ZSTD frame into out; the compressed size or a ZSTD error code. */
static size_t compress(ZSTD_CCtx *zc, void *out, size_t cap, const void *a, size_t na,
		       const void *b, size_t nb)
{
	ZSTD_outBuffer o = { out, cap, 0 };
	ZSTD_inBuffer ia = { a, na, 0 }, ib = { b, nb, 0 };
	size_t r;

	ZSTD_CCtx_reset(zc, ZSTD_reset_session_only);
	r = ZSTD_CCtx_setPledgedSrcSize(zc, na + nb);
	while (!ZSTD_isError(r) && ia.pos < ia.size)
		r = ZSTD_compressStream2(zc, &o, &ia, ZSTD_e_continue);
	do {
		if (!ZSTD_isError(r))
			r = ZSTD_compressStream2(zc, &o, &ib, ZSTD_e_end);
	} while (!ZSTD_isError(r) && r);
	return ZSTD_isError(r) ? r : o.pos;
}

/* Compresses and writes row group set k of rows rows (the worker, or the caller without
 * one); errors go to *err. */
static void write_group(struct mt_pq *pq, unsigned k, uint64_t rows, int *err)
{
	struct group *g;

	if (!rows || *err)
		return;
	if (mt_grow_array(&pq->groups, &pq->groups_cap, pq->ngroups + 1, sizeof(*pq->groups)) < 0 ||
	    !(pq->groups[pq->ngroups].cols = calloc(pq->ncols, sizeof(struct chunk_meta)))) {
		*err = -ENOMEM;
		return;
	}
	g = &pq->groups[pq->ngroups++];
	g->rows = rows;
	g->bytes = 0;
	for (unsigned i = 0; i < pq->ncols && !*err; i++) {
		struct col *c = &pq->cols[i];
		struct chunk_meta *m = &g->cols[i];
		size_t bound, z, page_len;

		mt_buf_reset(&pq->page);
		mt_buf_reset(&pq->out);
		if (c->def.optional && put_defs(&pq->page, c->defs[k], rows) < 0) {
			*err = -ENOMEM;
			break;
		}
		/* the page: the levels (in page), then the values, compressed as one frame
		 * without copying the values */
		page_len = pq->page.len + c->values[k].len;
		bound = ZSTD_compressBound(page_len);
		if (mt_buf_reserve(&pq->out, bound) < 0) {
			*err = -ENOMEM;
			break;
		}
		z = compress(pq->zc, pq->out.data, bound, pq->page.data, pq->page.len,
			     c->values[k].data, c->values[k].len);
		if (ZSTD_isError(z)) {
			*err = -EIO;
			break;
		}
		{
			/* the PageHeader, then the compressed page */
			struct mt_buf hdr;
			struct tw h = { .b = &hdr };

			mt_buf_init(&hdr, 1024);
			t_i32(&h, 1, 0); /* DATA_PAGE */
			t_i32(&h, 2, (int32_t)page_len);
			t_i32(&h, 3, (int32_t)z);
			t_begin(&h, 5);
			t_i32(&h, 1, (int32_t)rows);
			t_i32(&h, 2, 0); /* PLAIN */
			t_i32(&h, 3, 3); /* RLE */
			t_i32(&h, 4, 3);
			t_end(&h);
			t_byte(&h, 0); /* the PageHeader's stop */
			if (h.err) {
				mt_buf_release(&hdr);
				*err = -ENOMEM;
				break;
			}
			m->offset = pq->off;
			wr(pq, err, hdr.data, hdr.len);
			wr(pq, err, pq->out.data, z);
			m->uncompressed = hdr.len + page_len;
			m->compressed = hdr.len + z;
			m->num_values = rows;
			g->bytes += m->uncompressed;
			mt_buf_release(&hdr);
		}
		mt_buf_reset(&c->values[k]);
	}
}

static void *worker(void *arg)
{
	struct mt_pq *pq = arg;

	pthread_mutex_lock(&pq->lk);
	for (;;) {
		while (!pq->job && !pq->stop)
			pthread_cond_wait(&pq->cv, &pq->lk);
		if (!pq->job)
			break;
		pthread_mutex_unlock(&pq->lk);
		write_group(pq, pq->job_set, pq->job_rows, &pq->werr);
		pthread_mutex_lock(&pq->lk);
		pq->job = false;
		pthread_cond_broadcast(&pq->cv);
	}
	pthread_mutex_unlock(&pq->lk);
	return NULL;
}

/* Waits until the worker has written what it was given; takes over its error. */
static void wait_worker(struct mt_pq *pq)
{
	if (!pq->threaded)
		return;
	pthread_mutex_lock(&pq->lk);
	while (pq->job)
		pthread_cond_wait(&pq->cv, &pq->lk);
	if (pq->werr && !pq->err)
		pq->err = pq->werr;
	pthread_mutex_unlock(&pq->lk);
}

/*
 * Ends the current row group: a full one goes to the worker (started on the first), which
 * compresses and writes it while the caller fills the other set; the last one, at close, is
 * written by the caller once the worker is done.
 */
static void flush_group(struct mt_pq *pq, bool last)
{
	if (!pq->rows || pq->err)
		return;
	if (!pq->threaded && !last) {
		pthread_mutex_init(&pq->lk, NULL);
		pthread_cond_init(&pq->cv, NULL);
		pq->threaded = pthread_create(&pq->th, NULL, worker, pq) == 0;
		if (!pq->threaded) {
			pthread_mutex_destroy(&pq->lk);
			pthread_cond_destroy(&pq->cv);
		}
	}
	wait_worker(pq);
	if (pq->err)
		return;
	if (!pq->threaded || last) {
		write_group(pq, pq->cur, pq->rows, &pq->err);
	} else {
		pthread_mutex_lock(&pq->lk);
		pq->job_set = pq->cur;
		pq->job_rows = pq->rows;
		pq->job = true;
		pthread_cond_broadcast(&pq->cv);
		pthread_mutex_unlock(&pq->lk);
		pq->cur ^= 1;
	}
	pq->rows = 0;
}

static void stop_worker(struct mt_pq *pq)
{
	if (!pq->threaded)
		return;
	wait_worker(pq);
	pthread_mutex_lock(&pq->lk);
	pq->stop = true;
	pthread_cond_broadcast(&pq->cv);
	pthread_mutex_unlock(&pq->lk);
	pthread_join(pq->th, NULL);
	pthread_mutex_destroy(&pq->lk);
	pthread_cond_destroy(&pq->cv);
	pq->threaded = false;
}

int mt_pq_end_row(struct mt_pq *pq)
{
	for (unsigned i = 0; i < pq->ncols && !pq->err; i++) {
		struct col *c = &pq->cols[i];

		if (!c->set && !c->def.optional) {
			pq->err = -EINVAL; /* a REQUIRED column without a value */
			break;
		}
		if (c->def.optional)
			c->defs[pq->cur][pq->rows] = c->set;
		c->set = false;
	}
	if (pq->err)
		return pq->err;
	pq->rows++;
	pq->total_rows++;
	if (pq->rows == ROWS_PER_GROUP)
		flush_group(pq, false);
	return pq->err;
}

static void footer(struct mt_pq *pq)
{
	struct mt_buf b;
	struct tw w = { .b = &b };
	uint8_t len[4];

	mt_buf_init(&b, MAX_BUF);
	t_i32(&w, 1, 1); /* version */
	t_list(&w, 2, T_STRUCT, pq->ncols + 1);
	t_begin(&w, 0); /* the root */
	t_bin(&w, 4, "schema");
	t_i32(&w, 5, (int32_t)pq->ncols);
	t_end(&w);
	for (unsigned i = 0; i < pq->ncols; i++) {
		const struct mt_col *d = &pq->cols[i].def;

		t_begin(&w, 0);
		t_i32(&w, 1, pq_type(d->type));
		t_i32(&w, 3, d->optional ? 1 : 0);
		t_bin(&w, 4, d->name);
		if (d->type == MT_COL_STRING) {
			t_i32(&w, 6, 0); /* UTF8 */
			t_begin(&w, 10);
			t_begin(&w, 1); /* StringType */
			t_end(&w);
			t_end(&w);
		} else if (d->type == MT_COL_U64) {
			t_i32(&w, 6, 14); /* UINT_64 */
			t_begin(&w, 10);
			t_begin(&w, 10); /* IntType */
			t_field(&w, 1, T_BYTE);
			t_byte(&w, 64);
			t_field(&w, 2, T_FALSE); /* isSigned */
			t_end(&w);
			t_end(&w);
		}
		t_end(&w);
	}
	t_i64(&w, 3, (int64_t)pq->total_rows);
	t_list(&w, 4, T_STRUCT, pq->ngroups);
	for (size_t g = 0; g < pq->ngroups; g++) {
		t_begin(&w, 0);
		t_list(&w, 1, T_STRUCT, pq->ncols);
		for (unsigned i = 0; i < pq->ncols; i++) {
			const struct chunk_meta *m = &pq->groups[g].cols[i];

			t_begin(&w, 0);
			t_i64(&w, 2, (int64_t)m->offset);
			t_begin(&w, 3);
			t_i32(&w, 1, pq_type(pq->cols[i].def.type));
			t_list(&w, 2, T_I32, 2);
			t_varint(&w, zz(0)); /* PLAIN */
			t_varint(&w, zz(3)); /* RLE */
			t_list(&w, 3, T_BINARY, 1);
			t_varint(&w, strlen(pq->cols[i].def.name));
			t_raw(&w, pq->cols[i].def.name, strlen(pq->cols[i].def.name));
			t_i32(&w, 4, 6); /* ZSTD */
			t_i64(&w, 5, (int64_t)m->num_values);
			t_i64(&w, 6, (int64_t)m->uncompressed);
			t_i64(&w, 7, (int64_t)m->compressed);
			t_i64(&w, 9, (int64_t)m->offset);
			t_end(&w);
			t_end(&w);
		}
		t_i64(&w, 2, (int64_t)pq->groups[g].bytes);
		t_i64(&w, 3, (int64_t)pq->groups[g].rows);
		t_end(&w);
	}
	t_list(&w, 5, T_STRUCT, pq->nmeta);
	for (unsigned i = 0; i < pq->nmeta; i++) {
		t_begin(&w, 0);
		t_bin(&w, 1, pq->meta_k[i]);
		t_bin(&w, 2, pq->meta_v[i]);
		t_end(&w);
	}
	t_bin(&w, 6, "memtap " MEMTAP_VERSION);
	t_byte(&w, 0);
	if (w.err) {
		pq->err = w.err;
	} else {
		for (int k = 0; k < 4; k++)
			len[k] = (uint8_t)(b.len >> (8 * k));
		wr(pq, &pq->err, b.data, b.len);
		wr(pq, &pq->err, len, 4);
		wr(pq, &pq->err, "PAR1", 4);
	}
	mt_buf_release(&b);
}

static void s_i64(struct mt_sink *s, unsigned col, int64_t v)
{
	put8((struct mt_pq *)s, col, (uint64_t)v);
}

static void s_u64(struct mt_sink *s, unsigned col, uint64_t v)
{
	put8((struct mt_pq *)s, col, v);
}

static void s_dbl(struct mt_sink *s, unsigned col, double v)
{
	mt_pq_double((struct mt_pq *)s, col, v);
}

static void s_str(struct mt_sink *s, unsigned col, const char *v)
{
	mt_pq_str((struct mt_pq *)s, col, v);
}

static int s_end_row(struct mt_sink *s)
{
	return mt_pq_end_row((struct mt_pq *)s);
}

static int s_close(struct mt_sink *s, bool commit)
{
	return mt_pq_close((struct mt_pq *)s, commit);
}

static const struct mt_sink_ops pq_ops = {
	.i64 = s_i64,
	.u64 = s_u64,
	.dbl = s_dbl,
	.str = s_str,
	.end_row = s_end_row,
	.close = s_close,
};

struct mt_sink *mt_pq_sink(struct mt_pq *pq)
{
	return &pq->sink;
}

int mt_pq_open(const char *path, bool force, const struct mt_col *cols, unsigned ncols,
	       const char *const *meta_keys, const char *const *meta_values, unsigned nmeta,
	       struct mt_pq **ret)
{
	struct mt_pq *pq = calloc(1, sizeof(*pq));
	size_t n = strlen(path) + 32;

	if (!pq)
		return -ENOMEM;
	pq->sink.ops = &pq_ops;
	pq->fd = -1;
	if (!force && access(path, F_OK) == 0) {
		free(pq);
		return -EEXIST;
	}
	pq->path = strdup(path);
	pq->tmp = malloc(n);
	pq->cols = calloc(ncols ? ncols : 1, sizeof(*pq->cols));
	pq->meta_k = calloc(nmeta + 1, sizeof(char *));
	pq->meta_v = calloc(nmeta + 1, sizeof(char *));
	pq->zc = ZSTD_createCCtx();
	if (pq->zc)
		ZSTD_CCtx_setParameter(pq->zc, ZSTD_c_compressionLevel, 1);
	if (!pq->path || !pq->tmp || !pq->cols || !pq->meta_k || !pq->meta_v || !pq->zc) {
		mt_pq_close(pq, false);
		return -ENOMEM;
	}
	pq->ncols = ncols;
	for (unsigned i = 0; i < ncols; i++) {
		pq->cols[i].def = cols[i];
		for (int k = 0; k < 2; k++) {
			mt_buf_init(&pq->cols[i].values[k], MAX_BUF);
			if (cols[i].optional && !(pq->cols[i].defs[k] = malloc(ROWS_PER_GROUP))) {
				mt_pq_close(pq, false);
				return -ENOMEM;
			}
		}
	}
	for (unsigned i = 0; i < nmeta; i++) {
		pq->meta_k[i] = strdup(meta_keys[i]);
		pq->meta_v[i] = strdup(meta_values[i]);
		pq->nmeta++;
		if (!pq->meta_k[i] || !pq->meta_v[i]) {
			mt_pq_close(pq, false);
			return -ENOMEM;
		}
	}
	mt_buf_init(&pq->page, MAX_BUF);
	mt_buf_init(&pq->out, MAX_BUF);
	snprintf(pq->tmp, n, "%s.tmp.%d", path, (int)getpid());
	pq->fd = open(pq->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pq->fd < 0) {
		int e = -errno;

		mt_pq_close(pq, false);
		return e;
	}
	wr(pq, &pq->err, "PAR1", 4);
	*ret = pq;
	return pq->err;
}

int mt_pq_close(struct mt_pq *pq, bool commit)
{
	int rc;

	if (!pq)
		return 0;
	if (commit && pq->fd >= 0)
		flush_group(pq, true);
	stop_worker(pq);
	if (commit && pq->fd >= 0 && !pq->err)
		footer(pq);
	if (pq->fd >= 0 && close(pq->fd) < 0 && !pq->err)
		pq->err = -errno;
	rc = pq->err;
	if (pq->fd >= 0) {
		if (commit && !rc && rename(pq->tmp, pq->path) < 0)
			rc = -errno;
		if (!commit || rc)
			unlink(pq->tmp);
	}
	for (unsigned i = 0; i < pq->ncols; i++)
		for (int k = 0; k < 2; k++) {
			mt_buf_release(&pq->cols[i].values[k]);
			free(pq->cols[i].defs[k]);
		}
	for (size_t g = 0; g < pq->ngroups; g++)
		free(pq->groups[g].cols);
	for (unsigned i = 0; i < pq->nmeta; i++) {
		free(pq->meta_k[i]);
		free(pq->meta_v[i]);
	}
	free(pq->meta_k);
	free(pq->meta_v);
	free(pq->groups);
	free(pq->cols);
	mt_buf_release(&pq->page);
	mt_buf_release(&pq->out);
	ZSTD_freeCCtx(pq->zc);
	free(pq->path);
	free(pq->tmp);
	free(pq);
	return commit ? rc : 0;
}
