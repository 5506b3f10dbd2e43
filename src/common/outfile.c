/* SPDX-License-Identifier: MIT */
/* Output files: one creation policy for every writer (outfile.h). */
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of path must exist (ENOENT, ENOTDIR otherwise). */
static int parent_exists(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	if (!slash)
		return 0;
	if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (slash == path)
		return 0; /* "/name" */
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = 0;
	if (stat(dir, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static mode_t umasked(mode_t mode)
{
	mode_t m = umask(0);

	umask(m);
	return mode & ~m;
}

int mt_outfile_open(struct mt_outfile *o, const char *path, bool force, mode_t mode)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + 16;
	int r;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if ((r = parent_exists(path)) < 0)
		return r;
	if (!force && lstat(path, &st) == 0)
		return -EEXIST;
	if (force && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	o->path = strdup(path);
	o->tmp = malloc(n);
	if (!o->path || !o->tmp) {
		mt_outfile_abort(o);
		return -ENOMEM;
	}
	/* "DIR/.NAME.XXXXXX": hidden, beside the path (rename stays in one file system). */
	snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dlen, path, path + dlen);
	o->fd = mkostemp(o->tmp, O_CLOEXEC); /* O_CREAT | O_EXCL, mode 0600 */
	if (o->fd < 0) {
		r = -errno;
		free(o->tmp);
		o->tmp = NULL;
		mt_outfile_abort(o);
		return r;
	}
	o->force = force;
	o->mode = umasked(mode);
	return 0;
}

FILE *mt_outfile_stream(struct mt_outfile *o)
{
	if (!o->f && o->fd >= 0)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

int mt_outfile_commit(struct mt_outfile *o)
{
	int rc = 0;

	if (o->f) {
		if (fflush(o->f) != 0)
			rc = -errno;
	}
	if (!rc && fchmod(o->fd, o->mode) < 0)
		rc = -errno;
	if (o->f) {
		if (fclose(o->f) != 0 && !rc)
			rc = -errno;
	} else if (o->fd >= 0 && close(o->fd) < 0 && !rc) {
		rc = -errno;
	}
	o->f = NULL;
	o->fd = -1;
	if (!rc) {
		/* Without force, never over something that appeared meanwhile. */
		if (o->force ? rename(o->tmp, o->path) < 0
			     : renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) < 0)
			rc = -errno;
	}
	if (rc)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return rc;
}

void mt_outfile_abort(struct mt_outfile *o)
{
	if (o->f)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

bool mt_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int mt_outfile_direct(const char *path, bool force, mode_t mode)
{
	int r = parent_exists(path), fd;
	struct stat st;

	if (r < 0)
		return r;
	if (force && lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (unlink(path) < 0) /* the path itself: a symlink goes, its target stays */
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int mt_outdir(const char *dir)
{
	struct stat st;
	int r = parent_exists(dir);

	if (r < 0)
		return r;
	if (lstat(dir, &st) == 0)
		return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? 0 : -EEXIST;
	return mkdir(dir, 0777) < 0 && errno != EEXIST ? -errno : 0;
}
