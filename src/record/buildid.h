/* SPDX-License-Identifier: MIT */
/* GNU build-ids of ELF files, read with libelf and cached by file identity. */
#ifndef MEMTAP_RECORD_BUILDID_H
#define MEMTAP_RECORD_BUILDID_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Writes the lowercase hex build-id of the ELF file at path into hex (at least 41 bytes
 * for the usual 20-byte id). Returns 0, -ENOENT when the file has no build-id or is not
 * ELF, or -errno when it cannot be opened. Results are cached by (device, inode, mtime).
 */
int mt_buildid_of_file(const char *path, char *hex, size_t size);

/* Releases the cache. */
void mt_buildid_cache_clear(void);

#endif
