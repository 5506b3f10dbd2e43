/* SPDX-License-Identifier: MIT */
/* The pagewrites collector: which pages of the workload's labelled ranges were written, epoch
 * by epoch, exactly (userfaultfd write-protect in async mode + the PAGEMAP_SCAN ioctl). */
#ifndef MEMTAP_RECORD_PAGEWRITES_H
#define MEMTAP_RECORD_PAGEWRITES_H

#include <stdint.h>
#include <sys/types.h>

struct mt_session;
struct mt_kv;
struct mt_rt_pwruns;

/* Sets s->pagewrites when --page-writes-ms is not 0 and the kernel can do it; 0 or -errno
 * (the collector is then unavailable; *why says so). */
int mt_pagewrites_open(struct mt_session *s, const char **why);
/* A label of process pid was put under tracking at time t (the runtime armed its pages). */
void mt_pagewrites_track(struct mt_session *s, pid_t pid, uint64_t t);
/* A label could not be tracked: errno. */
void mt_pagewrites_failed(struct mt_session *s, int err);
/* What the runtime of process pid did to a tracked range (format/rt-proto.h, mt_rt_pwruns):
 * written runs it scanned before the range went or was discarded (page_write events), present
 * pages it protected at the registration, the range's end or discard (page_track events);
 * runs: h->n runs of {start, end, categories} words. */
void mt_pagewrites_msg(struct mt_session *s, pid_t pid, const struct mt_rt_pwruns *h,
		       const uint64_t *runs);
/* Scans the processes whose epoch has ended. */
void mt_pagewrites_drain(struct mt_session *s);
/* How long the recorder may sleep before the next scan (-1: no limit). */
int mt_pagewrites_timeout_ms(struct mt_session *s);
/* Process pid is about to exit (its memory still exists): a last scan, then forget it. */
void mt_pagewrites_exit(struct mt_session *s, pid_t pid);
/* Process pid replaced its image: its tracked ranges are gone. */
void mt_pagewrites_forget(struct mt_session *s, pid_t pid);
void mt_pagewrites_close(struct mt_session *s, struct mt_kv *kv);

#endif
