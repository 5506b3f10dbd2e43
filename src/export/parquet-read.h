/* SPDX-License-Identifier: MIT */
/* The reading side memtap needs of Parquet: a file's footer and its key/value metadata
 * (memtap check-schema). Every length is checked; nothing in a file can make it read out of
 * bounds or allocate more than 64 MiB. */
#ifndef MEMTAP_EXPORT_PARQUET_READ_H
#define MEMTAP_EXPORT_PARQUET_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called per key/value pair (not NUL-terminated); returning true stops the walk. */
typedef bool (*mt_pq_kv_fn)(void *ctx, const char *key, size_t klen, const char *value,
			    size_t vlen);

/* Reads the FileMetaData bytes of a Parquet file into *footer (malloc'd). 0, -EPROTO when
 * the file is not Parquet or is cut short, or -errno. */
int mt_pq_read_footer(const char *path, uint8_t **footer, size_t *n);
/* Walks the key/value metadata of FileMetaData bytes. 0, or -EINVAL when malformed. */
int mt_pq_parse_footer(const uint8_t *data, size_t n, mt_pq_kv_fn fn, void *ctx);

#endif
