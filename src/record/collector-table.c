/* SPDX-License-Identifier: MIT */
/* The collector table: what the record loop asks of each collector, in one place. */
#include "record/collectors.h"

#include <poll.h>
#include <stddef.h>

#include "record/access.h"
#include "record/alloc.h"
#include "record/faults.h"
#include "record/pagewrites.h"
#include "record/perf.h"
#include "record/rss.h"
#include "record/syscalls.h"
#include "record/syscalls-bpf.h"
#include "record/tracepoints.h"
#include "record/ustack.h"

/* ---- the kernel's mapping and task records (perf rings) ---- */

static int maps_npollfds(struct mt_session *s)
{
	return s->nrings;
}

static int maps_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	int n = 0;

	for (int i = 0; i < s->nrings && n < max; i++)
		fds[n++] = (struct pollfd){ .fd = s->rings[i].fd, .events = POLLIN };
	return n;
}

static void maps_drain(struct mt_session *s)
{
	if (s->nrings)
		mt_perfmon_drain(s);
}

static void maps_final(struct mt_session *s)
{
	if (s->nrings) {
		mt_perfmon_drain(s);
		mt_perfmon_close(s);
	}
}

/* ---- allocations (the preload runtime's connections) ---- */

static void alloc_handle(struct mt_session *s, struct pollfd *fds, int n)
{
	mt_alloc_calibrate(s);
	mt_alloc_handle(s, fds, n);
}

static void alloc_close(struct mt_session *s, struct mt_kv *kv)
{
	if (s->alloc)
		mt_alloc_close(s, kv);
}

/* ---- per-CPU perf collectors ---- */

static void open_access(struct mt_session *s, struct mt_kv *kv)
{
	mt_open_access(s);
}

static int access_npollfds(struct mt_session *s)
{
	return s->access ? mt_perf_ncpus() : 0;
}

static void access_close(struct mt_session *s, struct mt_kv *kv)
{
	if (s->access)
		mt_access_close(s, kv);
}

static void open_faults(struct mt_session *s, struct mt_kv *kv)
{
	mt_open_faults(s);
}

static int faults_npollfds(struct mt_session *s)
{
	return s->faults ? mt_perf_ncpus() : 0;
}

static void faults_close(struct mt_session *s, struct mt_kv *kv)
{
	if (s->faults)
		mt_faults_close(s, kv);
}

static void open_rss(struct mt_session *s, struct mt_kv *kv)
{
	mt_open_rss(s);
}

static int rss_npollfds(struct mt_session *s)
{
	return s->rss ? mt_perf_ncpus() : 0;
}

static void rss_close(struct mt_session *s, struct mt_kv *kv)
{
	if (s->rss)
		mt_rss_close(s, kv);
}

static void open_syscalls(struct mt_session *s, struct mt_kv *kv)
{
	mt_open_syscalls(s);
}

static int syscalls_npollfds(struct mt_session *s)
{
	return s->syscalls ? mt_perf_ncpus() + 1 : 0;
}

static void syscalls_close(struct mt_session *s, struct mt_kv *kv)
{
	if (s->syscalls)
		mt_syscalls_close(s, kv);
	mt_ustack_free(s->ustack);
	s->ustack = NULL;
#ifdef MEMTAP_BPF
	if (s->syscalls_bpf)
		mt_syscalls_bpf_close(s, kv);
#endif
}

static void open_events(struct mt_session *s, struct mt_kv *kv)
{
	mt_open_events(s, kv); /* the tracepoints' descriptions go in its first record */
}

static int events_npollfds(struct mt_session *s)
{
	return s->tracepoints ? mt_perf_ncpus() : 0;
}

static void events_close(struct mt_session *s, struct mt_kv *kv)
{
	if (s->tracepoints)
		mt_tracepoints_close(s, kv);
}

#define COLL(field) offsetof(struct mt_session, field)

/* In the order of their records in the trace (memtap report lists them so). The process tree,
 * the mappings, page writes and allocations are opened by mt_record itself, before the
 * command starts; the others by the table, in this order. */
const struct mt_collector mt_collectors[MT_NCOLLECTORS] = {
	{ .coll = COLL(proc) },
	{ .coll = COLL(maps),
	  .npollfds = maps_npollfds,
	  .pollfds = maps_pollfds,
	  .drain = maps_drain,
	  .final_drain = maps_final },
	{ .coll = COLL(alloc_coll),
	  .npollfds = mt_alloc_npollfds,
	  .pollfds = mt_alloc_pollfds,
	  .handle = alloc_handle,
	  .timeout_ms = mt_alloc_timeout_ms,
	  .close = alloc_close },
	{ .coll = COLL(access_coll),
	  .open = open_access,
	  .npollfds = access_npollfds,
	  .pollfds = mt_access_pollfds,
	  .drain = mt_access_drain,
	  .final_drain = mt_access_drain,
	  .close = access_close },
	{ .coll = COLL(faults_coll),
	  .open = open_faults,
	  .npollfds = faults_npollfds,
	  .pollfds = mt_faults_pollfds,
	  .drain = mt_faults_drain,
	  .final_drain = mt_faults_drain,
	  .close = faults_close },
	{ .coll = COLL(rss_coll),
	  .open = open_rss,
	  .npollfds = rss_npollfds,
	  .pollfds = mt_rss_pollfds,
	  .drain = mt_rss_drain,
	  .final_drain = mt_rss_drain,
	  .timeout_ms = mt_rss_timeout_ms,
	  .close = rss_close },
	{ .coll = COLL(pagewrites_coll),
	  .drain = mt_pagewrites_drain,
	  .timeout_ms = mt_pagewrites_timeout_ms,
	  .close = mt_pagewrites_close },
	{ .coll = COLL(syscalls_coll),
	  .open = open_syscalls,
	  .npollfds = syscalls_npollfds,
	  .pollfds = mt_syscalls_pollfds,
	  .drain = mt_syscalls_drain,
	  .final_drain = mt_syscalls_drain,
	  .close = syscalls_close },
	{ .coll = COLL(events_coll),
	  .open = open_events,
	  .npollfds = events_npollfds,
	  .pollfds = mt_tracepoints_pollfds,
	  .drain = mt_tracepoints_drain,
	  .final_drain = mt_tracepoints_drain,
	  .close = events_close },
};

struct mt_coll *mt_collector_record(struct mt_session *s, const struct mt_collector *c)
{
	return (struct mt_coll *)((char *)s + c->coll);
}
