/* SPDX-License-Identifier: MIT */
/* The Parquet footer: FileMetaData in Thrift's compact protocol. */
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

static void t_raw(struct tw *w, const void *p, size_t n)
{
	if (!w->err && mt_buf_append(w->b, p, n) < 0)
		w->err = -ENOMEM;
}

void mt_pq_t_byte(struct tw *w, uint8_t c)
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
		mt_pq_t_byte(w, (uint8_t)(delta << 4 | type));
	} else {
		mt_pq_t_byte(w, type);
		t_varint(w, zz(id));
	}
	w->last[w->depth] = id;
}

void mt_pq_t_i32(struct tw *w, int16_t id, int32_t v)
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
		mt_pq_t_byte(w, (uint8_t)(n << 4 | elem));
	} else {
		mt_pq_t_byte(w, 0xf0 | elem);
		t_varint(w, n);
	}
}

/* A struct: as a field (id > 0) or as a list element (id 0). */
void mt_pq_t_begin(struct tw *w, int16_t id)
{
	if (id)
		t_field(w, id, T_STRUCT);
	if (w->depth + 1 < 16)
		w->last[++w->depth] = 0;
	else
		w->err = -EINVAL;
}

void mt_pq_t_end(struct tw *w)
{
	mt_pq_t_byte(w, 0);
	w->depth--;
}

void mt_pq_footer(struct mt_pq *pq)
{
	struct mt_buf b;
	struct tw w = { .b = &b };
	uint8_t len[4];

	mt_buf_init(&b, MAX_BUF);
	mt_pq_t_i32(&w, 1, 1); /* version */
	t_list(&w, 2, T_STRUCT, pq->ncols + 1);
	mt_pq_t_begin(&w, 0); /* the root */
	t_bin(&w, 4, "schema");
	mt_pq_t_i32(&w, 5, (int32_t)pq->ncols);
	mt_pq_t_end(&w);
	for (unsigned i = 0; i < pq->ncols; i++) {
		const struct mt_col *d = &pq->cols[i].def;

		mt_pq_t_begin(&w, 0);
		mt_pq_t_i32(&w, 1, mt_pq_pq_type(d->type));
		mt_pq_t_i32(&w, 3, d->optional ? 1 : 0);
		t_bin(&w, 4, d->name);
		if (d->type == MT_COL_STRING) {
			mt_pq_t_i32(&w, 6, 0); /* UTF8 */
			mt_pq_t_begin(&w, 10);
			mt_pq_t_begin(&w, 1); /* StringType */
			mt_pq_t_end(&w);
			mt_pq_t_end(&w);
		} else if (d->type == MT_COL_U64) {
			mt_pq_t_i32(&w, 6, 14); /* UINT_64 */
			mt_pq_t_begin(&w, 10);
			mt_pq_t_begin(&w, 10); /* IntType */
			t_field(&w, 1, T_BYTE);
			mt_pq_t_byte(&w, 64);
			t_field(&w, 2, T_FALSE); /* isSigned */
			mt_pq_t_end(&w);
			mt_pq_t_end(&w);
		}
		mt_pq_t_end(&w);
	}
	t_i64(&w, 3, (int64_t)pq->total_rows);
	t_list(&w, 4, T_STRUCT, pq->ngroups);
	for (size_t g = 0; g < pq->ngroups; g++) {
		mt_pq_t_begin(&w, 0);
		t_list(&w, 1, T_STRUCT, pq->ncols);
		for (unsigned i = 0; i < pq->ncols; i++) {
			const struct chunk_meta *m = &pq->groups[g].cols[i];

			mt_pq_t_begin(&w, 0);
			t_i64(&w, 2, (int64_t)m->offset);
			mt_pq_t_begin(&w, 3);
			mt_pq_t_i32(&w, 1, mt_pq_pq_type(pq->cols[i].def.type));
			t_list(&w, 2, T_I32, m->dict ? 3 : 2);
			t_varint(&w, zz(0)); /* PLAIN */
			t_varint(&w, zz(3)); /* RLE */
			if (m->dict)
				t_varint(&w, zz(8)); /* RLE_DICTIONARY */
			t_list(&w, 3, T_BINARY, 1);
			t_varint(&w, strlen(pq->cols[i].def.name));
			t_raw(&w, pq->cols[i].def.name, strlen(pq->cols[i].def.name));
			mt_pq_t_i32(&w, 4, 6); /* ZSTD */
			t_i64(&w, 5, (int64_t)m->num_values);
			t_i64(&w, 6, (int64_t)m->uncompressed);
			t_i64(&w, 7, (int64_t)m->compressed);
			t_i64(&w, 9, (int64_t)m->data_offset);
			if (m->dict)
				t_i64(&w, 11, (int64_t)m->dict_offset);
			mt_pq_t_end(&w);
			mt_pq_t_end(&w);
		}
		t_i64(&w, 2, (int64_t)pq->groups[g].bytes);
		t_i64(&w, 3, (int64_t)pq->groups[g].rows);
		mt_pq_t_end(&w);
	}
	t_list(&w, 5, T_STRUCT, pq->nmeta);
	for (unsigned i = 0; i < pq->nmeta; i++) {
		mt_pq_t_begin(&w, 0);
		t_bin(&w, 1, pq->meta_k[i]);
		t_bin(&w, 2, pq->meta_v[i]);
		mt_pq_t_end(&w);
	}
	t_bin(&w, 6, "memtap " MEMTAP_VERSION);
	mt_pq_t_byte(&w, 0);
	if (w.err) {
		pq->err = w.err;
	} else {
		for (int k = 0; k < 4; k++)
			len[k] = (uint8_t)(b.len >> (8 * k));
		mt_pq_wr(pq, &pq->err, b.data, b.len);
		mt_pq_wr(pq, &pq->err, len, 4);
		mt_pq_wr(pq, &pq->err, "PAR1", 4);
	}
	mt_buf_release(&b);
}
