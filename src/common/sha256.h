/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4), for the manifests of exported run directories. */
#ifndef MEMTAP_COMMON_SHA256_H
#define MEMTAP_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct mt_sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes so far */
	uint8_t buf[64];
	size_t nbuf;
};

void mt_sha256_init(struct mt_sha256 *s);
void mt_sha256_update(struct mt_sha256 *s, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL. */
void mt_sha256_hex(struct mt_sha256 *s, char out[65]);
/* The digest of a whole file: 0 or -errno. */
int mt_sha256_file(const char *path, char out[65], uint64_t *bytes);

#endif
