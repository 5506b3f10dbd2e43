/* SPDX-License-Identifier: MIT */
/* MRM suitability labels with the evidence behind them (docs/metrics.md, "MRM labels"). */
#ifndef MEMTAP_ANALYSIS_MRM_H
#define MEMTAP_ANALYSIS_MRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mt_mrm {
	MT_MRM_LOW,
	MT_MRM_MEDIUM,
	MT_MRM_HIGH,
	MT_MRM_INSUFFICIENT, /* the evidence decides no label */
	MT_MRM_NOT_APPLICABLE, /* kernel-provided mappings ([vdso], [vvar], ...) */
};

/* What decided a label (bits): the figures whose values excluded or established it. */
enum {
	MT_MRM_BY_WRITE_ONCE = 1,
	MT_MRM_BY_RETENTION = 2,
	MT_MRM_BY_LIFETIME = 4,
	/* insufficient_data because a retention below a threshold is censored: the region (or
	 * enough of the type's) was alive at the end, so its retention is only a lower bound */
	MT_MRM_BY_CENSORED = 8,
};

/* Sampled reads a retention needs before it decides a label. */
#define MT_MRM_MIN_READS 10

/* The seed's MRM suitability rule (mrm-trace), its thresholds configurable. */
struct mt_mrm_rule {
	double high_write_once, high_retention_p99_s;
	double medium_write_once, medium_retention_p50_s;
};

/* What is known of a region or type; NaN for what is not. */
struct mt_mrm_input {
	double write_once; /* exact (page writes, read-only mappings) or NaN */
	double retention_p99_s, retention_p50_s; /* from sampled reads, or NaN */
	/* Right-censored: the figure is a lower bound (alive at the end of the recording), so
	 * it can establish a threshold but never exclude one. */
	bool retention_p99_censored, retention_p50_censored;
	uint64_t read_samples; /* behind the retention */
	/* Upper bounds of the retention: nothing is read after it is gone (NaN: none; a
	 * censored lifetime is no upper bound and is passed as NaN). */
	double lifetime_p99_s, lifetime_p50_s;
};

/* Which thresholds a censored retention left undecided (mt_mrm_verdict.censored). */
enum { MT_MRM_NEEDS_HIGH = 1, MT_MRM_NEEDS_MEDIUM = 2 };

struct mt_mrm_verdict {
	uint8_t label; /* enum mt_mrm */
	uint8_t by; /* MT_MRM_BY_* */
	uint8_t censored; /* MT_MRM_NEEDS_*: retention thresholds censoring left open */
};

/*
 * The rule in three-valued logic: high needs write-once >= W1 and retention p99 >= R99,
 * medium write-once >= W2 and retention p50 >= R50; low when both are excluded. A
 * retention is known with at least MT_MRM_MIN_READS sampled reads, and is certainly below
 * a threshold when the lifetime is. A censored retention below a threshold decides
 * nothing (the region may be read later): MT_MRM_INSUFFICIENT with MT_MRM_BY_CENSORED and
 * the thresholds it left open. What cannot be decided is MT_MRM_INSUFFICIENT.
 */
struct mt_mrm_verdict mt_mrm_classify(const struct mt_mrm_rule *r, const struct mt_mrm_input *in);
const char *mt_mrm_name(unsigned label);
/* "write_once+retention", "lifetime", "censored", ...; "" for none. */
const char *mt_mrm_by_name(unsigned by, char *buf, size_t size);

#endif
