/* SPDX-License-Identifier: MIT */
/* CRC-32C (Castagnoli), the checksum of trace chunks. */
#ifndef MEMTAP_COMMON_CRC32C_H
#define MEMTAP_COMMON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c("123456789", 9) == 0xe3069283. Pass 0 as crc for a fresh checksum. */
uint32_t mt_crc32c(uint32_t crc, const void *data, size_t len);

/*
 * Compares a stored checksum with a computed one. Fuzzing builds accept mismatches, so that
 * mutated inputs reach the decoders behind the checksums.
 */
static inline int mt_crc_ok(uint32_t stored, uint32_t computed)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)stored;
	(void)computed;
	return 1;
#else
	return stored == computed;
#endif
}

#endif
