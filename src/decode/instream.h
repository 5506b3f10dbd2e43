/* SPDX-License-Identifier: MIT */
/*
 * A byte stream read from a descriptor as it comes, decompressed when it is gzip (zlib,
 * concatenated members too) or zstd (several frames too), told by its first bytes, so that a
 * pipe works as well as a file. Memory is the codec's window and one input buffer.
 */
#ifndef MEMTAP_DECODE_INSTREAM_H
#define MEMTAP_DECODE_INSTREAM_H

#include <stddef.h>
#include <sys/types.h>

enum mt_instream_kind { MT_IN_PLAIN, MT_IN_GZIP, MT_IN_ZSTD };

struct mt_instream;

/* 0 or -errno (-ENOMEM). fd is not closed by the stream. */
int mt_instream_open(int fd, struct mt_instream **ret);
/* Up to n bytes; 0 at the end; -errno on a read error, -EBADMSG for damaged compressed data
 * (what came before it was returned). */
ssize_t mt_instream_read(struct mt_instream *s, void *buf, size_t n);
enum mt_instream_kind mt_instream_kind(const struct mt_instream *s);
const char *mt_instream_kind_name(enum mt_instream_kind k);
void mt_instream_close(struct mt_instream *s);

#endif
