/* SPDX-License-Identifier: MIT */
/* memtap's error codes: negative errno values plus a few of our own above 4000. */
#ifndef MEMTAP_COMMON_ERROR_H
#define MEMTAP_COMMON_ERROR_H

/*
 * Functions return >= 0 on success and -errno (or -MT_ERR_*) on failure. The MT_ERR_* codes
 * start at 4000 so they never clash with errno values (the libbpf convention).
 */
enum mt_error {
	MT_ERR_FORMAT = 4000, /* not a memtap trace: bad magic, or empty */
	MT_ERR_VERSION, /* the trace format's major version is not one we read */
	MT_ERR_CORRUPT, /* checksum mismatch or a structure that does not add up */
	MT_ERR_TRUNCATED, /* the data ends inside a header or a chunk */
	MT_ERR_LIMIT, /* a length exceeds one of the format's hard limits */
	MT_ERR_UNSUPPORTED, /* the machine or kernel lacks what this needs */
	_MT_ERR_MAX,
};

/* Text for a negative or positive error code, errno values included. Never NULL. */
const char *mt_strerror(int err);

#endif
