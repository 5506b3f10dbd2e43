/* SPDX-License-Identifier: MIT */
/* Chunk headers and key/value payloads: the framing shared by writer and reader. */
#ifndef MEMTAP_FORMAT_CHUNK_H
#define MEMTAP_FORMAT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

#include "common/buf.h"

struct mt_chunk_hdr {
	uint16_t type;
	uint16_t subtype;
	uint32_t stream;
	uint8_t compression;
	uint8_t flags;
	uint32_t payload_size;
	uint32_t raw_size;
	uint32_t count;
	uint32_t payload_crc;
	uint64_t t_min;
	uint64_t t_max;
};

/* Serialises h into out, computing the header checksum. */
void mt_chunk_hdr_pack(const struct mt_chunk_hdr *h, uint8_t out[MT_CHUNK_HEADER_SIZE]);
/*
 * Parses and validates a chunk header: magic, checksum, and every limit a reader relies on
 * (sizes, event count, t_min <= t_max). -MT_ERR_CORRUPT or -MT_ERR_LIMIT on failure, h
 * untouched.
 */
int mt_chunk_hdr_unpack(const uint8_t in[MT_CHUNK_HEADER_SIZE], struct mt_chunk_hdr *h);

/*
 * Encodes n stack-trie nodes with ids first_id, first_id + 1, ... as a STACKS2 payload
 * (format 1.2: each ip coded against the previous ip of its kind, native, Python or
 * reference; a reference names its stack by the distance back from its own id,
 * mt_stacks2_stored, which mt_stacks2_ip undoes), appending to out. parents[i] is the
 * parent node id (0 for a root) and must be smaller than the node's own id; ips[i] the
 * frame's instruction pointer. -EINVAL otherwise. (STACKS chunks of older traces are read,
 * never written.)
 */
int mt_stacks2_encode(uint64_t first_id, size_t n, const uint64_t *parents, const uint64_t *ips,
		      struct mt_buf *out);
uint64_t mt_stacks2_stored(uint64_t id, uint64_t ip);
/* A stored ip's kind in STACKS2: 0 native, 1 Python, 2 reference. */
static inline unsigned mt_stacks2_kind(uint64_t ip)
{
	return mt_stack_is_ref(ip) ? 2 : (unsigned)(ip >> 63);
}
uint64_t mt_stacks2_ip(uint64_t id, uint64_t stored);

/*
 * Key/value payloads (META, COLLECTOR, STREAM, END chunks): varint n, then n times
 * (varint key length, key bytes, varint value length, value bytes). Keys are ASCII; values
 * are UTF-8 text, numbers in decimal.
 */
struct mt_kv {
	struct mt_buf buf; /* the encoded pairs, without the leading count */
	uint32_t n;
};

void mt_kv_init(struct mt_kv *kv);
void mt_kv_release(struct mt_kv *kv);
int mt_kv_add(struct mt_kv *kv, const char *key, const char *value);
int mt_kv_add_len(struct mt_kv *kv, const char *key, const char *value, size_t vlen);
int mt_kv_add_u64(struct mt_kv *kv, const char *key, uint64_t value);
int mt_kv_addf(struct mt_kv *kv, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends every pair of other to kv. */
int mt_kv_extend(struct mt_kv *kv, const struct mt_kv *other);
/* Encodes kv as a chunk payload into out (appending). */
int mt_kv_encode(const struct mt_kv *kv, struct mt_buf *out);

/*
 * A decoded key/value list. Strings point into one allocation owned by the list and are
 * NUL-terminated (a value containing NUL is cut there).
 */
struct mt_kvlist {
	uint32_t n;
	const char **keys;
	const char **vals;
	void *mem;
};

int mt_kvlist_decode(const uint8_t *p, size_t n, struct mt_kvlist *ret);
void mt_kvlist_release(struct mt_kvlist *l);
/* The last value for key, or NULL. */
const char *mt_kvlist_get(const struct mt_kvlist *l, const char *key);

#endif
