/* SPDX-License-Identifier: MIT */
/* The access pass: each sampled access attributed to the region holding it at that time. */
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

void mt_acc_count(struct mt_access_counts *c, const struct mt_event *ev)
{
	uint64_t t = ev->v[MT_F_TIME];

	c->samples++;
	if (ev->v[MT_F_ACCESS_KIND] == MT_ACCESS_LOAD) {
		c->read_samples++;
		c->reads += ev->v[MT_F_ACCESS_WEIGHT];
	} else {
		c->write_samples++;
		c->writes += ev->v[MT_F_ACCESS_WEIGHT];
	}
	if (!c->first_ns || t < c->first_ns)
		c->first_ns = t;
	if (t > c->last_ns)
		c->last_ns = t;
}

/* Was the faulting instruction the runtime's own (in its image, a region of type memtap)? */
static bool runtime_ip(struct pass *ps, const struct mt_event *ev)
{
	int64_t site;
	uint32_t reg;

	if (ev->v[MT_F_FAULT_IP] >= 0x800000000000ull)
		return false; /* a kernel address: a fault inside a syscall */
	reg = mt_acc_region_at(ps, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_FAULT_IP], &site);
	return reg != NONE && ps->st->regions[reg].type == MT_REGION_MEMTAP;
}

/* The process's entry in fault_procs (made on first use), or NULL without memory. */
static uint64_t *fault_proc(struct pass *ps, uint32_t pid)
{
	struct mt_access_stats *st = ps->st;
	uint64_t *ix = mt_map64_get(&ps->fault_proc_ix, pid);

	if (ix)
		return ix;
	if (mt_grow_array(&st->fault_procs, &ps->fault_procs_cap, st->nfault_procs + 1,
			  sizeof(*st->fault_procs)) < 0 ||
	    mt_map64_put(&ps->fault_proc_ix, pid, &ix) < 0)
		return NULL;
	*ix = st->nfault_procs;
	st->fault_procs[st->nfault_procs++] = (struct mt_fault_proc){ .pid = pid };
	return ix;
}

/* A write-protect fault of page-write tracking (memtap's): counted apart, by process, region
 * and site, never as the workload's; its row says so (op fault_tracking). */
static void on_tracking_fault(struct pass *ps, const struct mt_event *ev, uint32_t reg,
			      int64_t site)
{
	struct mt_access_stats *st = ps->st;
	uint64_t *ix = fault_proc(ps, (uint32_t)ev->v[MT_F_PID]);

	st->tracking_faults++;
	if (ev->v[MT_F_FAULT_TRACKING] & MT_FAULT_TRACKING_UNCERTAIN)
		st->tracking_uncertain++;
	if (ix)
		st->fault_procs[*ix].tracking++;
	if (reg == NONE)
		return;
	st->regions[reg].b.wp_faults++;
	if (site >= 0)
		st->sites[site].tracking_faults++;
	if (ps->o.row) {
		struct proc *pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);

		mt_acc_emit_row(ps, ev, "fault_tracking", ev->v[MT_F_FAULT_ADDR],
				ev->v[MT_F_FAULT_IP], 1, reg, mt_acc_type_of(ps, reg), site,
				pr ? pr->phase : 0);
	}
}

static void on_fault(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], reg;
	unsigned kind = ev->v[MT_F_FAULT_KIND] == MT_FAULT_MAJOR;
	int64_t site;
	uint64_t *ix;

	st->faults_present = true;
	reg = mt_acc_region_at(ps, pid, ev->v[MT_F_FAULT_ADDR], &site);
	if ((reg != NONE && st->regions[reg].type == MT_REGION_MEMTAP) || runtime_ip(ps, ev)) {
		/* memtap's own page (its runtime's slots or tables), or a fault its runtime's
		 * code took (reading a library's unwind tables): analysis/own.h's definition */
		if (kind)
			st->memtap_faults_major++;
		else
			st->memtap_faults_minor++;
		return;
	}
	if (ev->v[MT_F_FAULT_TRACKING] & MT_FAULT_TRACKING) {
		on_tracking_fault(ps, ev, reg, site);
		return;
	}
	if (kind)
		st->faults_major++;
	else
		st->faults_minor++;
	if (ev->v[MT_F_FAULT_IP] >= 0x800000000000ull)
		st->faults_in_kernel++;
	ix = fault_proc(ps, pid);
	if (!ix)
		return;
	if (kind)
		st->fault_procs[*ix].major++;
	else
		st->fault_procs[*ix].minor++;
	if (reg == NONE)
		return;
	if (kind)
		st->regions[reg].faults_major++;
	else
		st->regions[reg].faults_minor++;
	st->faults_by_type[st->regions[reg].type][kind]++;
	if (site >= 0)
		st->sites[site].faults++;
	{
		struct proc *pr = mt_acc_proc_of(ps, pid);
		struct mt_access_page *pg =
			mt_acc_page_of(ps, pid, ev->v[MT_F_FAULT_ADDR], reg, site);

		if (pr)
			st->phases[pr->phase].faults++;
		if (pg)
			mt_acc_touch(ps, pg, reg, pr ? pr->phase : 0, ev->v[MT_F_TIME]);
		if (ps->o.row)
			mt_acc_emit_row(ps, ev, kind ? "fault_major" : "fault_minor",
					ev->v[MT_F_FAULT_ADDR], ev->v[MT_F_FAULT_IP], 1, reg,
					mt_acc_type_of(ps, reg), site, pr ? pr->phase : 0);
	}
}

static void on_access(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	uint64_t addr = ev->v[MT_F_ACCESS_ADDR], kind = ev->v[MT_F_ACCESS_KIND];
	uint64_t reason = ev->v[MT_F_ACCESS_REASON], how = ev->v[MT_F_ACCESS_HOW];
	uint32_t reg;
	int64_t site;
	struct mt_access_page *pg;

	st->present = true;
	if (ev->v[MT_F_ACCESS_MECH] < 64)
		st->mech_mask |= 1ull << ev->v[MT_F_ACCESS_MECH];
	if (ev->v[MT_F_ACCESS_PART] == 0)
		st->samples++;
	if (kind == MT_ACCESS_UNRESOLVED) {
		if (reason < _MT_UNRES_MAX)
			st->unresolved[reason]++;
		return;
	}
	if (kind > MT_ACCESS_STORE)
		return;
	if (ev->v[MT_F_ACCESS_PART] == 0) {
		st->resolved++;
		if (how < 4)
			st->by_how[how]++;
	}
	/* The runtime at work inside a hook: its own memory, or the workload's (the unwinder
	 * reads the workload's stack) by memtap's code. Neither is the workload's access. */
	reg = mt_acc_region_at(ps, pid, addr, &site);
	if ((reg != NONE && st->regions[reg].type == MT_REGION_MEMTAP) ||
	    mt_acc_memtap_code(ps, pid,
			       ev->v[MT_F_ACCESS_INSN_IP] ? ev->v[MT_F_ACCESS_INSN_IP]
							  : ev->v[MT_F_ACCESS_IP])) {
		st->memtap_accesses++;
		return;
	}
	st->accesses++;
	if (kind == MT_ACCESS_LOAD) {
		st->read_samples++;
		st->reads += ev->v[MT_F_ACCESS_WEIGHT];
	} else {
		st->write_samples++;
		st->writes += ev->v[MT_F_ACCESS_WEIGHT];
	}
	if (site >= 0) {
		st->in_blocks++;
		mt_acc_count(&st->sites[site].c, ev);
	}
	if (reg == NONE) {
		mt_acc_spin(ps, ev, reg, NULL);
		return;
	}
	mt_acc_count(&st->regions[reg].c, ev);
	st->by_type[st->regions[reg].type]++;
	if (kind == MT_ACCESS_LOAD)
		st->reads_by_type[st->regions[reg].type] += ev->v[MT_F_ACCESS_WEIGHT];
	else
		st->writes_by_type[st->regions[reg].type] += ev->v[MT_F_ACCESS_WEIGHT];
	pg = mt_acc_page_of(ps, pid, addr, reg, site);
	if (pg)
		mt_acc_count(&pg->c, ev);
	mt_acc_spin(ps, ev, reg, pg);
	mt_acc_behave_access(ps, reg, pg, site, ev);
}

/* One event of the pass, in time order. */
static void dispatch(struct pass *ps, const struct mt_event *ev)
{
	struct mt_access_stats *st = ps->st;

	if (!st->t0)
		st->t0 = ev->v[MT_F_TIME] ? ev->v[MT_F_TIME] : 1;
	if (ev->v[MT_F_TIME] > st->t_end)
		st->t_end = ev->v[MT_F_TIME];
	mt_acc_window_to(ps, ev->v[MT_F_TIME]);
	switch (ev->type) {
	case MT_EV_LOST: {
		const char *coll =
			mt_reader_str(ps->r, ev->stream, ev->v[MT_F_LOST_COLLECTOR], NULL);
		struct proc *pr;

		if (coll && !strcmp(coll, "pagewrites") &&
		    (pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID])))
			pr->pw_lost = true;
		break;
	}
	case MT_EV_PAGE_WRITE:
		mt_acc_on_page_write(ps, ev);
		break;
	case MT_EV_PHASE:
		mt_acc_on_phase(ps, ev);
		break;
	case MT_EV_ACCESS:
		on_access(ps, ev);
		break;
	case MT_EV_FAULT:
		on_fault(ps, ev);
		break;
	case MT_EV_MMAP:
		mt_acc_on_mmap(ps, ev);
		break;
	case MT_EV_MUNMAP:
		mt_acc_on_unmap(ps, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_MUNMAP_ADDR],
				ev->v[MT_F_MUNMAP_LEN], ev->v[MT_F_TIME]);
		break;
	case MT_EV_MREMAP:
		mt_acc_on_mremap(ps, ev);
		break;
	case MT_EV_BRK:
		mt_acc_on_brk(ps, ev);
		break;
	case MT_EV_ALLOC:
		mt_acc_on_alloc(ps, ev);
		break;
	case MT_EV_TASK_NEW:
		mt_acc_on_task_new(ps, ev);
		break;
	case MT_EV_LABEL:
		mt_acc_on_label(ps, ev);
		break;
	case MT_EV_PAGE_TRACK:
		mt_acc_on_page_track(ps, ev);
		break;
	case MT_EV_PW_RANGE:
		mt_acc_on_pw_range(ps, ev);
		break;
	case MT_EV_TASK_EXIT:
		if (ev->v[MT_F_EXIT_KIND] == MT_TASK_PROCESS) {
			struct proc *pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);

			if (pr)
				pr->end_ns = ev->v[MT_F_TIME];
			mt_acc_on_image_end(ps, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_TIME], true);
		}
		break;
	case MT_EV_TASK_EXEC: {
		struct proc *pr;

		mt_acc_on_image_end(ps, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_TIME], false);
		pr = mt_acc_proc_of(ps, (uint32_t)ev->v[MT_F_PID]);
		if (pr) {
			mt_rs_free(&ps->pool, pr->blocks); /* the old image's heap is gone */
			mt_rs_free(&ps->pool, pr->labels); /* and the names it gave */
			pr->blocks = pr->labels = 0;
		}
		break;
	}
	default:
		break;
	}
}

/* Starts fetching the table slots an access will use. Inlined by force: gcc finds a function
 * that only prefetches free of side effects and drops its calls. */
static inline __attribute__((always_inline)) void prefetch_slots(const struct pass *ps,
								 const struct mt_event *e)
{
	uint64_t pid = e->v[MT_F_PID], addr = e->v[MT_F_ACCESS_ADDR], h;

	if (e->type != MT_EV_ACCESS || !ps->iai.v)
		return;
	h = mt_hash_u64(iai_key((uint32_t)pid, addr));
	if (iai_followed(&ps->iai, h))
		__builtin_prefetch(&ps->iai.v[h & (ps->iai.cap - 1)]);
	if (ps->pages.cap) { /* the page's slot: key and counters */
		const struct page_slot *sl =
			&ps->pages.v[mt_hash_u64(page_key((uint32_t)pid, addr)) &
				     (ps->pages.cap - 1)];

		__builtin_prefetch(sl);
		__builtin_prefetch((const char *)sl + 64);
	}
}

#define ACCESS_TYPES                                                                               \
	(1ull << MT_EV_ACCESS | 1ull << MT_EV_FAULT | 1ull << MT_EV_MMAP | 1ull << MT_EV_MUNMAP |  \
	 1ull << MT_EV_MREMAP | 1ull << MT_EV_BRK | 1ull << MT_EV_ALLOC | 1ull << MT_EV_TASK_NEW | \
	 1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_LABEL | 1ull << MT_EV_PAGE_WRITE |                \
	 1ull << MT_EV_PW_RANGE | 1ull << MT_EV_PHASE | 1ull << MT_EV_LOST |                       \
	 1ull << MT_EV_PAGE_TRACK | 1ull << MT_EV_TASK_EXIT)

/* Each access's slots in the exact-address and page tables are fetched from memory PIPE
 * events before it is handled. */
static int access_batch(void *ctx, const struct mt_event *evs, int n)
{
	struct pass *ps = ctx;

	/* The batch was just written by the other core: its events are fetched ahead of the
	 * table slots, which need their addresses. */
	for (int i = 0; i < n && i < 2 * PIPE; i++)
		__builtin_prefetch(&evs[i]);
	for (int i = 0; i < n; i++) {
		if (i + 2 * PIPE < n) {
			__builtin_prefetch(&evs[i + 2 * PIPE]);
			__builtin_prefetch((const char *)&evs[i + 2 * PIPE] + 64);
		}
		if (i + PIPE < n)
			prefetch_slots(ps, &evs[i + PIPE]);
		if (evs[i].type < 64 && (ACCESS_TYPES & (1ull << evs[i].type)))
			dispatch(ps, &evs[i]);
	}
	return 0;
}

/* Frees the pass's working state (its results stay in st). */
static void access_free(struct pass *ps)
{
	free(ps->pool.v);
	free(ps->procs);
	mt_map64_release(&ps->proc_ix);
	mt_map64_release(&ps->site_ix);
	free(ps->pages.v);
	mt_map64_release(&ps->fault_proc_ix);
	mt_acc_iai_free(&ps->iai);
	free(ps->rd.bit);
	free(ps->rd.mark);
	mt_map64_release(&ps->rd.last);
	mt_map64_release(&ps->ip_phase);
	mt_acc_spin_release(ps);
	free(ps);
}

static int access_finish(void *ctx, int rc)
{
	struct pass *ps = ctx;
	struct mt_access_stats *st = ps->st;

	if (rc == 0)
		mt_acc_finish(ps);
	access_free(ps);
	if (rc < 0)
		mt_access_release(st);
	return rc;
}

int mt_access_pass(struct mt_reader *r, const struct mt_access_opts *o, struct mt_access_stats *st,
		   struct mt_pass *pass)
{
	struct pass *ps;

	memset(st, 0, sizeof(*st));
	*pass = (struct mt_pass){ .name = "access" };
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	*ps = (struct pass){ .r = r, .st = st, .pool.seed = 2463534242u, .last_pid = UINT32_MAX };
	if (o)
		ps->o = *o;
	if (!ps->o.window_ns)
		ps->o.window_ns = 100000000;
	if (!ps->o.mrm_set)
		ps->o.mrm = (struct mt_mrm_rule){ 0.8, 10.0, 0.5, 1.0 };
	st->window_ns = ps->o.window_ns;
	st->mrm_rule = ps->o.mrm;
	{
		struct mt_tiers def;
		double win[MT_TIERS_MAX_R];
		unsigned nw;

		if (!ps->o.tiers)
			mt_tiers_default(&def);
		nw = mt_tiers_retentions(ps->o.tiers ? ps->o.tiers : &def, win);
		for (unsigned k = 0; k < nw; k++)
			st->retention_ns[st->nretention++] = (uint64_t)(win[k] * 1e9);
	}
	st->tracking_basis = mt_reader_fault_tracking(r);
	mt_map64_init(&ps->proc_ix);
	mt_map64_init(&ps->site_ix);
	mt_map64_init(&ps->fault_proc_ix);
	mt_map64_init(&ps->rd.last);
	mt_map64_init(&ps->ip_phase);
	mt_map64_init(&ps->spin_tid);
	if (!mt_reader_event_count(r, MT_EV_ACCESS) && !mt_reader_event_count(r, MT_EV_FAULT) &&
	    !mt_reader_event_count(r, MT_EV_PAGE_WRITE)) {
		access_free(ps); /* nothing to analyse */
		return 0;
	}
	if (mt_acc_phase_index(ps, "") != 0) { /* phases[0]: outside any phase */
		access_free(ps);
		mt_access_release(st);
		return -ENOMEM;
	}
	*pass = (struct mt_pass){ .name = "access",
				  .types = ACCESS_TYPES,
				  .ctx = ps,
				  .batch = access_batch,
				  .finish = access_finish };
	return 0;
}

int mt_access_analyze(struct mt_reader *r, const struct mt_access_opts *o,
		      struct mt_access_stats *st)
{
	struct mt_access_opts oo = o ? *o : (struct mt_access_opts){ 0 };
	struct mt_symbolizer *sym = NULL;
	struct mt_passes ps;
	struct mt_pass p;
	int rc;

	/* symbol rules ask the mapping index of the same read, built by a pass before */
	mt_passes_init(&ps);
	if (oo.rules && !oo.sym) {
		mt_passes_add(&ps, mt_sym_pass(r, &sym, &p), &p);
		oo.sym = sym;
	}
	mt_passes_add(&ps, mt_access_pass(r, &oo, st, &p), &p);
	rc = mt_passes_run(r, &ps);
	mt_sym_close(sym);
	return rc;
}

void mt_access_release(struct mt_access_stats *st)
{
	for (size_t i = 0; i < st->nregions; i++)
		mt_qs_release(&st->regions[i].b.stride);
	for (size_t i = 0; i < st->ntypes; i++) {
		free(st->types[i].name);
		mt_surv_release(&st->types[i].retention);
		mt_surv_release(&st->types[i].lifetime);
		mt_surv_release(&st->types[i].life_read);
		mt_qs_release(&st->types[i].iai);
		mt_qs_release(&st->types[i].reuse);
	}
	for (size_t i = 0; i < st->nphases; i++)
		free(st->phases[i].name);
	free(st->types);
	free(st->phases);
	free(st->wss);
	free(st->regions);
	free(st->sites);
	free(st->pages);
	free(st->fault_procs);
	free(st->refresh);
	memset(st, 0, sizeof(*st));
}
