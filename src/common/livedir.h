/* SPDX-License-Identifier: MIT */
/* Where running recordings publish their live figures for memtap top: a directory only the
 * user can enter ($XDG_RUNTIME_DIR/memtap, else /tmp/memtap-UID), checked, never followed
 * through a symlink. */
#ifndef MEMTAP_COMMON_LIVEDIR_H
#define MEMTAP_COMMON_LIVEDIR_H

#include <stdbool.h>
#include <stddef.h>

/* The directory's path into buf; create: make it (0700) when missing. 0, or -errno
 * (-EPERM: something there that is not the user's own private directory). */
int mt_live_dir(char *buf, size_t size, bool create);

#endif
