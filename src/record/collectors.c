/* SPDX-License-Identifier: MIT */
/* Opening the collectors of a recording: each one active, degraded, unavailable (and why)
 * or off, as memtap probe found this machine and the options asked. */
#include "record/collectors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "record/access.h"
#include "record/faults.h"
#include "record/pagewrites.h"
#include "record/probe.h"
#include "record/rss.h"
#include "record/sysinfo.h"
#include "record/syscalls.h"
#include "record/syscalls-bpf.h"
#include "record/tracepoints.h"
#include "record/ustack.h"

void mt_coll_set(struct mt_coll *c, const char *mech, const char *status, const char *reason)
{
	mt_strlcpy(c->mechanism, mech, sizeof(c->mechanism));
	mt_strlcpy(c->status, status, sizeof(c->status));
	mt_strlcpy(c->reason, reason ? reason : "", sizeof(c->reason));
}

/* The access collector: --access was checked before anything ran (see cmd-record.c). */
void mt_open_access(struct mt_session *s)
{
	char why[400];
	int mech, r, max_rate;

	s->access_coll.name = "access";
	if (s->o->access == MT_ACCESS_OFF) {
		mt_coll_set(&s->access_coll, "none", "off", "--access=off");
		return;
	}
	mech = mt_access_choose((enum mt_access_mode)s->o->access, why, sizeof(why));
	if (mech < 0) {
		mt_warn("no access sampling: %s", why);
		mt_coll_set(&s->access_coll, "none", "unavailable", why);
		return;
	}
	r = mt_access_open(s, mech);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot open the sampling events: %s", strerror(-r));
		mt_warn("no access sampling: %s", why);
		mt_coll_set(&s->access_coll, "none", "unavailable", why);
		return;
	}
	mt_coll_set(&s->access_coll, s->access_coll.mechanism, "active", NULL);
	max_rate = mt_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	if (s->o->access_freq && max_rate > 0 && s->o->access_freq > (uint64_t)max_rate)
		mt_warn("--access-freq %" PRIu64
			" is above kernel.perf_event_max_sample_rate (%d): "
			"the kernel will sample less often (throttles are counted)",
			s->o->access_freq, max_rate);
}

void mt_open_faults(struct mt_session *s)
{
	const char *why;
	int r;

	s->faults_coll.name = "faults";
	if (!s->o->faults) {
		mt_coll_set(&s->faults_coll, "none", "off", "--no-faults");
		return;
	}
	if (!mt_feat_ok(MT_FEAT_SW_FAULTS)) {
		why = mt_probe(MT_FEAT_SW_FAULTS)->detail;
		mt_warn("no page-fault records: %s", why);
		mt_coll_set(&s->faults_coll, "none", "unavailable", why);
		return;
	}
	r = mt_faults_open(s);
	if (r < 0) {
		why = strerror(-r);
		mt_warn("no page-fault records: cannot open the events: %s", why);
		mt_coll_set(&s->faults_coll, "none", "unavailable", why);
		return;
	}
	mt_coll_set(&s->faults_coll, "perf-sw-faults", "active", NULL);
}

void mt_open_events(struct mt_session *s, struct mt_kv *kv)
{
	const char *why;
	int r;

	s->events_coll.name = "events";
	if (!s->o->nevents) {
		mt_coll_set(&s->events_coll, "none", "off", "no --event");
		return;
	}
	if (!mt_feat_ok(MT_FEAT_PERF_RING)) {
		why = mt_probe(MT_FEAT_PERF_RING)->detail;
		mt_warn("no --event records: %s", why);
		mt_coll_set(&s->events_coll, "none", "unavailable", why);
		return;
	}
	r = mt_tracepoints_open(s, s->o->events, s->o->nevents, kv);
	if (r < 0) {
		why = strerror(-r);
		mt_warn("no --event records: cannot open the tracepoints: %s", why);
		mt_coll_set(&s->events_coll, "none", "unavailable", why);
		return;
	}
	mt_coll_set(&s->events_coll, "perf-tracepoints", "active", NULL);
}

void mt_open_syscalls(struct mt_session *s)
{
	const char *why, *bad = NULL;
	int classes, r;

	s->syscalls_coll.name = "syscalls";
	if (!s->o->syscalls) {
		mt_coll_set(&s->syscalls_coll, "none", "off", "no --syscalls");
		return;
	}
	classes = mt_syscall_parse_classes(s->o->syscalls, &bad);
	if (classes < 0)
		classes = MT_SC_ALL; /* checked by the command line already */
	if (classes & MT_SC_SUMMARY) {
		const char *no = NULL;

#ifdef MEMTAP_BPF
		if (!mt_feat_ok(MT_FEAT_BPF))
			no = mt_probe(MT_FEAT_BPF)->detail;
		else if ((r = mt_syscalls_bpf_open(s)) < 0)
			no = strerror(-r);
#else
		no = "this memtap was built without BPF (clang, bpftool and libbpf-dev)";
#endif
		if (!no) {
			mt_coll_set(&s->syscalls_coll, "bpf-summary", "active", NULL);
			return;
		}
		mt_warn("--syscalls=summary: no in-kernel summary (%s); recording every call "
			"instead (same counts, more overhead)",
			no);
		classes &= ~MT_SC_SUMMARY;
	}
	if (!mt_feat_ok(MT_FEAT_TP_SYSCALLS)) {
		why = mt_probe(MT_FEAT_TP_SYSCALLS)->detail;
		mt_warn("no syscall records: %s", why);
		mt_coll_set(&s->syscalls_coll, "none", "unavailable", why);
		return;
	}
	r = mt_syscalls_open(s, (unsigned)classes, s->o->syscall_stacks);
	if (r < 0) {
		why = strerror(-r);
		mt_warn("no syscall records: cannot open the tracepoints: %s", why);
		mt_coll_set(&s->syscalls_coll, "none", "unavailable", why);
		return;
	}
	mt_coll_set(&s->syscalls_coll, mt_syscalls_mechanism(s),
		    s->o->syscalls && strstr(s->o->syscalls, "summary") ? "degraded" : "active",
		    s->o->syscalls && strstr(s->o->syscalls, "summary")
			    ? "no in-kernel summary: every call recorded instead"
			    : NULL);
}

/* Before the runtime's environment is made: it tells the runtime to track labelled ranges. */
void mt_open_pagewrites(struct mt_session *s)
{
	const char *why = NULL;
	int r;

	s->pagewrites_coll.name = "pagewrites";
	if (!s->o->page_writes_ns) {
		mt_coll_set(&s->pagewrites_coll, "none", "off", "--page-writes-ms 0");
		return;
	}
	if (!s->o->alloc) {
		mt_coll_set(&s->pagewrites_coll, "none", "off",
			    "--no-alloc: the preload runtime registers the labelled ranges");
		return;
	}
	r = mt_pagewrites_open(s, &why);
	if (r < 0) {
		mt_coll_set(&s->pagewrites_coll, "none", "unavailable", why ? why : strerror(-r));
		return;
	}
	mt_coll_set(&s->pagewrites_coll, "uffd-wp-async+pagemap-scan", "active", NULL);
}

void mt_open_rss(struct mt_session *s)
{
	char mech[64];
	int r;

	s->rss_coll.name = "rss";
	if (!s->o->rss) {
		mt_coll_set(&s->rss_coll, "none", "off", "--no-rss");
		return;
	}
	r = mt_rss_open(s);
	if (r < 0) {
		mt_warn("no RSS records: %s", strerror(-r));
		mt_coll_set(&s->rss_coll, "none", "unavailable", strerror(-r));
		return;
	}
	if (r == 0) {
		mt_coll_set(&s->rss_coll, "tracepoint-rss_stat", "active", NULL);
		return;
	}
	snprintf(mech, sizeof(mech), "statm-poll");
	mt_coll_set(&s->rss_coll, mech, "degraded",
		    mt_feat_ok(MT_FEAT_TP_RSS)
			    ? "kmem:rss_stat could not be opened; /proc/PID/statm polled (no swap, "
			      "peaks between polls missed)"
			    : mt_probe(MT_FEAT_TP_RSS)->detail);
}
