/* SPDX-License-Identifier: MIT */
/*
 * MRM candidates (docs/metrics.md, "MRM candidates"): the memory a managed-retention memory
 * could hold, one row per file mapping, allocation site, labelled region and large anonymous
 * mapping, with the evidence behind each figure; ranked by the bytes that could move.
 */
#ifndef MEMTAP_ANALYSIS_CANDIDATES_H
#define MEMTAP_ANALYSIS_CANDIDATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/tiers.h"

struct mt_report;

enum mt_cand_kind { MT_CAND_FILE, MT_CAND_SITE, MT_CAND_LABEL, MT_CAND_ANON };

struct mt_candidate {
	uint8_t kind; /* enum mt_cand_kind */
	uint32_t pid;
	uint32_t region; /* the first of its regions: its name, type and what typed it */
	int64_t site; /* access site of a MT_CAND_SITE, else -1 */
	uint64_t bytes; /* mapping or label bytes; a site's largest live bytes */
	uint64_t regions; /* how many regions it gathers */
	uint64_t samples, spin_samples, read_samples, write_samples;
	uint64_t pages, wp_pages; /* whole pages; of which under page-write tracking */
	double write_once; /* NaN unless known for every one of its regions */
	uint8_t wo_basis; /* enum mt_wo_basis when all agree; 3: mixed */
	double retention_s, lifetime_s; /* the longest of its regions' (NaN: none) */
	bool censored; /* one of its regions is alive at the end: both are lower bounds */
	uint8_t mrm_open; /* MT_MRM_NEEDS_*: thresholds censoring left open */
	double reads_per_s; /* data read samples per second of lifetime (NaN: none) */
	uint8_t mrm, mrm_by; /* the rule on its figures */
	uint64_t movable_bytes; /* bytes when high or medium MRM, else 0 */
	/* What the tier model's retention windows (access.st.retention_ns) would have cost
	 * over the recording: bytes rewritten because their data outlived the window; the
	 * estimate and the least and most the page-write epochs allow. refresh_known: every
	 * region has a basis (page-write tracked, or read-only since it appeared). */
	double refresh_bytes[MT_TIERS_MAX_R][3];
	bool refresh_known;
	/* while gathering: the write-once ratios weighted by bytes, and whether one is unknown */
	double wo_num, wo_den;
	bool wo_unknown;
};

/* Builds the candidates from the report's access model (and its allocation sites, when
 * loaded): *out sorted by movable bytes, then bytes. 0 or -ENOMEM. */
int mt_candidates_build(const struct mt_report *rep, struct mt_candidate **out, size_t *n);
const char *mt_cand_kind_name(unsigned kind);
const char *mt_cand_basis_name(unsigned basis);

#endif
