/* SPDX-License-Identifier: MIT */
/* A small streaming Parquet writer on libzstd. */
#include "export/parquet.h"
#include "export/parquet-internal.h"

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
#include "common/hash.h"

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
	uint64_t u;

	memcpy(&u, &v, 8);
	put8((struct mt_pq *)s, col, u);
}

static void s_str(struct mt_sink *sink, unsigned col, const char *s)
{
	struct mt_pq *pq = (struct mt_pq *)sink;
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
void mt_pq_wr(struct mt_pq *pq, int *err, const void *p, size_t n)
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

int mt_pq_pq_type(enum mt_col_type t)
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

/* RLE/bit-packed hybrid of n values of bw bits (dictionary indices): runs of 8 or more equal
 * values as RLE runs, the rest bit-packed in groups of 8 (LSB first; the last group padded). */
static int put_hybrid(struct mt_buf *b, const uint32_t *v, size_t n, unsigned bw)
{
	size_t i = 0;

	while (i < n) {
		size_t run = 1, start = i, groups = 0;

		while (i + run < n && v[i + run] == v[i])
			run++;
		if (run >= 8) {
			if (mt_buf_put_varint(b, (uint64_t)run << 1) < 0)
				return -ENOMEM;
			for (unsigned k = 0; k < (bw + 7) / 8; k++)
				if (mt_buf_putc(b, (uint8_t)(v[i] >> (8 * k))) < 0)
					return -ENOMEM;
			i += run;
			continue;
		}
		/* groups of 8 until one starts a run of 8 equal values */
		do {
			groups++;
			i += 8;
			for (run = 1; i + run < n && run < 8 && v[i + run] == v[i]; run++)
				;
		} while (i < n && run < 8);
		if (mt_buf_put_varint(b, (uint64_t)groups << 1 | 1) < 0 ||
		    mt_buf_reserve(b, groups * bw) < 0)
			return -ENOMEM;
		{
			uint64_t acc = 0;
			unsigned bits = 0;

			for (size_t j = start; j < start + groups * 8; j++) {
				acc |= (uint64_t)(j < n ? v[j] : 0) << bits;
				bits += bw;
				while (bits >= 8) {
					b->data[b->len++] = (uint8_t)acc;
					acc >>= 8;
					bits -= 8;
				}
			}
		}
		if (i > n)
			i = n;
	}
	return 0;
}

#define DICT_MAX 4096 /* entries; bigger dictionaries are written PLAIN */
#define DICT_RETRY 8 /* row groups a column that overflowed is written PLAIN before a retry */

struct dict_slot {
	uint64_t hash; /* 0: empty (8-byte values: 1 when used) */
	uint64_t val; /* 8-byte values: the value */
	uint32_t off, len; /* strings: the entry's PLAIN bytes in dict */
	uint32_t ix;
};

/* Builds column c's dictionary over its n non-null values of set k into pq->dict (PLAIN
 * entries) and pq->idx; false when it holds more than DICT_MAX entries. */
static bool make_dict(struct mt_pq *pq, struct col *c, unsigned k, size_t n, uint32_t *ndict)
{
	const uint8_t *p = c->values[k].data, *end = p + c->values[k].len;
	bool str = c->def.type == MT_COL_STRING;

	if (c->no_dict) {
		c->no_dict--;
		return false;
	}
	if (!pq->slots && !(pq->slots = malloc(2 * DICT_MAX * sizeof(*pq->slots))))
		return false;
	if (!pq->idx && !(pq->idx = malloc(ROWS_PER_GROUP * sizeof(*pq->idx))))
		return false;
	memset(pq->slots, 0, 2 * DICT_MAX * sizeof(*pq->slots));
	mt_buf_reset(&pq->dict);
	*ndict = 0;
	if (!str) { /* 8-byte values: hashed and compared as integers; runs skip the table */
		uint64_t last = 0;
		uint32_t last_ix = UINT32_MAX;

		for (size_t j = 0; j < n; j++, p += 8) {
			uint64_t x, h;
			size_t s;

			memcpy(&x, p, 8);
			if (x == last && last_ix != UINT32_MAX) {
				pq->idx[j] = last_ix;
				continue;
			}
			h = mt_hash_u64(x);
			for (s = h & (2 * DICT_MAX - 1); pq->slots[s].hash;
			     s = (s + 1) & (2 * DICT_MAX - 1))
				if (pq->slots[s].val == x)
					break;
			if (!pq->slots[s].hash) {
				if (*ndict == DICT_MAX) {
					c->no_dict = DICT_RETRY;
					return false;
				}
				pq->slots[s] =
					(struct dict_slot){ .hash = 1, .val = x, .ix = *ndict };
				if (mt_buf_append(&pq->dict, &x, 8) < 0)
					return false;
				(*ndict)++;
			}
			pq->idx[j] = last_ix = pq->slots[s].ix;
			last = x;
		}
		return true;
	}
	for (size_t j = 0; j < n; j++) {
		uint32_t len;
		const uint8_t *v = p + 4;
		uint64_t h;
		size_t s;

		memcpy(&len, p, 4);
		if ((size_t)(end - v) < len)
			return false;
		if (len <= 8) { /* short strings (names, kinds): hashed as one integer */
			uint64_t x = 0;

			memcpy(&x, v, len);
			h = mt_hash_u64(x ^ (uint64_t)len << 59) | 1;
		} else {
			h = mt_hash64(v, len, 0x6d74) | 1;
		}
		for (s = h & (2 * DICT_MAX - 1); pq->slots[s].hash;
		     s = (s + 1) & (2 * DICT_MAX - 1))
			if (pq->slots[s].hash == h && pq->slots[s].len == len &&
			    !memcmp(pq->dict.data + pq->slots[s].off + 4, v, len))
				break;
		if (!pq->slots[s].hash) {
			if (*ndict == DICT_MAX) {
				c->no_dict = DICT_RETRY;
				return false;
			}
			pq->slots[s] = (struct dict_slot){
				.hash = h, .off = (uint32_t)pq->dict.len, .len = len, .ix = *ndict
			};
			if (mt_buf_append(&pq->dict, p, 4 + (size_t)len) < 0)
				return false;
			(*ndict)++;
		}
		pq->idx[j] = pq->slots[s].ix;
		p = v + len;
	}
	return true;
}

/* Writes one page: its header (DATA_PAGE with encoding enc, or DICTIONARY_PAGE when dict) and
 * data a (+ b) compressed as one ZSTD frame; returns the bytes written, 0 on error. */
static uint64_t write_page(struct mt_pq *pq, int *err, bool dict, uint64_t num_values, int enc,
			   const void *a, size_t na, const void *b, size_t nb,
			   uint64_t *uncompressed)
{
	size_t bound = ZSTD_compressBound(na + nb), z;
	struct mt_buf hdr;
	struct tw h = { .b = &hdr };

	mt_buf_reset(&pq->out);
	if (mt_buf_reserve(&pq->out, bound) < 0) {
		*err = -ENOMEM;
		return 0;
	}
	z = compress(pq->zc, pq->out.data, bound, a, na, b, nb);
	if (ZSTD_isError(z)) {
		*err = -EIO;
		return 0;
	}
	mt_buf_init(&hdr, 1024);
	mt_pq_t_i32(&h, 1, dict ? 2 : 0); /* DICTIONARY_PAGE or DATA_PAGE */
	mt_pq_t_i32(&h, 2, (int32_t)(na + nb));
	mt_pq_t_i32(&h, 3, (int32_t)z);
	if (dict) {
		mt_pq_t_begin(&h, 7); /* DictionaryPageHeader */
		mt_pq_t_i32(&h, 1, (int32_t)num_values);
		mt_pq_t_i32(&h, 2, 0); /* PLAIN */
		mt_pq_t_end(&h);
	} else {
		mt_pq_t_begin(&h, 5); /* DataPageHeader */
		mt_pq_t_i32(&h, 1, (int32_t)num_values);
		mt_pq_t_i32(&h, 2, enc);
		mt_pq_t_i32(&h, 3, 3); /* definition levels: RLE */
		mt_pq_t_i32(&h, 4, 3); /* repetition levels: RLE */
		mt_pq_t_end(&h);
	}
	mt_pq_t_byte(&h, 0); /* the PageHeader's stop */
	if (h.err) {
		mt_buf_release(&hdr);
		*err = -ENOMEM;
		return 0;
	}
	mt_pq_wr(pq, err, hdr.data, hdr.len);
	mt_pq_wr(pq, err, pq->out.data, z);
	*uncompressed += hdr.len + na + nb;
	z += hdr.len;
	mt_buf_release(&hdr);
	return z;
}

/* Compresses and writes row group set k of rows rows (the worker, or the caller without
 * one); errors go to *err. A column with few distinct values in the group is dictionary
 * encoded (a PLAIN dictionary page, then RLE_DICTIONARY indices), the others PLAIN. */
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
		size_t n = rows;
		uint32_t ndict = 0;

		mt_buf_reset(&pq->page);
		if (c->def.optional) {
			n = 0;
			for (uint64_t j = 0; j < rows; j++)
				n += c->defs[k][j];
			if (put_defs(&pq->page, c->defs[k], rows) < 0) {
				*err = -ENOMEM;
				break;
			}
		}
		m->offset = pq->off;
		m->num_values = rows;
		if (n && make_dict(pq, c, k, n, &ndict)) {
			unsigned bw = 1;

			while (bw < 32 && (1u << bw) < ndict)
				bw++;
			m->dict_offset = pq->off;
			m->dict = true;
			m->compressed += write_page(pq, err, true, ndict, 0, pq->dict.data,
						    pq->dict.len, NULL, 0, &m->uncompressed);
			if (mt_buf_putc(&pq->page, (uint8_t)bw) < 0 ||
			    put_hybrid(&pq->page, pq->idx, n, bw) < 0) {
				*err = -ENOMEM;
				break;
			}
			m->data_offset = pq->off;
			m->compressed += write_page(pq, err, false, rows, 8 /* RLE_DICTIONARY */,
						    pq->page.data, pq->page.len, NULL, 0,
						    &m->uncompressed);
		} else {
			/* the levels (in page), then the values, without copying them */
			m->data_offset = pq->off;
			m->compressed += write_page(pq, err, false, rows, 0 /* PLAIN */,
						    pq->page.data, pq->page.len, c->values[k].data,
						    c->values[k].len, &m->uncompressed);
		}
		g->bytes += m->uncompressed;
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

static int s_end_row(struct mt_sink *sink)
{
	struct mt_pq *pq = (struct mt_pq *)sink;

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

static int pq_close(struct mt_pq *pq, bool commit);

static int s_close(struct mt_sink *s, bool commit)
{
	return pq_close((struct mt_pq *)s, commit);
}

static const struct mt_sink_ops pq_ops = {
	.i64 = s_i64,
	.u64 = s_u64,
	.dbl = s_dbl,
	.str = s_str,
	.end_row = s_end_row,
	.close = s_close,
};

int mt_pq_open(const char *path, bool force, const struct mt_col *cols, unsigned ncols,
	       const char *const *meta_keys, const char *const *meta_values, unsigned nmeta,
	       struct mt_sink **ret)
{
	struct mt_pq *pq = calloc(1, sizeof(*pq));
	int r;

	if (!pq)
		return -ENOMEM;
	pq->sink.ops = &pq_ops;
	pq->fd = pq->of.fd = -1;
	if (!force && mt_path_exists(path)) {
		free(pq);
		return -EEXIST;
	}
	pq->cols = calloc(ncols ? ncols : 1, sizeof(*pq->cols));
	pq->meta_k = calloc(nmeta + 1, sizeof(char *));
	pq->meta_v = calloc(nmeta + 1, sizeof(char *));
	pq->zc = ZSTD_createCCtx();
	if (pq->zc)
		ZSTD_CCtx_setParameter(pq->zc, ZSTD_c_compressionLevel, 1);
	if (!pq->cols || !pq->meta_k || !pq->meta_v || !pq->zc) {
		pq_close(pq, false);
		return -ENOMEM;
	}
	pq->ncols = ncols;
	for (unsigned i = 0; i < ncols; i++) {
		pq->cols[i].def = cols[i];
		for (int k = 0; k < 2; k++) {
			mt_buf_init(&pq->cols[i].values[k], MAX_BUF);
			if (cols[i].optional && !(pq->cols[i].defs[k] = malloc(ROWS_PER_GROUP))) {
				pq_close(pq, false);
				return -ENOMEM;
			}
		}
	}
	for (unsigned i = 0; i < nmeta; i++) {
		pq->meta_k[i] = strdup(meta_keys[i]);
		pq->meta_v[i] = strdup(meta_values[i]);
		pq->nmeta++;
		if (!pq->meta_k[i] || !pq->meta_v[i]) {
			pq_close(pq, false);
			return -ENOMEM;
		}
	}
	mt_buf_init(&pq->page, MAX_BUF);
	mt_buf_init(&pq->out, MAX_BUF);
	mt_buf_init(&pq->dict, MAX_BUF);
	r = mt_outfile_open(&pq->of, path, force, 0666);
	if (r < 0) {
		pq_close(pq, false);
		return r;
	}
	pq->fd = pq->of.fd;
	mt_pq_wr(pq, &pq->err, "PAR1", 4);
	if (pq->err) {
		int e = pq->err;

		pq_close(pq, false);
		return e;
	}
	*ret = &pq->sink;
	return 0;
}

static int pq_close(struct mt_pq *pq, bool commit)
{
	int rc;

	if (!pq)
		return 0;
	if (commit && pq->fd >= 0)
		flush_group(pq, true);
	stop_worker(pq);
	if (commit && pq->fd >= 0 && !pq->err)
		mt_pq_footer(pq);
	rc = pq->err;
	if (pq->fd >= 0) {
		if (commit && !rc)
			rc = mt_outfile_commit(&pq->of);
		else
			mt_outfile_abort(&pq->of);
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
	mt_buf_release(&pq->dict);
	free(pq->slots);
	free(pq->idx);
	ZSTD_freeCCtx(pq->zc);
	free(pq);
	return commit ? rc : 0;
}
