/* SPDX-License-Identifier: MIT */
#include "common/livedir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Is path a directory of ours that nobody else can enter? */
static int private_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

int mt_live_dir(char *buf, size_t size, bool create)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int r;

	if (xdg && xdg[0] == '/' && private_dir(xdg) == 0)
		r = snprintf(buf, size, "%s/memtap", xdg);
	else
		r = snprintf(buf, size, "/tmp/memtap-%u", (unsigned)geteuid());
	if (r < 0 || (size_t)r >= size)
		return -ENAMETOOLONG;
	if (create && mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return private_dir(buf);
}
