/* SPDX-License-Identifier: MIT */
/* `memtap events`'s renderers: the application-event summary (analysis/appev.h). */
#ifndef MEMTAP_EXPORT_APPEV_H
#define MEMTAP_EXPORT_APPEV_H

#include <stdio.h>

#include "analysis/appev.h"
#include "export/report.h"

/* text and Markdown (the seed's three tables, and what was skipped), JSON (the seed's keys
 * and memtap's additions: lines, skipped), CSV (one row per probe). */
void mt_appev_print(const struct mt_appev *a, enum mt_report_format fmt, FILE *f);

#endif
