/* SPDX-License-Identifier: MIT */
/* The model's allocation section: sites ranked, and the ranked sites' stacks symbolized. */
#include "analysis/model.h"

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

#define MAX_FRAMES 512

static uint64_t rank_value(const struct mt_alloc_site *s, int k)
{
	switch (k) {
	case MT_RANK_CALLS:
		return s->calls;
	case MT_RANK_PEAK:
		return s->peak_bytes;
	case MT_RANK_LEAKED:
		return s->leaked_bytes;
	default:
		return s->temporary;
	}
}

static const struct mt_alloc_site *sort_sites;
static int sort_key;

static int cmp_rank(const void *a, const void *b)
{
	const struct mt_alloc_site *x = &sort_sites[*(const size_t *)a];
	const struct mt_alloc_site *y = &sort_sites[*(const size_t *)b];
	uint64_t vx = rank_value(x, sort_key), vy = rank_value(y, sort_key);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Index of site i in rep->alloc.sel, adding it when new; -1 on ENOMEM. */
static ssize_t select_site(struct mt_report_alloc *a, size_t i, size_t *cap)
{
	for (size_t k = 0; k < a->nsel; k++)
		if (a->sel[k].site == i)
			return (ssize_t)k;
	if (mt_grow_array(&a->sel, cap, a->nsel + 1, sizeof(*a->sel)) < 0)
		return -1;
	memset(&a->sel[a->nsel], 0, sizeof(a->sel[0]));
	a->sel[a->nsel].site = i;
	return (ssize_t)a->nsel++;
}

static int add_frame(struct mt_report_alloc *a, size_t *cap, const struct mt_frame *f)
{
	if (mt_grow_array(&a->frames, cap, a->nframes + 1, sizeof(*a->frames)) < 0)
		return -ENOMEM;
	a->frames[a->nframes++] = *f;
	return 0;
}

/* Symbolizes the selected sites' stacks. */
static int symbolize(struct mt_report *rep, struct mt_symbolizer *sym)
{
	struct mt_report_alloc *a = &rep->alloc;
	uint64_t *ips = malloc(MAX_FRAMES * sizeof(*ips));
	size_t cap = 0;
	int rc = 0;

	if (!ips)
		return -ENOMEM;
	for (size_t k = 0; k < a->nsel && rc >= 0; k++) {
		struct mt_report_site *rs = &a->sel[k];
		const struct mt_alloc_site *s = &a->st.sites[rs->site];
		int depth = s->stack ? mt_reader_stack(rep->r, s->stream, s->stack, ips, MAX_FRAMES)
				     : 0;

		rs->first_frame = a->nframes;
		if (depth < 0) {
			rs->stack_incomplete = true;
			depth = 0;
		}
		for (int d = 0; d < depth && rc >= 0; d++) {
			const struct mt_frame *fr;
			int n = mt_sym_resolve(sym, s->pid, s->first_ns, ips[d], true, &fr);

			if (n < 0) {
				rc = n;
				break;
			}
			for (int q = 0; q < n && rc >= 0; q++)
				rc = add_frame(a, &cap, &fr[q]);
		}
		rs->nframes = a->nframes - rs->first_frame;
	}
	free(ips);
	return rc;
}

int mt_report_alloc_setup(struct mt_report *rep, struct mt_passes *ps)
{
	struct mt_report_alloc *a = &rep->alloc;
	struct mt_pass p;

	a->coll = mt_report_collector(rep, "alloc");
	return mt_passes_add(ps, mt_alloc_pass(rep->r, &a->st, &p), &p);
}

int mt_report_alloc_done(struct mt_report *rep)
{
	struct mt_report_alloc *a = &rep->alloc;
	struct mt_symbolizer *sym = NULL;
	size_t *order = NULL, selcap = 0;
	int rc;

	/* A section when there is something to say: events, or a collector that ran (a run
	 * whose processes could not be traced says so); not for --no-alloc. */
	a->loaded = a->st.present || (a->coll && strcmp(a->coll->status, "off"));
	if (!a->st.nsites)
		return 0;
	order = malloc(a->st.nsites * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (int k = 0; k < MT_NRANKS; k++) {
		size_t n = 0;

		for (size_t i = 0; i < a->st.nsites; i++)
			if (rank_value(&a->st.sites[i], k))
				order[n++] = i;
		sort_sites = a->st.sites;
		sort_key = k;
		mt_qsort(order, n, sizeof(*order), cmp_rank);
		if (n > rep->top)
			n = rep->top;
		a->rank[k] = malloc((n ? n : 1) * sizeof(size_t));
		if (!a->rank[k]) {
			free(order);
			return -ENOMEM;
		}
		for (size_t q = 0; q < n; q++) {
			ssize_t sel = select_site(a, order[q], &selcap);

			if (sel < 0) {
				free(order);
				return -ENOMEM;
			}
			a->sel[sel].rank[k] = (unsigned)q + 1;
			a->rank[k][a->nrank[k]++] = (size_t)sel;
		}
	}
	free(order);
	rc = mt_sym_clone(rep->sym, &sym);
	if (rc < 0)
		return rc;
	a->symbolizer = sym; /* the frames' strings live in it */
	rc = symbolize(rep, sym);
	a->sym = *mt_sym_stats(sym);
	return rc;
}

void mt_report_alloc_release(struct mt_report *rep)
{
	struct mt_report_alloc *a = &rep->alloc;

	mt_alloc_release(&a->st);
	mt_sym_close(a->symbolizer);
	for (int k = 0; k < MT_NRANKS; k++)
		free(a->rank[k]);
	free(a->sel);
	free(a->frames);
	memset(a, 0, sizeof(*a));
}
