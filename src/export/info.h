/* SPDX-License-Identifier: MIT */
/* `memtap info`: what a trace holds, as text or JSON. */
#ifndef MEMTAP_EXPORT_INFO_H
#define MEMTAP_EXPORT_INFO_H

#include <stdio.h>

#include "analysis/procs.h"
#include "analysis/run.h"

struct mt_reader;

int mt_info_json(const char *path, struct mt_reader *r, const struct mt_run *run,
		 const struct mt_procs *ps, FILE *f);
void mt_info_text(const char *path, struct mt_reader *r, const struct mt_run *run,
		  const struct mt_procs *ps, FILE *f);

#endif
