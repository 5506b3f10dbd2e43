/* SPDX-License-Identifier: MIT */
/*
 * Spin-waits apart from data traffic (docs/metrics.md). A thread that waits by re-reading a
 * flag is sampled at the same one or two instructions loading the same line, sample after
 * sample; a loop over data moves on, in code or in address, between two samples 1 ms apart.
 * Per thread: the latest resolved load's line and instruction, and how many samples in a row
 * had both (an instruction within 16 bytes counts as the same loop). From MT_SPIN_RUN in a
 * row, the run's samples are the spin's: counted apart in the region, the pass and the site.
 */
#include "analysis/access-internal.h"

#include <stdlib.h>

#include "common/array.h"

static struct mt_spin_site *site_of(struct mt_access_stats *st, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < st->nspin; i++)
		if (st->spin[i].pid == pid &&
		    (ip > st->spin[i].ip ? ip - st->spin[i].ip : st->spin[i].ip - ip) < 16)
			return &st->spin[i];
	if (st->nspin == MT_SPIN_SITES)
		return NULL;
	st->spin[st->nspin] = (struct mt_spin_site){ .pid = pid, .ip = ip };
	return &st->spin[st->nspin++];
}

static struct spin_thread *thread_of(struct pass *ps, uint64_t tid)
{
	unsigned c = (unsigned)tid & 63;
	uint64_t *ix;

	/* samples come from a few threads at a time: most find theirs in the cache */
	if (ps->spin_cache_tid[c] == (uint32_t)tid + 1)
		return &ps->spin_threads[ps->spin_cache_ix[c]];
	if (mt_map64_put(&ps->spin_tid, tid, &ix) < 0)
		return NULL;
	if (!*ix) {
		if (mt_grow_array(&ps->spin_threads, &ps->spin_threads_cap, ps->nspin_threads + 1,
				  sizeof(*ps->spin_threads)) < 0) {
			mt_map64_del(&ps->spin_tid, tid);
			return NULL;
		}
		ps->spin_threads[ps->nspin_threads] = (struct spin_thread){ 0 };
		*ix = ++ps->nspin_threads;
	}
	ps->spin_cache_tid[c] = (uint32_t)tid + 1;
	ps->spin_cache_ix[c] = (uint32_t)(*ix - 1);
	return &ps->spin_threads[*ix - 1];
}

/* The thread of a sample whose thread the cache of access-internal.h did not hold. */
struct spin_thread *mt_acc_spin_thread(struct pass *ps, uint64_t tid)
{
	return thread_of(ps, tid);
}

/* A run reached MT_SPIN_RUN or went on: its samples are the spin's (access-internal.h
 * mt_acc_spin() has counted the run). */
void mt_acc_spin_run(struct pass *ps, const struct mt_event *ev, uint32_t reg,
		     struct mt_access_page *pg, struct spin_thread *t)
{
	struct mt_access_stats *st = ps->st;
	uint64_t line = ev->v[MT_F_ACCESS_ADDR] >> 6;
	uint64_t n = t->run == MT_SPIN_RUN ? MT_SPIN_RUN : 1; /* the run's first samples too */
	struct mt_spin_site *s;

	st->spin_samples += n;
	if (reg != NONE)
		st->regions[reg].spin_samples += n;
	if (pg) /* the run's samples are all on this line, so on this page */
		pg->spin_samples += (uint32_t)n;
	s = site_of(st, (uint32_t)ev->v[MT_F_PID], t->ip);
	if (!s) {
		st->spin_other += n;
		return;
	}
	if (t->run == MT_SPIN_RUN) {
		if (!s->runs || s->last_line != line)
			s->lines++;
		s->runs++;
		s->last_line = line;
		if (!s->first_ns)
			s->first_ns = ev->v[MT_F_TIME];
	}
	s->samples += n;
	s->region = reg;
}

void mt_acc_spin_release(struct pass *ps)
{
	mt_map64_release(&ps->spin_tid);
	free(ps->spin_threads);
	ps->spin_threads = NULL;
}
