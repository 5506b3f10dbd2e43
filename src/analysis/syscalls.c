/* SPDX-License-Identifier: MIT */
/* The syscall pass over SYSCALL events. */
#include "common/array.h"
#include "analysis/syscalls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "decode/syscalls.h"
#include "analysis/pass.h"
#include "format/reader.h"

#define MAX_NR 1024

static int cmp_time(const void *a, const void *b)
{
	const struct mt_syscall_stat *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return (int)x->nr - (int)y->nr;
}

struct sc_pass {
	const struct mt_syscall_filter *f;
	struct mt_syscalls_stats *st;
	struct mt_syscall_stat *all, *rt;
};

static int sc_event(void *ctx, const struct mt_event *ev)
{
	struct sc_pass *p = ctx;
	const struct mt_syscall_filter *f = p->f;
	struct mt_syscalls_stats *st = p->st;
	struct mt_syscall_stat *all = p->all, *rt = p->rt;
	uint64_t nr = ev->v[MT_F_SYSCALL_NR], d = ev->v[MT_F_SYSCALL_DURATION];

	if (f && f->by_pid && ev->v[MT_F_PID] != f->pid)
		return 0;
	if (ev->type == MT_EV_SYSCALL_SUM) {
		/* In-kernel totals for the whole tree (no per-call minimum or maximum). */
		bool own = ev->v[MT_F_SYSSUM_RUNTIME] != 0;
		struct mt_syscall_table *tb = own ? &st->rt : &st->work;
		struct mt_syscall_stat *s = &(own ? rt : all)[nr < MAX_NR ? nr : MAX_NR];

		if ((f && f->nr >= 0 && (uint64_t)f->nr != nr) ||
		    (f && f->classes && f->classes != MT_SC_ALL &&
		     !(mt_syscall_classes((unsigned)nr) & f->classes)))
			return 0;
		st->present = true;
		st->summary = true;
		s->nr = nr < MAX_NR ? (unsigned)nr : MAX_NR;
		s->calls += ev->v[MT_F_SYSSUM_CALLS];
		s->errors += ev->v[MT_F_SYSSUM_ERRORS];
		s->total_ns += ev->v[MT_F_SYSSUM_NS];
		tb->calls += ev->v[MT_F_SYSSUM_CALLS];
		tb->errors += ev->v[MT_F_SYSSUM_ERRORS];
		tb->total_ns += ev->v[MT_F_SYSSUM_NS];
		return 0;
	}
	{
		int64_t ret = (int64_t)ev->v[MT_F_SYSCALL_RET];
		bool own = (ev->v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RUNTIME) != 0;
		struct mt_syscall_table *tb = own ? &st->rt : &st->work;
		struct mt_syscall_stat *s = &(own ? rt : all)[nr < MAX_NR ? nr : MAX_NR];

		if (f && f->nr >= 0 && (uint64_t)f->nr != nr)
			return 0;
		if (f && f->classes && f->classes != MT_SC_ALL &&
		    !(mt_syscall_classes((unsigned)nr) & f->classes))
			return 0;
		st->present = true;
		s->nr = nr < MAX_NR ? (unsigned)nr : MAX_NR;
		if (ev->v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_NO_EXIT) {
			s->no_return++;
			tb->no_return++;
			return 0;
		}
		s->calls++;
		tb->calls++;
		if (ret < 0 && ret >= -4095) {
			s->errors++;
			tb->errors++;
		}
		s->total_ns += d;
		tb->total_ns += d;
		if (!s->min_ns || d < s->min_ns)
			s->min_ns = d;
		if (d > s->max_ns)
			s->max_ns = d;
	}
	return 0;
}

static int sc_finish(void *ctx, int status)
{
	struct sc_pass *p = ctx;
	struct mt_syscalls_stats *st = p->st;
	struct mt_syscall_stat *all = p->all;

	free(p);
	if (status < 0) {
		free(all);
		return status;
	}
	/* Compact both tables in place: the runtime's rows follow the workload's. */
	for (size_t i = 0, n = 0; i < 2 * (MAX_NR + 1); i++) {
		if (i == MAX_NR + 1)
			st->work.n = n;
		if (all[i].calls || all[i].no_return)
			all[n++] = all[i];
		if (i == 2 * MAX_NR + 1)
			st->rt.n = n - st->work.n;
	}
	st->work.v = all;
	st->rt.v = all + st->work.n;
	mt_qsort(st->work.v, st->work.n, sizeof(*all), cmp_time);
	mt_qsort(st->rt.v, st->rt.n, sizeof(*all), cmp_time);
	return 0;
}

int mt_syscalls_pass(struct mt_reader *r, const struct mt_syscall_filter *f,
		     struct mt_syscalls_stats *st, struct mt_pass *pass)
{
	struct sc_pass *p;

	memset(st, 0, sizeof(*st));
	*pass = (struct mt_pass){ .name = "syscalls" };
	if (!mt_reader_event_count(r, MT_EV_SYSCALL) &&
	    !mt_reader_event_count(r, MT_EV_SYSCALL_SUM))
		return 0;
	p = calloc(1, sizeof(*p));
	/* [MAX_NR]: numbers beyond the table; the runtime's own calls from MAX_NR + 1 on */
	if (!p || !(p->all = calloc(2 * (MAX_NR + 1), sizeof(*p->all)))) {
		free(p);
		return -ENOMEM;
	}
	p->rt = p->all + MAX_NR + 1;
	p->f = f;
	p->st = st;
	*pass = (struct mt_pass){ .name = "syscalls",
				  .types = 1ull << MT_EV_SYSCALL | 1ull << MT_EV_SYSCALL_SUM,
				  .ctx = p,
				  .event = sc_event,
				  .finish = sc_finish };
	return 0;
}

int mt_syscalls_analyze(struct mt_reader *r, const struct mt_syscall_filter *f,
			struct mt_syscalls_stats *st)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_syscalls_pass(r, f, st, &p), &p);
}

void mt_syscalls_release(struct mt_syscalls_stats *st)
{
	free(st->work.v);
	memset(st, 0, sizeof(*st));
}
