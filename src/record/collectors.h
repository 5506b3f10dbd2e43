/* SPDX-License-Identifier: MIT */
/* Opening the collectors of a recording (record.c calls these in order). */
#ifndef MEMTAP_RECORD_COLLECTORS_H
#define MEMTAP_RECORD_COLLECTORS_H

#include "format/chunk.h"
#include "record/session.h"

/* Sets a collector's mechanism, status (active, degraded, unavailable, off) and reason. */
void mt_coll_set(struct mt_coll *c, const char *mech, const char *status, const char *reason);

void mt_open_access(struct mt_session *s);
void mt_open_faults(struct mt_session *s);
void mt_open_events(struct mt_session *s, struct mt_kv *kv);
void mt_open_syscalls(struct mt_session *s);
void mt_open_pagewrites(struct mt_session *s);
void mt_open_rss(struct mt_session *s);

#endif
