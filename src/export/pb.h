/* SPDX-License-Identifier: MIT */
/*
 * Protocol Buffers' wire format, written (pprof profiles): varints, tags, length-delimited
 * fields. A nested message is built in its own buffer and appended as bytes. Every call
 * returns 0 or -errno (the buffer's own errors: -ENOMEM, its maximum).
 */
#ifndef MEMTAP_EXPORT_PB_H
#define MEMTAP_EXPORT_PB_H

#include <stdint.h>
#include <string.h>

#include "common/buf.h"

enum { MT_PB_VARINT = 0, MT_PB_LEN = 2 };

static inline int mt_pb_tag(struct mt_buf *b, unsigned field, unsigned wire)
{
	return mt_buf_put_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field (uint64, int64 >= 0, bool); proto3 leaves 0 out. */
static inline int mt_pb_u64(struct mt_buf *b, unsigned field, uint64_t v)
{
	int rc;

	if (!v)
		return 0;
	rc = mt_pb_tag(b, field, MT_PB_VARINT);
	return rc < 0 ? rc : mt_buf_put_varint(b, v);
}

static inline int mt_pb_bytes(struct mt_buf *b, unsigned field, const void *p, size_t n)
{
	int rc = mt_pb_tag(b, field, MT_PB_LEN);

	if (rc >= 0)
		rc = mt_buf_put_varint(b, n);
	return rc < 0 ? rc : mt_buf_append(b, p, n);
}

/* A string field, written even when empty (repeated strings keep their places). */
static inline int mt_pb_str(struct mt_buf *b, unsigned field, const char *s)
{
	return mt_pb_bytes(b, field, s, strlen(s));
}

/* A nested message built in m. */
static inline int mt_pb_msg(struct mt_buf *b, unsigned field, const struct mt_buf *m)
{
	return mt_pb_bytes(b, field, m->data, m->len);
}

/* A packed repeated varint field. scratch is emptied first. */
int mt_pb_packed(struct mt_buf *b, unsigned field, const uint64_t *v, size_t n,
		 struct mt_buf *scratch);

#endif
