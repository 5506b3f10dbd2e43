/* SPDX-License-Identifier: MIT */
/* The model's access, faults and metrics sections: regions, sites and pages ranked, and named. */
#include "analysis/model.h"
#include "analysis/rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "common/array.h"
#include "format/reader.h"
#include "format/schema.h"

static const struct mt_access_stats *sort_st;

static int cmp_region(const void *a, const void *b)
{
	const struct mt_access_region *x = &sort_st->regions[*(const size_t *)a];
	const struct mt_access_region *y = &sort_st->regions[*(const size_t *)b];
	uint64_t wx = x->c.reads + x->c.writes, wy = y->c.reads + y->c.writes;
	uint64_t dx = x->c.samples - x->spin_samples, dy = y->c.samples - y->spin_samples;

	/* data traffic first: a spin-wait's samples are not the memory's use */
	if (dx != dy)
		return dx < dy ? 1 : -1;
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
	uint64_t dx = x->c.samples - x->spin_samples, dy = y->c.samples - y->spin_samples;

	if (dx != dy) /* data traffic first, as the regions */
		return dx < dy ? 1 : -1;
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
	mt_qsort(v, k, sizeof(*v), cmp);
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

/* "function (file:line)" of the site's allocating caller, into buf; with Python frames,
 * "caller < function (file:line)" of the innermost Python frame too. */
const char *mt_report_site_name(const struct mt_report *rep, size_t site, char *buf, size_t size)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_site *s = &ra->st.sites[site];
	uint64_t ips[128];
	const struct mt_frame *fr;
	int n;

	if (!s->stack || (n = mt_reader_stack(rep->r, s->stream, s->stack, ips, 128)) < 1 ||
	    !ra->symbolizer ||
	    mt_sym_resolve(ra->symbolizer, s->pid, s->first_ns, ips[0], true, &fr) < 1) {
		snprintf(buf, size, "site %zu (no stack recorded)", site);
		return buf;
	}
	/* The outermost of the inlined frames is the machine frame's function. */
	mt_frame_name(&fr[0], buf, size);
	for (int i = 1; i < n; i++) {
		size_t len = strlen(buf);
		char py[512];

		if (!(ips[i] & MT_PY_FRAME_BIT))
			continue;
		if (mt_sym_resolve(ra->symbolizer, s->pid, s->first_ns, ips[i], true, &fr) < 1 ||
		    !fr[0].function || !fr[0].file)
			break;
		snprintf(buf + len, size - len, " < %s", mt_frame_py_name(&fr[0], py, sizeof(py)));
		break;
	}
	return buf;
}

/* The site's native frames as "module+0xOFFSET" (the module's base name; "?" with no mapping),
 * innermost first, ";" between, as many as fit; "" without a stack. */
const char *mt_report_site_stack(const struct mt_report *rep, size_t site, char *buf, size_t size)
{
	const struct mt_report_access *ra = &rep->access;
	const struct mt_access_site *s = &ra->st.sites[site];
	uint64_t ips[128];
	size_t len = 0;
	int n;

	buf[0] = 0;
	if (!s->stack || !ra->symbolizer ||
	    (n = mt_reader_stack(rep->r, s->stream, s->stack, ips, 128)) < 1)
		return buf;
	for (int i = 0; i < n && len + 1 < size; i++) {
		const struct mt_frame *fr;
		const char *m;
		int w;

		if (ips[i] & MT_PY_FRAME_BIT)
			continue;
		if (mt_sym_resolve(ra->symbolizer, s->pid, s->first_ns, ips[i], false, &fr) < 1)
			continue;
		m = fr[0].module ? strrchr(fr[0].module, '/') : NULL;
		m = m ? m + 1 : fr[0].module ? fr[0].module : "?";
		w = snprintf(buf + len, size - len, "%s%s+0x%" PRIx64, len ? ";" : "", m,
			     fr[0].offset);
		if (w < 0 || (size_t)w >= size - len) {
			buf[len] = 0; /* the last frame did not fit: left out whole */
			break;
		}
		len += (size_t)w;
	}
	return buf;
}

const char *mt_report_spin_name(const struct mt_report *rep, const struct mt_spin_site *s,
				char *buf, size_t size)
{
	const struct mt_frame *fr;

	if (!rep->access.symbolizer ||
	    mt_sym_resolve(rep->access.symbolizer, s->pid, s->first_ns, s->ip, false, &fr) < 1) {
		snprintf(buf, size, "0x%" PRIx64, s->ip);
		return buf;
	}
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

const char *mt_report_typed_by(const struct mt_access_region *g, char *buf, size_t size)
{
	const struct mt_rule *r = g->b.typed_by;

	if (g->type == MT_REGION_LABEL)
		return "memtap_label";
	if (g->b.behaviour) {
		snprintf(buf, size, "behaviour: %s (confidence %.2f)",
			 mt_beh_evidence(g->b.behaviour), (double)g->b.behaviour_confidence);
		return buf;
	}
	if (!r)
		return NULL;
	if (!strncmp(r->source, "profile ", 8))
		snprintf(buf, size, "%s: %s %s%s%s", r->source, r->symbol ? "symbol" : "path",
			 r->symbol ? r->symbol : r->path, r->with ? " with " : "",
			 r->with ? r->with : "");
	else
		snprintf(buf, size, "%s:%u: %s %s%s%s", r->source, r->line,
			 r->symbol ? "symbol" : "path", r->symbol ? r->symbol : r->path,
			 r->with ? " with " : "", r->with ? r->with : "");
	return buf;
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

	for (size_t i = 0; i < rep->run.ncollectors; i++) {
		if (!strcmp(rep->run.collectors[i].name, "access"))
			ra->coll = &rep->run.collectors[i];
		if (!strcmp(rep->run.collectors[i].name, "faults"))
			ra->faults_coll = &rep->run.collectors[i];
	}
	/* Symbol rules need the allocation sites' functions during the pass: the mapping index
	 * of the same read answers for every time it has read (its pass runs first). */
	if (rep->access_opts.rules)
		rep->access_opts.sym = rep->sym;
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
	mt_qsort(ra->fault_regions, ra->nfault_regions, sizeof(size_t), cmp_fault_region);
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
	/* spin-wait sites, most samples first (insertion: at most MT_SPIN_SITES) */
	for (size_t i = 0; i < ra->st.nspin; i++) {
		size_t k = i;

		for (; k && ra->st.spin[ra->spin[k - 1]].samples < ra->st.spin[i].samples; k--)
			ra->spin[k] = ra->spin[k - 1];
		ra->spin[k] = i;
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

/* The allocation-site record of the alloc section for an access-pass site, or NULL. */
const struct mt_alloc_site *mt_report_alloc_site(const struct mt_report *rep,
						 const struct mt_access_site *s)
{
	if (!rep->alloc.loaded)
		return NULL;
	for (size_t i = 0; i < rep->alloc.st.nsites; i++)
		if (rep->alloc.st.sites[i].stream == s->stream &&
		    rep->alloc.st.sites[i].stack == s->stack)
			return &rep->alloc.st.sites[i];
	return NULL;
}

static int cmp_site_idx(const void *a, const void *b, void *arg)
{
	const struct mt_access_site *v = arg;
	const struct mt_access_site *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	uint64_t wx = x->c.samples + x->faults + x->pages, wy = y->c.samples + y->faults + y->pages;

	return wx < wy ? 1 : wx > wy ? -1 : 0;
}

size_t *mt_report_ranked_sites(const struct mt_access_stats *st, size_t *n)
{
	size_t *v = malloc((st->nsites ? st->nsites : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < st->nsites; i++)
		if (st->sites[i].c.samples || st->sites[i].faults || st->sites[i].pages)
			v[(*n)++] = i;
	qsort_r(v, *n, sizeof(*v), cmp_site_idx, st->sites);
	return v;
}

const struct mt_collector_info *mt_report_collector(const struct mt_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->run.ncollectors; i++)
		if (!strcmp(rep->run.collectors[i].name, name))
			return &rep->run.collectors[i];
	return NULL;
}

void mt_report_sampling(const struct mt_report *rep, uint64_t *period, uint64_t *hz,
			const char **unit)
{
	const struct mt_collector_info *a = mt_report_collector(rep, "access");
	const char *v;

	*period = *hz = 0;
	*unit = NULL;
	if (!a || !a->kv || !strcmp(a->status ? a->status : "off", "off"))
		return;
	if ((v = mt_kvlist_get(a->kv, "period")))
		*period = strtoull(v, NULL, 10);
	if ((v = mt_kvlist_get(a->kv, "frequency_hz")))
		*hz = strtoull(v, NULL, 10);
	*unit = mt_kvlist_get(a->kv, "weight_unit");
}
