/* SPDX-License-Identifier: MIT */
/* Syscall entries paired with their exits, with the paths the BPF program read, into events. */
#include "record/syscalls-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "decode/sample.h"
#include "decode/syscalls.h"
#include "format/chunk.h"
#include "format/rt-mark.h"
#include "format/writer.h"
#include "record/perf.h"
#include "record/alloc.h"
#include "record/rt-loader.h"
#include "record/session.h"
#include "record/probe.h"
#include "record/sysinfo.h"
#include "record/ustack.h"
#include "record/syscalls-bpf.h"

static struct tpaths *queue_of(struct mt_syscalls_state *c, uint32_t tid, bool create)
{
	uint64_t *ix = mt_map64_get(&c->tq_ix, tid);

	if (ix && *ix)
		return &c->tq[*ix - 1];
	if (!create || mt_grow_array(&c->tq, &c->tq_cap, c->ntq + 1, sizeof(*c->tq)) < 0 ||
	    mt_map64_put(&c->tq_ix, tid, &ix) < 0)
		return NULL;
	memset(&c->tq[c->ntq], 0, sizeof(*c->tq));
	*ix = ++c->ntq;
	return &c->tq[c->ntq - 1];
}

/* Drops the head of q (a path with no call: before the command's exec, or lost). */
static void drop_head(struct mt_syscalls_state *c, struct tpaths *q)
{
	free(q->v[q->head].s);
	q->head++;
	c->npaths--;
	c->paths_unmatched++;
	if (q->head == q->n)
		q->head = q->n = 0;
}

/* Is the path (len bytes) the preload runtime's, as LD_PRELOAD names it? */
static bool rt_path_is(const struct mt_session *s, const char *path, size_t len)
{
	const char *rt = mt_alloc_rt_path(s);

	return rt && path && strlen(rt) == len && !memcmp(rt, path, len);
}

/* The path of the call that thread tid entered at time t with number nr: the head of the
 * thread's queue once older entries are dropped; 0 when there is none. *is_rt: it is the
 * runtime's path. */
static uint32_t take_path(struct mt_session *s, uint64_t t, uint32_t tid, int nr, bool *is_rt)
{
	struct mt_syscalls_state *c = s->syscalls;
	struct tpaths *q = queue_of(c, tid, false);
	struct path *p;
	uint32_t id;

	while (q && q->head < q->n && q->v[q->head].time + PATH_WINDOW_NS < t)
		drop_head(c, q);
	if (!q || q->head == q->n || q->v[q->head].nr != nr ||
	    q->v[q->head].time > t + PATH_WINDOW_NS) {
		c->paths_missing++;
		return 0;
	}
	p = &q->v[q->head];
	id = mt_writer_strn(s->w, p->s, p->len);
	*is_rt = rt_path_is(s, p->s, p->len);
	free(p->s);
	q->head++;
	c->npaths--;
	if (q->head == q->n)
		q->head = q->n = 0;
	c->paths_joined++;
	return id;
}

void mt_sc_on_path(void *ctx, uint64_t time, uint32_t tid, int nr, const char *path, int len)
{
	struct mt_syscalls_state *c = ctx;
	struct tpaths *q;
	struct path *p;

	if (len <= 0) {
		c->paths_faulted++; /* unreadable (a bad pointer): the call fails alike */
		return;
	}
	if (len >= 256)
		c->paths_truncated++;
	q = queue_of(c, tid, true);
	if (!q)
		return;
	if (q->head && q->n == q->cap) { /* reuse the consumed front */
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
		q->n -= q->head;
		q->head = 0;
	}
	if (mt_grow_array(&q->v, &q->cap, q->n + 1, sizeof(*q->v)) < 0)
		return;
	p = &q->v[q->n];
	p->len = strnlen(path, (size_t)len);
	p->s = malloc(p->len + 1);
	if (!p->s)
		return;
	memcpy(p->s, path, p->len);
	p->s[p->len] = 0;
	p->time = time;
	p->nr = nr;
	q->n++;
	c->npaths++;
}

/* Paths older than any entry still to come had no call (before the command's exec). */
void mt_sc_expire_paths(struct mt_syscalls_state *c, uint64_t upto)
{
	for (size_t i = 0; i < c->ntq; i++)
		while (c->tq[i].head < c->tq[i].n &&
		       c->tq[i].v[c->tq[i].head].time + PATH_WINDOW_NS < upto)
			drop_head(c, &c->tq[i]);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (int)x->exit - (int)y->exit; /* an entry before an exit at the same time */
}

/* A call thread tid made while memtap held it to load the runtime. */
static bool memtap_call(const struct mt_syscalls_state *c, uint32_t tid, uint64_t t)
{
	for (unsigned i = 0; i < c->nmemtap; i++)
		if (c->memtap[i].tid == tid && t >= c->memtap[i].from && t <= c->memtap[i].to)
			return true;
	return false;
}

void mt_sc_emit(struct mt_session *s, uint64_t t, uint32_t pid, uint32_t tid, int64_t nr,
		int64_t ret, uint64_t dur, const uint64_t *args, unsigned flags, uint64_t stack)
{
	/* flags may carry MT_SYSCALL_RUNTIME: the preload runtime's own call */
	struct mt_syscalls_state *c = s->syscalls;
	uint64_t row[_MT_F_SYSCALL_MAX];
	bool is_rt = false;

	if (nr < 0)
		return; /* -1: a syscall restarted or a non-syscall entry */
	row[MT_F_SYSCALL_PATH] = 0;
	if (c->cur_path) {
		row[MT_F_SYSCALL_PATH] = mt_writer_strn(s->w, c->cur_path, c->cur_plen);
		is_rt = rt_path_is(s, c->cur_path, c->cur_plen);
	} else if (!c->paths_why && args && mt_syscall_path_arg((unsigned)nr) >= 0) {
		row[MT_F_SYSCALL_PATH] = take_path(s, t, tid, (int)nr, &is_rt);
	}
	if (mt_loader_watch_call(&c->loader, tid, nr, ret, args, flags, is_rt) ||
	    memtap_call(c, tid, t)) {
		flags |= MT_SYSCALL_RUNTIME | MT_SYSCALL_RT_LOADER;
		c->loader_calls++;
	}
	if (c->classes != MT_SC_ALL && !(mt_syscall_classes((unsigned)nr) & c->classes)) {
		c->filtered++;
		return;
	}
	row[MT_F_TIME] = t;
	row[MT_F_PID] = pid;
	row[MT_F_TID] = tid;
	row[MT_F_SYSCALL_NR] = (uint64_t)nr;
	row[MT_F_SYSCALL_RET] = (uint64_t)ret;
	row[MT_F_SYSCALL_DURATION] = dur;
	for (int i = 0; i < 6; i++)
		row[MT_F_SYSCALL_A0 + i] = args ? args[i] : 0;
	row[MT_F_SYSCALL_FLAGS] = flags;
	row[MT_F_SYSCALL_STACK] = stack;
	c->calls++;
	if (flags & MT_SYSCALL_RUNTIME)
		c->runtime_calls++;
	if (mt_writer_event(s->w, MT_EV_SYSCALL, row) == 0)
		s->syscalls_coll.events++;
}

void mt_syscalls_memtap_window(struct mt_session *s, pid_t tid, uint64_t from, uint64_t to)
{
	struct mt_syscalls_state *c = s->syscalls;

	if (!c || c->nmemtap >= sizeof(c->memtap) / sizeof(c->memtap[0]))
		return;
	c->memtap[c->nmemtap].tid = (uint32_t)tid;
	c->memtap[c->nmemtap].from = from;
	c->memtap[c->nmemtap++].to = to;
}

static void pair(struct mt_session *s, const struct rec *r)
{
	struct mt_syscalls_state *c = s->syscalls;
	uint64_t *ix = mt_map64_get(&c->pend_ix, r->tid);
	struct pending *p = ix ? &c->pend[*ix] : NULL;

	if (!r->exit) {
		if (p && p->used) {
			/* A second entry without an exit: the first never returned (exit_group). */
			mt_sc_emit(s, p->time, p->pid, r->tid, p->nr, 0, 0, p->args,
				   MT_SYSCALL_NO_EXIT | (p->runtime ? MT_SYSCALL_RUNTIME : 0),
				   p->stack);
			c->no_exit++;
		}
		if (!p) {
			if (mt_grow_array(&c->pend, &c->pend_cap, c->npend + 1, sizeof(*c->pend)) <
				    0 ||
			    mt_map64_put(&c->pend_ix, r->tid, &ix) < 0)
				return;
			*ix = c->npend;
			p = &c->pend[c->npend++];
		}
		p->time = r->time;
		p->pid = r->pid;
		p->tid = r->tid;
		p->nr = r->id;
		memcpy(p->args, r->args, sizeof(p->args));
		p->used = true;
		p->runtime = r->runtime;
		p->stack = r->stack;
		return;
	}
	if (p && p->used) {
		/* The thread's pending entry; the exit's own number may differ: rt_sigreturn's
		 * exit reports the number of the restored context (-1 outside a syscall). */
		mt_sc_emit(s, p->time, r->pid, r->tid, p->nr, r->ret, r->time - p->time, p->args,
			   p->runtime ? MT_SYSCALL_RUNTIME : 0, p->stack);
		p->used = false;
		return;
	}
	/* A new task's first return is the child's half of its parent's clone/fork. */
	if (r->ret == 0 && (r->id == 56 || r->id == 57 || r->id == 58 || r->id == 435)) {
		c->child_returns++;
		return;
	}
	/* An exit without its entry: execve's (its entry came before tracing began at exec). */
	mt_sc_emit(s, r->time, r->pid, r->tid, r->id, r->ret, 0, NULL, MT_SYSCALL_NO_ENTRY, 0);
	c->no_entry++;
}

void mt_sc_process(struct mt_session *s, uint64_t upto)
{
	struct mt_syscalls_state *c = s->syscalls;
	size_t k = 0;

	if (!c->nrecs)
		return;
	mt_qsort(c->recs, c->nrecs, sizeof(*c->recs), cmp_rec);
	/* the stacks' trie nodes go out before the events that name them */
	if (s->ustack)
		(void)mt_ustack_flush(s->ustack, s->w);
	while (k < c->nrecs && c->recs[k].time < upto)
		pair(s, &c->recs[k++]);
	memmove(c->recs, c->recs + k, (c->nrecs - k) * sizeof(*c->recs));
	c->nrecs -= k;
}
