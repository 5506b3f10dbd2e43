/* SPDX-License-Identifier: MIT */
/* The recorder's live figures for memtap top: per process faults, system calls, samples and
 * RSS as the events go into the trace, published twice a second as a small text file in
 * the user's private live directory (common/livedir.h), removed at the end. */
#ifndef MEMTAP_RECORD_LIVE_H
#define MEMTAP_RECORD_LIVE_H

struct mt_session;

/* Starts counting (a tap on the writer); without a usable directory, nothing is published
 * (said once in the debug log). */
void mt_live_open(struct mt_session *s);
/* Publishes the figures when half a second has passed since the last time. */
void mt_live_tick(struct mt_session *s);
void mt_live_close(struct mt_session *s);

#endif
