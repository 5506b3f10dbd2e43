/* SPDX-License-Identifier: MIT */
/* The access pass's figures settled at its end: regions, types, phases (docs/metrics.md). */
#include "analysis/access-internal.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/array.h"
#include "common/hash.h"
#include "analysis/own.h"
#include "analysis/rules.h"
#include "analysis/symbols.h"
#include "analysis/pass.h"
#include "format/reader.h"
#include "format/schema.h"

/*
 * An upper bound of the type's retention quantile p, in s: nothing is read after it is gone,
 * so no retention exceeds the longest lifetime, and the quantile over the regions with a read
 * does not exceed the same quantile of their lifetimes. A censored lifetime bounds nothing:
 * NaN when the quantile is only a lower bound and the longest lifetime is censored.
 */
static double life_bound(struct mt_type_metrics *m, double p)
{
	double all = m->life_max_censored ? NAN : (double)m->life_max_ns / 1e9;
	bool lower;
	double q = mt_surv_quantile(&m->life_read, p, &lower) / 1e9;

	if (isnan(q) || lower)
		return all;
	return isnan(all) || q < all ? q : all;
}

/* The quantiles p50, p90, p99 of a set of censored durations, in s; *lower_from the first
 * that is only a lower bound (3: none). */
static void surv_quantiles(struct mt_surv *sv, double out[3], uint8_t *lower_from)
{
	static const double q[3] = { 0.5, 0.9, 0.99 };

	*lower_from = 3;
	for (int k = 0; k < 3; k++) {
		bool lower;

		out[k] = mt_surv_quantile(sv, q[k], &lower) / 1e9;
		if (lower && *lower_from == 3)
			*lower_from = (uint8_t)k;
	}
}

/* A type's figures from its sums and distributions, and its MRM label. */
static void settle_type(struct mt_type_metrics *m, const struct mt_mrm_rule *rule)
{
	static const double q[3] = { 0.5, 0.9, 0.99 };
	uint64_t n = m->read_samples + m->write_samples;
	double lr = (double)m->locality_regions;
	struct mt_mrm_verdict v;

	/* Known only when every region of the type has a basis; else partial, shown apart. */
	if (m->wo_pages)
		m->write_once = (double)m->wo_once_pages / (double)m->wo_pages;
	m->read_fraction = n ? (double)m->read_samples / (double)n : NAN;
	/* mrm-trace's reads_per_write: 0 when nothing was written */
	m->reads_per_write = !n			? NAN
			     : m->write_samples ? (double)m->read_samples / (double)m->write_samples
						: 0.0;
	surv_quantiles(&m->retention, m->retention_s, &m->retention_lower_from);
	surv_quantiles(&m->lifetime, m->lifetime_s, &m->lifetime_lower_from);
	for (int k = 0; k < 3; k++) {
		m->iai_ns[k] = m->iai.n ? floor(mt_qs_quantile(&m->iai, q[k])) /* as mrm-trace */
					: NAN;
		m->reuse_lines[k] = m->reuse.n ? floor(mt_qs_quantile(&m->reuse, q[k])) : NAN;
	}
	m->stride_mean = lr > 0 ? m->stride_mean_sum / lr : NAN;
	m->stride_median = lr > 0 ? m->stride_median_sum / lr : NAN;
	m->same_page_fraction = lr > 0 ? m->same_page_sum / lr : NAN;
	m->iai_mean_ns = m->iai.n ? mt_qs_mean(&m->iai) : NAN;
	m->wss_mean_pages = m->wss_windows ? m->wss_sum / (double)m->wss_windows : NAN;
	if (m->kernel_regions == m->regions) {
		m->mrm = MT_MRM_NOT_APPLICABLE;
		return;
	}
	v = mt_mrm_classify(rule, &(struct mt_mrm_input){
					  .write_once = m->wo_regions == m->regions && m->wo_pages
								? m->write_once
								: NAN,
					  .retention_p99_s = m->retention_s[2],
					  .retention_p50_s = m->retention_s[0],
					  .retention_p99_censored = m->retention_lower_from <= 2,
					  .retention_p50_censored = m->retention_lower_from == 0,
					  .read_samples = m->read_samples,
					  .lifetime_p99_s = life_bound(m, 0.99),
					  .lifetime_p50_s = life_bound(m, 0.5),
				  });
	m->mrm = v.label;
	m->mrm_by = v.by;
	m->mrm_open = v.censored;
}

/* A region's own figures, write-once basis and MRM label; *wo_pages gets the pages its
 * write-once ratio covers. */
static void settle_region(struct pass *ps, struct mt_access_region *g, uint64_t *wo_pages)
{
	struct mt_access_stats *st = ps->st;
	struct mt_region_behavior *b = &g->b;
	uint64_t born, end = b->end_ns ? b->end_ns : st->t_end, n = g->c.samples, pages;
	bool censored = mt_region_censored(b); /* lifetime and retention lower bounds */
	struct mt_mrm_verdict v;

	mt_acc_settle_stride(b);
	*wo_pages = 0;
	b->lifetime_s = NAN;
	if (g->t_start && end > g->t_start) {
		b->lifetime_ns = end - g->t_start;
		b->lifetime_s = (double)b->lifetime_ns / 1e9;
	}
	born = b->first_write_ns ? b->first_write_ns : g->t_start;
	if (b->last_read_ns > born)
		b->retention_ns = b->last_read_ns - born;
	b->retention_s = g->c.read_samples ? (double)b->retention_ns / 1e9 : NAN;
	b->read_fraction = n ? (double)g->c.read_samples / (double)n : NAN;
	b->same_page_fraction = b->strides ? (double)b->same_page / (double)b->strides : NAN;
	if (!b->strides)
		b->stride_mean = b->stride_median = NAN;
	b->write_once = -1;
	b->wo_basis = MT_WO_NONE;
	/* huge pages were never protected: their writes are not seen, so they are left out */
	pages = b->wp_pages > b->wp_huge_pages ? b->wp_pages - b->wp_huge_pages : 0;
	if (b->wp == MT_LABEL_WP_TRACKED && b->wp_pages &&
	    (mt_acc_pw_lost(ps, g->pid) || b->wp_ended)) {
		st->page_writes_incomplete++; /* an epoch went unseen, or tracking ended early */
	} else if (b->wp == MT_LABEL_WP_TRACKED && pages) {
		b->wo_basis = MT_WO_PAGE_WRITES;
		*wo_pages = pages;
		b->write_once = (double)(pages - (b->pages_rewritten < pages ? b->pages_rewritten
									     : pages)) /
				(double)pages;
	} else if (b->readonly && g->end > g->start) {
		b->wo_basis = MT_WO_READONLY;
		*wo_pages = (g->end - g->start + 4095) / 4096;
		b->write_once = 1.0;
	}
	if (g->type == MT_REGION_SPECIAL) {
		b->mrm = MT_MRM_NOT_APPLICABLE;
		return;
	}
	v = mt_mrm_classify(&ps->o.mrm,
			    &(struct mt_mrm_input){
				    .write_once = b->write_once < 0 ? NAN : b->write_once,
				    .retention_p99_s = b->retention_s,
				    .retention_p50_s = b->retention_s,
				    .retention_p99_censored = censored,
				    .retention_p50_censored = censored,
				    .read_samples = g->c.read_samples,
				    .lifetime_p99_s = censored ? NAN : b->lifetime_s,
				    .lifetime_p50_s = censored ? NAN : b->lifetime_s,
			    });
	b->mrm = v.label;
	b->mrm_by = v.by;
	b->mrm_open = v.censored;
}

/* The pages a region's write-once ratio covers (as settle_region gives them). */
static uint64_t wo_pages_of(const struct mt_access_region *g)
{
	const struct mt_region_behavior *b = &g->b;

	if (b->wo_basis == MT_WO_PAGE_WRITES)
		return b->wp_pages > b->wp_huge_pages ? b->wp_pages - b->wp_huge_pages : 0;
	if (b->wo_basis == MT_WO_READONLY)
		return (g->end - g->start + 4095) / 4096;
	return 0;
}

/*
 * Typing by behaviour (analysis/behaviour.h): each site's big blocks' regions add what they
 * did (lasting, last read and last written in the second half of their lives, their exact
 * write-once pages); then each site's verdict types its regions that no
 * rule typed. A region already counted under its built-in type while the trace was read
 * (its working set, intervals and reuse) stays there for those figures.
 */
static void settle_behaviour(struct pass *ps)
{
	struct mt_access_stats *st = ps->st;

	for (size_t i = 0; i < st->nregions; i++) {
		const struct mt_access_region *g = &st->regions[i];
		const struct mt_region_behavior *b = &g->b;
		struct mt_site_behaviour *sb;
		uint64_t end = b->end_ns ? b->end_ns : st->t_end, life, proc_end;
		struct proc *pr;

		if (g->type != MT_REGION_ALLOCATION || g->site < 0 || (size_t)g->site >= st->nsites)
			continue;
		sb = &st->sites[g->site].beh;
		life = end > g->t_start ? end - g->t_start : 0;
		pr = mt_acc_proc_of(ps, g->pid);
		proc_end = pr && pr->end_ns ? pr->end_ns : st->t_end;
		sb->big++;
		/* lasting: its process's teardown (Python's, node's: a third of a second here)
		 * frees what lived all along: gone only in the last third of its time */
		sb->lasting += mt_region_censored(b) ||
			       (proc_end > g->t_start && life * 3 >= (proc_end - g->t_start) * 2);
		/* read to the end: a block's last read in the second half of its life, against
		 * how often that happens to blocks read all along with as many samples */
		if (g->c.read_samples) {
			sb->read++;
			sb->read_late += b->last_read_ns >= end - life / 2;
			sb->read_late_expected +=
				1.0 -
				ldexp(1.0, -(int)(g->c.read_samples < 64 ? g->c.read_samples : 64));
		}
		sb->written_late += b->last_write_ns > g->t_start + life / 2;
		sb->pages_written += b->pages_written;
		sb->page_epochs += b->page_epochs;
		sb->pages_settled += b->pages_settled;
		if (life)
			sb->first_write_pos += b->first_write_sum / (double)life;
		if (b->wo_basis == MT_WO_PAGE_WRITES && b->wp_pages > b->wp_huge_pages) {
			uint64_t pages = b->wp_pages - b->wp_huge_pages;

			sb->wo_pages += pages;
			sb->wo_once_pages +=
				pages - (b->pages_rewritten < pages ? b->pages_rewritten : pages);
		}
	}
	for (size_t k = 0; k < st->nsites; k++)
		mt_beh_settle(&st->sites[k].beh);
	for (size_t i = 0; i < st->nregions; i++) {
		struct mt_access_region *g = &st->regions[i];
		const struct mt_site_behaviour *sb;
		int32_t tix;

		if ((g->type != MT_REGION_ALLOCATION && g->type != MT_REGION_HEAP_OBJECTS) ||
		    g->site < 0 || (size_t)g->site >= st->nsites)
			continue;
		sb = &st->sites[g->site].beh;
		if (!sb->verdict)
			continue;
		(void)mt_acc_type_of(ps, (uint32_t)i); /* a rule, when one matches, goes first */
		if (g->b.typed_by)
			continue;
		g->b.type_ix = -1; /* typed anew, by name */
		g->b.behaviour = sb->verdict;
		g->b.behaviour_confidence = sb->confidence;
		tix = mt_acc_type_named(ps, mt_beh_type(sb->verdict));
		g->b.type_ix = tix;
		if (tix >= 0)
			st->types[tix].behaviour_regions++;
	}
}

/* Settles what only the end knows: page-write runs, windows, per-region and per-type
 * figures, the MRM labels. */
void mt_acc_finish(struct pass *ps)
{
	struct mt_access_stats *st = ps->st;
	const struct mt_mrm_rule *rule = &ps->o.mrm;

	if (ps->window)
		mt_acc_flush_window(ps);
	st->iai_rate_shift = ps->iai.k;
	for (size_t i = 0; i < st->nphases; i++) {
		struct mt_phase_stats *p = &st->phases[i];

		mt_acc_fold_wss(&p->cur_pages, &p->wss_peak_pages, &p->wss_sum, &p->wss_windows);
	}
	for (size_t i = 0; i < ps->nprocs; i++)
		if (ps->procs[i].phase && st->t_end > ps->procs[i].phase_since)
			st->phases[ps->procs[i].phase].ns += st->t_end - ps->procs[i].phase_since;
	st->pages = malloc((ps->pages.len ? ps->pages.len : 1) * sizeof(*st->pages));
	for (size_t i = 0; st->pages && i < ps->pages.cap; i++)
		if (ps->pages.v[i].key && ps->pages.v[i].seq < ps->pages.len)
			st->pages[ps->pages.v[i].seq] = ps->pages.v[i].p; /* in first-touch order */
	st->npages = st->pages ? ps->pages.len : 0;
	for (size_t i = 0; i < st->npages; i++) {
		mt_acc_pw_settle(st, &st->pages[i], st->t_end);
		if (st->pages[i].site >= 0)
			st->sites[st->pages[i].site].pages++;
	}
	for (size_t i = 0; i < st->nregions; i++) {
		struct mt_region_behavior *b = &st->regions[i].b;
		uint64_t pages = 0;

		if (b->cur_pages > b->wss_peak_pages)
			b->wss_peak_pages = b->cur_pages;
		settle_region(ps, &st->regions[i], &pages);
	}
	settle_behaviour(ps);
	for (size_t i = 0; i < st->nregions; i++) {
		struct mt_access_region *g = &st->regions[i];
		struct mt_region_behavior *b = &g->b;
		uint64_t pages = 0;
		struct mt_type_metrics *m;
		int32_t tix;

		pages = wo_pages_of(g);
		/* A region counts for its type when the run touched it, the workload named it, or
		 * page-write tracking watched it (never written is an answer too). */
		if (g->type != MT_REGION_LABEL && !g->c.samples && !b->pages_written &&
		    b->wp != MT_LABEL_WP_TRACKED && !g->faults_minor && !g->faults_major)
			continue;
		tix = mt_acc_type_of(ps, (uint32_t)i);
		if (tix < 0)
			continue;
		m = &st->types[tix];
		b = &st->regions[i].b;
		m->regions++;
		m->samples += g->c.samples;
		m->read_samples += g->c.read_samples;
		m->write_samples += g->c.write_samples;
		m->reads += g->c.reads;
		m->writes += g->c.writes;
		m->touches += g->c.samples + g->faults_minor + g->faults_major + b->pages_written;
		if (g->type == MT_REGION_SPECIAL)
			m->kernel_regions++;
		{
			uint64_t life = isnan(b->lifetime_s) ? st->t_end - st->t0 : b->lifetime_ns;
			bool cens = mt_region_censored(b) || isnan(b->lifetime_s);

			if (life > m->life_max_ns || (life == m->life_max_ns && cens)) {
				m->life_max_ns = life;
				m->life_max_censored = cens;
			}
		}
		/* Retention only where a read was sampled: a region never seen read has an
		 * unknown retention, not 0. The lifetime is known from its events. */
		if (g->c.read_samples && g->type != MT_REGION_HEAP_OBJECTS &&
		    g->type != MT_REGION_UNKNOWN) {
			mt_surv_add(&m->retention, b->retention_ns, mt_region_censored(b));
			mt_surv_add(&m->life_read,
				    isnan(b->lifetime_s) ? st->t_end - st->t0 : b->lifetime_ns,
				    mt_region_censored(b) || isnan(b->lifetime_s));
			m->retention_regions++;
		}
		if (!isnan(b->lifetime_s) && g->type != MT_REGION_HEAP_OBJECTS) {
			mt_surv_add(&m->lifetime, b->lifetime_ns, mt_region_censored(b));
			m->lifetime_regions++;
		}
		if (g->c.samples && b->strides) {
			m->locality_regions++;
			m->stride_mean_sum += b->stride_mean;
			m->stride_median_sum += b->stride_median;
			m->same_page_sum += b->same_page_fraction;
		}
		if (b->wo_basis != MT_WO_NONE) {
			m->wo_regions++;
			m->wo_pages += pages;
			m->wo_once_pages += (uint64_t)(b->write_once * (double)pages + 0.5);
		}
	}
	for (size_t i = 0; i < st->ntypes; i++)
		settle_type(&st->types[i], rule);
}
