/* SPDX-License-Identifier: MIT */
/* Any tracepoint (--event SUBSYS:NAME): every hit in the tree, its fields decoded. */
#ifndef MEMTAP_RECORD_TRACEPOINTS_H
#define MEMTAP_RECORD_TRACEPOINTS_H

#include <poll.h>
#include <stddef.h>

struct mt_session;
struct mt_kv;

#define MT_MAX_EVENTS 16 /* --event options per recording */

/* Checks that the tracepoint SPEC (SUBSYS:NAME or SUBSYS/NAME) exists and its description
 * is readable. 0, or -1 with msg holding one line: what is wrong, and the closest names. */
int mt_tracepoint_check(const char *spec, char *msg, size_t size);

/* Opens the tracepoints on the command's tree; kv receives their descriptions (written in
 * the collector's first chunk, so a trace cut short can still be decoded). */
int mt_tracepoints_open(struct mt_session *s, const char *const *specs, size_t n, struct mt_kv *kv);
int mt_tracepoints_pollfds(struct mt_session *s, struct pollfd *fds, int max);
void mt_tracepoints_drain(struct mt_session *s);
void mt_tracepoints_close(struct mt_session *s, struct mt_kv *kv);

#endif
