/* SPDX-License-Identifier: MIT */
/* Chunk header packing and key/value payloads. */
#include "chunk.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/error.h"
#include "common/varint.h"

void mt_chunk_hdr_pack(const struct mt_chunk_hdr *h, uint8_t out[MT_CHUNK_HEADER_SIZE])
{
	memset(out, 0, MT_CHUNK_HEADER_SIZE);
	mt_put_le32(out + 0, MT_CHUNK_MAGIC);
	mt_put_le16(out + 4, h->type);
	mt_put_le16(out + 6, h->subtype);
	mt_put_le32(out + 8, h->stream);
	out[12] = h->compression;
	out[13] = h->flags;
	mt_put_le32(out + 16, h->payload_size);
	mt_put_le32(out + 20, h->raw_size);
	mt_put_le32(out + 24, h->count);
	mt_put_le32(out + 28, h->payload_crc);
	mt_put_le64(out + 32, h->t_min);
	mt_put_le64(out + 40, h->t_max);
	mt_put_le32(out + 52, mt_crc32c(0, out, 52));
}

int mt_chunk_hdr_unpack(const uint8_t in[MT_CHUNK_HEADER_SIZE], struct mt_chunk_hdr *h)
{
	struct mt_chunk_hdr x;

	if (mt_get_le32(in) != MT_CHUNK_MAGIC ||
	    !mt_crc_ok(mt_get_le32(in + 52), mt_crc32c(0, in, 52)))
		return -MT_ERR_CORRUPT;
	x.type = mt_get_le16(in + 4);
	x.subtype = mt_get_le16(in + 6);
	x.stream = mt_get_le32(in + 8);
	x.compression = in[12];
	x.flags = in[13];
	x.payload_size = mt_get_le32(in + 16);
	x.raw_size = mt_get_le32(in + 20);
	x.count = mt_get_le32(in + 24);
	x.payload_crc = mt_get_le32(in + 28);
	x.t_min = mt_get_le64(in + 32);
	x.t_max = mt_get_le64(in + 40);
	if (x.payload_size > MT_MAX_CHUNK_PAYLOAD || x.raw_size > MT_MAX_CHUNK_RAW)
		return -MT_ERR_LIMIT;
	if (x.compression > MT_COMP_ZSTD || x.t_min > x.t_max)
		return -MT_ERR_CORRUPT;
	if (x.compression == MT_COMP_NONE && x.raw_size != x.payload_size)
		return -MT_ERR_CORRUPT;
	if (x.type == MT_CHUNK_EVENTS && x.count > MT_MAX_BLOCK_EVENTS)
		return -MT_ERR_LIMIT;
	*h = x;
	return 0;
}

void mt_kv_init(struct mt_kv *kv)
{
	mt_buf_init(&kv->buf, MT_MAX_CHUNK_RAW - 16);
	kv->n = 0;
}

void mt_kv_release(struct mt_kv *kv)
{
	mt_buf_release(&kv->buf);
	kv->n = 0;
}

int mt_kv_add_len(struct mt_kv *kv, const char *key, const char *value, size_t vlen)
{
	size_t klen = strlen(key);
	int r;

	if ((r = mt_buf_put_varint(&kv->buf, klen)) < 0 ||
	    (r = mt_buf_append(&kv->buf, key, klen)) < 0 ||
	    (r = mt_buf_put_varint(&kv->buf, vlen)) < 0 ||
	    (r = mt_buf_append(&kv->buf, value, vlen)) < 0) {
		kv->n = 0;
		return r;
	}
	kv->n++;
	return 0;
}

int mt_kv_add(struct mt_kv *kv, const char *key, const char *value)
{
	return mt_kv_add_len(kv, key, value ? value : "", value ? strlen(value) : 0);
}

int mt_kv_add_u64(struct mt_kv *kv, const char *key, uint64_t value)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, value);
	return mt_kv_add(kv, key, s);
}

int mt_kv_addf(struct mt_kv *kv, const char *key, const char *fmt, ...)
{
	char s[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	return mt_kv_add(kv, key, s);
}

int mt_kv_extend(struct mt_kv *kv, const struct mt_kv *other)
{
	int r = mt_buf_append(&kv->buf, other->buf.data, other->buf.len);

	if (r < 0) {
		kv->n = 0;
		return r;
	}
	kv->n += other->n;
	return 0;
}

int mt_kv_encode(const struct mt_kv *kv, struct mt_buf *out)
{
	int r = mt_buf_put_varint(out, kv->n);

	return r < 0 ? r : mt_buf_append(out, kv->buf.data, kv->buf.len);
}

int mt_kvlist_decode(const uint8_t *p, size_t n, struct mt_kvlist *ret)
{
	const uint8_t *end = p + n, *q;
	struct mt_kvlist l = { 0 };
	uint64_t cnt, len;
	char *s;

	if (mt_varint_get(&p, end, &cnt) < 0 || cnt > n / 2)
		return -MT_ERR_CORRUPT;
	/* Validate first, so the single allocation below is bounded by the payload size. */
	q = p;
	for (uint64_t i = 0; i < 2 * cnt; i++) {
		if (mt_varint_get(&q, end, &len) < 0 || len > (uint64_t)(end - q))
			return -MT_ERR_CORRUPT;
		q += len;
	}
	if (q != end)
		return -MT_ERR_CORRUPT;
	l.mem = malloc(2 * cnt * sizeof(char *) + n + 2 * cnt + 1);
	if (!l.mem)
		return -ENOMEM;
	l.keys = l.mem;
	l.vals = l.keys + cnt;
	s = (char *)(l.vals + cnt);
	for (uint64_t i = 0; i < 2 * cnt; i++) {
		(void)mt_varint_get(&p, end, &len);
		memcpy(s, p, len);
		s[len] = 0;
		if (i % 2)
			l.vals[i / 2] = s;
		else
			l.keys[i / 2] = s;
		s += len + 1;
		p += len;
	}
	l.n = (uint32_t)cnt;
	*ret = l;
	return 0;
}

void mt_kvlist_release(struct mt_kvlist *l)
{
	free(l->mem);
	memset(l, 0, sizeof(*l));
}

const char *mt_kvlist_get(const struct mt_kvlist *l, const char *key)
{
	for (uint32_t i = l->n; i-- > 0;)
		if (!strcmp(l->keys[i], key))
			return l->vals[i];
	return NULL;
}

uint64_t mt_stacks2_stored(uint64_t id, uint64_t ip)
{
	/* a reference by its distance back: the stack it names was mostly made just before */
	if (mt_stack_is_ref(ip) && MT_STACK_REF_NODE(ip) < id &&
	    id - MT_STACK_REF_NODE(ip) < 1ull << 32)
		return MT_STACK_REF(id - MT_STACK_REF_NODE(ip), MT_STACK_REF_COUNT(ip));
	return mt_stack_is_ref(ip) ? MT_STACK_REF(0, MT_STACK_REF_COUNT(ip)) : ip;
}

uint64_t mt_stacks2_ip(uint64_t id, uint64_t stored)
{
	uint64_t back = MT_STACK_REF_NODE(stored);

	if (!mt_stack_is_ref(stored))
		return stored;
	return MT_STACK_REF(back && back < id ? id - back : 0, MT_STACK_REF_COUNT(stored));
}

int mt_stacks2_encode(uint64_t first_id, size_t n, const uint64_t *parents, const uint64_t *ips,
		      struct mt_buf *out)
{
	uint64_t prev[3] = { 0, 0, 0 };
	int r;

	if (!first_id)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (parents[i] >= first_id + i)
			return -EINVAL;
	if ((r = mt_buf_put_varint(out, first_id)) < 0 || (r = mt_buf_put_varint(out, n)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		r = mt_buf_put_varint(out, parents[i] ? first_id + i - parents[i] : 0);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t v = mt_stacks2_stored(first_id + i, ips[i]);
		unsigned k = mt_stacks2_kind(v);

		/* the kind in the low two bits: zigzag(difference) << 2 | kind (a difference too
		 * large for that is not coded against the previous one: kind 3, the value) */
		if (mt_zigzag((int64_t)(v - prev[k])) >> 62)
			r = mt_buf_put_varint(out, 3) < 0 ? -ENOMEM : mt_buf_put_varint(out, v);
		else
			r = mt_buf_put_varint(out, mt_zigzag((int64_t)(v - prev[k])) << 2 | k);
		if (r < 0)
			return r;
		prev[k] = v;
	}
	return 0;
}
