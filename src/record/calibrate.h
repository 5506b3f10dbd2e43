/* SPDX-License-Identifier: MIT */
/* What one access sample costs the sampled thread on this machine (record/calibrate.c). */
#ifndef MEMTAP_RECORD_CALIBRATE_H
#define MEMTAP_RECORD_CALIBRATE_H

#include <stdint.h>

struct perf_event_attr;

/*
 * ns per sample of an event like model (its type, config and period kind), 0 if it cannot
 * tell. Measured (~45 ms), or taken from this boot's measurement of the same event made
 * less than CAL_KEEP_S ago by this user; *age_ns says how old the figure is (0: measured
 * now).
 */
double mt_calibrate_sample(const struct perf_event_attr *model, uint64_t *age_ns);

#endif
