/* SPDX-License-Identifier: MIT */
/* The report's MRM candidates: JSON and the text/Markdown table (docs/metrics.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/access.h"
#include "analysis/candidates.h"
#include "analysis/model.h"
#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

void mt_report_candidates_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_access_stats *st = &rep->access.st;
	char buf[512], by[64];

	mt_json_key(j, "candidates");
	mt_json_begin_array(j);
	for (size_t i = 0; i < rep->ncands; i++) {
		const struct mt_candidate *c = &rep->cands[i];
		const struct mt_access_region *g = &st->regions[c->region];
		const char *tb = mt_report_typed_by(g, buf, sizeof(buf));

		mt_json_begin_object(j);
		mt_json_kv_str(j, "kind", mt_cand_kind_name(c->kind));
		mt_json_kv_u64(j, "pid", c->pid);
		mt_json_kv_str(j, "region_type", mt_report_region_type(rep, g));
		if (tb)
			mt_json_kv_str(j, "typed_by", tb);
		else
			mt_json_kv_null(j, "typed_by");
		mt_json_kv_str(j, "label", mt_report_region_label(rep, g, buf, sizeof(buf)));
		if (c->site >= 0)
			mt_json_kv_u64(j, "site_id", (uint64_t)c->site);
		mt_json_kv_u64(j, "bytes", c->bytes);
		mt_json_kv_u64(j, "movable_bytes", c->movable_bytes);
		mt_json_kv_u64(j, "regions", c->regions);
		mt_json_kv_double(j, "write_once_ratio", c->write_once);
		mt_json_kv_str(j, "write_once_basis", mt_cand_basis_name(c->wo_basis));
		mt_json_kv_double(j, "retention_s", c->retention_s);
		mt_json_kv_double(j, "lifetime_s", c->lifetime_s);
		mt_json_kv_double(j, "data_reads_per_s", c->reads_per_s);
		mt_json_kv_u64(j, "samples", c->samples);
		mt_json_kv_u64(j, "spin_samples", c->spin_samples);
		mt_json_kv_u64(j, "read_samples", c->read_samples);
		mt_json_kv_u64(j, "write_samples", c->write_samples);
		mt_json_kv_u64(j, "pages", c->pages);
		mt_json_kv_u64(j, "page_write_pages", c->wp_pages);
		mt_json_kv_str(j, "mrm", mt_mrm_name(c->mrm));
		if (c->mrm_by)
			mt_json_kv_str(j, "mrm_decided_by",
				       mt_mrm_by_name(c->mrm_by, by, sizeof(by)));
		else
			mt_json_kv_null(j, "mrm_decided_by");
		/* one of its regions alive at the end: retention and lifetime lower bounds */
		mt_json_kv_bool(j, "censored", c->censored);
		{
			char note[256];
			double run;

			mt_report_censor_note(st, c->mrm_open, c->retention_s, g->t_start, 0, 0,
					      note, sizeof(note), &run);
			if (note[0])
				mt_json_kv_str(j, "mrm_note", note);
			else
				mt_json_kv_null(j, "mrm_note");
			mt_json_kv_double(j, "run_needed_s", run);
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

static const char *opt_rate(double v, char *buf, size_t size)
{
	if (isnan(v))
		return "-";
	snprintf(buf, size, "%.1f", v);
	return buf;
}

void mt_report_candidates_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = {
		"kind",	      "pid",	   "type",	   "typed by",	     "bytes",
		"write-once", "retention", "data reads/s", "samples (spin)", "page-write pages",
		"mrm",	      "label"
	};
	const struct mt_access_stats *st = &rep->access.st;
	uint64_t movable = 0, total = 0, open = 0;
	double longest = 0;
	char b[8][64], label[512], tb[256];
	struct mt_table t;

	for (size_t i = 0; i < rep->ncands; i++) {
		movable += rep->cands[i].movable_bytes;
		total += rep->cands[i].bytes;
	}
	fprintf(f, md ? "\n## MRM candidates\n\n" : "\nMRM candidates\n");
	fprintf(f,
		"%s%s of %s could move (high or medium MRM); by file mapping, allocation site, "
		"label and anonymous mapping of 1 MiB or more, most movable bytes first\n",
		md ? "" : "  ", mt_fmt_bytes(movable, b[0], 64), mt_fmt_bytes(total, b[1], 64));
	mt_report_fold_note(rep, md, f);
	if (!rep->ncands)
		return;
	mt_table_init(&t, 12, heads);
	for (size_t i = 0; i < rep->ncands && i < rep->top * 2; i++) {
		const struct mt_candidate *c = &rep->cands[i];
		const struct mt_access_region *g = &st->regions[c->region];
		const char *by = mt_report_typed_by(g, tb, sizeof(tb));

		mt_table_add(&t, mt_cand_kind_name(c->kind));
		mt_table_addf(&t, "%" PRIu32, c->pid);
		mt_table_add(&t, mt_report_region_type(rep, g));
		/* the rule set, not the rule: "profile llama.cpp", "rules.yaml", "memtap_label" */
		if (by == tb)
			tb[strcspn(tb, ":")] = 0;
		mt_table_add(&t, by ? by : "-");
		mt_table_add(&t, mt_fmt_bytes(c->bytes, b[0], 64));
		if (isnan(c->write_once))
			mt_table_add(&t, "unknown");
		else
			mt_table_addf(&t, "%.2f (%s)", c->write_once,
				      mt_cand_basis_name(c->wo_basis));
		mt_table_add(&t, mt_report_secs(c->retention_s, c->censored, b[1], 64));
		mt_table_add(&t, opt_rate(c->reads_per_s, b[2], 64));
		if (c->spin_samples)
			mt_table_addf(&t, "%s (%s)", mt_fmt_count(c->samples, b[3], 64),
				      mt_fmt_count(c->spin_samples, b[4], 64));
		else
			mt_table_add(&t, mt_fmt_count(c->samples, b[3], 64));
		mt_table_addf(&t, "%s of %s", mt_fmt_count(c->wp_pages, b[5], 64),
			      mt_fmt_count(c->pages, b[6], 64));
		if (c->mrm_open) {
			double run;

			mt_report_censor_note(st, c->mrm_open, c->retention_s, g->t_start, 0, 0,
					      label, sizeof(label), &run);
			open++;
			if (run > longest)
				longest = run;
			mt_table_add(&t, "insufficient_data (censored)");
		} else {
			mt_table_add(&t, mt_mrm_name(c->mrm));
		}
		mt_table_add(&t, mt_report_region_label(rep, g, label, sizeof(label)));
	}
	if (md)
		mt_report_md_table(&t, f);
	else
		mt_table_print(&t, f, 2, true);
	mt_table_release(&t);
	if (open)
		fprintf(f,
			"%s%" PRIu64
			" of these alive at the end with a retention below a threshold "
			"(censored, ≥: lower bounds): undecided; a run of at least %.1f s could "
			"decide them (mrm_note in JSON)\n",
			md ? "\n" : "  ", open, longest);
}
