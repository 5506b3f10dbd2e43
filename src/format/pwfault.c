/* SPDX-License-Identifier: MIT */
/* Which page faults page-write tracking caused: the per-page state machine of pwfault.h. */
#include "format/pwfault.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

#define PAGE 4096ull
#define CHUNK_SHIFT 21 /* 2 MiB of pages per chunk */
#define CHUNK_PAGES 512
#define USER_TOP (1ull << 47)
#define NWIN 64 /* the last scans' walks kept per process */

/* A page's state: how many protections await their fault (0-3), and whether it is present. */
#define PENDING 3u
#define PRESENT 4u

struct chunk {
	uint8_t st[CHUNK_PAGES];
	uint16_t seq[CHUNK_PAGES]; /* the walk that last protected it (0: none, or a runtime's) */
};

struct range {
	uint64_t lo, hi;
};

struct walk {
	uint64_t lo, hi; /* the ioctl's start and end */
	uint16_t seq;
};

struct proc {
	uint32_t pid;
	struct range *r; /* tracked, sorted, disjoint */
	size_t n, cap;
	uint16_t seq; /* the last walk's number */
	uint64_t walk_time;
	struct walk walks[NWIN];
};

struct mt_pwf {
	struct mt_map64 by_pid; /* pid -> index + 1 in procs */
	struct proc *procs;
	size_t nprocs, cap;
	struct mt_map64 chunks; /* pid << 26 | page >> 9 -> struct chunk * */
	struct mt_pwf_stats st;
};

struct mt_pwf *mt_pwf_new(void)
{
	struct mt_pwf *p = calloc(1, sizeof(*p));

	if (p) {
		mt_map64_init(&p->by_pid);
		mt_map64_init(&p->chunks);
	}
	return p;
}

void mt_pwf_free(struct mt_pwf *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->chunks.cap; i++)
		if (p->chunks.keys[i] != MT_MAP64_EMPTY)
			free((void *)(uintptr_t)p->chunks.vals[i]);
	for (size_t i = 0; i < p->nprocs; i++)
		free(p->procs[i].r);
	mt_map64_release(&p->chunks);
	mt_map64_release(&p->by_pid);
	free(p->procs);
	free(p);
}

void mt_pwf_stats(const struct mt_pwf *p, struct mt_pwf_stats *st)
{
	*st = p->st;
}

static struct proc *proc_of(struct mt_pwf *p, uint64_t pid, bool make)
{
	uint64_t *ix;

	if (pid > UINT32_MAX)
		return NULL;
	ix = mt_map64_get(&p->by_pid, pid);
	if (ix)
		return &p->procs[*ix - 1];
	if (!make)
		return NULL;
	if (p->nprocs == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct proc *n = realloc(p->procs, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->procs = n;
		p->cap = cap;
	}
	if (mt_map64_put(&p->by_pid, pid, &ix) < 0)
		return NULL;
	*ix = p->nprocs + 1;
	memset(&p->procs[p->nprocs], 0, sizeof(p->procs[0]));
	p->procs[p->nprocs].pid = (uint32_t)pid;
	return &p->procs[p->nprocs++];
}

static uint64_t chunk_key(const struct proc *pr, uint64_t addr)
{
	return (uint64_t)pr->pid << 26 | addr >> CHUNK_SHIFT;
}

static struct chunk *chunk_of(struct mt_pwf *p, const struct proc *pr, uint64_t addr, bool make)
{
	uint64_t key = chunk_key(pr, addr), *v = mt_map64_get(&p->chunks, key);
	struct chunk *c;

	if (v || !make)
		return v ? (struct chunk *)(uintptr_t)*v : NULL;
	c = calloc(1, sizeof(*c));
	if (!c || mt_map64_put(&p->chunks, key, &v) < 0) {
		free(c);
		p->st.nomem++;
		return NULL;
	}
	*v = (uint64_t)(uintptr_t)c;
	return c;
}

/* The first range of pr ending after addr (pr->n if none). */
static size_t first_after(const struct proc *pr, uint64_t addr)
{
	size_t lo = 0, hi = pr->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pr->r[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool tracked(const struct proc *pr, uint64_t addr)
{
	size_t i = first_after(pr, addr);

	return i < pr->n && pr->r[i].lo <= addr;
}

/* Whole pages of [addr, addr + len) in user space, or false (counted) for what cannot be. */
static bool pages(struct mt_pwf *p, uint64_t addr, uint64_t len, uint64_t *lo, uint64_t *hi)
{
	*lo = addr & ~(PAGE - 1);
	*hi = addr + len < addr ? USER_TOP : (addr + len + PAGE - 1) & ~(PAGE - 1);
	if (*hi <= *lo)
		return false;
	if (*hi > USER_TOP || *hi - *lo > MT_PWF_MAX_RANGE) {
		p->st.refused++;
		return false;
	}
	return true;
}

/* Room for one more range at i (the ones from i on move up); false (counted): no memory. */
static bool insert_at(struct mt_pwf *p, struct proc *pr, size_t i, struct range r)
{
	if (pr->n == pr->cap) {
		size_t cap = pr->cap ? 2 * pr->cap : 8;
		struct range *n = realloc(pr->r, cap * sizeof(*n));

		if (!n) {
			p->st.nomem++;
			return false;
		}
		pr->r = n;
		pr->cap = cap;
	}
	memmove(&pr->r[i + 1], &pr->r[i], (pr->n - i) * sizeof(pr->r[0]));
	pr->r[i] = r;
	pr->n++;
	return true;
}

static void add_range(struct mt_pwf *p, struct proc *pr, uint64_t lo, uint64_t hi)
{
	size_t i = first_after(pr, lo ? lo - 1 : 0), j = i;

	/* the ranges it overlaps or touches become one */
	while (j < pr->n && pr->r[j].lo <= hi) {
		if (pr->r[j].lo < lo)
			lo = pr->r[j].lo;
		if (pr->r[j].hi > hi)
			hi = pr->r[j].hi;
		j++;
	}
	if (j == i) {
		insert_at(p, pr, i, (struct range){ lo, hi });
		return;
	}
	memmove(&pr->r[i + 1], &pr->r[j], (pr->n - j) * sizeof(pr->r[0]));
	pr->n -= j - i - 1;
	pr->r[i] = (struct range){ lo, hi };
}

/* Forgets the state of the pages in [lo, hi): whole chunks are freed. */
static void clear_pages(struct mt_pwf *p, struct proc *pr, uint64_t lo, uint64_t hi)
{
	for (uint64_t c0 = lo & ~((1ull << CHUNK_SHIFT) - 1); c0 < hi; c0 += 1ull << CHUNK_SHIFT) {
		uint64_t a = c0 > lo ? c0 : lo, b = c0 + (1ull << CHUNK_SHIFT);
		struct chunk *c = chunk_of(p, pr, c0, false);

		if (!c)
			continue;
		if (a == c0 && b <= hi) {
			free(c);
			mt_map64_del(&p->chunks, chunk_key(pr, c0));
			continue;
		}
		b = b < hi ? b : hi;
		for (uint64_t x = a; x < b; x += PAGE) {
			c->st[(x >> 12) & (CHUNK_PAGES - 1)] = 0;
			c->seq[(x >> 12) & (CHUNK_PAGES - 1)] = 0;
		}
	}
}

static void remove_range(struct mt_pwf *p, struct proc *pr, uint64_t lo, uint64_t hi)
{
	size_t i = first_after(pr, lo);

	while (i < pr->n && pr->r[i].lo < hi) {
		struct range r = pr->r[i];

		if (r.lo < lo && r.hi > hi) { /* cut in two */
			if (insert_at(p, pr, i + 1, (struct range){ hi, r.hi }))
				pr->r[i].hi = lo;
			break;
		}
		if (r.lo < lo) {
			pr->r[i++].hi = lo;
		} else if (r.hi > hi) {
			pr->r[i].lo = hi;
			break;
		} else {
			memmove(&pr->r[i], &pr->r[i + 1], (pr->n - i - 1) * sizeof(pr->r[0]));
			pr->n--;
		}
	}
	clear_pages(p, pr, lo, hi);
}

/*
 * Applies op to every page of [lo, hi) inside a tracked range (chunks made as needed): ARM
 * sets a registration's protection, REARM adds a scan's, ZAP and FORK clear what is pending
 * (ZAP presence too), HUGE marks pages present (on a huge page: a fault split them), SETTLE
 * marks them written (present) and left unprotected by the scan that found them.
 */
enum op { ARM, REARM, ZAP, FORK, HUGE, SETTLE };

static void apply(struct mt_pwf *p, struct proc *pr, uint64_t lo, uint64_t hi, enum op op,
		  uint16_t seq)
{
	for (size_t i = first_after(pr, lo); i < pr->n && pr->r[i].lo < hi; i++) {
		uint64_t a = pr->r[i].lo > lo ? pr->r[i].lo : lo;
		uint64_t b = pr->r[i].hi < hi ? pr->r[i].hi : hi;
		struct chunk *c = NULL;

		for (uint64_t x = a; x < b; x += PAGE) {
			unsigned k = (unsigned)(x >> 12) & (CHUNK_PAGES - 1);
			uint8_t *st;

			if (!c || !k)
				c = chunk_of(p, pr, x, op != ZAP && op != FORK);
			if (!c) {
				x |= (1ull << CHUNK_SHIFT) - PAGE; /* none here: the next chunk */
				continue;
			}
			st = &c->st[k];
			switch (op) {
			case ARM:
				*st = PRESENT | 1;
				break;
			case REARM:
				/* a page not present had its own first fault to take before this one */
				if (!(*st & PRESENT))
					*st = 1;
				else if ((*st & PENDING) < PENDING)
					(*st)++;
				c->seq[k] = seq;
				break;
			case ZAP:
				*st = 0;
				break;
			case FORK:
				*st &= (uint8_t)~PENDING;
				break;
			case HUGE:
				*st |= PRESENT;
				break;
			case SETTLE:
				*st = PRESENT;
				c->seq[k] = 0;
				break;
			}
		}
	}
}

/* The walk a recorder scan at t (ioctl start) lasting d belongs to: its number. */
static uint16_t walk_of(struct proc *pr, uint64_t t, uint64_t d)
{
	struct walk *w;

	if (!d)
		return 0;
	if (!pr->seq || t != pr->walk_time) {
		pr->seq = (uint16_t)(pr->seq + 1 ? pr->seq + 1 : 1);
		pr->walk_time = t;
		pr->walks[pr->seq % NWIN] = (struct walk){ t, t + d, pr->seq };
	}
	w = &pr->walks[pr->seq % NWIN];
	if (t + d > w->hi)
		w->hi = t + d;
	return pr->seq;
}

static unsigned on_fault(struct mt_pwf *p, const uint64_t *v)
{
	struct proc *pr = proc_of(p, v[MT_F_PID], false);
	uint64_t addr = v[MT_F_FAULT_ADDR], t = v[MT_F_TIME];
	struct chunk *c;
	unsigned k, r = 0;
	uint8_t *st;

	if (!pr || addr >= USER_TOP || !tracked(pr, addr))
		return 0;
	c = chunk_of(p, pr, addr, true);
	if (!c)
		return 0;
	k = (unsigned)(addr >> 12) & (CHUNK_PAGES - 1);
	st = &c->st[k];
	if (v[MT_F_FAULT_KIND] == MT_FAULT_MINOR && (*st & PRESENT) && (*st & PENDING)) {
		(*st)--;
		r = MT_FAULT_TRACKING;
		p->st.tracking++;
	}
	*st |= PRESENT;
	if (c->seq[k]) {
		const struct walk *w = &pr->walks[c->seq[k] % NWIN];

		if (w->seq == c->seq[k] && t >= w->lo && t <= w->hi) {
			r |= MT_FAULT_TRACKING_UNCERTAIN;
			p->st.uncertain++;
		}
	}
	return r;
}

static void on_track(struct mt_pwf *p, struct proc *pr, uint64_t lo, uint64_t hi, uint64_t op)
{
	switch (op) {
	case MT_PT_ARMED:
		add_range(p, pr, lo, hi);
		apply(p, pr, lo, hi, ARM, 0);
		break;
	case MT_PT_HUGE:
		apply(p, pr, lo, hi, HUGE, 0);
		break;
	case MT_PT_ZAPPED:
		apply(p, pr, lo, hi, ZAP, 0);
		break;
	case MT_PT_RELEASED:
	case MT_PT_UNTRACKED_HUGE:
		remove_range(p, pr, lo, hi);
		break;
	}
}

/* A process's whole state goes (exec, exit): its ranges and pages. */
static void drop(struct mt_pwf *p, struct proc *pr)
{
	for (size_t i = 0; i < pr->n; i++)
		clear_pages(p, pr, pr->r[i].lo, pr->r[i].hi);
	pr->n = 0;
}

unsigned mt_pwf_event(struct mt_pwf *p, unsigned type, const uint64_t *v)
{
	struct proc *pr;
	uint64_t lo, hi;

	if (type == MT_EV_FAULT)
		return on_fault(p, v);
	switch (type) {
	case MT_EV_PW_RANGE:
		if (v[MT_F_PWR_WP] == MT_LABEL_WP_TRACKED &&
		    pages(p, v[MT_F_PWR_ADDR], v[MT_F_PWR_LEN], &lo, &hi) &&
		    (pr = proc_of(p, v[MT_F_PID], true)))
			add_range(p, pr, lo, hi);
		break;
	case MT_EV_LABEL:
		if (v[MT_F_LABEL_OP] == MT_LABEL_SET && v[MT_F_LABEL_WP] == MT_LABEL_WP_TRACKED &&
		    pages(p, v[MT_F_LABEL_ADDR], v[MT_F_LABEL_LEN], &lo, &hi) &&
		    (pr = proc_of(p, v[MT_F_PID], true)))
			add_range(p, pr, lo, hi);
		break;
	case MT_EV_PAGE_TRACK:
		if (pages(p, v[MT_F_PT_ADDR], v[MT_F_PT_LEN], &lo, &hi) &&
		    (pr = proc_of(p, v[MT_F_PID], v[MT_F_PT_OP] == MT_PT_ARMED)))
			on_track(p, pr, lo, hi, v[MT_F_PT_OP]);
		break;
	case MT_EV_PAGE_WRITE:
		if (pages(p, v[MT_F_PW_ADDR], v[MT_F_PW_LEN], &lo, &hi) &&
		    (pr = proc_of(p, v[MT_F_PID], false)))
			apply(p, pr, lo, hi, v[MT_F_PW_SETTLED] ? SETTLE : REARM,
			      v[MT_F_PW_SETTLED] ? 0
						 : walk_of(pr, v[MT_F_TIME], v[MT_F_PW_SCAN_NS]));
		break;
	case MT_EV_MUNMAP:
		if (pages(p, v[MT_F_MUNMAP_ADDR], v[MT_F_MUNMAP_LEN], &lo, &hi) &&
		    (pr = proc_of(p, v[MT_F_PID], false)))
			remove_range(p, pr, lo, hi);
		break;
	case MT_EV_MREMAP:
		if (pages(p, v[MT_F_MREMAP_OLD_ADDR], v[MT_F_MREMAP_OLD_LEN], &lo, &hi) &&
		    (pr = proc_of(p, v[MT_F_PID], false)))
			remove_range(p, pr, lo, hi);
		break;
	case MT_EV_TASK_NEW:
		/* a fork: the parent's pages are copy-on-write, so their next write faults bare
		 * too, and it clears the protection; the child has no registration */
		if (v[MT_F_NEW_KIND] == MT_TASK_PROCESS &&
		    (pr = proc_of(p, v[MT_F_NEW_PPID], false)))
			for (size_t i = 0; i < pr->n; i++)
				apply(p, pr, pr->r[i].lo, pr->r[i].hi, FORK, 0);
		if (v[MT_F_NEW_KIND] != MT_TASK_THREAD && (pr = proc_of(p, v[MT_F_PID], false)))
			drop(p, pr); /* a new process under a pid used before */
		break;
	case MT_EV_TASK_EXEC:
		if ((pr = proc_of(p, v[MT_F_PID], false)))
			drop(p, pr);
		break;
	case MT_EV_TASK_EXIT:
		if (v[MT_F_EXIT_KIND] == MT_TASK_PROCESS && (pr = proc_of(p, v[MT_F_PID], false)))
			drop(p, pr);
		break;
	}
	return 0;
}
