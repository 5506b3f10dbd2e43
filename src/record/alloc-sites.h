/* SPDX-License-Identifier: MIT */
/* --alloc=sites: allocation rows folded into per-site windows (record/alloc-sites.c). */
#ifndef MEMTAP_RECORD_ALLOC_SITES_H
#define MEMTAP_RECORD_ALLOC_SITES_H

struct conn;
struct mt_block;
struct mt_session;

/* Folds the rows of b (MT_EV_ALLOC columns) into c's windows and empties b; -ENOMEM when
 * the fold's state could not be made (the rows are then lost, counted by the caller). */
int mt_ac_sites_fold(struct mt_session *s, struct conn *c, struct mt_block *b);
/* Writes c's open window and frees the fold's state (the process's stream ends). */
void mt_ac_sites_close(struct mt_session *s, struct conn *c);

#endif
