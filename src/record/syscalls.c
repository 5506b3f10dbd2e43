/* SPDX-License-Identifier: MIT */
/* The syscall collector: raw_syscalls tracepoints (or BPF) opened, drained and closed. */
#include "record/syscalls.h"
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

#ifdef MEMTAP_BPF
#endif

/* The raw_syscalls fields the pairing reads, from their format descriptions. */
static int read_formats(struct mt_syscalls_state *c)
{
	char *enter = NULL, *exit = NULL;
	int r = -EPROTO;

	if (mt_tracepoint_format("raw_syscalls/sys_enter", &enter) == 0 &&
	    mt_tracepoint_format("raw_syscalls/sys_exit", &exit) == 0 &&
	    mt_tp_format_field(enter, "common_type", &c->f_type) == 0 &&
	    mt_tp_format_field(enter, "id", &c->f_id) == 0 &&
	    mt_tp_format_field(enter, "args", &c->f_args) == 0 && c->f_args.size == 48 &&
	    mt_tp_format_field(exit, "ret", &c->f_ret) == 0)
		r = 0;
	free(enter);
	free(exit);
	return r;
}

#ifdef MEMTAP_BPF
/* A call as BPF recorded it at its exit: already paired and timed. */
static void on_sysrec(void *ctx, const struct mt_sysrec_call *r)
{
	struct mt_session *s = ctx;
	struct mt_syscalls_state *c = s->syscalls;

	c->records++;
	if (r->path_unreadable)
		c->paths_faulted++;
	if (r->path_truncated)
		c->paths_truncated++;
	if (r->path)
		c->paths_joined++;
	c->cur_path = r->path;
	c->cur_plen = r->path_len;
	if (r->flags & MT_SYSCALL_NO_EXIT)
		c->no_exit++;
	mt_sc_emit(s, r->time, r->pid, r->tid, r->nr, r->ret, r->duration, r->args, r->flags, 0);
	c->cur_path = NULL;
}
#endif

/* The fastest of three rounds of n getppid() calls, in ns per call. */
double mt_syscall_ns(unsigned n)
{
	double best = 0;

	for (int round = 0; round < 3; round++) {
		uint64_t t0 = mt_now_ns();

		for (unsigned i = 0; i < n; i++)
			(void)syscall(SYS_getppid);
		{
			double per = (double)(mt_now_ns() - t0) / n;

			if (!round || per < best)
				best = per;
		}
	}
	return best;
}

/*
 * What one traced call costs here: the recorder times getppid() with the two tracepoints
 * opened on itself (same attributes, a small ring of its own) and without, alternately.
 * The figure labels the durations, which include part of it, and the run's overhead.
 */
static void discard(void *ctx, const struct perf_event_header *h)
{
	(void)ctx;
	(void)h;
}

static double measure_cost(const struct perf_event_attr *model, int enter, int exit)
{
	struct perf_event_attr at = *model;
	struct mt_perf_ring ring = { .fd = -1 };
	double bare, traced, best = 0;
	int efd = -1, xfd = -1;

	at.inherit = 0;
	at.enable_on_exec = 0;
	at.disabled = 0;
	at.config = (uint64_t)enter;
	efd = mt_perf_open(&at, 0, -1, -1);
	if (efd < 0 || mt_perf_ring_open(&ring, efd, 256) < 0) /* the ring closes efd on failure */
		return 0;
	at.config = (uint64_t)exit;
	at.sample_type = EXIT_SAMPLE;
	at.sample_regs_user = 0;
	xfd = mt_perf_open(&at, 0, -1, -1);
	if (xfd >= 0 && ioctl(xfd, PERF_EVENT_IOC_SET_OUTPUT, ring.fd) == 0) {
		for (int round = 0; round < 3; round++) {
			ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
			ioctl(xfd, PERF_EVENT_IOC_DISABLE, 0);
			bare = mt_syscall_ns(1000);
			ioctl(ring.fd, PERF_EVENT_IOC_ENABLE, 0);
			ioctl(xfd, PERF_EVENT_IOC_ENABLE, 0);
			traced = mt_syscall_ns(1000); /* 3000 calls, ~0.7 MB: within the ring */
			ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
			ioctl(xfd, PERF_EVENT_IOC_DISABLE, 0);
			(void)mt_perf_ring_drain(&ring, discard, NULL);
			if (!round || traced - bare < best)
				best = traced - bare;
		}
	}
	if (xfd >= 0)
		close(xfd);
	mt_perf_ring_close(&ring);
	return best > 0 ? best : 0;
}

static void free_state(struct mt_syscalls_state *c)
{
	for (int i = 0; c->exit_fds && i < c->nrings; i++)
		if (c->exit_fds[i] >= 0)
			mt_perf_close(c->exit_fds[i]);
	for (int i = 0; c->rings && i < c->nrings; i++)
		mt_perf_ring_close(&c->rings[i]);
	free(c->exit_fds);
	free(c->rings);
	free(c->recs);
	free(c->pend);
	mt_loader_watch_release(&c->loader);
#ifdef MEMTAP_BPF
	mt_bpf_ring_close(c->paths_bpf);
	mt_bpf_ring_close(c->sysrec);
#endif
	for (size_t q = 0; q < c->ntq; q++) {
		for (size_t i = c->tq[q].head; i < c->tq[q].n; i++)
			free(c->tq[q].v[i].s);
		free(c->tq[q].v);
	}
	free(c->tq);
	mt_map64_release(&c->tq_ix);
	mt_map64_release(&c->pend_ix);
	free(c);
}

/* The exit tracepoint of one CPU, writing into the entry's ring. It needs no registers (the
 * parser tells the two apart by the tracepoint's common_type). */
struct exit_follow {
	struct mt_session *s;
	struct mt_syscalls_state *c;
	struct perf_event_attr at;
};

static int open_exit(void *ctx, int cpu, const struct mt_perf_ring *ring)
{
	struct exit_follow *x = ctx;
	int fd = mt_perf_open_follower(&x->at, x->s->root, cpu, ring);

	if (fd >= 0)
		x->c->exit_fds[cpu] = fd;
	return fd;
}

/* Per CPU, the entry tracepoint with its ring and the exit tracepoint writing into it; *opened
 * counts the CPUs that have both (a CPU that is offline is skipped). */
static int open_cpus(struct mt_session *s, struct mt_syscalls_state *c, bool stacks, int ncpu,
		     int *opened)
{
	struct perf_event_attr at;
	struct exit_follow x = { s, c, { 0 } };
	int rc;

	/* wake the recorder every MiB */
	mt_perf_attr_tree(&at, PERF_TYPE_TRACEPOINT, (uint64_t)c->enter_type, c->enter_sample,
			  1u << 20);
	at.sample_regs_user = c->enter_regs;
	at.sample_stack_user = stacks ? STACK_BYTES : 0;
	c->cost_ns = measure_cost(&at, c->enter_type, c->exit_type);
	at.config = (uint64_t)c->enter_type;
	x.at = at;
	x.at.config = (uint64_t)c->exit_type;
	x.at.sample_type = EXIT_SAMPLE;
	x.at.sample_regs_user = 0;
	x.at.sample_stack_user = 0;
	rc = mt_perf_rings_open(&at, s->root, c->rings, ncpu, &c->ring_pages, RING_PAGES_MIN,
				open_exit, &x);
	if (rc > 0)
		*opened = rc;
	return rc < 0 ? rc : 0;
}

int mt_syscalls_open(struct mt_session *s, unsigned classes, bool stacks)
{
	struct mt_syscalls_state *c = calloc(1, sizeof(*c));
	int ncpu = mt_perf_ncpus(), opened = 0, rc = 0;

	if (!c)
		return -ENOMEM;
	mt_map64_init(&c->pend_ix);
	mt_map64_init(&c->tq_ix);
	c->classes = classes;
	c->ring_pages = RING_PAGES;
	c->enter_sample = ENTER_SAMPLE;
	c->enter_regs = ENTER_REGS;
	if (stacks) {
		if (mt_ustack_new(&s->ustack) < 0) {
			free_state(c);
			return -ENOMEM;
		}
		c->enter_sample |= PERF_SAMPLE_STACK_USER;
		c->enter_regs |= STACK_REGS;
	}
#ifdef MEMTAP_BPF
	/* One record per call from BPF where it loads (stacks need perf's stack copies). */
	if (!stacks && mt_feat_ok(MT_FEAT_BPF)) {
		uint64_t allow[16] = { 0 };

		for (unsigned nr = 0; nr < 1024; nr++)
			if (classes == MT_SC_ALL || (mt_syscall_classes(nr) & classes))
				allow[nr / 64] |= 1ull << (nr % 64);
		s->syscalls = c; /* the callback emits through the session */
		if (mt_sysrec_open(s, allow, on_sysrec, s, &c->cost_ns, &c->sysrec) == 0)
			return 0;
		s->syscalls = NULL;
		c->sysrec = NULL;
		c->cost_ns = 0;
	}
#endif
	c->enter_type = mt_tracepoint_id("raw_syscalls/sys_enter");
	c->exit_type = mt_tracepoint_id("raw_syscalls/sys_exit");
	if (c->enter_type < 0 || c->exit_type < 0) {
		free_state(c);
		return -ENOENT;
	}
	if (read_formats(c) < 0) {
		free_state(c);
		return -EPROTO;
	}
	c->rings = calloc((size_t)ncpu, sizeof(*c->rings));
	c->exit_fds = malloc((size_t)ncpu * sizeof(int));
	if (!c->rings || !c->exit_fds) {
		free_state(c);
		return -ENOMEM;
	}
	c->nrings = ncpu;
	for (int i = 0; i < ncpu; i++)
		c->rings[i].fd = c->exit_fds[i] = -1;
	rc = open_cpus(s, c, stacks, ncpu, &opened);
	if (rc < 0 || !opened) {
		free_state(c);
		return rc < 0 ? rc : -ENODEV;
	}
	/* Path arguments need a copy at entry: BPF, where it loads. */
#ifdef MEMTAP_BPF
	if (!mt_feat_ok(MT_FEAT_BPF))
		c->paths_why = "BPF is not available";
	else if (mt_syspaths_open(s, mt_sc_on_path, c, &c->paths_bpf) < 0)
		c->paths_why = "the BPF path capture did not load";
#else
	c->paths_why = "this memtap was built without BPF";
#endif
	s->syscalls = c;
	return 0;
}

int mt_syscalls_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	int n = s->syscalls
			? mt_perf_rings_pollfds(s->syscalls->rings, s->syscalls->nrings, fds, max)
			: 0;

#ifdef MEMTAP_BPF
	if (s->syscalls && s->syscalls->paths_bpf && n < max)
		fds[n++] = (struct pollfd){ .fd = mt_bpf_ring_fd(s->syscalls->paths_bpf),
					    .events = POLLIN };
	if (s->syscalls && s->syscalls->sysrec && n < max)
		fds[n++] = (struct pollfd){ .fd = mt_bpf_ring_fd(s->syscalls->sysrec),
					    .events = POLLIN };
#endif
	return n;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct mt_session *s = ctx;
	struct mt_syscalls_state *c = s->syscalls;
	struct mt_perf_sample ps;
	struct rec *r;
	uint64_t type;

	if (h->type == PERF_RECORD_LOST) {
		c->lost +=
			mt_emit_perf_lost(s, h, mt_now_ns(), &s->syscalls_coll,
					  "syscalls: perf ring buffer full (raise --ring-pages)");
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	/* TID, TIME and RAW come first in both records: the raw common_type says which. */
	if (mt_perf_sample_parse(h, h->size, EXIT_SAMPLE, 0, &ps) < 0 || !ps.raw) {
		c->malformed++;
		return;
	}
	type = mt_tp_value(ps.raw, ps.raw_size, &c->f_type);
	if (type != (uint64_t)c->exit_type &&
	    mt_perf_sample_parse(h, h->size, c->enter_sample, c->enter_regs, &ps) < 0) {
		c->malformed++;
		return;
	}
	if (mt_grow_array(&c->recs, &c->cap, c->nrecs + 1, sizeof(*c->recs)) < 0)
		return;
	c->records++;
	r = &c->recs[c->nrecs++];
	memset(r, 0, sizeof(*r));
	r->time = ps.time;
	r->pid = ps.pid;
	r->tid = ps.tid;
	r->exit = type == (uint64_t)c->exit_type;
	r->runtime = !r->exit && ps.has_regs && ps.regs.r[MT_REG_R12] == MT_RT_SYSCALL_MARK;
	if (!r->exit && s->ustack && ps.has_regs && ps.stack && !r->runtime)
		r->stack = mt_ustack_unwind(s->ustack, ps.pid, ps.tid, ps.regs.r[MT_REG_IP],
					    ps.regs.r[MT_REG_SP], ps.regs.r[MT_REG_BP], ps.stack,
					    ps.stack_size);
	r->id = (int64_t)mt_tp_value(ps.raw, ps.raw_size, &c->f_id);
	if (r->exit) {
		r->ret = (int64_t)mt_tp_value(ps.raw, ps.raw_size, &c->f_ret);
	} else if (c->f_args.offset + 48 <= ps.raw_size) {
		memcpy(r->args, ps.raw + c->f_args.offset, 48);
	}
}

void mt_syscalls_drain(struct mt_session *s)
{
	struct mt_syscalls_state *c = s->syscalls;
	uint64_t start;

	if (!c)
		return;
#ifdef MEMTAP_BPF
	if (c->sysrec) {
		uint64_t d;

		mt_bpf_ring_consume(c->sysrec);
		d = mt_bpf_ring_dropped(c->sysrec);
		if (d > c->bpf_lost_reported) {
			mt_emit_lost(s, mt_now_ns(), &s->syscalls_coll, d - c->bpf_lost_reported,
				     "syscalls: BPF ring buffer full");
			c->lost += d - c->bpf_lost_reported;
			c->bpf_lost_reported = d;
		}
		return;
	}
#endif
	start = mt_now_ns();
	c->malformed += mt_perf_rings_drain(c->rings, c->nrings, on_record, s);
#ifdef MEMTAP_BPF
	if (c->paths_bpf) /* after the rings: every entry before start has its path queued */
		mt_bpf_ring_consume(c->paths_bpf);
#endif
	mt_sc_process(s, start);
	mt_sc_expire_paths(c, start);
}

/* The collector's counts, whichever mechanism recorded the calls. */
static void counts_kv(const struct mt_syscalls_state *c, struct mt_kv *kv)
{
	mt_kv_add_u64(kv, "classes", c->classes);
	mt_kv_add_u64(kv, "calls", c->calls);
	mt_kv_add_u64(kv, "runtime_calls", c->runtime_calls);
	mt_kv_add_u64(kv, "runtime_loader_calls", c->loader_calls);
	mt_kv_add_u64(kv, "records", c->records);
	mt_kv_add_u64(kv, "without_exit", c->no_exit);
	mt_kv_add_u64(kv, "filtered", c->filtered);
	if (c->cost_ns > 0)
		mt_kv_add_u64(kv, "cost_ns_per_call", (uint64_t)(c->cost_ns + 0.5));
}

void mt_syscalls_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_syscalls_state *c = s->syscalls;

	if (!c)
		return;
#ifdef MEMTAP_BPF
	if (c->sysrec) {
		mt_syscalls_drain(s);
		mt_kv_add(
			kv, "tracepoints",
			"tp_btf/sys_enter,tp_btf/sys_exit (BPF: one record per call, at its exit)");
		counts_kv(c, kv);
		mt_kv_add(kv, "ring", "BPF ring buffer, 32 MiB");
		mt_kv_add(kv, "paths", "bpf: copied at entry (tp_btf/sys_enter), up to 255 bytes");
		mt_kv_add_u64(kv, "paths_joined", c->paths_joined);
		mt_kv_add_u64(kv, "paths_truncated", c->paths_truncated);
		mt_kv_add_u64(kv, "paths_unreadable", c->paths_faulted);
		s->syscalls_coll.lost = c->lost;
		free_state(c);
		s->syscalls = NULL;
		return;
	}
#endif
	c->malformed += mt_perf_rings_drain(c->rings, c->nrings, on_record, s);
#ifdef MEMTAP_BPF
	if (c->paths_bpf)
		mt_bpf_ring_consume(c->paths_bpf);
#endif
	mt_sc_process(s, UINT64_MAX);
	for (size_t i = 0; i < c->npend; i++)
		if (c->pend[i].used) {
			mt_sc_emit(s, c->pend[i].time, c->pend[i].pid, c->pend[i].tid,
				   c->pend[i].nr, 0, 0, c->pend[i].args,
				   MT_SYSCALL_NO_EXIT |
					   (c->pend[i].runtime ? MT_SYSCALL_RUNTIME : 0),
				   c->pend[i].stack);
			c->no_exit++;
		}
	mt_kv_add(kv, "tracepoints", "raw_syscalls:sys_enter,raw_syscalls:sys_exit (every call)");
	counts_kv(c, kv);
	mt_kv_add_u64(kv, "without_entry", c->no_entry);
	mt_kv_add_u64(kv, "child_returns", c->child_returns);
	mt_kv_add_u64(kv, "malformed", c->malformed);
	mt_kv_add_u64(kv, "ring_bytes_per_cpu", (uint64_t)c->ring_pages * 4096);
	if (s->ustack) {
		(void)mt_ustack_flush(s->ustack, s->w);
		mt_ustack_stats(s->ustack, kv);
		mt_kv_add_u64(kv, "stack_bytes", STACK_BYTES);
	}
	if (c->paths_why) {
		mt_kv_add(kv, "paths", c->paths_why);
	} else {
		mt_kv_add(kv, "paths", "bpf: copied at entry (tp_btf/sys_enter), up to 255 bytes");
		mt_kv_add_u64(kv, "paths_joined", c->paths_joined);
		mt_kv_add_u64(kv, "paths_missing", c->paths_missing);
		mt_kv_add_u64(kv, "paths_truncated", c->paths_truncated);
		mt_kv_add_u64(kv, "paths_unreadable", c->paths_faulted);
		mt_kv_add_u64(kv, "paths_unmatched", c->paths_unmatched + c->npaths);
#ifdef MEMTAP_BPF
		mt_kv_add_u64(kv, "paths_dropped", mt_bpf_ring_dropped(c->paths_bpf));
#endif
	}
	s->syscalls_coll.lost = c->lost;
	free_state(c);
	s->syscalls = NULL;
}

const char *mt_syscalls_mechanism(const struct mt_session *s)
{
#ifdef MEMTAP_BPF
	if (s->syscalls && s->syscalls->sysrec)
		return "bpf-records";
#endif
	return "tracepoint-raw_syscalls";
}
