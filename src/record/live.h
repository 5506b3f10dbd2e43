/* SPDX-License-Identifier: MIT */
/* The recorder's live figures for memtap top: per process faults, system calls, samples,
 * RSS, working set, heap in use, and the hottest regions and allocation sites, as the events
 * go into the trace, published twice a second as a small text file in the user's private
 * live directory (common/livedir.h), removed at the end. */
#ifndef MEMTAP_RECORD_LIVE_H
#define MEMTAP_RECORD_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_session;
struct mt_block;

/* Starts counting (a tap on the writer); without a usable directory, nothing is published
 * (said once in the debug log). */
void mt_live_open(struct mt_session *s);
/* Publishes the figures when half a second has passed since the last time. */
void mt_live_tick(struct mt_session *s);
void mt_live_close(struct mt_session *s);

/* The allocation collector's hand-over (record/alloc-*.c), each for pid's runtime connection
 * stream: the ALLOC rows of a block from row from on, new stack nodes, a Python function. */
void mt_live_allocs(struct mt_session *s, pid_t pid, uint32_t stream, const struct mt_block *b,
		    uint32_t from);
void mt_live_nodes(struct mt_session *s, pid_t pid, uint32_t stream, uint64_t first, size_t n,
		   const uint64_t *parents, const uint64_t *ips);
void mt_live_pyfunc(struct mt_session *s, pid_t pid, uint32_t stream, uint64_t id, const char *name,
		    size_t nlen, const char *file, size_t flen);

#endif
