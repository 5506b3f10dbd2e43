/* SPDX-License-Identifier: MIT */
/* Process tree reconstruction: one pass over the task events in time order. */
#include "common/array.h"
#include "procs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/hash.h"
#include "analysis/pass.h"
#include "format/reader.h"

static char *dup_str(struct mt_reader *r, uint32_t stream, uint64_t id, size_t *len)
{
	size_t n = 0;
	const char *s = mt_reader_str(r, stream, id, &n);
	char *d;

	if (!s)
		s = "", n = 0;
	d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	if (len)
		*len = d ? n : 0;
	return d;
}

static void set_str(char **dst, char *s)
{
	if (!s)
		return;
	free(*dst);
	*dst = s;
}

static struct mt_proc *new_proc(struct mt_procs *p, size_t *cap, struct mt_map64 *ix, uint32_t pid,
				uint32_t ppid, uint64_t t)
{
	struct mt_proc *x;
	uint64_t *slot, *pix;

	if (mt_grow_array(&p->v, cap, p->n + 1, sizeof(*p->v)) < 0)
		return NULL;
	if (mt_map64_put(ix, pid, &slot) < 0)
		return NULL;
	x = &p->v[p->n];
	memset(x, 0, sizeof(*x));
	x->pid = pid;
	x->ppid = ppid;
	x->start_ns = t;
	pix = mt_map64_get(ix, ppid);
	x->parent = pix && *pix != p->n ? (size_t)*pix : MT_NO_PARENT;
	*slot = p->n++;
	return x;
}

static struct mt_proc *proc_of(struct mt_procs *p, struct mt_map64 *ix, uint32_t pid)
{
	uint64_t *slot = mt_map64_get(ix, pid);

	return slot ? &p->v[*slot] : NULL;
}

struct procs_pass {
	struct mt_reader *r;
	struct mt_procs *out;
	struct mt_map64 ix; /* pid -> index of the process now holding that pid */
	/* pid -> index of the last process that held it, kept past its exit: in-kernel syscall
	 * totals (--syscalls=summary) are written at the end, per pid */
	struct mt_map64 last;
	size_t cap;
};

static int procs_event(void *ctx, const struct mt_event *ev)
{
	struct procs_pass *pp = ctx;
	struct mt_procs *p = pp->out;
	struct mt_reader *r = pp->r;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], tid = (uint32_t)ev->v[MT_F_TID];
	struct mt_proc *x = proc_of(p, &pp->ix, pid);

	switch (ev->type) {
	case MT_EV_TASK_NEW:
		if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD) {
			if (x)
				x->threads++;
			break;
		}
		x = new_proc(p, &pp->cap, &pp->ix, pid, (uint32_t)ev->v[MT_F_NEW_PPID],
			     ev->v[MT_F_TIME]);
		if (!x)
			return -ENOMEM;
		x->vfork = ev->v[MT_F_NEW_KIND] == MT_TASK_VFORK;
		/* A child starts with its parent's name and image. */
		if (x->parent != MT_NO_PARENT) {
			const struct mt_proc *par = &p->v[x->parent];

			x->comm = strdup(par->comm ? par->comm : "");
			x->exe = strdup(par->exe ? par->exe : "");
			if (par->cgroup)
				x->cgroup = strdup(par->cgroup);
		}
		break;
	case MT_EV_TASK_EXEC:
		if (!x && !(x = new_proc(p, &pp->cap, &pp->ix, pid, 0, ev->v[MT_F_TIME])))
			return -ENOMEM;
		set_str(&x->exe, dup_str(r, ev->stream, ev->v[MT_F_EXEC_EXE], NULL));
		set_str(&x->comm, dup_str(r, ev->stream, ev->v[MT_F_EXEC_COMM], NULL));
		set_str(&x->argv, dup_str(r, ev->stream, ev->v[MT_F_EXEC_ARGV], &x->argv_len));
		if (ev->v[MT_F_EXEC_CGROUP]) /* absent from format 1.1 traces: unknown */
			set_str(&x->cgroup, dup_str(r, ev->stream, ev->v[MT_F_EXEC_CGROUP], NULL));
		x->execs++;
		break;
	case MT_EV_TASK_COMM:
		if (x && tid == pid)
			set_str(&x->comm, dup_str(r, ev->stream, ev->v[MT_F_COMM_COMM], NULL));
		break;
	case MT_EV_TASK_EXIT:
		if (ev->v[MT_F_EXIT_KIND] != MT_TASK_PROCESS || !x || x->ended)
			break;
		x->ended = true;
		x->end_ns = ev->v[MT_F_TIME];
		x->status_known = ev->v[MT_F_EXIT_KNOWN] != 0;
		x->exit_code = (int64_t)ev->v[MT_F_EXIT_CODE];
		x->signal = (int)ev->v[MT_F_EXIT_SIGNAL];
		x->core_dumped = ev->v[MT_F_EXIT_CORE] != 0;
		/* The pid may be reused from now on. */
		{
			uint64_t *slot = mt_map64_get(&pp->ix, pid), *l;

			if (slot && mt_map64_put(&pp->last, pid, &l) == 0)
				*l = *slot;
		}
		mt_map64_del(&pp->ix, pid);
		break;
	case MT_EV_SYSCALL:
		if (x && !(ev->v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RUNTIME))
			x->syscalls++;
		break;
	case MT_EV_SYSCALL_SUM:
		if (!x)
			x = proc_of(p, &pp->last, pid); /* the process that ended under that pid */
		if (x && !ev->v[MT_F_SYSSUM_RUNTIME])
			x->syscalls += ev->v[MT_F_SYSSUM_CALLS];
		break;
	case MT_EV_ACCESS:
		if (x)
			x->samples++;
		break;
	default:
		break;
	}
	return 0;
}

static int procs_finish(void *ctx, int status)
{
	struct procs_pass *pp = ctx;

	mt_map64_release(&pp->ix);
	mt_map64_release(&pp->last);
	if (status < 0)
		mt_procs_release(pp->out);
	free(pp);
	return status;
}

int mt_procs_pass(struct mt_reader *r, struct mt_procs *out, struct mt_pass *pass)
{
	struct procs_pass *pp = calloc(1, sizeof(*pp));

	memset(out, 0, sizeof(*out));
	if (!pp)
		return -ENOMEM;
	pp->r = r;
	pp->out = out;
	mt_map64_init(&pp->ix);
	mt_map64_init(&pp->last);
	*pass = (struct mt_pass){ .name = "procs",
				  .types = (1ull << MT_EV_TASK_NEW) | (1ull << MT_EV_TASK_EXEC) |
					   (1ull << MT_EV_TASK_COMM) | (1ull << MT_EV_TASK_EXIT),
				  .ctx = pp,
				  .event = procs_event,
				  .finish = procs_finish };
	return 0;
}

int mt_procs_pass_figures(struct mt_reader *r, struct mt_procs *out, struct mt_pass *pass)
{
	int rc = mt_procs_pass(r, out, pass);

	if (rc == 0)
		pass->types |= 1ull << MT_EV_SYSCALL | 1ull << MT_EV_SYSCALL_SUM |
			       1ull << MT_EV_ACCESS;
	return rc;
}

int mt_procs_build(struct mt_reader *r, struct mt_procs *out)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_procs_pass(r, out, &p), &p);
}

void mt_procs_release(struct mt_procs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].comm);
		free(p->v[i].exe);
		free(p->v[i].cgroup);
		free(p->v[i].argv);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

int mt_proc_exit_status(const struct mt_proc *p)
{
	if (!p->ended || !p->status_known)
		return -1;
	if (p->signal)
		return 128 + p->signal;
	return (int)p->exit_code;
}

int mt_procs_tree_order(const struct mt_procs *p, size_t **order, unsigned **depth)
{
	size_t n = p->n + 1, cnt = 0, sp = 0, cur;
	size_t *ord = calloc(n, sizeof(size_t)), *first = malloc(n * sizeof(size_t));
	size_t *next = malloc(n * sizeof(size_t)), *last_child = malloc(n * sizeof(size_t));
	size_t *stack = malloc(n * sizeof(size_t));
	unsigned *dep = calloc(n, sizeof(unsigned)), *nd = calloc(n, sizeof(unsigned));
	size_t roots = MT_NO_PARENT, last_root = MT_NO_PARENT;

	if (!ord || !first || !next || !last_child || !stack || !dep || !nd) {
		free(ord);
		free(first);
		free(next);
		free(last_child);
		free(stack);
		free(dep);
		free(nd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n; i++)
		first[i] = next[i] = last_child[i] = MT_NO_PARENT;
	/* Processes are in creation order already, so appending keeps children sorted. */
	for (size_t i = 0; i < p->n; i++) {
		size_t par = p->v[i].parent;

		if (par == MT_NO_PARENT || par >= i) {
			if (last_root == MT_NO_PARENT)
				roots = i;
			else
				next[last_root] = i;
			last_root = i;
		} else {
			if (last_child[par] == MT_NO_PARENT)
				first[par] = i;
			else
				next[last_child[par]] = i;
			last_child[par] = i;
		}
	}
	/* Depth-first, iteratively: a chain of nested forks must not exhaust the C stack. */
	for (cur = roots; cur != MT_NO_PARENT;) {
		size_t par = p->v[cur].parent;

		nd[cur] = par == MT_NO_PARENT || par >= cur ? 0 : nd[par] + 1;
		ord[cnt] = cur;
		dep[cnt++] = nd[cur];
		if (first[cur] != MT_NO_PARENT) {
			if (next[cur] != MT_NO_PARENT)
				stack[sp++] = next[cur];
			cur = first[cur];
		} else if (next[cur] != MT_NO_PARENT) {
			cur = next[cur];
		} else {
			cur = sp ? stack[--sp] : MT_NO_PARENT;
		}
	}
	free(first);
	free(next);
	free(last_child);
	free(stack);
	free(nd);
	*order = ord;
	*depth = dep;
	return (int)cnt;
}

const char *mt_procs_comm_at(const struct mt_procs *p, uint32_t pid, uint64_t t)
{
	const char *best = NULL;

	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].pid == pid && p->v[i].start_ns <= t + 1)
			best = p->v[i].comm;
	return best && *best ? best : "?";
}
