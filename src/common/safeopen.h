/* SPDX-License-Identifier: MIT */
/*
 * Reading files other users control: a recorder running as root reads the ELF files of the
 * workload's mappings (build-ids, unwind tables, symbols) by the paths the kernel reported,
 * and whoever owns the file can swap it between the mapping and the read. Opening such a
 * path must never block (a FIFO with no writer), never open a device (a symlink to one),
 * never take a controlling terminal, and never read a file other than the one mapped.
 */
#ifndef MEMTAP_COMMON_SAFEOPEN_H
#define MEMTAP_COMMON_SAFEOPEN_H

#include <stdint.h>
#include <sys/stat.h>

/* The identity of a mapped file, as the kernel reports it (/proc/PID/maps, perf MMAP2). */
struct mt_file_id {
	uint32_t maj, min;
	uint64_t ino; /* 0: any regular file will do */
};

/*
 * A read-only descriptor of the regular file at path, or -errno. The path is resolved to
 * an O_PATH descriptor first (which opens nothing: no FIFO wait, no device driver), checked
 * to be a regular file (-EINVAL otherwise) with the given identity when want is not NULL
 * (-ESTALE when another file took the path), and only then reopened for reading through
 * /proc/self/fd, with O_NONBLOCK | O_NOCTTY | O_CLOEXEC.
 */
int mt_open_regular(const char *path, const struct mt_file_id *want);
/* Whether st is a regular file with the given identity (any, when want is NULL). */
int mt_file_id_matches(const struct mt_file_id *want, const struct stat *st);

#endif
