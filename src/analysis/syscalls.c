/* SPDX-License-Identifier: MIT */
/* The syscall pass over SYSCALL events. */
#include "analysis/syscalls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "decode/syscalls.h"
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

int mt_syscalls_analyze(struct mt_reader *r, const struct mt_syscall_filter *f,
			struct mt_syscalls_stats *st)
{
	struct mt_cursor_opts co = { .type_mask = 1ull << MT_EV_SYSCALL |
						  1ull << MT_EV_SYSCALL_SUM };
	struct mt_syscall_stat *all, *rt;
	struct mt_cursor *c;
	struct mt_event ev;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!mt_reader_event_count(r, MT_EV_SYSCALL) &&
	    !mt_reader_event_count(r, MT_EV_SYSCALL_SUM))
		return 0;
	if (f && f->by_pid) {
		co.by_pid = true;
		co.pid = f->pid;
	}
	/* [MAX_NR]: numbers beyond the table; the runtime's own calls from MAX_NR + 1 on */
	all = calloc(2 * (MAX_NR + 1), sizeof(*all));
	if (!all)
		return -ENOMEM;
	rt = all + MAX_NR + 1;
	rc = mt_cursor_new(r, &co, &c);
	if (rc < 0) {
		free(all);
		return rc;
	}
	while ((rc = mt_cursor_next(c, &ev)) == 1) {
		uint64_t nr = ev.v[MT_F_SYSCALL_NR], d = ev.v[MT_F_SYSCALL_DURATION];

		if (ev.type == MT_EV_SYSCALL_SUM) {
			/* In-kernel totals for the whole tree (no per-call minimum or maximum). */
			bool own = ev.v[MT_F_SYSSUM_RUNTIME] != 0;
			struct mt_syscall_table *tb = own ? &st->rt : &st->work;
			struct mt_syscall_stat *s = &(own ? rt : all)[nr < MAX_NR ? nr : MAX_NR];

			if ((f && f->nr >= 0 && (uint64_t)f->nr != nr) ||
			    (f && f->classes && f->classes != MT_SC_ALL &&
			     !(mt_syscall_classes((unsigned)nr) & f->classes)))
				continue;
			st->present = true;
			st->summary = true;
			s->nr = nr < MAX_NR ? (unsigned)nr : MAX_NR;
			s->calls += ev.v[MT_F_SYSSUM_CALLS];
			s->errors += ev.v[MT_F_SYSSUM_ERRORS];
			s->total_ns += ev.v[MT_F_SYSSUM_NS];
			tb->calls += ev.v[MT_F_SYSSUM_CALLS];
			tb->errors += ev.v[MT_F_SYSSUM_ERRORS];
			tb->total_ns += ev.v[MT_F_SYSSUM_NS];
			continue;
		}
		{
			int64_t ret = (int64_t)ev.v[MT_F_SYSCALL_RET];
			bool own = (ev.v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RUNTIME) != 0;
			struct mt_syscall_table *tb = own ? &st->rt : &st->work;
			struct mt_syscall_stat *s = &(own ? rt : all)[nr < MAX_NR ? nr : MAX_NR];

			if (f && f->nr >= 0 && (uint64_t)f->nr != nr)
				continue;
			if (f && f->classes && f->classes != MT_SC_ALL &&
			    !(mt_syscall_classes((unsigned)nr) & f->classes))
				continue;
			st->present = true;
			s->nr = nr < MAX_NR ? (unsigned)nr : MAX_NR;
			if (ev.v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_NO_EXIT) {
				s->no_return++;
				tb->no_return++;
				continue;
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
	}
	mt_cursor_free(c);
	if (rc < 0) {
		free(all);
		return rc;
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
	qsort(st->work.v, st->work.n, sizeof(*all), cmp_time);
	qsort(st->rt.v, st->rt.n, sizeof(*all), cmp_time);
	return 0;
}

void mt_syscalls_release(struct mt_syscalls_stats *st)
{
	free(st->work.v);
	memset(st, 0, sizeof(*st));
}
