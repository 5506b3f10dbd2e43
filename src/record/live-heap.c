/* SPDX-License-Identifier: MIT */
/*
 * Heap in use and allocation sites for memtap top, from the runtime's allocation events as
 * they go into the trace: each block followed from its allocation to its free (memray's
 * live mode does the same), each site by its stack id, and the stack nodes and Python
 * functions kept to name the hottest sites. A block allocated before the runtime came up
 * (an attached process) is not known: its free is ignored, so the figure is the heap
 * allocated since then and still in use.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "format/block.h"
#include "record/live-internal.h"
#include "record/live.h"
#include "record/session.h"

/* A block's value: site << 40 | usable bytes. */
#define SITE_NONE 0xffffffu /* a block of no site: the site bound was reached */
#define USABLE_MASK ((1ull << 40) - 1)
#define SITES_SHOWN 16
#define PREFETCH_AHEAD 8
#define WALK_MAX 512 /* nodes walked to find a site's innermost Python frame */

/* ---- a process's heap ---- */

void mt_live_heap_free(struct mt_live *l, struct live_heap *h)
{
	if (!h)
		return;
	l->blocks -= h->blocks.len;
	l->sites -= h->nsites;
	l->nodes -= h->nnodes;
	l->pystr -= h->pylen;
	mt_addr_release(&h->blocks);
	free(h->site_by_stack);
	mt_map64_release(&h->site_ix);
	mt_map64_release(&h->pyfn);
	free(h->sites);
	free(h->parent);
	free(h->ip);
	free(h->pystr);
	free(h);
}

/* pid's heap state for the connection stream: a new stream (an exec) starts afresh. */
static struct live_heap *heap_of(struct mt_live *l, pid_t pid, uint32_t stream)
{
	struct live_proc *p = mt_live_proc(l, pid);

	if (!p)
		return NULL;
	if (p->heap && p->heap->stream != stream) {
		mt_live_heap_free(l, p->heap);
		p->heap = NULL;
	}
	if (!p->heap && (p->heap = calloc(1, sizeof(*p->heap)))) {
		p->heap->stream = stream;
		mt_map64_init(&p->heap->site_ix);
		mt_map64_init(&p->heap->pyfn);
	}
	return p->heap;
}

/* The site of a stack id: stack ids are dense (trie nodes from 1), so most are found in an
 * array; the rest in a map. SITE_NONE past the bound. */
static uint32_t site_of(struct mt_live *l, struct live_heap *h, uint32_t stack)
{
	uint32_t *slot = NULL;
	uint64_t *ix = NULL;

	if (stack < LIVE_NODES_MAX) {
		size_t had = h->sbs_cap;

		if (stack >= h->sbs_cap) {
			if (mt_grow_array(&h->site_by_stack, &h->sbs_cap, (size_t)stack + 1,
					  sizeof(*h->site_by_stack)) < 0)
				goto full;
			memset(h->site_by_stack + had, 0,
			       (h->sbs_cap - had) * sizeof(*h->site_by_stack));
		}
		slot = &h->site_by_stack[stack];
		if (*slot) /* index + 1 */
			return *slot - 1;
	} else if ((ix = mt_map64_get(&h->site_ix, stack))) {
		return (uint32_t)*ix;
	}
	if (l->sites >= LIVE_SITES_MAX ||
	    mt_grow_array(&h->sites, &h->sites_cap, h->nsites + 1, sizeof(*h->sites)) < 0 ||
	    (!slot && mt_map64_put(&h->site_ix, stack, &ix) < 0))
		goto full;
	memset(&h->sites[h->nsites], 0, sizeof(h->sites[0]));
	h->sites[h->nsites].stack = stack;
	l->sites++;
	if (slot)
		*slot = (uint32_t)h->nsites + 1;
	else
		*ix = h->nsites;
	return (uint32_t)h->nsites++;
full:
	h->partial = true;
	return SITE_NONE;
}

/* A block's value out of the figures. */
static void block_drop(struct live_heap *h, uint64_t v)
{
	uint64_t usable = v & USABLE_MASK, site = v >> 40;

	h->live -= usable;
	h->nlive--;
	if (site != SITE_NONE) {
		h->sites[site].live -= usable;
		h->sites[site].nlive--;
	}
}

static void block_gone(struct mt_live *l, struct live_heap *h, uint64_t addr)
{
	size_t i = addr ? mt_addr_find(&h->blocks, addr) : SIZE_MAX;

	if (i == SIZE_MAX)
		return; /* allocated before the runtime came up, or past the bound */
	block_drop(h, h->blocks.v[i].val);
	mt_addr_del_at(&h->blocks, i);
	l->blocks--;
}

static void block_new(struct mt_live *l, struct live_heap *h, uint64_t addr, uint64_t usable,
		      uint32_t site)
{
	uint64_t *v;
	bool fresh;

	if (usable > USABLE_MASK)
		usable = USABLE_MASK;
	if (l->blocks >= LIVE_BLOCKS_MAX || !(v = mt_addr_put(&h->blocks, addr, &fresh))) {
		h->partial = true;
		return;
	}
	if (!fresh)
		block_drop(h, *v); /* its free was lost: the old block is gone */
	else
		l->blocks++;
	*v = (uint64_t)site << 40 | usable;
	h->live += usable;
	h->nlive++;
	if (site != SITE_NONE) {
		h->sites[site].live += usable;
		h->sites[site].nlive++;
	}
}

void mt_live_allocs(struct mt_session *s, pid_t pid, uint32_t stream, const struct mt_block *b,
		    uint32_t from)
{
	struct mt_live *l = s->livefig;
	struct live_heap *h;

	if (!l || from >= b->count || !(h = heap_of(l, pid, stream)))
		return;
	for (uint32_t k = from; k < b->count; k++) {
		uint64_t kind = b->col[MT_F_ALLOC_KIND][k], addr = b->col[MT_F_ALLOC_ADDR][k];
		uint32_t site;

		/* The table is larger than the caches: its line for a row a few ahead is
		 * fetched while this one is done. */
		if (k + PREFETCH_AHEAD < b->count)
			mt_addr_prefetch(&h->blocks, b->col[MT_F_ALLOC_ADDR][k + PREFETCH_AHEAD]);

		if (kind == MT_ALLOC_FREE) {
			block_gone(l, h, addr);
			continue;
		}
		if (kind == MT_ALLOC_REALLOC || kind == MT_ALLOC_REALLOCARRAY)
			block_gone(l, h, b->col[MT_F_ALLOC_OLD][k]);
		h->calls++;
		h->bytes += b->col[MT_F_ALLOC_SIZE][k];
		site = site_of(l, h, (uint32_t)b->col[MT_F_ALLOC_STACK][k]);
		if (site != SITE_NONE) {
			h->sites[site].calls++;
			h->sites[site].bytes += b->col[MT_F_ALLOC_SIZE][k];
		}
		if (addr)
			block_new(l, h, addr, b->col[MT_F_ALLOC_USABLE][k], site);
	}
}

void mt_live_nodes(struct mt_session *s, pid_t pid, uint32_t stream, uint64_t first, size_t n,
		   const uint64_t *parents, const uint64_t *ips)
{
	struct mt_live *l = s->livefig;
	struct live_heap *h;
	size_t cap;

	/* Ids are consecutive from 1: past the bound (or a gap) the sites of newer stacks are
	 * published without frames, said so (print_site); the heap figures stay exact. */
	if (!l || !n || !(h = heap_of(l, pid, stream)) || first != h->nnodes + 1 ||
	    l->nodes + n > LIVE_NODES_MAX)
		return;
	cap = h->nodes_cap;
	if (mt_grow_array(&h->ip, &cap, h->nnodes + n, sizeof(*h->ip)) < 0 ||
	    mt_grow_array(&h->parent, &h->nodes_cap, h->nnodes + n, sizeof(*h->parent)) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		h->parent[h->nnodes + i] = (uint32_t)parents[i];
		h->ip[h->nnodes + i] = ips[i];
	}
	h->nnodes += n;
	l->nodes += n;
}

void mt_live_pyfunc(struct mt_session *s, pid_t pid, uint32_t stream, uint64_t id, const char *name,
		    size_t nlen, const char *file, size_t flen)
{
	struct mt_live *l = s->livefig;
	struct live_heap *h;
	size_t need = nlen + flen + 2;
	uint64_t *off;

	if (!l || !(h = heap_of(l, pid, stream)) || l->pystr + need > LIVE_PYSTR_MAX ||
	    mt_grow_array(&h->pystr, &h->pycap, h->pylen + need, 1) < 0 ||
	    mt_map64_put(&h->pyfn, id, &off) < 0)
		return;
	*off = h->pylen + 1;
	memcpy(h->pystr + h->pylen, name, nlen);
	h->pystr[h->pylen + nlen] = 0;
	memcpy(h->pystr + h->pylen + nlen + 1, file, flen);
	h->pystr[h->pylen + need - 1] = 0;
	h->pylen += need;
	l->pystr += need;
}

/* "function (file:line)" of a Python frame's ip, or "" when its function is not known. */
static const char *py_label(const struct live_heap *h, uint64_t ip, char *buf, size_t size)
{
	uint64_t id = (ip & ~MT_PY_FRAME_BIT) >> MT_PY_FRAME_LINE_BITS;
	uint64_t *off = mt_map64_get(&h->pyfn, id);
	const char *name, *file, *base;

	buf[0] = 0;
	if (!off)
		return buf;
	name = h->pystr + *off - 1;
	file = name + strlen(name) + 1;
	base = strrchr(file, '/');
	snprintf(buf, size, "%s (%s:%u)", name[0] ? name : "?", base ? base + 1 : file,
		 (unsigned)(ip & ((1ull << MT_PY_FRAME_LINE_BITS) - 1)));
	return buf;
}

/*
 * One line per shown site: "site PID LIVE NLIVE CALLS BYTES IP0 IP1 LABEL": the two
 * innermost native frames' return addresses (0: none, or not kept) for memtap top to
 * symbolize, and the innermost Python frame as "function (file:line)" (may be empty).
 */
static void print_site(FILE *f, pid_t pid, const struct live_heap *h, const struct live_site *st)
{
	uint64_t ip[2] = { 0, 0 }, id = st->stack;
	char py[256] = "";
	unsigned native = 0;

	for (int walk = 0; id && id <= h->nnodes && walk < WALK_MAX; walk++) {
		uint64_t x = h->ip[id - 1];

		if (mt_stack_is_ref(x)) { /* the innermost native frames of another stack */
			uint64_t n = MT_STACK_REF_NODE(x);

			for (unsigned c = MT_STACK_REF_COUNT(x); c && n && n < id && native < 2;
			     c--) {
				ip[native++] = h->ip[n - 1];
				n = h->parent[n - 1];
			}
		} else if (x & MT_PY_FRAME_BIT) {
			if (py_label(h, x, py, sizeof(py))[0])
				break;
		} else if (native < 2) {
			ip[native++] = x;
		}
		if (native == 2 && walk > 64)
			break; /* deep native stacks: no Python frame near */
		id = h->parent[id - 1];
	}
	if (st->stack > h->nnodes)
		snprintf(py, sizeof(py), "(frames beyond the live view's bound)");
	for (char *c = py; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	fprintf(f,
		"site %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIx64 " %" PRIx64
		" %s\n",
		(int)pid, st->live, st->nlive, st->calls, st->bytes, ip[0], ip[1], py);
}

struct site_ref {
	pid_t pid;
	const struct live_heap *h;
	const struct live_site *s;
};

static int by_live(const void *a, const void *b)
{
	const struct site_ref *x = a, *y = b;

	if (x->s->live != y->s->live)
		return x->s->live < y->s->live ? 1 : -1;
	return x->s->calls < y->s->calls ? 1 : x->s->calls > y->s->calls ? -1 : 0;
}

/* The processes' heap lines and the sites with the most bytes live, all processes. */
void mt_live_heap_print(struct mt_live *l, FILE *f)
{
	struct site_ref top[SITES_SHOWN + 1];
	size_t ntop = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct live_proc *p = &l->v[i];
		const struct live_heap *h = p->heap;

		if (!h)
			continue;
		fprintf(f, "heap %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n",
			(int)p->pid, h->live, h->nlive, h->calls, h->bytes, h->partial ? 1 : 0);
		/* insertion into a short sorted list: the sites are many, the shown few */
		for (size_t k = 0; k < h->nsites; k++) {
			struct site_ref r = { p->pid, h, &h->sites[k] };
			size_t at = ntop;

			if (!r.s->calls)
				continue;
			while (at > 0 && by_live(&r, &top[at - 1]) < 0)
				at--;
			if (at >= SITES_SHOWN)
				continue;
			memmove(&top[at + 1], &top[at], (ntop - at) * sizeof(top[0]));
			top[at] = r;
			if (ntop < SITES_SHOWN)
				ntop++;
		}
	}
	for (size_t i = 0; i < ntop; i++)
		print_site(f, top[i].pid, top[i].h, top[i].s);
}
