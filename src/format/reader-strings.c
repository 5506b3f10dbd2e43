/* SPDX-License-Identifier: MIT */
/* The reader's string tables: STRINGS chunks loaded per stream, a text written again under a
 * new id made an alias of its first id (the writer forgets its table: writer.c, strtab), and
 * the lookups. */
#include <errno.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/varint.h"
#include "format/reader-internal.h"
#include "format/schema.h"

/* A string id whose text an earlier id of the stream has: an alias to that one. */
static int note_repeat(struct mt_reader *r, struct mt_stream *s, uint64_t id, uint64_t off,
		       uint32_t len)
{
	const char *text = (const char *)r->arena.data + off;
	uint64_t *first, *ix, *alias;
	int rc = mt_map64_put(&s->str_first, mt_hash64(text, len, 0) >> 1, &first);

	if (rc < 0)
		return rc;
	if (!*first) {
		*first = id;
		return 0;
	}
	ix = mt_map64_get(&s->str_ix, *first);
	if (!ix || s->str_len[*ix] != len || memcmp(r->arena.data + s->str_off[*ix], text, len))
		return 0; /* another text with the same hash: kept apart */
	rc = mt_map64_put(&s->str_alias, id, &alias);
	if (rc < 0)
		return rc;
	*alias = *first;
	s->nalias++;
	r->str_aliases++;
	return 0;
}

void mt_reader_canon_strs(struct mt_reader *r, struct mt_event *ev)
{
	struct mt_stream *s = mt_stream_get(r, ev->stream, false);

	if (!s || !s->nalias || !ev->desc)
		return;
	for (unsigned f = 0; f < ev->desc->nfields; f++) {
		const uint64_t *a;

		if ((ev->desc->fields[f].kind == MT_FK_STR ||
		     ev->desc->fields[f].kind == MT_FK_ARGV) &&
		    ev->v[f] && (a = mt_map64_get(&s->str_alias, ev->v[f])))
			ev->v[f] = *a;
	}
}

int mt_reader_load_strings(struct mt_reader *r, const struct mt_chunk_hdr *h, const uint8_t *p,
			   size_t n)
{
	const uint8_t *end = p + n;
	struct mt_stream *s = mt_stream_get(r, h->stream, true);
	uint64_t first, cnt;

	if (!s)
		return -ENOMEM;
	if (mt_varint_get(&p, end, &first) < 0 || mt_varint_get(&p, end, &cnt) < 0 || cnt > n ||
	    first == 0 || first > UINT32_MAX)
		return -MT_ERR_CORRUPT;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t len, *slot;
		int rc;

		if (mt_varint_get(&p, end, &len) < 0 || len > (uint64_t)(end - p) ||
		    len > MT_MAX_STRING)
			return -MT_ERR_CORRUPT;
		if (r->str_bytes + len + 1 > MT_READER_STR_MAX)
			return -MT_ERR_LIMIT;
		if (mt_grow_array(&s->str_off, &s->str_cap, s->nstr + 1, sizeof(*s->str_off)) < 0)
			return -ENOMEM;
		if (mt_grow_array(&s->str_len, &s->str_len_cap, s->nstr + 1, sizeof(*s->str_len)) <
		    0)
			return -ENOMEM;
		rc = mt_buf_reserve(&r->arena, len + 1);
		if (rc < 0)
			return rc;
		rc = mt_map64_put(&s->str_ix, first + i, &slot);
		if (rc < 0)
			return rc;
		*slot = s->nstr;
		s->str_off[s->nstr] = r->arena.len;
		s->str_len[s->nstr] = (uint32_t)len;
		s->nstr++;
		memcpy(r->arena.data + r->arena.len, p, len);
		r->arena.data[r->arena.len + len] = 0;
		rc = note_repeat(r, s, first + i, r->arena.len, (uint32_t)len);
		if (rc < 0)
			return rc;
		r->arena.len += len + 1;
		r->str_bytes += len + 1;
		p += len;
	}
	return p == end ? 0 : -MT_ERR_CORRUPT;
}

const char *mt_reader_str(const struct mt_reader *r, uint32_t stream, uint64_t id, size_t *len)
{
	struct mt_reader *w = (struct mt_reader *)r;
	struct mt_stream *s;
	uint64_t *ix;

	if (!id) {
		if (len)
			*len = 0;
		return "";
	}
	s = mt_stream_get(w, stream, false);
	if (!s || !(ix = mt_map64_get(&s->str_ix, id)))
		return NULL;
	if (len)
		*len = s->str_len[*ix];
	return (const char *)r->arena.data + s->str_off[*ix];
}
