/* SPDX-License-Identifier: MIT */
/*
 * Censored lifetimes for people and scripts (docs/metrics.md, "Censored lifetimes"): a
 * region alive at the end of the recording has a lifetime and a retention of at least what
 * was seen; an MRM label such a figure cannot decide says so, and how long a run could.
 */
#include <math.h>
#include <stdio.h>

#include "export/report.h"

const char *mt_report_secs(double s, bool censored, char *buf, size_t size)
{
	const char *ge = censored && !isnan(s) ? "≥ " : "";

	if (isnan(s))
		snprintf(buf, size, "-");
	else if (s >= 100)
		snprintf(buf, size, "%s%.0f s", ge, s);
	else if (s >= 1)
		snprintf(buf, size, "%s%.2f s", ge, s);
	else
		snprintf(buf, size, "%s%.1f ms", ge, s * 1e3);
	return buf;
}

/* "high_mrm needs 10 s", "medium_mrm needs 1 s, high_mrm 10 s": the open thresholds. */
static int needs(const struct mt_mrm_rule *r, unsigned open, char *buf, size_t size)
{
	if (open == (MT_MRM_NEEDS_HIGH | MT_MRM_NEEDS_MEDIUM))
		return snprintf(buf, size, "medium_mrm needs %g s, high_mrm %g s",
				r->medium_retention_p50_s, r->high_retention_p99_s);
	return snprintf(buf, size, "%s needs %g s",
			open & MT_MRM_NEEDS_HIGH ? "high_mrm" : "medium_mrm",
			open & MT_MRM_NEEDS_HIGH ? r->high_retention_p99_s
						 : r->medium_retention_p50_s);
}

const char *mt_report_censor_note(const struct mt_access_stats *st, unsigned open,
				  double retention_s, uint64_t born_ns, uint64_t alive,
				  uint64_t of, char *buf, size_t size, double *run_s)
{
	double run = st->t_end > st->t0 ? (double)(st->t_end - st->t0) / 1e9 : 0, need;
	char what[96], rest[96];
	int n;

	*run_s = NAN;
	if (size)
		buf[0] = 0;
	if (!open || !size)
		return buf;
	need = open & MT_MRM_NEEDS_HIGH ? st->mrm_rule.high_retention_p99_s
					: st->mrm_rule.medium_retention_p50_s;
	if (of)
		snprintf(what, sizeof(what), "%llu of %llu regions alive at the end",
			 (unsigned long long)alive, (unsigned long long)of);
	else
		snprintf(what, sizeof(what), "alive at the end");
	mt_report_secs(retention_s, true, rest, sizeof(rest));
	n = snprintf(buf, size, "%s of a %.2f s run (retention %s so far); ", what, run, rest);
	if (n > 0 && (size_t)n < size)
		n += needs(&st->mrm_rule, open, buf + n, size - (size_t)n);
	if (born_ns) { /* the retention counts from its birth: the run must reach that far */
		double from = born_ns > st->t0 ? (double)(born_ns - st->t0) / 1e9 : 0;

		*run_s = from + need;
		if (n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, ": a run of at least %.1f s", *run_s);
	}
	return buf;
}
