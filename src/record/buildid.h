/* SPDX-License-Identifier: MIT */
/* GNU build-ids of ELF files, read with libelf and cached by file identity. */
#ifndef MEMTAP_RECORD_BUILDID_H
#define MEMTAP_RECORD_BUILDID_H

#include <stddef.h>
#include <sys/types.h>

#include "common/safeopen.h"

/*
 * Writes the lowercase hex build-id of the ELF file at path into hex (at least 41 bytes
 * for the usual 20-byte id). Returns 0, -ENOENT when the file has no build-id or is not
 * ELF, or -errno when it cannot be opened (-EINVAL: not a regular file; -ESTALE: not the
 * file want names, when want is given). The path is opened with mt_open_regular(): never
 * blocking, never a device. Results are cached by (device, inode, mtime).
 */
int mt_buildid_of_file(const char *path, const struct mt_file_id *want, char *hex, size_t size);

/* Releases the cache. */
void mt_buildid_cache_clear(void);

#endif
