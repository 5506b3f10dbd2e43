/* SPDX-License-Identifier: MIT */
/*
 * One policy for every file memtap writes, wherever it is asked to write it:
 *  - the directory the file goes into must exist: parents are never created silently;
 *  - without force, an existing path (a file, a symlink, even a dangling one) is an error
 *    (EEXIST), checked atomically at the end (no clobbering in a race);
 *  - with force, the path is replaced, never written through: a symlink planted there is
 *    replaced by the new file, its target untouched;
 *  - content is written to a new file with an unpredictable name, created O_EXCL (a
 *    planted symlink is never followed) next to the path, and renamed into place when
 *    complete: a reader never sees half a file, a failure leaves nothing behind.
 * A trace is written in place instead (a recording cut short must stay readable up to its
 * last chunk): created O_EXCL | O_NOFOLLOW, with force after unlinking the old path itself.
 */
#ifndef MEMTAP_COMMON_OUTFILE_H
#define MEMTAP_COMMON_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct mt_outfile {
	char *path; /* where the file goes */
	char *tmp; /* the new file, until committed */
	int fd;
	FILE *f; /* mt_outfile_stream's, or NULL */
	bool force;
	mode_t mode;
};

/* Creates the new file for path (mode before the umask, e.g. 0666); 0 or -errno (EEXIST:
 * the path exists and force is off; ENOENT/ENOTDIR: its directory does not exist). */
int mt_outfile_open(struct mt_outfile *o, const char *path, bool force, mode_t mode);
/* The new file as a stdio stream (owned by o). NULL with errno on failure. */
FILE *mt_outfile_stream(struct mt_outfile *o);
/* Flushes, closes and renames the new file into place; 0 or -errno (the new file is
 * removed on failure). */
int mt_outfile_commit(struct mt_outfile *o);
/* Removes the new file; the path is left as it was. */
void mt_outfile_abort(struct mt_outfile *o);

/* Something is at path (a symlink counts, even a dangling one). */
bool mt_path_exists(const char *path);

/* A file written in place (a trace): a descriptor, or -errno as mt_outfile_open. */
int mt_outfile_direct(const char *path, bool force, mode_t mode);

/* A directory that is itself the output (an export's tables): created if missing (mode
 * 0777 before the umask), its parent never; 0 or -errno (EEXIST: a non-directory is
 * there; a symlink at the path is refused, ELOOP). */
int mt_outdir(const char *dir);

#endif
