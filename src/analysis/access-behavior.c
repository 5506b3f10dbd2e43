/* SPDX-License-Identifier: MIT */
/* Memory behaviour as the access pass meets events: types, windows, phases, pages, intervals, reuse. */
#include "analysis/access-internal.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/array.h"
#include "common/hash.h"
#include "analysis/own.h"
#include "analysis/rules.h"
#include "analysis/symbols.h"
#include "analysis/pass.h"
#include "format/reader.h"
#include "format/schema.h"

void mt_acc_iai_free(struct iai_table *t)
{
	if (t->v)
		munmap(t->v, t->cap * sizeof(*t->v));
	memset(t, 0, sizeof(*t));
}

static int iai_alloc(struct iai_table *t, size_t cap)
{
	void *p = mmap(NULL, cap * sizeof(*t->v), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	if (cap * sizeof(*t->v) >= (2u << 20))
		(void)madvise(p, cap * sizeof(*t->v), MADV_HUGEPAGE); /* fewer TLB misses */
	t->v = p;
	t->cap = cap;
	t->len = 0;
	return 0;
}

static struct iai_slot *iai_find(const struct iai_table *t, uint64_t key, uint64_t h)
{
	size_t mask = t->cap - 1, i = h & mask;

	while (t->v[i].key != key && t->v[i].key)
		i = (i + 1) & mask;
	return &t->v[i];
}

/* Into n, the slots of t still followed. */
static void iai_move(struct iai_table *n, const struct iai_table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t h;

		if (!t->v[i].key)
			continue;
		h = mt_hash_u64(t->v[i].key);
		if (!iai_followed(n, h))
			continue;
		*iai_find(n, t->v[i].key, h) = t->v[i];
		n->len++;
	}
}

/* The slot of key (hash h), made (key set, val 0) when absent; NULL when the address is not
 * followed or memory is short. */
static struct iai_slot *iai_get(struct iai_table *t, uint64_t key, uint64_t h, bool *fresh)
{
	struct iai_slot *s;

	if (!t->v && iai_alloc(t, 1u << 16) < 0)
		return NULL;
	if (!iai_followed(t, h))
		return NULL;
	while ((t->len + 1) * 2 > t->cap) {
		struct iai_table n = { 0 };

		if (iai_alloc(&n, t->cap < IAI_MAX_SLOTS ? t->cap * 2 : t->cap) < 0)
			return NULL;
		n.k = t->k + (t->cap >= IAI_MAX_SLOTS); /* full: follow half as many */
		iai_move(&n, t);
		mt_acc_iai_free(t);
		*t = n;
		if (!iai_followed(t, h))
			return NULL;
	}
	s = iai_find(t, key, h);
	*fresh = !s->key;
	if (*fresh) {
		s->key = key;
		s->val = 0;
		t->len++;
	}
	return s;
}

static struct page_slot *pt_find(const struct page_table *t, uint64_t key)
{
	size_t mask = t->cap - 1, i = mt_hash_u64(key) & mask;

	while (t->v[i].key != key && t->v[i].key)
		i = (i + 1) & mask;
	return &t->v[i];
}

static int pt_grow(struct page_table *t)
{
	struct page_table n = { .cap = t->cap ? t->cap * 2 : 1024 };

	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].key)
			*pt_find(&n, t->v[i].key) = t->v[i];
	n.len = t->len;
	free(t->v);
	*t = n;
	return 0;
}

/* ---- memory behaviour: types, windows, phases, page writes (docs/metrics.md) ---- */

const char *mt_wo_basis_name(unsigned b)
{
	static const char *const n[] = { "unknown", "read-only", "page-writes" };

	return b < 3 ? n[b] : "?";
}

/* The rule (from --rules or a profile) that types g, or NULL: a glob on a mapping's path, or a
 * regex on any function of its allocation site's stack (symbolized once per site). */
static const struct mt_rule *rule_of(struct pass *ps, const struct mt_access_region *g)
{
	const struct mt_rule *rule = NULL;

	if (g->site >= 0) {
		struct mt_access_site *s = &ps->st->sites[g->site];
		uint64_t ips[64];
		const char *names[256];
		size_t nn = 0;
		int n;

		if (s->rule_checked)
			return s->rule;
		s->rule_checked = true;
		if (!ps->o.sym || !s->stack)
			return NULL;
		n = mt_reader_stack(ps->r, s->stream, s->stack, ips, 64);
		for (int i = 0; i < n && nn < 256; i++) {
			const struct mt_frame *fr;
			int k = mt_sym_resolve(ps->o.sym, s->pid, s->first_ns, ips[i], true, &fr);

			for (int f = 0; f < k && nn < 256; f++)
				if (fr[f].function)
					names[nn++] = fr[f].function;
		}
		s->rule = mt_rules_match_symbols(ps->o.rules, names, nn);
		return s->rule;
	}
	if (g->label)
		rule = mt_rules_match_path(ps->o.rules,
					   mt_reader_str(ps->r, g->stream, g->label, NULL));
	return rule;
}

/* The region's type index: its label's region type, or its built-in type's name. */
int32_t mt_acc_type_named(struct pass *ps, const char *name)
{
	struct mt_access_stats *st = ps->st;
	size_t i;

	for (i = 0; i < st->ntypes; i++)
		if (!strcmp(st->types[i].name, name))
			return (int32_t)i;
	{
		char *dup = strdup(name);

		if (!dup || mt_grow_array(&st->types, &ps->types_cap, st->ntypes + 1,
					  sizeof(*st->types)) < 0) {
			free(dup);
			return -1;
		}
		st->types[i] = (struct mt_type_metrics){ .name = dup, .write_once = -1 };
		st->ntypes++;
	}
	return (int32_t)i;
}

int32_t mt_acc_type_of(struct pass *ps, uint32_t reg)
{
	struct mt_access_stats *st = ps->st;
	struct mt_access_region *g = &st->regions[reg];
	const char *name = NULL;

	if (g->b.type_ix >= 0)
		return g->b.type_ix;
	if (g->type == MT_REGION_LABEL)
		name = mt_reader_str(ps->r, g->stream, g->user_type, NULL);
	else if (ps->o.rules && (g->b.typed_by = rule_of(ps, g)))
		name = g->b.typed_by->region_type;
	if (name && name[0] && g->type != MT_REGION_LABEL)
		st->rule_regions++;
	if (!name || !name[0])
		name = mt_region_type_name(g->type);
	g->b.type_ix = mt_acc_type_named(ps, name);
	return g->b.type_ix;
}

uint32_t mt_acc_phase_index(struct pass *ps, const char *name)
{
	struct mt_access_stats *st = ps->st;
	size_t i;

	for (i = 0; i < st->nphases; i++)
		if (!strcmp(st->phases[i].name, name))
			return (uint32_t)i;
	{
		char *dup = strdup(name);

		if (!dup || mt_grow_array(&st->phases, &ps->phases_cap, st->nphases + 1,
					  sizeof(*st->phases)) < 0) {
			free(dup);
			return 0;
		}
		st->phases[i] = (struct mt_phase_stats){ .name = dup };
		st->nphases++;
	}
	return (uint32_t)i;
}

void mt_acc_fold_wss(uint64_t *cur, uint64_t *peak, double *sum, uint64_t *windows)
{
	if (!*cur)
		return;
	if (*cur > *peak)
		*peak = *cur;
	*sum += (double)*cur;
	(*windows)++;
	*cur = 0;
}

/* Closes the current working-set window. */
void mt_acc_flush_window(struct pass *ps)
{
	struct mt_access_stats *st = ps->st;

	if (ps->cur_pages &&
	    mt_grow_array(&st->wss, &ps->wss_cap, st->nwss + 1, sizeof(*st->wss)) == 0) {
		st->wss[st->nwss++] =
			(struct mt_wss_point){ (ps->window - 1) * ps->o.window_ns, ps->cur_pages };
		if (ps->cur_pages > st->wss_peak_pages)
			st->wss_peak_pages = ps->cur_pages;
	}
	ps->cur_pages = 0;
	for (size_t i = 0; i < st->ntypes; i++) {
		struct mt_type_metrics *m = &st->types[i];

		mt_acc_fold_wss(&m->cur_pages, &m->wss_peak_pages, &m->wss_sum, &m->wss_windows);
	}
}

/* The id of phase ph's window at time t, closing the open one if t is past it: windows
 * follow each other from the phase's entry; after a gap of a window or more the next one
 * starts at t. */
static uint64_t phase_window(struct pass *ps, uint32_t ph, uint64_t t)
{
	struct mt_phase_stats *p = &ps->st->phases[ph];
	uint64_t w = ps->o.window_ns;

	/* events of neighbouring chunks may come a little out of order: t before the start
	 * counts in the open window */
	if (p->win_id && (t < p->win_start || t - p->win_start < w))
		return p->win_id;
	mt_acc_fold_wss(&p->cur_pages, &p->wss_peak_pages, &p->wss_sum, &p->wss_windows);
	p->win_start = p->win_id && t - p->win_start < 2 * w ? p->win_start + w : t;
	p->win_id = ++ps->phase_windows;
	return p->win_id;
}

void mt_acc_window_to(struct pass *ps, uint64_t t)
{
	uint64_t w;

	if (t < ps->st->t0)
		t = ps->st->t0; /* blocks of different chunks may overlap a little */
	w = (t - ps->st->t0) / ps->o.window_ns + 1;
	if (w == ps->window)
		return;
	if (ps->window)
		mt_acc_flush_window(ps);
	ps->window = w;
}

/* The page's entry (made on first use), valid until the next page_of; NULL without memory. */
struct mt_access_page *mt_acc_page_of(struct pass *ps, uint32_t pid, uint64_t addr, uint32_t reg,
				      int64_t site)
{
	struct page_table *t = &ps->pages;
	uint64_t key = page_key(pid, addr);
	struct page_slot *sl;

	if ((t->len + 1) * 2 > t->cap && pt_grow(t) < 0)
		return NULL;
	sl = pt_find(t, key);
	if (!sl->key) {
		sl->key = key;
		sl->seq = t->len;
		sl->p = (struct mt_access_page){
			.pid = pid, .page = addr & ~0xfffull, .region = reg, .site = (int32_t)site
		};
		t->len++;
	}
	return &sl->p;
}

/* A page was touched at t in the current window (an access, a fault, a written epoch). */
void mt_acc_touch(struct pass *ps, struct mt_access_page *pg, uint32_t reg, uint32_t phase,
		  uint64_t t)
{
	struct mt_access_stats *st = ps->st;
	struct mt_region_behavior *b;
	uint64_t pw = phase_window(ps, phase, t);
	int32_t tix;

	/* The common case, a page already counted in this window for this region (and phase):
	 * nothing to do. A page can be touched through two regions in one window (a label made
	 * over memory touched before it): each region counts it. */
	if (pg->last_window == ps->window && pg->last_reg == reg + 1 &&
	    pg->last_phase_window == pw && pg->last_phase == phase)
		return;
	tix = mt_acc_type_of(ps, reg);
	b = &st->regions[reg].b;
	if (b->cur_window != ps->window) {
		if (b->cur_pages > b->wss_peak_pages)
			b->wss_peak_pages = b->cur_pages;
		b->cur_pages = 0;
		b->cur_window = ps->window;
	}
	if (pg->last_window != ps->window || pg->last_reg != reg + 1) {
		if (pg->last_window != ps->window)
			ps->cur_pages++; /* the process's working set counts each page once */
		pg->last_window = ps->window;
		pg->last_reg = reg + 1;
		b->cur_pages++;
		if (tix >= 0)
			st->types[tix].cur_pages++;
	}
	if (pg->last_phase_window != pw || pg->last_phase != phase) {
		pg->last_phase_window = pw;
		pg->last_phase = phase;
		st->phases[phase].cur_pages++;
	}
}

static void iai(struct pass *ps, uint32_t pid, uint64_t addr, uint64_t t, int32_t tix)
{
	struct mt_access_stats *st = ps->st;
	uint64_t key = iai_key(pid, addr), h = mt_hash_u64(key);
	uint64_t rel = t - st->t0;
	struct iai_slot *s;
	bool fresh;

	if (tix < 0 || tix > 0xfff || !key)
		return;
	s = iai_get(&ps->iai, key, h, &fresh);
	if (!s)
		return;
	if (!fresh && (s->val & 0xfff) == (uint64_t)tix && rel > s->val >> 12)
		mt_qs_add_w(&st->types[tix].iai, rel - (s->val >> 12), 1ull << ps->iai.k);
	s->val = rel << 12 | (uint64_t)tix;
}

/* pi: the page's entry, or SIZE_MAX. */
static void bit_add(uint32_t *bit, size_t i, int d)
{
	for (i++; i <= RD_WINDOW; i += i & -i)
		bit[i] = (uint32_t)((int64_t)bit[i] + d);
}

/* Markers at positions 0..i (mod-window positions). */
static uint64_t bit_sum(const uint32_t *bit, size_t i)
{
	uint64_t s = 0;

	for (i++; i; i -= i & -i)
		s += bit[i];
	return s;
}

/* Markers at window positions of the samples after j and before n. */
static uint64_t marks_between(const struct reuse *rd, uint64_t j, uint64_t n)
{
	size_t a, b;

	if (n - j < 2)
		return 0;
	a = (size_t)((j + 1) % RD_WINDOW);
	b = (size_t)((n - 1) % RD_WINDOW);
	if (a <= b)
		return bit_sum(rd->bit, b) - (a ? bit_sum(rd->bit, a - 1) : 0);
	return bit_sum(rd->bit, RD_WINDOW - 1) - bit_sum(rd->bit, a - 1) + bit_sum(rd->bit, b);
}

static void reuse(struct pass *ps, uint32_t pid, uint64_t addr, int32_t tix)
{
	struct reuse *rd = &ps->rd;
	struct mt_type_metrics *m = &ps->st->types[tix];
	uint64_t key = (uint64_t)(pid & 0x7fffff) << 41 | (addr >> 6 & ((1ull << 41) - 1)), *v;
	size_t before, slot;

	if (mt_hash_u64(key ^ 0x9e3779b97f4a7c15ull) % RD_RATE)
		return; /* not a followed line */
	if (!rd->bit) {
		rd->bit = calloc(RD_WINDOW + 1, sizeof(*rd->bit));
		rd->mark = calloc(RD_WINDOW, 1);
		if (!rd->bit || !rd->mark) {
			free(rd->bit);
			free(rd->mark);
			rd->bit = NULL;
			rd->mark = NULL;
			return;
		}
	}
	if (rd->last.len >= RD_MAX_LINES) {
		mt_map64_release(&rd->last);
		mt_map64_init(&rd->last);
		ps->st->reuse_resets++;
	}
	slot = (size_t)(rd->n % RD_WINDOW);
	if (rd->mark[slot]) { /* the sample RD_WINDOW ago leaves the window */
		rd->mark[slot] = 0;
		bit_add(rd->bit, slot, -1);
	}
	before = rd->last.len;
	if (mt_map64_put(&rd->last, key, &v) < 0)
		return;
	if (rd->last.len == before) {
		uint64_t j = *v;

		if (rd->n - j < RD_WINDOW) {
			mt_qs_add(&m->reuse, marks_between(rd, j, rd->n) * RD_RATE);
			if (rd->mark[j % RD_WINDOW]) {
				rd->mark[j % RD_WINDOW] = 0;
				bit_add(rd->bit, (size_t)(j % RD_WINDOW), -1);
			}
		} else {
			m->reuse_far++;
		}
	} else {
		m->reuse_cold++;
	}
	rd->mark[slot] = 1;
	bit_add(rd->bit, slot, 1);
	*v = rd->n++;
}

/* The phase a --rules phase rule gives the code at ip (its function or an inlined one),
 * or 0; resolved once per (process, address). */
static uint32_t rule_phase(struct pass *ps, uint32_t pid, uint64_t ip, uint64_t t)
{
	const uint64_t nomatch = 1ull << 63;
	uint64_t key = (uint64_t)(pid & 0x1ffff) << 47 | (ip & ((1ull << 47) - 1)), *v;
	const struct mt_phase_rule *rule;
	const struct mt_frame *fr;
	const char *names[32];
	size_t nn = 0;
	int k;

	if (!ip || mt_map64_put(&ps->ip_phase, key, &v) < 0)
		return 0;
	if (*v)
		return *v == nomatch ? 0 : (uint32_t)(*v - 1);
	k = mt_sym_resolve(ps->o.sym, pid, t, ip, false, &fr);
	for (int f = 0; f < k && nn < 32; f++)
		if (fr[f].function)
			names[nn++] = fr[f].function;
	rule = mt_rules_match_phase(ps->o.rules, names, nn);
	if (!rule) {
		*v = nomatch;
		return 0;
	}
	{
		uint32_t ph = mt_acc_phase_index(ps, rule->phase);

		ps->st->phases[ph].by_rule = true;
		*v = (uint64_t)ph + 1;
		return ph;
	}
}

void mt_acc_emit_row(struct pass *ps, const struct mt_event *ev, const char *op, uint64_t addr,
		     uint64_t ip, uint64_t weight, uint32_t reg, int32_t tix, int64_t site,
		     uint32_t phase)
{
	struct mt_access_stats *st = ps->st;
	struct mt_access_row r = {
		.time_ns = ev->v[MT_F_TIME],
		.addr = addr,
		.ip = ip,
		.weight = weight,
		.pid = (uint32_t)ev->v[MT_F_PID],
		.tid = (uint32_t)ev->v[MT_F_TID],
		.op = op,
		.has_region = true,
		.region_id = reg,
		.region_type = tix >= 0 ? st->types[tix].name
					: mt_region_type_name(st->regions[reg].type),
		.site = site,
		.phase = phase < st->nphases ? st->phases[phase].name : "",
	};

	ps->o.row(ps->o.row_ctx, &r);
}

void mt_acc_behave_access(struct pass *ps, uint32_t reg, struct mt_access_page *pg, int64_t site,
			  const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	struct mt_access_region *g = &st->regions[reg];
	struct mt_region_behavior *b = &g->b;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t addr = ev->v[MT_F_ACCESS_ADDR], t = ev->v[MT_F_TIME];
	struct proc *pr = mt_acc_proc_of(ps, pid);
	int32_t tix = mt_acc_type_of(ps, reg);
	uint32_t phase;

	b = &st->regions[reg].b;
	if (ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD) {
		if (!b->first_read_ns)
			b->first_read_ns = t;
		b->last_read_ns = t;
	} else {
		if (!b->first_write_ns)
			b->first_write_ns = t;
		b->last_write_ns = t;
	}
	/* Locality within one mapping or block: the catch-all of unmapped addresses has none. */
	if (g->c.samples > 1 &&
	    g->type != MT_REGION_UNKNOWN) { /* mt_acc_count() counted this one */
		uint64_t stride = addr > b->last_addr ? addr - b->last_addr : b->last_addr - addr;

		b->strides++;
		b->same_page += addr >> 12 == b->last_addr >> 12;
		if (!b->stride_settled) /* samples after its end (a stale label) go uncounted */
			mt_qs_add(&b->stride, stride);
	}
	b->last_addr = addr;
	iai(ps, pid, addr, t, tix);
	if (tix >= 0)
		reuse(ps, pid, addr, tix);
	phase = pr ? pr->phase : 0;
	if (ps->o.rules && ps->o.rules->nph && ps->o.sym) {
		uint32_t rp = rule_phase(ps, pid, ev->v[MT_F_ACCESS_IP], t);

		if (rp)
			phase = rp;
	}
	{
		struct mt_phase_stats *p = &st->phases[phase];

		p->samples++;
		if (ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD)
			p->reads += ev->v[MT_F_ACCESS_WEIGHT];
		else
			p->writes += ev->v[MT_F_ACCESS_WEIGHT];
	}
	if (pg)
		mt_acc_touch(ps, pg, reg, phase, t);
	if (ps->o.row)
		mt_acc_emit_row(ps, ev,
				ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD ? "load" : "store", addr,
				ev->v[MT_F_ACCESS_IP], ev->v[MT_F_ACCESS_WEIGHT], reg, tix, site,
				phase);
}

static struct mt_refresh *refresh_of(struct mt_access_stats *st, struct mt_region_behavior *b)
{
	if (!b->refresh_ix) {
		if (st->nrefresh == st->refresh_cap) {
			size_t cap = st->refresh_cap ? st->refresh_cap * 2 : 64;
			struct mt_refresh *v = realloc(st->refresh, cap * sizeof(*v));

			if (!v)
				return NULL;
			st->refresh = v;
			st->refresh_cap = cap;
		}
		memset(&st->refresh[st->nrefresh], 0, sizeof(*st->refresh));
		b->refresh_ix = (uint32_t)++st->nrefresh;
	}
	return &st->refresh[b->refresh_ix - 1];
}

/* The data a page got in (s1, t1] and kept until (s2, t2]: its rewrites per window. */
static void refresh_add(struct mt_access_stats *st, struct mt_region_behavior *b, uint64_t s1,
			uint64_t t1, uint64_t s2, uint64_t t2)
{
	uint64_t m1 = s1 + (t1 - s1) / 2, m2 = s2 + (t2 - s2) / 2;
	struct mt_refresh *f;

	if (!st->nretention)
		return;
	f = refresh_of(st, b);
	if (!f) {
		st->refresh_incomplete = true;
		return;
	}
	for (unsigned k = 0; k < st->nretention; k++) {
		uint64_t r = st->retention_ns[k];

		f->est[k] += m2 > m1 ? (m2 - m1) / r : 0;
		f->lo[k] += s2 > t1 ? (s2 - t1) / r : 0;
		f->hi[k] += t2 > s1 ? (t2 - s1) / r : 0;
	}
}

/* Ends a page's run of written epochs in one region: its last data lasts to the region's
 * end (or now, when the region still lives: a region inside it took the page). */
void mt_acc_pw_settle(struct mt_access_stats *st, struct mt_access_page *pg, uint64_t now)
{
	uint32_t epochs = pg->pw_epochs & ~MT_PW_SETTLED_BIT;

	if (pg->pw_region && epochs) {
		struct mt_region_behavior *b = &st->regions[pg->pw_region - 1].b;
		uint64_t end = b->end_ns && b->end_ns < now ? b->end_ns : now;

		b->pages_written++;
		b->page_epochs += epochs;
		if (epochs > 1)
			b->pages_rewritten++;
		if (pg->pw_epochs & MT_PW_SETTLED_BIT)
			b->pages_settled++; /* written since, unseen: its data's ages are not known */
		else if (end > pg->pw_t)
			refresh_add(st, b, pg->pw_since, pg->pw_t, end, end);
	}
	pg->pw_epochs = 0;
}

void mt_acc_on_page_write(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t addr = ev->v[MT_F_PW_ADDR] & ~4095ull, end = addr + ev->v[MT_F_PW_LEN];
	uint64_t t = ev->v[MT_F_TIME], since = ev->v[MT_F_PW_SINCE];
	int64_t site;

	st->page_writes_present = true;
	st->page_write_events++;
	if (ev->v[MT_F_PW_LEN] > (1ull << 47))
		return;
	for (uint64_t p = addr; p < end; p += 4096) {
		uint32_t reg = mt_acc_region_at(ps, pid, p, &site);
		struct mt_access_region *g;
		struct mt_region_behavior *b;
		struct proc *pr;
		struct mt_access_page *pg;

		if (reg == NONE) {
			st->page_writes_unattributed++;
			continue;
		}
		g = &st->regions[reg];
		b = &g->b;
		if (b->wp != MT_LABEL_WP_TRACKED || p < b->wp_lo || p + 4096 > b->wp_hi) {
			st->page_writes_unattributed++; /* not a page of the tracked region there */
			continue;
		}
		st->page_write_pages++;
		st->page_write_settled += ev->v[MT_F_PW_SETTLED] != 0;
		if (!b->first_write_ns || b->first_write_ns > since)
			b->first_write_ns = since > g->t_start ? since : g->t_start;
		if (t > b->last_write_ns)
			b->last_write_ns = t;
		pg = mt_acc_page_of(ps, pid, p, reg, site);
		if (!pg)
			continue;
		if (pg->pw_region != reg + 1) {
			mt_acc_pw_settle(st, pg, t);
			pg->pw_region = reg + 1;
		} else if (pg->pw_epochs && !(pg->pw_epochs & MT_PW_SETTLED_BIT) && t > pg->pw_t) {
			refresh_add(st, b, pg->pw_since, pg->pw_t,
				    since > pg->pw_t ? since : pg->pw_t, t);
		}
		pg->pw_since = since > g->t_start ? since : g->t_start;
		if (pg->pw_since > t)
			pg->pw_since = t;
		if (!(pg->pw_epochs & ~MT_PW_SETTLED_BIT)) /* its first write in the region */
			b->first_write_sum +=
				(double)(pg->pw_since + (t - pg->pw_since) / 2 - g->t_start);
		pg->pw_t = t;
		pg->pw_epochs++;
		if (ev->v[MT_F_PW_SETTLED])
			pg->pw_epochs |= MT_PW_SETTLED_BIT;
		pr = mt_acc_proc_of(ps, pid);
		if (pr)
			st->phases[pr->phase].pages_written++;
		mt_acc_touch(ps, pg, reg, pr ? pr->phase : 0, t);
	}
}

void mt_acc_on_phase(struct pass *ps, const struct mt_event *ev)
{
	struct proc *pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	const char *name = mt_reader_str(ps->r, ev->stream, ev->v[MT_F_PHASE_NAME], NULL);
	uint64_t t = ev->v[MT_F_TIME];
	uint32_t ph;

	if (!pr)
		return;
	ph = name && name[0] ? mt_acc_phase_index(ps, name) : 0;
	pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
	if (pr->phase && t > pr->phase_since)
		ps->st->phases[pr->phase].ns += t - pr->phase_since;
	pr->phase = ph;
	pr->phase_since = t;
	if (ph) {
		ps->st->phases[ph].visits++;
		phase_window(ps, ph, t); /* its windows count from its entry */
	}
}

bool mt_acc_pw_lost(struct pass *ps, uint32_t pid)
{
	uint64_t *ix = mt_map64_get(&ps->proc_ix, pid);

	return ix && ps->procs[*ix].pw_lost;
}
