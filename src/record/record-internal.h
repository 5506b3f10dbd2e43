/* SPDX-License-Identifier: MIT */
/* Between record.c and record-meta.c (not a public API). */
#ifndef MEMTAP_RECORD_RECORD_INTERNAL_H
#define MEMTAP_RECORD_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

struct mt_session;
struct mt_coll;
struct mt_kv;

/* A collector's record: its first (final false) or closing one, with extra keys. */
int mt_rec_write_collector(struct mt_session *s, const struct mt_coll *c, bool final,
			   const struct mt_kv *extra);
/* The META record: versions, the command (argv), the machine, an attach's keys. */
int mt_rec_write_meta(struct mt_session *s, char *const *argv);
/* The summary on stderr after the recording. */
void mt_rec_print_summary(struct mt_session *s, const char *path, uint64_t bytes);

#endif
