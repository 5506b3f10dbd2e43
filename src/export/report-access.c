/* SPDX-License-Identifier: MIT */
/* The report's access section and the regions list: sampled accesses per region and site. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"
#include "format/chunk.h"
#include "format/reader.h"
#include "format/schema.h"

static const char *kv(const struct mt_report_access *ra, const char *key)
{
	return ra->coll && ra->coll->kv ? mt_kvlist_get(ra->coll->kv, key) : NULL;
}

static uint64_t kv_u64(const struct mt_report_access *ra, const char *key)
{
	const char *v = kv(ra, key);

	return v ? strtoull(v, NULL, 10) : 0;
}

/* The mechanism name: from the events (one mechanism per run), else the collector. */
static const char *mech_name(const struct mt_report_access *ra)
{
	const struct mt_field_desc *f = &mt_type_desc(MT_EV_ACCESS)->fields[MT_F_ACCESS_MECH];

	for (unsigned m = 0; m < 64; m++)
		if (ra->st.mech_mask & (1ull << m))
			return mt_field_enum_name(f, m);
	return "none";
}

#define CO(key, member) MT_JSON_U64(key, struct mt_access_counts, member)
static const struct mt_json_u64 count_figures[] = {
	CO("samples", samples),
	CO("read_samples", read_samples),
	CO("write_samples", write_samples),
	CO("reads", reads),
	CO("writes", writes),
};
#undef CO

#define ST(key, member) MT_JSON_U64(key, struct mt_access_stats, member)
static const struct mt_json_u64 sample_figures[] = {
	ST("accesses", accesses),
	ST("read_samples", read_samples),
	ST("write_samples", write_samples),
	ST("reads", reads),
	ST("writes", writes),
};
#undef ST

static void json_counts(struct mt_json *j, const struct mt_access_counts *c)
{
	MT_JSON_KV_U64S(j, c, count_figures);
}

#define TOP_PAGES 20

/* access.spin: spin-waits, apart from the data traffic (docs/metrics.md). */
static void json_spin(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	char buf[512];

	mt_json_key(j, "spin");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "criterion",
		       "a thread's loads sampled at least 8 times in a row at one instruction "
		       "(within 16 bytes) and one 64-byte line");
	mt_json_kv_u64(j, "samples", st->spin_samples);
	mt_json_kv_double(j, "share_of_accesses",
			  st->accesses ? (double)st->spin_samples / (double)st->accesses : 0.0);
	mt_json_kv_u64(j, "data_accesses", st->accesses - st->spin_samples);
	mt_json_kv_u64(j, "other_sites_samples", st->spin_other);
	mt_json_key(j, "sites");
	mt_json_begin_array(j);
	for (size_t k = 0; k < st->nspin; k++) {
		const struct mt_spin_site *s = &st->spin[ra->spin[k]];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", s->pid);
		mt_json_key(j, "ip");
		mt_json_hex(j, s->ip);
		mt_json_kv_str(j, "function", mt_report_spin_name(rep, s, buf, sizeof(buf)));
		mt_json_kv_u64(j, "samples", s->samples);
		mt_json_kv_double(j, "share_of_accesses",
				  st->accesses ? (double)s->samples / (double)st->accesses : 0.0);
		mt_json_kv_u64(j, "runs", s->runs);
		mt_json_kv_u64(j, "lines", s->lines);
		if (s->region < st->nregions) {
			mt_json_kv_u64(j, "region_id", s->region);
			mt_json_kv_str(j, "region_type",
				       mt_report_region_type(rep, &st->regions[s->region]));
		} else {
			mt_json_kv_null(j, "region_id");
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_end_object(j);
}

void mt_report_access_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	const struct mt_field_desc *rf = &mt_type_desc(MT_EV_ACCESS)->fields[MT_F_ACCESS_REASON];
	char buf[512];

	mt_json_key(j, "access");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "mechanism", mech_name(ra));
	mt_json_kv_str(j, "collector_mechanism", ra->coll ? ra->coll->mechanism : "none");
	mt_json_kv_str(j, "status", ra->coll ? ra->coll->status : "unknown");
	if (ra->coll && ra->coll->reason)
		mt_json_kv_str(j, "reason", ra->coll->reason);
	if (kv(ra, "event"))
		mt_json_kv_str(j, "event", kv(ra, "event"));
	if (kv(ra, "period"))
		mt_json_kv_u64(j, "period", kv_u64(ra, "period"));
	else
		mt_json_kv_null(j, "period");
	if (kv(ra, "frequency_hz"))
		mt_json_kv_u64(j, "frequency_hz", kv_u64(ra, "frequency_hz"));
	mt_json_kv_str(j, "weight_unit", kv(ra, "weight_unit") ? kv(ra, "weight_unit") : "");
	mt_json_kv_u64(j, "samples", st->samples);
	mt_json_kv_u64(j, "resolved", st->resolved);
	mt_json_kv_double(j, "resolved_fraction",
			  st->samples ? (double)st->resolved / (double)st->samples : 0.0);
	MT_JSON_KV_U64S(j, st, sample_figures);
	mt_json_key(j, "resolved_by");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "at_ip", st->by_how[MT_HOW_AT_IP]);
	mt_json_kv_u64(j, "previous", st->by_how[MT_HOW_PREVIOUS]);
	mt_json_kv_u64(j, "precise", st->by_how[MT_HOW_PRECISE]);
	mt_json_end_object(j);
	mt_json_key(j, "unresolved");
	mt_json_begin_object(j);
	for (unsigned r = 1; r < _MT_UNRES_MAX; r++)
		mt_json_kv_u64(j, mt_field_enum_name(rf, r), st->unresolved[r]);
	mt_json_end_object(j);
	mt_json_kv_u64(j, "lost", ra->coll ? ra->coll->lost : 0);
	/* samples of memtap's runtime touching its own memory inside a hook: in no figure */
	mt_json_kv_u64(j, "memtap_own_accesses", st->memtap_accesses);
	mt_json_kv_u64(j, "throttles", kv_u64(ra, "throttles"));
	mt_json_kv_u64(j, "perf_event_max_sample_rate", kv_u64(ra, "perf_event_max_sample_rate"));
	mt_json_kv_u64(j, "perf_cpu_time_max_percent", kv_u64(ra, "perf_cpu_time_max_percent"));
	mt_json_kv_u64(j, "decoder_cpu_ns", kv_u64(ra, "decoder_cpu_ns"));
	mt_json_kv_u64(j, "in_heap_blocks", st->in_blocks);
	json_spin(rep, j);
	mt_json_key(j, "by_region_type");
	mt_json_begin_object(j);
	for (unsigned t = 0; t < MT_NREGION_TYPES; t++) {
		if (!st->by_type[t])
			continue;
		mt_json_key(j, mt_region_type_name(t));
		mt_json_begin_object(j);
		mt_json_kv_u64(j, "accesses", st->by_type[t]);
		mt_json_kv_u64(j, "reads", st->reads_by_type[t]);
		mt_json_kv_u64(j, "writes", st->writes_by_type[t]);
		mt_json_end_object(j);
	}
	mt_json_end_object(j);
	mt_json_key(j, "top_sites");
	mt_json_begin_array(j);
	for (size_t k = 0; k < ra->nsites && k < rep->top; k++) {
		const struct mt_access_site *s = &st->sites[ra->sites[k]];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "site_id", ra->sites[k]);
		mt_json_kv_u64(j, "pid", s->pid);
		mt_json_kv_str(j, "function",
			       mt_report_site_name(rep, ra->sites[k], buf, sizeof(buf)));
		json_counts(j, &s->c);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_key(j, "hottest_pages");
	mt_json_begin_array(j);
	for (size_t k = 0; k < ra->npages && k < TOP_PAGES; k++) {
		const struct mt_access_page *p = &st->pages[ra->pages[k]];
		const struct mt_access_region *g = &st->regions[p->region];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", p->pid);
		mt_json_key(j, "page");
		mt_json_hex(j, p->page);
		mt_json_kv_u64(j, "region_id", p->region);
		mt_json_kv_str(j, "region_type", mt_report_region_type(rep, g));
		json_counts(j, &p->c);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_end_object(j);
}

void mt_report_regions_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	char buf[512];

	/* memtap.h names: regions made, and calls that could not be trusted */
	mt_json_key(j, "labels");
	mt_json_begin_object(j);
	mt_json_kv_u64(j, "regions", st->labels);
	mt_json_kv_u64(j, "invalid", st->labels_invalid);
	mt_json_kv_u64(j, "unlabels_unmatched", st->unlabels_unmatched);
	mt_json_end_object(j);
	mt_json_key(j, "regions");
	mt_json_begin_array(j);
	for (size_t k = 0; k < ra->nregions; k++) {
		const struct mt_access_region *g = &st->regions[ra->regions[k]];
		const char *typed_by;

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "region_id", ra->regions[k]);
		mt_json_kv_u64(j, "pid", g->pid);
		mt_json_kv_str(j, "region_type", mt_report_region_type(rep, g));
		typed_by = mt_report_typed_by(g, buf, sizeof(buf));
		if (typed_by)
			mt_json_kv_str(j, "typed_by", typed_by);
		else
			mt_json_kv_null(j, "typed_by");
		mt_json_kv_str(j, "label", mt_report_region_label(rep, g, buf, sizeof(buf)));
		if (g->end > g->start) {
			mt_json_key(j, "start");
			mt_json_hex(j, g->start);
			mt_json_key(j, "end");
			mt_json_hex(j, g->end);
			mt_json_kv_u64(j, "bytes", g->end - g->start);
		} else {
			mt_json_kv_null(j, "bytes");
		}
		if (g->site >= 0)
			mt_json_kv_u64(j, "site_id", (uint64_t)g->site);
		json_counts(j, &g->c);
		mt_json_kv_u64(j, "spin_samples", g->spin_samples);
		mt_json_kv_u64(j, "faults_minor", g->faults_minor);
		mt_json_kv_u64(j, "faults_major", g->faults_major);
		mt_json_kv_u64(j, "first_access_ns", g->c.first_ns);
		mt_json_kv_u64(j, "last_access_ns", g->c.last_ns);
		mt_json_kv_u64(j, "start_ns", g->t_start);
		mt_report_region_behavior_json(j, &rep->access.st, g);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

/* The weighted sums' names and values for people: what a sample's weight is depends on
 * the mechanism (ns of CPU time for cpu-clock, cycles, or loads/ops for PEBS/IBS). */
static const char *weight_name(const struct mt_report_access *ra, bool load)
{
	const char *u = kv(ra, "weight_unit");

	if (u && !strcmp(u, "ns"))
		return load ? "CPU time at loads" : "CPU time at stores";
	if (u && !strcmp(u, "cycles"))
		return load ? "cycles at loads" : "cycles at stores";
	return load ? "loads (est.)" : "stores (est.)";
}

static const char *weight_fmt(const struct mt_report_access *ra, uint64_t v, char *buf, size_t size)
{
	const char *u = kv(ra, "weight_unit");

	if (u && !strcmp(u, "ns"))
		return mt_fmt_duration(v, buf, size);
	return mt_fmt_count(v, buf, size);
}

static void regions_table(const struct mt_report *rep, size_t limit, struct mt_table *t, bool human)
{
	static const char *const heads[] = { "region", "pid",	 "type",  "bytes",  "samples",
					     "loads",  "stores", "reads", "writes", "label" };
	const char *hh[10];
	const struct mt_report_access *ra = &rep->access;
	char b[5][64], label[512];

	memcpy(hh, heads, sizeof(hh));
	hh[7] = weight_name(ra, true);
	hh[8] = weight_name(ra, false);
	mt_table_init(t, 10, human ? hh : heads);
	for (size_t k = 0; k < ra->nregions && k < limit; k++) {
		const struct mt_access_region *g = &ra->st.regions[ra->regions[k]];

		mt_table_addf(t, "%zu", ra->regions[k]);
		mt_table_addf(t, "%" PRIu32, g->pid);
		mt_table_add(t, mt_report_region_type(rep, g));
		mt_table_add(t,
			     g->end > g->start ? mt_fmt_bytes(g->end - g->start, b[0], 64) : "-");
		if (human && g->spin_samples)
			mt_table_addf(t, "%s (%s spin)", mt_fmt_count(g->c.samples, b[1], 64),
				      mt_fmt_count(g->spin_samples, b[2], 64));
		else
			mt_table_add(t, mt_fmt_count(g->c.samples, b[1], 64));
		mt_table_add(t, mt_fmt_count(g->c.read_samples, b[2], 64));
		mt_table_add(t, mt_fmt_count(g->c.write_samples, b[3], 64));
		if (human) {
			mt_table_add(t, weight_fmt(ra, g->c.reads, b[4], 64));
			mt_table_add(t, weight_fmt(ra, g->c.writes, b[0], 64));
		} else {
			mt_table_addf(t, "%" PRIu64, g->c.reads);
			mt_table_addf(t, "%" PRIu64, g->c.writes);
		}
		mt_table_add(t, mt_report_region_label(rep, g, label, sizeof(label)));
	}
}

void mt_report_access_regions_table(const struct mt_report *rep, struct mt_table *t)
{
	regions_table(rep, (size_t)-1, t, false);
}

void mt_report_access_text(const struct mt_report *rep, bool md, FILE *f)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	const struct mt_field_desc *rf = &mt_type_desc(MT_EV_ACCESS)->fields[MT_F_ACCESS_REASON];
	char b1[64], b2[64], line[1024];
	struct mt_table t;
	size_t len = 0;

	fprintf(f, md ? "## Memory accesses (sampled)\n\n| | |\n|---|---|\n"
		      : "\naccesses (sampled)\n");
#define ROW(label, ...) mt_summary_row(f, md, label, __VA_ARGS__)
	ROW("mechanism", "%s (%s)", mech_name(ra), ra->coll ? ra->coll->mechanism : "none");
	if (ra->coll && ra->coll->reason)
		ROW("status", "%s: %s", ra->coll->status, ra->coll->reason);
	if (kv(ra, "period"))
		ROW("sampling period", "%s %s", kv(ra, "period"),
		    kv(ra, "weight_unit") ? kv(ra, "weight_unit") : "");
	else if (kv(ra, "frequency_hz"))
		ROW("sampling frequency", "%s Hz (period varies, in %s)", kv(ra, "frequency_hz"),
		    kv(ra, "weight_unit") ? kv(ra, "weight_unit") : "?");
	ROW("samples", "%s", mt_fmt_count(st->samples, b1, sizeof(b1)));
	ROW("resolved", "%s (%.1f%%)", mt_fmt_count(st->resolved, b1, sizeof(b1)),
	    st->samples ? 100.0 * (double)st->resolved / (double)st->samples : 0.0);
	for (unsigned r = 1; r < _MT_UNRES_MAX; r++) {
		if (!st->unresolved[r])
			continue;
		len += (size_t)snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
					"%s%s %s", len ? ", " : "", mt_field_enum_name(rf, r),
					mt_fmt_count(st->unresolved[r], b1, sizeof(b1)));
		if (len >= sizeof(line))
			break;
	}
	ROW("unresolved, by reason", "%s", len ? line : "none");
	ROW("loads / stores (samples)", "%s / %s", mt_fmt_count(st->read_samples, b1, sizeof(b1)),
	    mt_fmt_count(st->write_samples, b2, sizeof(b2)));
	if (st->memtap_accesses)
		ROW("memtap's own (left out)", "%s accesses by the runtime's code or in its memory",
		    mt_fmt_count(st->memtap_accesses, b1, sizeof(b1)));
	if (st->spin_samples) {
		const struct mt_spin_site *sp = &st->spin[ra->spin[0]];

		ROW("spin-waits (apart)",
		    "%s loads (%.1f%% of accesses) re-reading one line at one instruction, "
		    "most at %s",
		    mt_fmt_count(st->spin_samples, b1, sizeof(b1)),
		    st->accesses ? 100.0 * (double)st->spin_samples / (double)st->accesses : 0.0,
		    st->nspin ? mt_report_spin_name(rep, sp, line, sizeof(line)) : "?");
	}
	{
		char w1[64], w2[64];

		ROW(kv(ra, "weight_unit") && !strcmp(kv(ra, "weight_unit"), "ns")
			    ? "CPU time at loads / stores"
			    : "weighted loads / stores",
		    "%s / %s (each sample stands for its period%s%s)",
		    weight_fmt(ra, st->reads, w1, sizeof(w1)),
		    weight_fmt(ra, st->writes, w2, sizeof(w2)),
		    kv(ra, "weight_unit") ? ", in " : "",
		    kv(ra, "weight_unit") ? kv(ra, "weight_unit") : "");
	}
	ROW("lost / throttled", "%" PRIu64 " / %" PRIu64, ra->coll ? ra->coll->lost : 0,
	    kv_u64(ra, "throttles"));
#undef ROW
	if (!ra->nregions)
		return;
	regions_table(rep, rep->top, &t, true);
	if (md) {
		fprintf(f, "\n### Hottest regions\n\n");
		mt_report_md_table(&t, f);
	} else {
		fprintf(f, "\n  hottest regions\n");
		mt_table_print(&t, f, 4, true);
	}
	mt_table_release(&t);
	{
		static const char *const heads[] = { "pid",   "page",	"samples",
						     "loads", "stores", "region" };
		char b[3][64];

		mt_table_init(&t, 6, heads);
		for (size_t k = 0; k < ra->npages && k < rep->top; k++) {
			const struct mt_access_page *p = &st->pages[ra->pages[k]];

			mt_table_addf(&t, "%" PRIu32, p->pid);
			mt_table_addf(&t, "0x%" PRIx64, p->page);
			if (p->spin_samples)
				mt_table_addf(&t, "%s (%s spin)",
					      mt_fmt_count(p->c.samples, b[0], 64),
					      mt_fmt_count(p->spin_samples, b[1], 64));
			else
				mt_table_add(&t, mt_fmt_count(p->c.samples, b[0], 64));
			mt_table_add(&t, mt_fmt_count(p->c.read_samples, b[1], 64));
			mt_table_add(&t, mt_fmt_count(p->c.write_samples, b[2], 64));
			mt_table_addf(&t, "%zu (%s)", p->region,
				      mt_report_region_type(rep, &st->regions[p->region]));
		}
		if (md) {
			fprintf(f, "\n### Hottest pages\n\n");
			mt_report_md_table(&t, f);
		} else {
			fprintf(f, "\n  hottest pages\n");
			mt_table_print(&t, f, 4, true);
		}
		mt_table_release(&t);
	}
}

static const char *fkv(const struct mt_report_access *ra, const char *key)
{
	return ra->faults_coll && ra->faults_coll->kv ? mt_kvlist_get(ra->faults_coll->kv, key)
						      : NULL;
}

void mt_report_faults_json(const struct mt_report *rep, struct mt_json *j)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	char buf[512];

	mt_json_key(j, "faults");
	mt_json_begin_object(j);
	mt_json_kv_str(j, "mechanism", ra->faults_coll ? ra->faults_coll->mechanism : "none");
	mt_json_kv_str(j, "status", ra->faults_coll ? ra->faults_coll->status : "unknown");
	if (ra->faults_coll && ra->faults_coll->reason)
		mt_json_kv_str(j, "reason", ra->faults_coll->reason);
	if (fkv(ra, "scope"))
		mt_json_kv_str(j, "scope", fkv(ra, "scope"));
	mt_json_kv_u64(j, "minor", st->faults_minor);
	mt_json_kv_u64(j, "major", st->faults_major);
	mt_json_kv_u64(j, "in_syscalls", st->faults_in_kernel);
	/* page-write tracking's own write-protect faults (memtap's): in no figure above; null
	 * for a trace that cannot tell them apart (before format 1.4: then inside minor) */
	mt_json_key(j, "page_write_tracking_minor");
	if (st->tracking_basis == MT_FTB_UNKNOWN)
		mt_json_null(j);
	else
		mt_json_u64(j, st->tracking_faults);
	mt_json_kv_u64(j, "page_write_tracking_uncertain", st->tracking_uncertain);
	/* on memtap's own pages (its runtime's region and arena): in no figure above */
	mt_json_kv_u64(j, "memtap_own_minor", st->memtap_faults_minor);
	mt_json_kv_u64(j, "memtap_own_major", st->memtap_faults_major);
	mt_json_kv_u64(j, "lost", ra->faults_coll ? ra->faults_coll->lost : 0);
	mt_json_key(j, "by_region_type");
	mt_json_begin_object(j);
	for (unsigned t = 0; t < MT_NREGION_TYPES; t++) {
		if (!st->faults_by_type[t][0] && !st->faults_by_type[t][1])
			continue;
		mt_json_key(j, mt_region_type_name(t));
		mt_json_begin_object(j);
		mt_json_kv_u64(j, "minor", st->faults_by_type[t][0]);
		mt_json_kv_u64(j, "major", st->faults_by_type[t][1]);
		mt_json_end_object(j);
	}
	mt_json_end_object(j);
	mt_json_key(j, "processes");
	mt_json_begin_array(j);
	for (size_t i = 0; i < st->nfault_procs; i++) {
		mt_json_begin_object(j);
		mt_json_kv_u64(j, "pid", st->fault_procs[i].pid);
		mt_json_kv_u64(j, "minor", st->fault_procs[i].minor);
		mt_json_kv_u64(j, "major", st->fault_procs[i].major);
		mt_json_kv_u64(j, "page_write_tracking", st->fault_procs[i].tracking);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_key(j, "top_regions");
	mt_json_begin_array(j);
	for (size_t k = 0; k < ra->nfault_regions && k < rep->top; k++) {
		const struct mt_access_region *g = &st->regions[ra->fault_regions[k]];

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "region_id", ra->fault_regions[k]);
		mt_json_kv_u64(j, "pid", g->pid);
		mt_json_kv_str(j, "region_type", mt_report_region_type(rep, g));
		mt_json_kv_str(j, "label", mt_report_region_label(rep, g, buf, sizeof(buf)));
		mt_json_kv_u64(j, "minor", g->faults_minor);
		mt_json_kv_u64(j, "major", g->faults_major);
		mt_json_kv_u64(j, "page_write_tracking", g->b.wp_faults);
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_end_object(j);
}

void mt_report_faults_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { "region", "pid",	"type", "bytes",
					     "minor",  "major", "label" };
	static const char *const heads_tr[] = { "region", "pid",   "type",     "bytes",
						"minor",  "major", "tracking", "label" };
	bool tr;
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	char b1[64], b2[64], label[512];
	struct mt_table t;

	fprintf(f, md ? "## Page faults\n\n| | |\n|---|---|\n" : "\npage faults\n");
	mt_summary_row(f, md, "mechanism", "%s (%s)",
		       ra->faults_coll ? ra->faults_coll->mechanism : "none",
		       fkv(ra, "scope")				    ? fkv(ra, "scope")
		       : ra->faults_coll && ra->faults_coll->reason ? ra->faults_coll->reason
								    : "every fault");
	mt_summary_row(f, md, "minor / major", "%s / %s",
		       mt_fmt_count(st->faults_minor, b1, sizeof(b1)),
		       mt_fmt_count(st->faults_major, b2, sizeof(b2)));
	mt_summary_row(f, md, "in syscalls (kernel mode)", "%s",
		       mt_fmt_count(st->faults_in_kernel, b1, sizeof(b1)));
	if (st->tracking_basis == MT_FTB_UNKNOWN)
		mt_summary_row(f, md, "page-write tracking's",
			       "inside minor, not told apart (a trace before format 1.4)");
	else if (st->tracking_faults)
		mt_summary_row(f, md, "page-write tracking's",
			       "%s minor, memtap's write protection (%s decided inside the scan "
			       "that protected the page): not counted above",
			       mt_fmt_count(st->tracking_faults, b1, sizeof(b1)),
			       mt_fmt_count(st->tracking_uncertain, b2, sizeof(b2)));
	if (st->memtap_faults_minor || st->memtap_faults_major)
		mt_summary_row(f, md, "on memtap's own pages",
			       "%s minor, %" PRIu64 " major (its runtime's region and arena): "
			       "not counted above",
			       mt_fmt_count(st->memtap_faults_minor, b1, sizeof(b1)),
			       st->memtap_faults_major);
	mt_summary_row(f, md, "lost", "%" PRIu64, ra->faults_coll ? ra->faults_coll->lost : 0);
	if (st->labels || st->labels_invalid || st->unlabels_unmatched)
		mt_summary_row(f, md, "memtap.h labels",
			       "%" PRIu64 " named ranges; %" PRIu64 " ignored (not inside one "
			       "mapping), %" PRIu64 " unlabels of no label",
			       st->labels, st->labels_invalid, st->unlabels_unmatched);
	if (!ra->nfault_regions)
		return;
	/* memtap's tracking faults in their own column, when there are any */
	tr = st->tracking_faults != 0;
	mt_table_init(&t, 7 + tr, tr ? heads_tr : heads);
	for (size_t k = 0; k < ra->nfault_regions && k < rep->top; k++) {
		const struct mt_access_region *g = &st->regions[ra->fault_regions[k]];

		mt_table_addf(&t, "%zu", ra->fault_regions[k]);
		mt_table_addf(&t, "%" PRIu32, g->pid);
		mt_table_add(&t, mt_report_region_type(rep, g));
		mt_table_add(&t, g->end > g->start ? mt_fmt_bytes(g->end - g->start, b1, 64) : "-");
		mt_table_add(&t, mt_fmt_count(g->faults_minor, b2, 64));
		mt_table_add(&t, mt_fmt_count(g->faults_major, b1, 64));
		if (tr)
			mt_table_add(&t, mt_fmt_count(g->b.wp_faults, b1, 64));
		mt_table_add(&t, mt_report_region_label(rep, g, label, sizeof(label)));
	}
	if (md) {
		fprintf(f, "\n### Regions with the most faults\n\n");
		mt_report_md_table(&t, f);
	} else {
		fprintf(f, "\n  regions with the most faults\n");
		mt_table_print(&t, f, 4, true);
	}
	mt_table_release(&t);
}
