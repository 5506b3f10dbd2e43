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

static const struct mt_access_stats *sort_st;

static int cmp_region(const void *a, const void *b)
{
	const struct mt_access_region *x = &sort_st->regions[*(const size_t *)a];
	const struct mt_access_region *y = &sort_st->regions[*(const size_t *)b];
	uint64_t wx = x->c.reads + x->c.writes, wy = y->c.reads + y->c.writes;

	if (x->c.samples != y->c.samples)
		return x->c.samples < y->c.samples ? 1 : -1;
	return wx < wy ? 1 : wx > wy ? -1 : 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct mt_access_site *x = &sort_st->sites[*(const size_t *)a];
	const struct mt_access_site *y = &sort_st->sites[*(const size_t *)b];

	return x->c.samples < y->c.samples ? 1 : x->c.samples > y->c.samples ? -1 : 0;
}

static int cmp_page(const void *a, const void *b)
{
	const struct mt_access_page *x = &sort_st->pages[*(const size_t *)a];
	const struct mt_access_page *y = &sort_st->pages[*(const size_t *)b];

	return x->c.samples < y->c.samples ? 1 : x->c.samples > y->c.samples ? -1 : 0;
}

/* Indices of the items with samples, best first. */
static size_t *ranked(size_t n, const struct mt_access_counts *(*get)(size_t),
		      int (*cmp)(const void *, const void *), size_t *count)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v)), k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (get(i)->samples || get(i)->read_samples || get(i)->write_samples)
			v[k++] = i;
	qsort(v, k, sizeof(*v), cmp);
	*count = k;
	return v;
}

static const struct mt_access_counts *region_c(size_t i)
{
	/* A region with faults but no sampled access is listed too. */
	static const struct mt_access_counts one = { .samples = 1 };
	const struct mt_access_region *g = &sort_st->regions[i];

	return g->c.samples || !(g->faults_minor + g->faults_major || g->type == MT_REGION_LABEL ||
				 g->b.pages_written)
		       ? &g->c
		       : &one;
}

static int cmp_fault_region(const void *a, const void *b)
{
	const struct mt_access_region *x = &sort_st->regions[*(const size_t *)a];
	const struct mt_access_region *y = &sort_st->regions[*(const size_t *)b];
	uint64_t fx = x->faults_minor + x->faults_major, fy = y->faults_minor + y->faults_major;

	return fx < fy ? 1 : fx > fy ? -1 : 0;
}

static const struct mt_access_counts *site_c(size_t i)
{
	return &sort_st->sites[i].c;
}

static const struct mt_access_counts *page_c(size_t i)
{
	return &sort_st->pages[i].c;
}

/* "function (file:line)" of the site's allocating caller, into buf. */
const char *mt_report_site_name(const struct mt_report *rep, size_t site, char *buf, size_t size)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_site *s = &ra->st.sites[site];
	uint64_t ip;
	const struct mt_frame *fr;

	if (!s->stack || mt_reader_stack(rep->r, s->stream, s->stack, &ip, 1) < 1 ||
	    !ra->symbolizer ||
	    mt_sym_resolve(ra->symbolizer, s->pid, s->first_ns, ip, true, &fr) < 1) {
		snprintf(buf, size, "site %zu (no stack recorded)", site);
		return buf;
	}
	/* The outermost of the inlined frames is the machine frame's function. */
	return mt_frame_name(&fr[0], buf, size);
}

/* A region's type for people and scripts: the workload's own for labeled ranges. */
const char *mt_report_region_type(const struct mt_report *rep, const struct mt_access_region *g)
{
	const struct mt_access_stats *st = &rep->access.st;
	const char *u = g->type == MT_REGION_LABEL && g->user_type
				? mt_reader_str(rep->r, g->stream, g->user_type, NULL)
				: NULL;

	if (g->b.type_ix >= 0 && (size_t)g->b.type_ix < st->ntypes)
		return st->types[g->b.type_ix].name; /* a label's type, or a --rules rule's */

	return u && *u ? u : mt_region_type_name(g->type);
}

const char *mt_report_region_label(const struct mt_report *rep, const struct mt_access_region *g,
				   char *buf, size_t size)
{
	const char *s;

	switch (g->type) {
	case MT_REGION_ALLOCATION:
	case MT_REGION_HEAP_OBJECTS:
		return mt_report_site_name(rep, (size_t)g->site, buf, size);
	case MT_REGION_UNKNOWN:
		return "(no recorded mapping)";
	case MT_REGION_HEAP:
		return "[heap]";
	default:
		s = g->label ? mt_reader_str(rep->r, g->stream, g->label, NULL) : NULL;
		if (s && *s)
			return s;
		return g->type == MT_REGION_ANON ? "(anonymous)" : "";
	}
}

int mt_report_access_setup(struct mt_report *rep, struct mt_passes *ps)
{
	struct mt_report_access *ra = &rep->access;
	struct mt_pass p;
	int rc;

	for (size_t i = 0; i < rep->run.ncollectors; i++) {
		if (!strcmp(rep->run.collectors[i].name, "access"))
			ra->coll = &rep->run.collectors[i];
		if (!strcmp(rep->run.collectors[i].name, "faults"))
			ra->faults_coll = &rep->run.collectors[i];
	}
	if (rep->access_opts.rules) {
		/* Symbol rules need the allocation sites' functions during the pass: an index of
		 * its own, read ahead (the one read with the passes is complete only after). */
		rc = mt_sym_open(rep->r, &ra->symbolizer);
		if (rc < 0)
			return mt_passes_add(ps, rc, NULL);
		rep->access_opts.sym = ra->symbolizer;
	}
	return mt_passes_add(ps, mt_access_pass(rep->r, &rep->access_opts, &ra->st, &p), &p);
}

int mt_report_access_done(struct mt_report *rep)
{
	struct mt_report_access *ra = &rep->access;
	int rc;

	ra->loaded = ra->st.present || (ra->coll && strcmp(ra->coll->status, "off"));
	ra->faults_loaded = ra->st.faults_present ||
			    (ra->faults_coll && strcmp(ra->faults_coll->status, "off"));
	ra->metrics_loaded = ra->st.present || ra->st.faults_present || ra->st.page_writes_present;
	ra->fault_regions = malloc((ra->st.nregions ? ra->st.nregions : 1) * sizeof(size_t));
	if (!ra->fault_regions)
		return -ENOMEM;
	for (size_t i = 0; i < ra->st.nregions; i++)
		if (ra->st.regions[i].faults_minor + ra->st.regions[i].faults_major)
			ra->fault_regions[ra->nfault_regions++] = i;
	sort_st = &ra->st;
	qsort(ra->fault_regions, ra->nfault_regions, sizeof(size_t), cmp_fault_region);
	sort_st = &ra->st;
	ra->regions = ranked(ra->st.nregions, region_c, cmp_region, &ra->nregions);
	ra->sites = ranked(ra->st.nsites, site_c, cmp_site, &ra->nsites);
	ra->pages = ranked(ra->st.npages, page_c, cmp_page, &ra->npages);
	if (!ra->regions || !ra->sites || !ra->pages)
		return -ENOMEM;
	if (!ra->symbolizer && (ra->nsites || ra->nregions)) {
		rc = mt_sym_clone(rep->sym, &ra->symbolizer);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void mt_report_access_release(struct mt_report *rep)
{
	struct mt_report_access *ra = &rep->access;

	if (ra->symbolizer)
		mt_sym_close(ra->symbolizer);
	free(ra->regions);
	free(ra->fault_regions);
	free(ra->sites);
	free(ra->pages);
	mt_access_release(&ra->st);
	memset(ra, 0, sizeof(*ra));
}

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

static void json_counts(struct mt_json *j, const struct mt_access_counts *c)
{
	mt_json_kv_u64(j, "samples", c->samples);
	mt_json_kv_u64(j, "read_samples", c->read_samples);
	mt_json_kv_u64(j, "write_samples", c->write_samples);
	mt_json_kv_u64(j, "reads", c->reads);
	mt_json_kv_u64(j, "writes", c->writes);
}

#define TOP_PAGES 20

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
	mt_json_kv_u64(j, "accesses", st->accesses);
	mt_json_kv_u64(j, "read_samples", st->read_samples);
	mt_json_kv_u64(j, "write_samples", st->write_samples);
	mt_json_kv_u64(j, "reads", st->reads);
	mt_json_kv_u64(j, "writes", st->writes);
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

		mt_json_begin_object(j);
		mt_json_kv_u64(j, "region_id", ra->regions[k]);
		mt_json_kv_u64(j, "pid", g->pid);
		mt_json_kv_str(j, "region_type", mt_report_region_type(rep, g));
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
		mt_json_kv_u64(j, "faults_minor", g->faults_minor);
		mt_json_kv_u64(j, "faults_major", g->faults_major);
		mt_json_kv_u64(j, "first_access_ns", g->c.first_ns);
		mt_json_kv_u64(j, "last_access_ns", g->c.last_ns);
		mt_json_kv_u64(j, "start_ns", g->t_start);
		mt_report_region_behavior_json(j, g);
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
	const char *lead = md ? "| " : "  ", *sep = md ? " | " : "  ";
	char b1[64], b2[64], line[1024];
	struct mt_table t;
	size_t len = 0;

	fprintf(f, md ? "## Memory accesses (sampled)\n\n| | |\n|---|---|\n"
		      : "\naccesses (sampled)\n");
#define ROW(label, ...)                                    \
	do {                                               \
		fprintf(f, "%s%-30s%s", lead, label, sep); \
		fprintf(f, __VA_ARGS__);                   \
		fputs(md ? " |\n" : "\n", f);              \
	} while (0)
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
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
	mt_json_end_object(j);
}

void mt_report_faults_text(const struct mt_report *rep, bool md, FILE *f)
{
	static const char *const heads[] = { "region", "pid",	"type", "bytes",
					     "minor",  "major", "label" };
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_stats *st = &ra->st;
	const char *lead = md ? "| " : "  ", *sep = md ? " | " : "  ";
	char b1[64], b2[64], label[512];
	struct mt_table t;

	fprintf(f, md ? "## Page faults\n\n| | |\n|---|---|\n" : "\npage faults\n");
	fprintf(f, "%s%-30s%s%s (%s)%s", lead, "mechanism", sep,
		ra->faults_coll ? ra->faults_coll->mechanism : "none",
		fkv(ra, "scope")
			? fkv(ra, "scope")
			: (ra->faults_coll && ra->faults_coll->reason ? ra->faults_coll->reason
								      : "every fault"),
		md ? " |\n" : "\n");
	fprintf(f, "%s%-30s%s%s / %s%s", lead, "minor / major", sep,
		mt_fmt_count(st->faults_minor, b1, sizeof(b1)),
		mt_fmt_count(st->faults_major, b2, sizeof(b2)), md ? " |\n" : "\n");
	fprintf(f, "%s%-30s%s%s%s", lead, "in syscalls (kernel mode)", sep,
		mt_fmt_count(st->faults_in_kernel, b1, sizeof(b1)), md ? " |\n" : "\n");
	if (st->memtap_faults_minor || st->memtap_faults_major)
		fprintf(f,
			"%s%-30s%s%s minor, %" PRIu64 " major (its runtime's region and arena): "
			"not counted above%s",
			lead, "on memtap's own pages", sep,
			mt_fmt_count(st->memtap_faults_minor, b1, sizeof(b1)),
			st->memtap_faults_major, md ? " |\n" : "\n");
	fprintf(f, "%s%-30s%s%" PRIu64 "%s", lead, "lost", sep,
		ra->faults_coll ? ra->faults_coll->lost : 0, md ? " |\n" : "\n");
	if (st->labels || st->labels_invalid || st->unlabels_unmatched)
		fprintf(f,
			"%s%-30s%s%" PRIu64 " named ranges; %" PRIu64 " ignored (not inside one "
			"mapping), %" PRIu64 " unlabels of no label%s",
			lead, "memtap.h labels", sep, st->labels, st->labels_invalid,
			st->unlabels_unmatched, md ? " |\n" : "\n");
	if (!ra->nfault_regions)
		return;
	mt_table_init(&t, 7, heads);
	for (size_t k = 0; k < ra->nfault_regions && k < rep->top; k++) {
		const struct mt_access_region *g = &st->regions[ra->fault_regions[k]];

		mt_table_addf(&t, "%zu", ra->fault_regions[k]);
		mt_table_addf(&t, "%" PRIu32, g->pid);
		mt_table_add(&t, mt_report_region_type(rep, g));
		mt_table_add(&t, g->end > g->start ? mt_fmt_bytes(g->end - g->start, b1, 64) : "-");
		mt_table_add(&t, mt_fmt_count(g->faults_minor, b2, 64));
		mt_table_add(&t, mt_fmt_count(g->faults_major, b1, 64));
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
