/* SPDX-License-Identifier: MIT */
/* The syscall collector on perf tracepoint rings: raw_syscalls entries and exits paired. */
#include "record/syscalls.h"

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
#ifdef MEMTAP_BPF
#include "record/syscalls-bpf.h"
#endif

/*
 * raw_syscalls:sys_enter and sys_exit, one event each per CPU (exit writes into the enter
 * event's ring: two fds per CPU, since closing a tracepoint fd costs ~30 ms here). A
 * thread's entry and exit may land in different CPUs' rings, so each drain gathers the
 * records of every ring, sorts them by time and pairs them per thread; records newer than
 * the drain's start wait for the next drain, when every ring holds what came before them.
 * This costs two perf records per call in the kernel (research: 21x on dd bs=1, 8x on
 * find); the in-kernel BPF summary (syscalls-bpf.c) is the cheap path. The entry also
 * samples the user r12, where the preload runtime marks its own calls (format/rt-mark.h).
 */

#define RING_PAGES 4096 /* 16 MiB per CPU: a call is ~150 bytes of records */
#define RING_PAGES_MIN 256 /* where locked memory is limited (perf_event_mlock_kb) */

#define ENTER_SAMPLE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER)
#define EXIT_SAMPLE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define ENTER_REGS (1ull << PERF_REG_X86_R12) /* the runtime's mark (format/rt-mark.h) */
/* --syscall-stacks: the registers an unwind starts from, and a copy of the stack */
#define STACK_REGS (1ull << PERF_REG_X86_IP | 1ull << PERF_REG_X86_SP | 1ull << PERF_REG_X86_BP)
#define STACK_BYTES 8192

struct rec {
	uint64_t time;
	uint32_t pid, tid;
	uint16_t exit, runtime;
	int64_t id, ret;
	uint64_t args[6];
	uint64_t stack; /* stack id, 0 for none */
};

struct pending {
	uint64_t time;
	uint32_t pid, tid;
	int64_t nr;
	uint64_t args[6];
	uint64_t stack;
	bool used, runtime;
};

/* A path copied at a syscall's entry by BPF, waiting for its call's record. */
struct path {
	uint64_t time;
	int nr;
	size_t len;
	char *s;
};

/* One thread's queue: a thread makes one call at a time, so its paths come in the order of
 * its calls and the one for a call is at the head (older heads had no call: dropped). */
struct tpaths {
	struct path *v;
	size_t head, n, cap;
};

#define PATH_WINDOW_NS 1000000ull /* a path and its call's entry: within 1 ms */

struct mt_syscalls_state {
	struct mt_perf_ring *rings;
	int *exit_fds;
	int nrings;
	int enter_type, exit_type; /* tracepoint ids, the records' common_type */
	unsigned ring_pages;
	unsigned classes;
	uint64_t enter_sample, enter_regs; /* ENTER_*, with the stack's when stacks are asked */
	struct mt_tp_field f_type, f_id, f_args, f_ret;
	struct rec *recs;
	size_t nrecs, cap;
	struct mt_map64 pend_ix; /* tid -> index into pend */
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t calls, no_exit, no_entry, child_returns, filtered, lost, malformed, records;
	uint64_t runtime_calls;
#ifdef MEMTAP_BPF
	struct mt_syspaths *paths_bpf;
	struct mt_sysrec *sysrec; /* BPF per-call records: no perf rings at all */
#endif
	const char *cur_path; /* the path of the call being emitted from a BPF record */
	size_t cur_plen;
	uint64_t bpf_lost_reported;
	const char *paths_why; /* why there are no paths, or NULL */
	double cost_ns; /* measured tracing cost per call, 0 if not measured */
	struct tpaths *tq; /* per thread, its paths in arrival (= entry) order */
	size_t ntq, tq_cap;
	struct mt_map64 tq_ix; /* tid -> index + 1 into tq */
	uint64_t npaths; /* queued in all */
	uint64_t paths_joined, paths_missing, paths_unmatched, paths_truncated, paths_faulted;
	struct mt_loader_watch loader; /* the loader's work for the runtime, after each exec */
	uint64_t loader_calls;
};

static int read_format(const char *tp, char *buf, size_t size)
{
	char base[256], path[512];
	FILE *f;
	size_t n;

	if (mt_tracefs_path(base, sizeof(base)) < 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/format", base, tp);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

static void on_path(void *ctx, uint64_t time, uint32_t tid, int nr, const char *path, int len);
static void emit(struct mt_session *s, uint64_t t, uint32_t pid, uint32_t tid, int64_t nr,
		 int64_t ret, uint64_t dur, const uint64_t *args, unsigned flags, uint64_t stack);

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
	emit(s, r->time, r->pid, r->tid, r->nr, r->ret, r->duration, r->args, r->flags, 0);
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
			close(c->exit_fds[i]);
	for (int i = 0; c->rings && i < c->nrings; i++)
		mt_perf_ring_close(&c->rings[i]);
	free(c->exit_fds);
	free(c->rings);
	free(c->recs);
	free(c->pend);
	mt_loader_watch_release(&c->loader);
#ifdef MEMTAP_BPF
	mt_syspaths_close(c->paths_bpf);
	mt_sysrec_close(c->sysrec);
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

int mt_syscalls_open(struct mt_session *s, unsigned classes, bool stacks)
{
	struct mt_syscalls_state *c = calloc(1, sizeof(*c));
	struct perf_event_attr at;
	char fmt[4096];
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
	if (read_format("raw_syscalls/sys_enter", fmt, sizeof(fmt)) < 0 ||
	    mt_tp_format_field(fmt, "common_type", &c->f_type) < 0 ||
	    mt_tp_format_field(fmt, "id", &c->f_id) < 0 ||
	    mt_tp_format_field(fmt, "args", &c->f_args) < 0 || c->f_args.size != 48 ||
	    read_format("raw_syscalls/sys_exit", fmt, sizeof(fmt)) < 0 ||
	    mt_tp_format_field(fmt, "ret", &c->f_ret) < 0) {
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
	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	at.type = PERF_TYPE_TRACEPOINT;
	at.sample_period = 1;
	at.sample_type = c->enter_sample;
	at.sample_regs_user = c->enter_regs;
	at.sample_stack_user = stacks ? STACK_BYTES : 0;
	at.sample_id_all = 1;
	at.use_clockid = 1;
	at.clockid = CLOCK_MONOTONIC;
	at.inherit = 1;
	at.enable_on_exec = 1;
	at.disabled = 1;
	at.watermark = 1;
	at.wakeup_watermark = 1u << 20; /* wake the recorder every MiB */
	c->cost_ns = measure_cost(&at, c->enter_type, c->exit_type);
	for (int cpu = 0; cpu < ncpu && rc >= 0; cpu++) {
		int fd;

		at.config = (uint64_t)c->enter_type;
		for (;;) {
			fd = mt_perf_open(&at, s->root, cpu, -1);
			if (fd < 0)
				break;
			rc = mt_perf_ring_open(&c->rings[cpu], fd, c->ring_pages);
			if (rc != -EPERM || c->ring_pages <= RING_PAGES_MIN)
				break;
			c->ring_pages /= 2; /* the ring closed fd: open the event again */
		}
		if (fd == -ENODEV)
			continue;
		if (fd < 0) {
			rc = fd;
			break;
		}
		if (rc < 0)
			break;
		/* The exit needs no registers (its records share the entry's ring; the parser
		 * tells them apart by the tracepoint's common_type). */
		at.config = (uint64_t)c->exit_type;
		at.sample_type = EXIT_SAMPLE;
		at.sample_regs_user = 0;
		at.sample_stack_user = 0;
		fd = mt_perf_open(&at, s->root, cpu, -1);
		at.sample_type = c->enter_sample;
		at.sample_regs_user = c->enter_regs;
		at.sample_stack_user = stacks ? STACK_BYTES : 0;
		if (fd < 0) {
			rc = fd;
			break;
		}
		c->exit_fds[cpu] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->rings[cpu].fd) < 0)
			rc = -errno;
		opened++;
	}
	if (rc < 0 || !opened) {
		free_state(c);
		return rc < 0 ? rc : -ENODEV;
	}
	/* Path arguments need a copy at entry: BPF, where it loads. */
#ifdef MEMTAP_BPF
	if (!mt_feat_ok(MT_FEAT_BPF))
		c->paths_why = "BPF is not available";
	else if (mt_syspaths_open(s, on_path, c, &c->paths_bpf) < 0)
		c->paths_why = "the BPF path capture did not load";
#else
	c->paths_why = "this memtap was built without BPF";
#endif
	s->syscalls = c;
	return 0;
}

int mt_syscalls_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	int n = 0;

	for (int i = 0; s->syscalls && i < s->syscalls->nrings && n < max; i++)
		if (s->syscalls->rings[i].fd >= 0)
			fds[n++] =
				(struct pollfd){ .fd = s->syscalls->rings[i].fd, .events = POLLIN };
#ifdef MEMTAP_BPF
	if (s->syscalls && s->syscalls->paths_bpf && n < max)
		fds[n++] = (struct pollfd){ .fd = mt_syspaths_fd(s->syscalls->paths_bpf),
					    .events = POLLIN };
	if (s->syscalls && s->syscalls->sysrec && n < max)
		fds[n++] = (struct pollfd){ .fd = mt_sysrec_fd(s->syscalls->sysrec),
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

static void on_path(void *ctx, uint64_t time, uint32_t tid, int nr, const char *path, int len)
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
static void expire_paths(struct mt_syscalls_state *c, uint64_t upto)
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

static void emit(struct mt_session *s, uint64_t t, uint32_t pid, uint32_t tid, int64_t nr,
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
	if (mt_loader_watch_call(&c->loader, tid, nr, ret, args, flags, is_rt)) {
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

static void pair(struct mt_session *s, const struct rec *r)
{
	struct mt_syscalls_state *c = s->syscalls;
	uint64_t *ix = mt_map64_get(&c->pend_ix, r->tid);
	struct pending *p = ix ? &c->pend[*ix] : NULL;

	if (!r->exit) {
		if (p && p->used) {
			/* A second entry without an exit: the first never returned (exit_group). */
			emit(s, p->time, p->pid, r->tid, p->nr, 0, 0, p->args,
			     MT_SYSCALL_NO_EXIT | (p->runtime ? MT_SYSCALL_RUNTIME : 0), p->stack);
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
		emit(s, p->time, r->pid, r->tid, p->nr, r->ret, r->time - p->time, p->args,
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
	emit(s, r->time, r->pid, r->tid, r->id, r->ret, 0, NULL, MT_SYSCALL_NO_ENTRY, 0);
	c->no_entry++;
}

static void process(struct mt_session *s, uint64_t upto)
{
	struct mt_syscalls_state *c = s->syscalls;
	size_t k = 0;

	if (!c->nrecs)
		return;
	qsort(c->recs, c->nrecs, sizeof(*c->recs), cmp_rec);
	/* the stacks' trie nodes go out before the events that name them */
	if (s->ustack)
		(void)mt_ustack_flush(s->ustack, s->w);
	while (k < c->nrecs && c->recs[k].time < upto)
		pair(s, &c->recs[k++]);
	memmove(c->recs, c->recs + k, (c->nrecs - k) * sizeof(*c->recs));
	c->nrecs -= k;
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

		mt_sysrec_consume(c->sysrec);
		d = mt_sysrec_dropped(c->sysrec);
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
	for (int i = 0; i < c->nrings; i++)
		if (c->rings[i].fd >= 0 &&
		    mt_perf_ring_drain(&c->rings[i], on_record, s) == -EBADMSG)
			c->malformed++;
#ifdef MEMTAP_BPF
	if (c->paths_bpf) /* after the rings: every entry before start has its path queued */
		mt_syspaths_consume(c->paths_bpf);
#endif
	process(s, start);
	expire_paths(c, start);
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
	for (int i = 0; i < c->nrings; i++)
		if (c->rings[i].fd >= 0 &&
		    mt_perf_ring_drain(&c->rings[i], on_record, s) == -EBADMSG)
			c->malformed++;
#ifdef MEMTAP_BPF
	if (c->paths_bpf)
		mt_syspaths_consume(c->paths_bpf);
#endif
	process(s, UINT64_MAX);
	for (size_t i = 0; i < c->npend; i++)
		if (c->pend[i].used) {
			emit(s, c->pend[i].time, c->pend[i].pid, c->pend[i].tid, c->pend[i].nr, 0,
			     0, c->pend[i].args,
			     MT_SYSCALL_NO_EXIT | (c->pend[i].runtime ? MT_SYSCALL_RUNTIME : 0),
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
		mt_kv_add_u64(kv, "paths_dropped", mt_syspaths_dropped(c->paths_bpf));
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
