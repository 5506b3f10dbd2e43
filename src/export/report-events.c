/* SPDX-License-Identifier: MIT */
/* The report's events section: hits of the --event tracepoints, and per value names. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"

static uint64_t total_of(const struct mt_report_events *re, const struct mt_tp_info *tp)
{
	for (size_t i = 0; i < re->counts.n; i++)
		if (re->counts.v[i].tp == tp && re->counts.v[i].field == ~0u)
			return re->counts.v[i].hits;
	return 0;
}

void mt_report_events_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_events *re = &rep->events;

	mt_json_key(j, "tracepoints");
	mt_json_begin_array(j);
	for (size_t t = 0; t < re->infos.n; t++) {
		const struct mt_tp_info *tp = &re->infos.v[t];

		mt_json_begin_object(j);
		mt_json_kv_str(j, "event", tp->event);
		mt_json_kv_u64(j, "hits", total_of(re, tp));
		mt_json_key(j, "by");
		mt_json_begin_object(j);
		for (unsigned f = 0; f < tp->nfields; f++) {
			if (!tp->f[f].symbols)
				continue;
			mt_json_key(j, tp->f[f].name);
			mt_json_begin_array(j);
			for (size_t i = 0; i < re->counts.n; i++) {
				const struct mt_tp_count *c = &re->counts.v[i];
				char sym[128];

				if (c->tp != tp || c->field != f)
					continue;
				mt_json_begin_object(j);
				mt_json_kv_u64(j, "value", c->value);
				mt_json_kv_str(j, "name",
					       mt_tpf_symbol(tp->f[f].symbols, c->value, sym,
							     sizeof(sym))
						       ? sym
						       : "?");
				mt_json_kv_u64(j, "hits", c->hits);
				mt_json_end_object(j);
			}
			mt_json_end_array(j);
		}
		mt_json_end_object(j);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

void mt_report_events_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { "tracepoint", "field", "value", "hits" };
	const struct mt_report_events *re = &rep->events;
	struct mt_table t;
	char c[32];

	fprintf(f, md ? "## Tracepoints\n\n" : "\ntracepoints\n");
	fprintf(f, "%s%s: %s hits in the tree%s\n", md ? "" : "  ",
		re->coll ? re->coll->mechanism : "none",
		mt_fmt_count(re->counts.events, c, sizeof(c)), md ? "\n" : "");
	if (re->counts.undescribed)
		fprintf(f, "%s%" PRIu64 " hits of tracepoints without a description%s\n",
			md ? "" : "  ", re->counts.undescribed, md ? "\n" : "");
	mt_table_init(&t, 4, heads);
	for (size_t i = 0; i < re->counts.n; i++) {
		const struct mt_tp_count *k = &re->counts.v[i];
		char sym[128];

		if (k->field == ~0u) {
			mt_table_add(&t, k->tp->event);
			mt_table_add(&t, "");
			mt_table_add(&t, "");
		} else {
			mt_table_add(&t, "");
			mt_table_add(&t, k->tp->f[k->field].name);
			if (mt_tpf_symbol(k->tp->f[k->field].symbols, k->value, sym, sizeof(sym)))
				mt_table_add(&t, sym);
			else
				mt_table_addf(&t, "%" PRIu64, k->value);
		}
		mt_table_add(&t, mt_fmt_count(k->hits, c, sizeof(c)));
	}
	if (md) {
		mt_report_md_table(&t, f);
	} else if (t.nrows) {
		mt_table_print(&t, f, 4, true);
		fprintf(f,
			"    (memtap dump FILE --type tracepoint for every hit and its fields)\n");
	}
	mt_table_release(&t);
}
