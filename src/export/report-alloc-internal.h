/* SPDX-License-Identifier: MIT */
/* What the allocation section's JSON (report-alloc.c) and text (report-alloc-text.c)
 * renderers share. */
#ifndef MEMTAP_EXPORT_REPORT_ALLOC_INTERNAL_H
#define MEMTAP_EXPORT_REPORT_ALLOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/report.h"

/* The allocation functions by enum mt_alloc_kind (FREE last). */
extern const char *const mt_ra_kind_names[10];
/* A key of the allocation collector's details, or NULL when the trace does not say. */
const char *mt_ra_kv(const struct mt_report_alloc *a, const char *key);
uint64_t mt_ra_kv_u64(const struct mt_report_alloc *a, const char *key);
/* Stacks truncated for reason k (enum mt_rt_trunc), or NULL when the trace does not say. */
const char *mt_ra_truncated_by(const struct mt_report_alloc *a, unsigned k);
/* Processes (pids) among the traced images. */
size_t mt_ra_distinct_pids(const struct mt_alloc_stats *st);
/* Were allocations recorded at all? Not when the collector was off or unavailable. */
bool mt_ra_recorded(const struct mt_report_alloc *a);

#endif
