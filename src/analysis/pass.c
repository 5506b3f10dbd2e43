/* SPDX-License-Identifier: MIT */
/* One cursor, many passes: the event dispatch of analysis/pass.h. */
#include "pass.h"

#include <errno.h>
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

/* Hands each batch of the stream to the passes in the order they were added: a pass sees a
 * batch after every pass added before it has seen all of it (the mapping index answers the
 * access pass for every time up to the batch's end). */
static int dispatch(struct mt_reader *r, struct mt_passes *ps, uint64_t mask)
{
	struct mt_cursor_opts co = { .type_mask = mask, .ahead = true };
	const struct mt_event *evs;
	struct mt_cursor *c;
	int n, rc = 0;

	rc = mt_cursor_new(r, &co, &c);
	if (rc < 0)
		return rc;
	while (rc >= 0 && (n = mt_cursor_next_batch(c, &evs)) > 0) {
		for (size_t i = 0; i < ps->n && rc >= 0; i++) {
			const struct mt_pass *p = &ps->v[i];

			if (p->batch) {
				rc = p->batch(p->ctx, evs, n);
				continue;
			}
			for (int k = 0; p->event && k < n && rc >= 0; k++)
				if (p->types & (1ull << (evs[k].type < 64 ? evs[k].type : 0)))
					rc = p->event(p->ctx, &evs[k]);
		}
	}
	if (rc >= 0 && n < 0)
		rc = n;
	mt_cursor_free(c);
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
