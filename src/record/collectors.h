/* SPDX-License-Identifier: MIT */
/* Opening the collectors of a recording (record.c calls these in order). */
#ifndef MEMTAP_RECORD_COLLECTORS_H
#define MEMTAP_RECORD_COLLECTORS_H

#include "format/chunk.h"
#include "record/session.h"

/* Sets a collector's mechanism, status (active, degraded, unavailable, off) and reason. */
void mt_coll_set(struct mt_coll *c, const char *mech, const char *status, const char *reason);

struct pollfd;

/*
 * One collector of a recording, as the record loop sees it. Every field but coll may be
 * NULL. The loop polls every collector's descriptors, hands a collector its own (handle),
 * drains each after every poll, drains them once more when the tree has exited
 * (final_drain), then closes them in order, each writing its closing record.
 */
struct mt_collector {
	size_t coll; /* offset of its struct mt_coll (the record) in struct mt_session */
	void (*open)(struct mt_session *s, struct mt_kv *kv); /* kv: extra keys of its record */
	int (*npollfds)(struct mt_session *s); /* at most this many descriptors */
	int (*pollfds)(struct mt_session *s, struct pollfd *fds, int max);
	void (*handle)(struct mt_session *s, struct pollfd *fds, int n); /* its polled fds */
	void (*drain)(struct mt_session *s);
	void (*final_drain)(struct mt_session *s);
	int (*timeout_ms)(struct mt_session *s); /* its next deadline, or -1 */
	void (*close)(struct mt_session *s, struct mt_kv *kv); /* kv: its closing totals */
};

#define MT_NCOLLECTORS 9
extern const struct mt_collector mt_collectors[MT_NCOLLECTORS];
struct mt_coll *mt_collector_record(struct mt_session *s, const struct mt_collector *c);

void mt_open_access(struct mt_session *s);
void mt_open_faults(struct mt_session *s);
void mt_open_events(struct mt_session *s, struct mt_kv *kv);
void mt_open_syscalls(struct mt_session *s);
void mt_open_pagewrites(struct mt_session *s);
void mt_open_rss(struct mt_session *s);

#endif
