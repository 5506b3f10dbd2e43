/* SPDX-License-Identifier: MIT */
/* --alloc=sites: allocation rows folded into per-site windows (record/alloc-sites.c). */
#ifndef MEMTAP_RECORD_ALLOC_SITES_H
#define MEMTAP_RECORD_ALLOC_SITES_H

#include <stdint.h>

struct conn;
struct mt_block;
struct mt_session;

/*
 * Takes the rows of b (MT_EV_ALLOC columns) and empties b. They wait to be put in time order
 * with other threads' rows, then are folded into c's windows (--alloc=sites); under
 * --max-size the fold follows every row, folds those of blocks below the kept size timed
 * from the fold time on, and writes the others. -ENOMEM, b untouched, when the fold's state
 * could not be made.
 */
int mt_ac_sites_fold(struct mt_session *s, struct conn *c, struct mt_block *b);
/* The windows closed and the rows to write so far into the trace (each flush). */
void mt_ac_sites_flush(struct mt_session *s, struct conn *c);
/* Every row still waiting folded (or written) now, and flushed. */
void mt_ac_sites_drain(struct mt_session *s, struct conn *c);
/* Writes c's open window and frees the fold's state (the process's stream ends). */
void mt_ac_sites_close(struct mt_session *s, struct conn *c);

#endif
