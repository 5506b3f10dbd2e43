/* SPDX-License-Identifier: MIT */
/* MRM candidates: regions gathered by what a researcher could move (docs/metrics.md). */
#include "common/array.h"
#include "analysis/candidates.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/access.h"
#include "analysis/model.h"

#define ANON_MIN (1u << 20) /* anonymous mappings from this size are candidates */

const char *mt_cand_kind_name(unsigned kind)
{
	static const char *const n[] = { "file", "site", "label", "anon" };

	return kind < 4 ? n[kind] : "?";
}

const char *mt_cand_basis_name(unsigned basis)
{
	return basis == 3 ? "mixed" : mt_wo_basis_name(basis);
}

/* Pages of g first touched: a fault each (anonymous memory), or sampled. */
static uint64_t touched(const struct mt_access_region *g)
{
	return g->faults_minor + g->faults_major + (g->c.samples ? 1 : 0);
}

/* The files mapped executable (programs and libraries), by process: sorted keys. */
struct code_key {
	uint32_t pid, stream;
	uint64_t label;
};

static int cmp_code(const void *a, const void *b)
{
	const struct code_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->label < y->label ? -1 : x->label > y->label;
}

static struct code_key *code_files(const struct mt_access_stats *st, size_t *n)
{
	struct code_key *v = malloc((st->nregions ? st->nregions : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < st->nregions; i++)
		if (st->regions[i].type == MT_REGION_CODE)
			v[(*n)++] = (struct code_key){ st->regions[i].pid, st->regions[i].stream,
						       st->regions[i].label };
	if (v && *n)
		mt_qsort(v, *n, sizeof(*v), cmp_code);
	return v;
}

/* Is g's file mapped executable too, in its process (a program or library)? */
static bool is_program(const struct code_key *code, size_t n, const struct mt_access_region *g)
{
	struct code_key k = { g->pid, g->stream, g->label };

	return n && bsearch(&k, code, n, sizeof(k), cmp_code);
}

/* The candidate kind of region g, or -1 when it is none (code, stacks, small anonymous). */
static int kind_of(const struct mt_access_region *g)
{
	switch (g->type) {
	case MT_REGION_FILE:
		return MT_CAND_FILE;
	case MT_REGION_ALLOCATION:
	case MT_REGION_HEAP_OBJECTS:
		return g->site >= 0 ? MT_CAND_SITE : -1;
	case MT_REGION_LABEL:
		return MT_CAND_LABEL;
	case MT_REGION_ANON:
		/* a reservation (PROT_NONE) holds no memory; an untouched mapping none yet */
		return g->end - g->start >= ANON_MIN && g->prot && touched(g) ? MT_CAND_ANON : -1;
	default:
		return -1;
	}
}

/* A region with its grouping key: a file by process and path, a site by itself, others one
 * by one. */
struct member {
	uint8_t kind;
	uint32_t pid, stream;
	uint64_t id; /* the path's string id, the site, or the region */
	uint32_t region;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->region < y->region ? -1 : x->region > y->region;
}

static bool same_group(const struct member *x, const struct member *y)
{
	return x->kind == y->kind && x->pid == y->pid && x->stream == y->stream && x->id == y->id;
}

/* The rewrites the retention windows would have needed in g (candidates.h). */
static void add_refresh(const struct mt_access_stats *st, struct mt_candidate *c,
			const struct mt_access_region *g, uint64_t bytes)
{
	const struct mt_region_behavior *b = &g->b;

	if (b->pages_settled) {
		c->refresh_known = false; /* settled pages' later writes were not seen */
	} else if (b->wp == MT_LABEL_WP_TRACKED && b->wp_pages && !b->wp_ended) {
		const struct mt_refresh *f = b->refresh_ix ? &st->refresh[b->refresh_ix - 1] : NULL;

		for (unsigned k = 0; f && k < st->nretention; k++) {
			c->refresh_bytes[k][0] += 4096.0 * (double)f->est[k];
			c->refresh_bytes[k][1] += 4096.0 * (double)f->lo[k];
			c->refresh_bytes[k][2] += 4096.0 * (double)f->hi[k];
		}
	} else if (b->wo_basis == MT_WO_READONLY) {
		/* written when it appeared, read-only since: one age for all of it */
		uint64_t end = b->end_ns ? b->end_ns : st->t_end;
		uint64_t age = end > g->t_start ? end - g->t_start : 0;

		for (unsigned k = 0; k < st->nretention; k++)
			for (unsigned e = 0; e < 3; e++)
				c->refresh_bytes[k][e] +=
					(double)bytes * (double)(age / st->retention_ns[k]);
	} else {
		c->refresh_known = false; /* no page writes: the data's ages are not known */
	}
}

static void add_region(const struct mt_access_stats *st, struct mt_candidate *c,
		       const struct mt_access_region *g)
{
	const struct mt_region_behavior *b = &g->b;
	uint64_t bytes = g->end > g->start ? g->end - g->start : 0;

	add_refresh(st, c, g, bytes);

	c->regions++;
	/* a site's bytes are replaced by its largest live bytes when known; an anonymous
	 * mapping's are the pages it faulted in (at most its size) */
	if (c->kind == MT_CAND_ANON && touched(g) * 4096 < bytes)
		c->bytes += touched(g) * 4096;
	else
		c->bytes += bytes;
	c->samples += g->c.samples;
	c->spin_samples += g->spin_samples;
	c->read_samples += g->c.read_samples;
	c->write_samples += g->c.write_samples;
	c->pages += bytes / 4096;
	c->wp_pages += b->wp_pages;
	if (b->write_once < 0) {
		c->wo_unknown = true; /* one region unknown: the whole is */
	} else {
		double w = bytes ? (double)bytes : 1; /* a site's small blocks: weight 1 */

		c->wo_basis = !c->wo_den || c->wo_basis == b->wo_basis ? b->wo_basis : 3;
		c->wo_num += b->write_once * w;
		c->wo_den += w;
	}
	if (!isnan(b->retention_s) && (isnan(c->retention_s) || b->retention_s > c->retention_s))
		c->retention_s = b->retention_s;
	if (!isnan(b->lifetime_s) && (isnan(c->lifetime_s) || b->lifetime_s > c->lifetime_s))
		c->lifetime_s = b->lifetime_s;
	if (mt_region_censored(b))
		c->censored = true;
}

static void settle(const struct mt_report *rep, struct mt_candidate *c)
{
	const struct mt_access_stats *st = &rep->access.st;
	uint64_t data_reads =
		c->read_samples -
		(c->spin_samples < c->read_samples ? c->spin_samples : c->read_samples);
	struct mt_mrm_input in = {
		.retention_p99_s = c->retention_s,
		.retention_p50_s = c->retention_s,
		.retention_p99_censored = c->censored,
		.retention_p50_censored = c->censored,
		.read_samples = data_reads,
		.lifetime_p99_s = c->censored ? NAN : c->lifetime_s,
		.lifetime_p50_s = c->censored ? NAN : c->lifetime_s,
	};
	struct mt_mrm_verdict v;

	c->write_once = c->wo_unknown || !c->wo_den ? NAN : c->wo_num / c->wo_den;
	if (isnan(c->write_once))
		c->wo_basis = 0;
	in.write_once = c->write_once;
	v = mt_mrm_classify(&st->mrm_rule, &in);

	if (c->kind == MT_CAND_SITE) {
		const struct mt_alloc_site *a = mt_report_alloc_site(rep, &st->sites[c->site]);

		if (a)
			c->bytes = a->max_live_bytes;
	}
	c->reads_per_s = c->lifetime_s > 0 ? (double)data_reads / c->lifetime_s : NAN;
	c->mrm = v.label;
	c->mrm_by = v.by;
	c->mrm_open = v.censored;
	c->movable_bytes = v.label == MT_MRM_HIGH || v.label == MT_MRM_MEDIUM ? c->bytes : 0;
}

static int cmp(const void *a, const void *b)
{
	const struct mt_candidate *x = a, *y = b;

	if (x->movable_bytes != y->movable_bytes)
		return x->movable_bytes < y->movable_bytes ? 1 : -1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->region < y->region ? -1 : x->region > y->region;
}

int mt_candidates_build(const struct mt_report *rep, struct mt_candidate **out, size_t *n)
{
	const struct mt_access_stats *st = &rep->access.st;
	struct member *m = malloc((st->nregions ? st->nregions : 1) * sizeof(*m));
	size_t nm = 0, nv = 0, ncode;
	struct code_key *code = code_files(st, &ncode);
	struct mt_candidate *v;

	*out = NULL;
	*n = 0;
	if (!m || !code) {
		free(m);
		free(code);
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->nregions; i++) {
		const struct mt_access_region *g = &st->regions[i];
		int kind = kind_of(g);

		if (kind == MT_CAND_FILE && !g->b.typed_by && is_program(code, ncode, g))
			continue; /* an executable or library: its code and data are the program's */
		if (kind >= 0)
			m[nm++] = (struct member){
				.kind = (uint8_t)kind,
				.pid = kind == MT_CAND_SITE ? 0 : g->pid,
				.stream = kind == MT_CAND_FILE ? g->stream : 0,
				.id = kind == MT_CAND_FILE   ? g->label
				      : kind == MT_CAND_SITE ? (uint64_t)g->site
							     : i,
				.region = (uint32_t)i,
			};
	}
	free(code);
	if (nm)
		mt_qsort(m, nm, sizeof(*m), cmp_member);
	v = calloc(nm ? nm : 1, sizeof(*v));
	if (!v) {
		free(m);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nm; k++) {
		const struct mt_access_region *g = &st->regions[m[k].region];

		if (!k || !same_group(&m[k - 1], &m[k]))
			v[nv++] = (struct mt_candidate){ .kind = m[k].kind,
							 .pid = g->pid,
							 .region = m[k].region,
							 .site = m[k].kind == MT_CAND_SITE ? g->site
											   : -1,
							 .retention_s = NAN,
							 .lifetime_s = NAN,
							 .refresh_known = !st->refresh_incomplete };
		add_region(st, &v[nv - 1], g);
	}
	free(m);
	for (size_t i = 0; i < nv; i++)
		settle(rep, &v[i]);
	if (nv)
		mt_qsort(v, nv, sizeof(*v), cmp);
	*out = v;
	*n = nv;
	return 0;
}
