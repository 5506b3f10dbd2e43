/* SPDX-License-Identifier: MIT */
/*
 * The memory-tier model of what-if placement (docs/metrics.md, "What-if placement"): the
 * first tier is where the workload's memory is now (DRAM), every other one a tier it could
 * move to, each with its access latencies and, for a retention-limited memory (MRM), the
 * retention window after which data must be written again. Built-in defaults, or a YAML
 * file (memtap report --tiers FILE).
 */
#ifndef MEMTAP_ANALYSIS_TIERS_H
#define MEMTAP_ANALYSIS_TIERS_H

#include <stddef.h>

#define MT_TIERS_MAX 8
#define MT_TIERS_MAX_R 4 /* tiers with a retention window */

struct mt_tier {
	char name[32];
	double read_ns, write_ns; /* latency of one access, > 0 */
	double retention_s; /* data older than this must be rewritten; 0: retained as DRAM */
};

struct mt_tiers {
	struct mt_tier v[MT_TIERS_MAX];
	unsigned n;
	char source[256]; /* "built-in" or the file's name */
};

/* DRAM, CXL-attached DRAM and an MRM with a one-hour retention window (docs/metrics.md). */
void mt_tiers_default(struct mt_tiers *t);
/* The retention windows (s) of the tiers that have one, in tier order; their count. */
unsigned mt_tiers_retentions(const struct mt_tiers *t, double *r_s);
/*
 * Parses a tier model; name is the file's name for messages. 0, -1 with a one-line message
 * "FILE:LINE:COL: problem" in err, or -ENOMEM.
 */
int mt_tiers_parse(const char *data, size_t n, const char *name, struct mt_tiers *t, char *err,
		   size_t errsize);
/* The same from a file: -errno when it cannot be read. */
int mt_tiers_load(const char *path, struct mt_tiers *t, char *err, size_t errsize);

#endif
