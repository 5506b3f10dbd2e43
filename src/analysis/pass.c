/* SPDX-License-Identifier: MIT */
/* One cursor, many passes: the event dispatch of analysis/pass.h. */
#include "pass.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "format/reader.h"

void mt_passes_init(struct mt_passes *ps)
{
	memset(ps, 0, sizeof(*ps));
}

int mt_passes_add(struct mt_passes *ps, int rc, const struct mt_pass *p)
{
	if (rc < 0) {
		if (!ps->status)
			ps->status = rc;
		return rc;
	}
	if (ps->n == MT_MAX_PASSES) {
		/* a programming error: more passes than any analysis registers */
		if (p->finish)
			p->finish(p->ctx, -E2BIG);
		if (!ps->status)
			ps->status = -E2BIG;
		return -E2BIG;
	}
	ps->v[ps->n++] = *p;
	return 0;
}

/* A run of consecutive event passes: per event type, the passes that want it, in order. */
struct group {
	size_t start, end; /* passes [start, end); end == start + 1 and batch: a batch pass */
	bool batch;
	uint64_t mask;
	unsigned char who[64][MT_MAX_PASSES], nwho[64];
};

static size_t make_groups(const struct mt_passes *ps, struct group *g)
{
	size_t ng = 0;

	for (size_t i = 0; i < ps->n;) {
		struct group *x = &g[ng++];

		memset(x, 0, sizeof(*x));
		x->start = i;
		x->batch = ps->v[i].batch != NULL;
		if (x->batch) {
			x->end = ++i;
			continue;
		}
		while (i < ps->n && !ps->v[i].batch) {
			for (unsigned t = 0; ps->v[i].event && t < 64; t++)
				if (ps->v[i].types & (1ull << t))
					x->who[t][x->nwho[t]++] = (unsigned char)i;
			if (ps->v[i].event)
				x->mask |= ps->v[i].types;
			i++;
		}
		x->end = i;
	}
	return ng;
}

static int run_group(const struct mt_passes *ps, const struct group *x, const struct mt_event *evs,
		     int n)
{
	int rc = 0;

	if (x->batch)
		return ps->v[x->start].batch(ps->v[x->start].ctx, evs, n);
	for (int k = 0; k < n && rc >= 0; k++) {
		unsigned t = evs[k].type < 64 ? evs[k].type : 0;

		for (unsigned i = 0; i < x->nwho[t] && rc >= 0; i++) {
			const struct mt_pass *p = &ps->v[x->who[t][i]];

			rc = p->event(p->ctx, &evs[k]);
		}
	}
	return rc;
}

/* Hands each batch of the stream to the passes in the order they were added. A batch pass
 * sees a batch once every pass added before it has seen all of it (the mapping index answers
 * the access pass for every time up to the batch's end); a run of event passes between them
 * sees the batch event by event, each event to each of them in order. */
static int dispatch(struct mt_reader *r, struct mt_passes *ps, uint64_t mask)
{
	struct mt_cursor_opts co = { .type_mask = mask, .ahead = true };
	struct group *g = malloc(ps->n * sizeof(*g));
	const struct mt_event *evs;
	struct mt_cursor *c;
	size_t ng;
	int n = 0, rc;

	if (!g)
		return -ENOMEM;
	ng = make_groups(ps, g);
	rc = mt_cursor_new(r, &co, &c);
	if (rc < 0) {
		free(g);
		return rc;
	}
	while (rc >= 0 && (n = mt_cursor_next_batch(c, &evs)) > 0)
		for (size_t i = 0; i < ng && rc >= 0; i++)
			if (g[i].batch || g[i].mask)
				rc = run_group(ps, &g[i], evs, n);
	if (rc >= 0 && n < 0)
		rc = n;
	mt_cursor_free(c);
	free(g);
	return rc;
}

int mt_passes_run(struct mt_reader *r, struct mt_passes *ps)
{
	uint64_t mask = 0;
	int rc = ps->status;

	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].event || ps->v[i].batch)
			mask |= ps->v[i].types;
	if (rc >= 0 && mask)
		rc = dispatch(r, ps, mask);
	for (size_t i = 0; i < ps->n; i++) {
		int f = ps->v[i].finish ? ps->v[i].finish(ps->v[i].ctx, rc) : rc;

		if (rc >= 0 && f < 0)
			rc = f;
	}
	ps->n = 0;
	return rc;
}

int mt_pass_run_one(struct mt_reader *r, int rc, const struct mt_pass *p)
{
	struct mt_passes ps;

	mt_passes_init(&ps);
	mt_passes_add(&ps, rc, p);
	return mt_passes_run(r, &ps);
}
