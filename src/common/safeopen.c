/* SPDX-License-Identifier: MIT */
/* Opening files other users control without blocking or opening devices (safeopen.h). */
#include "common/safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int mt_file_id_matches(const struct mt_file_id *want, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	if (want && want->ino &&
	    (st->st_ino != want->ino || st->st_dev != makedev(want->maj, want->min)))
		return -ESTALE;
	return 0;
}

static int check(int fd, const struct mt_file_id *want, struct stat *st)
{
	return fstat(fd, st) < 0 ? -errno : mt_file_id_matches(want, st);
}

int mt_open_regular(const char *path, const struct mt_file_id *want)
{
	struct stat st, again;
	char self[48];
	int pfd, fd, r;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if ((r = check(pfd, want, &st)) < 0) {
		close(pfd);
		return r;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	close(pfd);
	if (r < 0)
		return r;
	/* the same inode the O_PATH descriptor held: /proc/self/fd reopens, never re-resolves */
	if (fstat(fd, &again) < 0 || again.st_ino != st.st_ino || again.st_dev != st.st_dev) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
