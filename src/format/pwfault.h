/* SPDX-License-Identifier: MIT */
/*
 * Which page faults page-write tracking caused: a per-page state machine over a trace's events
 * in time order, shared by the reader's cursor (every analysis) and the recorder's live view.
 *
 * Tracking write-protects pages (userfaultfd, async): a page protected while present takes one
 * extra fault at its next write, which a run without memtap does not have. Such a page is
 * protected when a range is registered (MT_PT_ARMED: its present pages) and again by each scan
 * that reports it written (MT_EV_PAGE_WRITE); a page that is not present is never protected,
 * so its first touch is the workload's fault, as bare. Per page the machine keeps whether it
 * is present and how many protections still await their fault: the next fault on a present
 * page with one pending is tracking's. A discard (MT_PT_ZAPPED), the range's end, an unmap
 * and a fork (the parent's pages become copy-on-write, so their next write faults bare too)
 * clear what is pending. A scan stamps its events with its ioctl's start, so a protection is
 * applied no later than it happened; a fault inside that walk is marked uncertain.
 *
 * Memory: 3 bytes per page of tracked memory a fault or scan touched (chunks of 2 MiB), and
 * the ranges; input of any size costs work proportional to the pages it names, within
 * tracked ranges of at most MT_PWF_MAX_RANGE bytes each.
 */
#ifndef MEMTAP_FORMAT_PWFAULT_H
#define MEMTAP_FORMAT_PWFAULT_H

#include <stdint.h>

#include <memtap/trace-format.h>

/* The event types the machine follows, besides MT_EV_FAULT. */
#define MT_PWF_TYPES                                                                    \
	(1ull << MT_EV_PAGE_WRITE | 1ull << MT_EV_PAGE_TRACK | 1ull << MT_EV_PW_RANGE | \
	 1ull << MT_EV_LABEL | 1ull << MT_EV_MUNMAP | 1ull << MT_EV_MREMAP |            \
	 1ull << MT_EV_TASK_NEW | 1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_TASK_EXIT)

#define MT_PWF_MAX_RANGE (1ull << 42) /* a tracked range larger is refused (a damaged trace) */

struct mt_pwf;

struct mt_pwf_stats {
	uint64_t tracking, uncertain; /* faults so marked */
	uint64_t refused; /* events naming ranges beyond MT_PWF_MAX_RANGE or user space */
	uint64_t nomem; /* updates dropped for want of memory (their faults: the workload's) */
};

struct mt_pwf *mt_pwf_new(void);
void mt_pwf_free(struct mt_pwf *p);
/*
 * One event (v: its fields, MT_F_TIME first), in time order. Returns the MT_F_FAULT_TRACKING
 * bits for a fault, 0 for every other event.
 */
unsigned mt_pwf_event(struct mt_pwf *p, unsigned type, const uint64_t *v);
void mt_pwf_stats(const struct mt_pwf *p, struct mt_pwf_stats *st);

#endif
