/* SPDX-License-Identifier: MIT */
/* MRM suitability labels decided only by the evidence at hand. */
#include "analysis/mrm.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* A predicate's value and, when decided, the figures that decided it. */
struct tv {
	int v; /* 1 true, 0 false, -1 unknown */
	unsigned by;
};

static struct tv at_least(double x, double threshold, unsigned by)
{
	if (threshold <= 0) /* every ratio and duration is */
		return (struct tv){ 1, 0 };
	if (isnan(x))
		return (struct tv){ -1, 0 };
	return (struct tv){ x >= threshold, by };
}

/*
 * retention >= threshold: false when the lifetime (an upper bound) is below it; a censored
 * retention (a lower bound) below it is unknown, marked MT_MRM_BY_CENSORED.
 */
static struct tv retention_at_least(double ret, bool censored, uint64_t reads, double life,
				    double threshold)
{
	struct tv v;

	if (threshold <= 0)
		return (struct tv){ 1, 0 };
	if (!isnan(life) && life < threshold)
		return (struct tv){ 0, MT_MRM_BY_LIFETIME };
	if (reads < MT_MRM_MIN_READS)
		return (struct tv){ -1, 0 };
	v = at_least(ret, threshold, MT_MRM_BY_RETENTION);
	if (v.v == 0 && censored)
		return (struct tv){ -1, MT_MRM_BY_CENSORED };
	return v;
}

/* a and b; a false operand decides alone (the lifetime first: it is exact). */
static struct tv and3(struct tv a, struct tv b)
{
	if (!a.v && !b.v)
		return (a.by & MT_MRM_BY_LIFETIME) || !(b.by & MT_MRM_BY_LIFETIME) ? a : b;
	if (!a.v)
		return a;
	if (!b.v)
		return b;
	if (a.v < 0 || b.v < 0) /* unknown; censoring kept if it is why */
		return (struct tv){ -1, (a.v < 0 ? a.by : 0) | (b.v < 0 ? b.by : 0) };
	return (struct tv){ 1, a.by | b.by };
}

struct mt_mrm_verdict mt_mrm_classify(const struct mt_mrm_rule *r, const struct mt_mrm_input *in)
{
	struct tv high = and3(at_least(in->write_once, r->high_write_once, MT_MRM_BY_WRITE_ONCE),
			      retention_at_least(in->retention_p99_s, in->retention_p99_censored,
						 in->read_samples, in->lifetime_p99_s,
						 r->high_retention_p99_s));
	struct tv med = and3(at_least(in->write_once, r->medium_write_once, MT_MRM_BY_WRITE_ONCE),
			     retention_at_least(in->retention_p50_s, in->retention_p50_censored,
						in->read_samples, in->lifetime_p50_s,
						r->medium_retention_p50_s));
	uint8_t open =
		(uint8_t)((high.v < 0 && high.by & MT_MRM_BY_CENSORED ? MT_MRM_NEEDS_HIGH : 0) |
			  (med.v < 0 && med.by & MT_MRM_BY_CENSORED ? MT_MRM_NEEDS_MEDIUM : 0));

	if (high.v == 1)
		return (struct mt_mrm_verdict){ MT_MRM_HIGH, (uint8_t)high.by, 0 };
	if (high.v == 0 && med.v == 1)
		return (struct mt_mrm_verdict){ MT_MRM_MEDIUM, (uint8_t)(high.by | med.by), 0 };
	if (high.v == 0 && med.v == 0)
		return (struct mt_mrm_verdict){ MT_MRM_LOW, (uint8_t)(high.by | med.by), 0 };
	return (struct mt_mrm_verdict){ MT_MRM_INSUFFICIENT, open ? MT_MRM_BY_CENSORED : 0, open };
}

const char *mt_mrm_name(unsigned label)
{
	static const char *const n[] = { "low_mrm", "medium_mrm", "high_mrm", "insufficient_data",
					 "not_applicable" };

	return label < sizeof(n) / sizeof(n[0]) ? n[label] : "?";
}

const char *mt_mrm_by_name(unsigned by, char *buf, size_t size)
{
	static const char *const n[] = { "write_once", "retention", "lifetime", "censored" };
	size_t off = 0;

	if (size)
		buf[0] = 0;
	for (unsigned i = 0; i < 4; i++)
		if (by & (1u << i) && off < size)
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? "+" : "",
						n[i]);
	return buf;
}
