/* SPDX-License-Identifier: MIT */
/*
 * The evidence behind the MRM answer, for people and scripts: censored lifetimes
 * (docs/metrics.md, "Censored lifetimes": a region alive at the end of the recording has a
 * lifetime and a retention of at least what was seen; a label such a figure cannot decide
 * says so, and how long a run could) and a site's behaviour ("Typing by behaviour").
 */
#include <math.h>
#include <stdio.h>

#include "export/json.h"
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
	return snprintf(
		buf, size, "%s needs %g s", open & MT_MRM_NEEDS_HIGH ? "high_mrm" : "medium_mrm",
		open & MT_MRM_NEEDS_HIGH ? r->high_retention_p99_s : r->medium_retention_p50_s);
}

const char *mt_report_censor_note(const struct mt_access_stats *st, unsigned open,
				  double retention_s, uint64_t born_ns, uint64_t alive, uint64_t of,
				  char *buf, size_t size, double *run_s)
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

/* The note of a label censoring left open, and the run that could settle it; nulls else. */
void mt_report_censor_note_json(struct mt_json *j, const struct mt_access_stats *st, unsigned open,
				double retention_s, uint64_t born_ns, uint64_t alive, uint64_t of)
{
	char note[256];
	double run;

	mt_report_censor_note(st, open, retention_s, born_ns, alive, of, note, sizeof(note), &run);
	if (note[0])
		mt_json_kv_str(j, "mrm_note", note);
	else
		mt_json_kv_null(j, "mrm_note");
	mt_json_kv_double(j, "run_needed_s", run);
}

/* A censored set's count, estimator and the first percentile that is only a lower bound. */
void mt_report_censoring_json(struct mt_json *j, const char *what, const struct mt_surv *sv,
			      unsigned lower_from)
{
	static const char *const pct[] = { "p50", "p90", "p99" };
	char key[64];

	snprintf(key, sizeof(key), "%s_censored", what);
	mt_json_kv_u64(j, key, sv->censored);
	snprintf(key, sizeof(key), "%s_estimator", what);
	mt_json_kv_str(j, key, mt_surv_estimator_name(mt_surv_estimator(sv)));
	snprintf(key, sizeof(key), "%s_lower_bound_from", what);
	if (lower_from < 3)
		mt_json_kv_str(j, key, pct[lower_from]);
	else
		mt_json_kv_null(j, key);
}

static const struct mt_json_u64 behaviour_figures[] = {
	MT_JSON_U64("allocs", struct mt_site_behaviour, allocs),
	MT_JSON_U64("frees", struct mt_site_behaviour, frees),
	MT_JSON_U64("size_up", struct mt_site_behaviour, size_up),
	MT_JSON_U64("size_down", struct mt_site_behaviour, size_down),
	MT_JSON_U64("size_up_by_rows", struct mt_site_behaviour, size_up_step),
	MT_JSON_U64("outlived_next", struct mt_site_behaviour, outlived),
	MT_JSON_U64("big_blocks", struct mt_site_behaviour, big),
	MT_JSON_U64("lasting", struct mt_site_behaviour, lasting),
	MT_JSON_U64("read", struct mt_site_behaviour, read),
	MT_JSON_U64("read_late", struct mt_site_behaviour, read_late),
	MT_JSON_U64("written_late", struct mt_site_behaviour, written_late),
	MT_JSON_U64("write_once_pages", struct mt_site_behaviour, wo_pages),
	MT_JSON_U64("written_once_pages", struct mt_site_behaviour, wo_once_pages),
	MT_JSON_U64("pages_written", struct mt_site_behaviour, pages_written),
	MT_JSON_U64("page_epochs", struct mt_site_behaviour, page_epochs),
	MT_JSON_U64("pages_settled", struct mt_site_behaviour, pages_settled),
};

/* A site's behaviour: its verdict (null: none) and the evidence it rests on. */
void mt_report_behaviour_json(struct mt_json *j, const struct mt_site_behaviour *b)
{
	mt_json_key(j, "behaviour");
	mt_json_begin_object(j);
	if (b->verdict) {
		mt_json_kv_str(j, "region_type", mt_beh_type(b->verdict));
		mt_json_kv_str(j, "evidence", mt_beh_evidence(b->verdict));
		mt_json_kv_double(j, "confidence", (double)b->confidence);
	} else {
		mt_json_kv_null(j, "region_type");
		mt_json_kv_null(j, "evidence");
		mt_json_kv_null(j, "confidence");
	}
	MT_JSON_KV_U64S(j, b, behaviour_figures);
	mt_json_kv_double(j, "read_late_expected", b->read_late_expected);
	/* where its written pages were first written in their blocks' lives, on average (0:
	 * at the start, 1: at the end; null: none written) */
	mt_json_kv_double(j, "first_write_position",
			  b->pages_written ? b->first_write_pos / (double)b->pages_written : NAN);
	mt_json_end_object(j);
}
