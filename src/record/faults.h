/* SPDX-License-Identifier: MIT */
/* The page-fault collector: every minor and major fault of the tree, with its address. */
#ifndef MEMTAP_RECORD_FAULTS_H
#define MEMTAP_RECORD_FAULTS_H

#include <poll.h>

struct mt_session;
struct mt_kv;

/* Opens the fault events on the command (they start at its exec). 0 or -errno. */
int mt_faults_open(struct mt_session *s);
int mt_faults_pollfds(struct mt_session *s, struct pollfd *fds, int max);
void mt_faults_drain(struct mt_session *s);
/* Drains what is left and closes; adds the collector's totals to kv. */
void mt_faults_close(struct mt_session *s, struct mt_kv *kv);

#endif
