/* SPDX-License-Identifier: MIT */
/* Error strings for memtap's own error codes and for errno values. */
#include "error.h"

#include <string.h>

const char *mt_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case MT_ERR_FORMAT:
		return "not a memtap trace";
	case MT_ERR_VERSION:
		return "unsupported trace format version";
	case MT_ERR_CORRUPT:
		return "corrupted data";
	case MT_ERR_TRUNCATED:
		return "truncated data";
	case MT_ERR_LIMIT:
		return "size exceeds a hard limit";
	case MT_ERR_UNSUPPORTED:
		return "not supported on this machine";
	default:
		return strerrordesc_np(err) ? strerrordesc_np(err) : "unknown error";
	}
}
