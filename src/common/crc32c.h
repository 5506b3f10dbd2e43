/* SPDX-License-Identifier: MIT */
/* CRC-32C (Castagnoli), the checksum of trace chunks. */
#ifndef MEMTAP_COMMON_CRC32C_H
#define MEMTAP_COMMON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c("123456789", 9) == 0xe3069283. Pass 0 as crc for a fresh checksum. */
uint32_t mt_crc32c(uint32_t crc, const void *data, size_t len);

#endif
