/* SPDX-License-Identifier: MIT */
/* The in-kernel syscall summary (--syscalls=summary): BPF counts, the recorder reads them. */
#include "record/syscalls-bpf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "format/chunk.h"
#include "format/writer.h"
#include "decode/rt-load.h"
#include "record/alloc.h"
#include "record/procfs.h"
#include "record/session.h"
#include "record/syscalls.h"
#include "syscount.skel.h" /* generated: src/record/bpf/syscount.bpf.c */
#include "syspaths.skel.h" /* generated: src/record/bpf/syspaths.bpf.c */
#include "sysrec.skel.h" /* generated: src/record/bpf/sysrec.bpf.c */

/*
 * Measured on a 2-core Firecracker VM: exact against strace -f -c, 2.0x on dd bs=1 and
 * 1.2x on find, where two perf records per call cost 21x and 8x (bench/perf.sh measures
 * the summary against perf stat's floor).
 */

#define NR_SLOTS 1024

struct count {
	uint64_t calls, errors, ns;
};

/* syscount.bpf.c's task state: the initial value the recorder gives a task. */
struct tstate {
	uint64_t start;
	int64_t id;
	uint64_t armed, runtime;
	struct mt_rtload load;
	uint64_t args[6];
	uint64_t rt_path;
};

/* pidfd_open's PIDFD_THREAD (Linux 6.9): a pidfd of one thread, not only a leader's. */
#define PIDFD_THREAD_ O_EXCL

static void disarm_count(void *state)
{
	((struct tstate *)state)->armed = 0;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0; /* failures are reported once, by the caller */
}

/* Counted per process (in the kernel): record -a, and --pid with several processes. */
static bool per_process(const struct mt_session *s)
{
	return s->system_wide || s->npids > 1;
}

/* Gives task pid storage in a TASK_STORAGE map (value: its initial state), or takes it
 * away: the map's key is a pidfd. 0 or -errno. */
static int mark_task(int map_fd, pid_t pid, const void *value)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), r = 0;

	if (pidfd < 0)
		return -errno;
	if ((value ? bpf_map_update_elem(map_fd, &pidfd, value, BPF_NOEXIST)
		   : bpf_map_delete_elem(map_fd, &pidfd)) < 0)
		r = -errno;
	close(pidfd);
	return r;
}

struct mark {
	int map_fd;
	void *state;
};

/* One thread marked (PIDFD_THREAD): 1 when it was not marked before. */
static int mark_thread(void *ctx, pid_t tid)
{
	struct mark *m = ctx;
	int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD_), fresh;

	if (pidfd < 0)
		return 0; /* gone */
	fresh = bpf_map_update_elem(m->map_fd, &pidfd, m->state, BPF_NOEXIST) == 0;
	close(pidfd);
	return fresh;
}

/*
 * The command marked as traced with its initial state (armed: its tracing starts at its
 * execve). An attached process (record --pid) runs already: each of its threads is marked,
 * disarmed (PIDFD_THREAD), until a listing finds none unmarked — a thread created before its
 * creator was marked; the ones after are marked at their fork.
 */
static int mark_tree(struct mt_session *s, int map_fd, void *state, void (*disarm)(void *))
{
	if (s->system_wide)
		return 0; /* every task marks itself at its first call (bpf/common.h) */
	if (!s->attached)
		return mark_task(map_fd, s->root, state);
	disarm(state);
	struct mark m = { map_fd, state };

	for (int round = 0; round < 100; round++) {
		int fresh = 0;

		for (unsigned i = 0; i < s->npids; i++) {
			int n = mt_procfs_tasks(s->pids[i], mark_thread, &m);

			if (n < 0 && !i)
				return n;
			fresh += n > 0 ? n : 0;
		}
		if (!fresh && round)
			return 0;
	}
	return 0;
}

/*
 * What counting costs a traced call here: getppid() timed by the recorder before the
 * programs are attached, and after, with the recorder's own task marked as traced for the
 * measurement (then unmarked, and its counts zeroed). The attached programs' cost to untraced
 * tasks is part of the run's overhead (bench/syscalls.sh), not of this figure.
 */
static double measure_cost(struct syscount_bpf *skel, double bare)
{
	struct tstate self = { 0 };
	int fd = bpf_map__fd(skel->maps.tasks), cfd = bpf_map__fd(skel->maps.counts);
	int ncpu = libbpf_num_possible_cpus();
	double traced = 0;
	struct count *zero;

	if (mark_task(fd, getpid(), &self) == 0) {
		traced = mt_syscall_ns(1000);
		(void)mark_task(fd, getpid(), NULL);
	}
	zero = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*zero)) : NULL;
	for (uint32_t slot = 0; zero && slot < 2 * NR_SLOTS; slot++)
		(void)bpf_map_update_elem(cfd, &slot, zero, BPF_ANY);
	free(zero);
	return traced > bare ? traced - bare : 0;
}

int mt_syscalls_bpf_open(struct mt_session *s)
{
	struct syscount_bpf *skel;
	struct tstate st = { .armed = 1 };
	double bare;
	int r;

	libbpf_set_print(quiet_print);
	skel = syscount_bpf__open();
	if (!skel)
		return errno ? -errno : -EPERM;
	skel->rodata->mt_per_process = per_process(s);
	/* The loader's calls that open and map this file are the runtime's (decode/rt-load.h). */
	if (mt_alloc_rt_path(s) && strlen(mt_alloc_rt_path(s)) < sizeof(skel->rodata->rt_path)) {
		memcpy((char *)skel->rodata->rt_path, mt_alloc_rt_path(s),
		       strlen(mt_alloc_rt_path(s)));
		skel->rodata->rt_path_len = (uint32_t)strlen(mt_alloc_rt_path(s));
	}
	skel->rodata->mt_all_tasks = s->system_wide;
	skel->rodata->mt_self_tgid = (uint32_t)getpid();
	r = syscount_bpf__load(skel);
	if (r < 0) {
		syscount_bpf__destroy(skel);
		return r;
	}
	bare = mt_syscall_ns(1000);
	r = syscount_bpf__attach(skel);
	if (r < 0) {
		syscount_bpf__destroy(skel);
		return r;
	}
	s->syscalls_bpf_cost_ns = measure_cost(skel, bare);
	/* The command waits for "go" before its execve: tracing starts at that execve. */
	r = mark_tree(s, bpf_map__fd(skel->maps.tasks), &st, disarm_count);
	if (r < 0) {
		syscount_bpf__destroy(skel);
		return r;
	}
	s->syscalls_bpf = skel;
	return 0;
}

/* A per-CPU value's sum over the CPUs. */
static struct count cpu_sum(const struct count *per, int ncpu)
{
	struct count sum = { 0 };

	for (int c = 0; c < ncpu; c++) {
		sum.calls += per[c].calls;
		sum.errors += per[c].errors;
		sum.ns += per[c].ns;
	}
	return sum;
}

/* record -a: the machine's totals per slot, kept while the per-process rows are written. */
static struct count *totals;

static void sum_row(struct mt_session *s, uint64_t t, uint32_t pid, uint32_t slot,
		    const struct count *c)
{
	uint64_t row[_MT_F_SYSSUM_MAX];

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = pid;
	row[MT_F_SYSSUM_NR] = slot % NR_SLOTS;
	row[MT_F_SYSSUM_CALLS] = c->calls;
	row[MT_F_SYSSUM_ERRORS] = c->errors;
	row[MT_F_SYSSUM_NS] = c->ns;
	row[MT_F_SYSSUM_RUNTIME] = slot >= NR_SLOTS;
	if (mt_writer_event(s->w, MT_EV_SYSCALL_SUM, row) == 0)
		s->syscalls_coll.events++;
}

/* One SUM row per process and call; what processes the full map could not take is pid 0's
 * (the machine's totals less every process's: exact by construction). */
static void per_process_rows(struct mt_session *s, struct syscount_bpf *skel, uint64_t t)
{
	int fd = bpf_map__fd(skel->maps.pcounts), ncpu = libbpf_num_possible_cpus();
	struct {
		uint32_t tgid, slot;
	} key, next, *prev = NULL;
	struct count *per = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*per)) : NULL;
	uint32_t self = (uint32_t)getpid();

	while (per && bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct count sum = { 0 };

		key = next;
		prev = &key;
		if (key.tgid == self || key.slot >= 2 * NR_SLOTS ||
		    bpf_map_lookup_elem(fd, &key, per) < 0)
			continue; /* the recorder's own cost measurement */
		sum = cpu_sum(per, ncpu);
		if (!sum.calls)
			continue;
		sum_row(s, t, key.tgid, key.slot, &sum);
		totals[key.slot].calls -=
			sum.calls <= totals[key.slot].calls ? sum.calls : totals[key.slot].calls;
		totals[key.slot].errors -= sum.errors <= totals[key.slot].errors
						   ? sum.errors
						   : totals[key.slot].errors;
		totals[key.slot].ns -= sum.ns <= totals[key.slot].ns ? sum.ns : totals[key.slot].ns;
	}
	for (uint32_t slot = 0; slot < 2 * NR_SLOTS; slot++)
		if (totals[slot].calls)
			sum_row(s, t, 0, slot, &totals[slot]);
	free(per);
}

void mt_syscalls_bpf_close(struct mt_session *s, struct mt_kv *kv)
{
	struct syscount_bpf *skel = s->syscalls_bpf;
	int ncpu = libbpf_num_possible_cpus(), fd;
	struct count *per;
	uint64_t calls = 0, rt_calls = 0, t = mt_now_ns();

	if (per_process(s) && !(totals = calloc(2 * NR_SLOTS, sizeof(*totals))))
		return;

	if (!skel)
		return;
	fd = bpf_map__fd(skel->maps.counts);
	per = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*per)) : NULL;
	/* Slots NR_SLOTS.. hold the preload runtime's own calls (format/rt-mark.h). */
	for (uint32_t slot = 0; per && slot < 2 * NR_SLOTS; slot++) {
		uint32_t nr = slot % NR_SLOTS;
		struct count sum = { 0 };
		uint64_t row[_MT_F_SYSSUM_MAX];

		if (bpf_map_lookup_elem(fd, &slot, per) < 0)
			continue;
		sum = cpu_sum(per, ncpu);
		if (!sum.calls)
			continue;
		if (per_process(s)) { /* per process, below; kept for what they leave over */
			totals[slot] = sum;
			calls += sum.calls;
			continue;
		}
		row[MT_F_TIME] = t;
		row[MT_F_PID] = row[MT_F_TID] = (uint64_t)s->root;
		row[MT_F_SYSSUM_NR] = nr;
		row[MT_F_SYSSUM_CALLS] = sum.calls;
		row[MT_F_SYSSUM_ERRORS] = sum.errors;
		row[MT_F_SYSSUM_NS] = sum.ns;
		row[MT_F_SYSSUM_RUNTIME] = slot >= NR_SLOTS;
		if (mt_writer_event(s->w, MT_EV_SYSCALL_SUM, row) == 0)
			s->syscalls_coll.events++;
		if (slot >= NR_SLOTS)
			rt_calls += sum.calls;
		else
			calls += sum.calls;
	}
	free(per);
	if (per_process(s))
		per_process_rows(s, skel, t);
	mt_kv_add(kv, "programs", "tp_btf/sys_enter, tp_btf/sys_exit, tp_btf/sched_process_fork");
	mt_kv_add_u64(kv, "calls", calls);
	mt_kv_add_u64(kv, "runtime_calls", rt_calls);
	mt_kv_add(kv, "scope",
		  s->system_wide ? "every process but the recorder, per process"
		  : s->npids > 1 ? "the attached processes and every task they create, per process"
				 : "the command from its execve, and every task it creates");
	free(totals);
	totals = NULL;
	if (s->syscalls_bpf_cost_ns > 0)
		mt_kv_add_u64(kv, "cost_ns_per_call", (uint64_t)(s->syscalls_bpf_cost_ns + 0.5));
	syscount_bpf__destroy(skel);
	s->syscalls_bpf = NULL;
}

/* ---- the ring programs' shared part ---- */

/* A BPF program's ring buffer of records and its per-CPU count of records it had no room
 * for: path capture and per-call records each own one. */
struct mt_bpf_ring {
	struct ring_buffer *rb;
	int dropped_fd;
	void *skel;
	void (*destroy)(void *skel);
};

/* After attaching: the ring, then the command marked as traced (state: its initial task
 * state). 0 or -errno. */
static void disarm_none(void *state)
{
	(void)state;
}

static int ring_start(struct mt_session *s, struct mt_bpf_ring *g, struct bpf_map *records,
		      struct bpf_map *dropped, ring_buffer_sample_fn fn, void *ctx, int tasks_fd,
		      void *state)
{
	g->dropped_fd = bpf_map__fd(dropped);
	g->rb = ring_buffer__new(bpf_map__fd(records), fn, ctx, NULL);
	if (!g->rb)
		return errno ? -errno : -ENOMEM;
	return state ? mark_tree(s, tasks_fd, state, disarm_none) : 0;
}

/* Takes the program's opened skeleton (NULL: the failure libbpf left in errno). */
static int ring_adopt(struct mt_bpf_ring *g, void *skel, void (*destroy)(void *skel))
{
	if (!skel)
		return errno ? -errno : -EPERM;
	g->skel = skel;
	g->destroy = destroy;
	return 0;
}

int mt_bpf_ring_fd(struct mt_bpf_ring *g)
{
	return ring_buffer__epoll_fd(g->rb);
}

void mt_bpf_ring_consume(struct mt_bpf_ring *g)
{
	(void)ring_buffer__consume(g->rb);
}

void mt_bpf_ring_close(struct mt_bpf_ring *g)
{
	if (!g)
		return;
	ring_buffer__free(g->rb);
	if (g->skel)
		g->destroy(g->skel);
	free(g); /* the first member of its program's handle */
}

uint64_t mt_bpf_ring_dropped(struct mt_bpf_ring *g)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;
	uint32_t k = 0;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (bpf_map_lookup_elem(g->dropped_fd, &k, v) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* ---- path capture ---- */

struct path_rec {
	uint64_t time;
	uint32_t tid;
	int32_t nr;
	int32_t len;
	char path[256];
};

struct mt_syspaths {
	struct mt_bpf_ring ring;
	struct syspaths_bpf *skel;
	mt_syspath_fn fn;
	void *ctx;
};

static int on_path(void *ctx, void *data, size_t size)
{
	struct mt_syspaths *p = ctx;
	const struct path_rec *r = data;

	if (size >= sizeof(*r))
		p->fn(p->ctx, r->time, r->tid, r->nr, r->path, r->len);
	return 0;
}

static void syspaths_destroy(void *skel)
{
	syspaths_bpf__destroy(skel);
}

int mt_syspaths_open(struct mt_session *s, mt_syspath_fn fn, void *ctx, struct mt_bpf_ring **ret)
{
	struct mt_syspaths *p = calloc(1, sizeof(*p));
	uint64_t one = 1;
	int r;

	libbpf_set_print(quiet_print);
	if (!p)
		return -ENOMEM;
	p->skel = syspaths_bpf__open();
	p->fn = fn;
	p->ctx = ctx;
	r = ring_adopt(&p->ring, p->skel, syspaths_destroy);
	if (r == 0) {
		p->skel->rodata->mt_all_tasks = s->system_wide;
		p->skel->rodata->mt_self_tgid = (uint32_t)getpid();
		r = syspaths_bpf__load(p->skel);
	}
	if (r == 0)
		r = syspaths_bpf__attach(p->skel);
	if (r == 0)
		r = ring_start(s, &p->ring, p->skel->maps.paths, p->skel->maps.dropped, on_path, p,
			       bpf_map__fd(p->skel->maps.tasks), &one);
	if (r < 0) {
		mt_bpf_ring_close(&p->ring);
		return r;
	}
	*ret = &p->ring;
	return 0;
}

/* ---- per-call records ---- */

struct sysrec_rec {
	uint64_t time, duration;
	uint32_t pid, tid;
	int64_t nr, ret;
	uint64_t args[6];
	uint32_t flags;
	int32_t plen;
	char path[]; /* 256 bytes when plen > 0 */
};

struct mt_sysrec {
	struct mt_bpf_ring ring;
	struct sysrec_bpf *skel;
	mt_sysrec_fn fn;
	void *ctx;
	bool discard; /* while the recorder measures its own calls */
};

/* sysrec.bpf.c's task state. */
struct sysrec_state {
	uint64_t start;
	int64_t id;
	uint64_t args[6];
	uint32_t armed, runtime;
	int32_t plen;
	uint32_t pad;
	char path[256];
};

static void disarm_rec(void *state)
{
	((struct sysrec_state *)state)->armed = 0;
}

static int on_rec(void *ctx, void *data, size_t size)
{
	struct mt_sysrec *p = ctx;
	const struct sysrec_rec *r = data;
	struct mt_sysrec_call c;

	if (p->discard || size < sizeof(*r))
		return 0;
	memset(&c, 0, sizeof(c));
	c.time = r->time;
	c.duration = r->duration;
	c.pid = r->pid;
	c.tid = r->tid;
	c.nr = r->nr;
	c.ret = r->ret;
	memcpy(c.args, r->args, sizeof(c.args));
	c.flags = r->flags;
	if (r->plen > 0 && size >= sizeof(*r) + 256) {
		c.path = r->path;
		c.path_len = strnlen(r->path, 256);
		c.path_truncated = r->plen >= 256;
	} else if (r->plen < 0) {
		c.path_unreadable = true;
	}
	p->fn(p->ctx, &c);
	return 0;
}

/* The cost of one recorded call: the recorder's own getppid() with its task marked, its
 * records discarded. */
static void sysrec_measure(struct mt_sysrec *p, double bare, double *cost_ns)
{
	struct sysrec_state st = { 0 };
	int fd = bpf_map__fd(p->skel->maps.tasks);

	if (mark_task(fd, getpid(), &st) == 0) {
		double traced = mt_syscall_ns(1000);

		(void)mark_task(fd, getpid(), NULL);
		p->discard = true;
		mt_bpf_ring_consume(&p->ring);
		p->discard = false;
		*cost_ns = traced > bare ? traced - bare : 0;
	}
}

static void sysrec_destroy(void *skel)
{
	sysrec_bpf__destroy(skel);
}

int mt_sysrec_open(struct mt_session *s, const uint64_t allow[16], mt_sysrec_fn fn, void *ctx,
		   double *cost_ns, struct mt_bpf_ring **ret)
{
	struct mt_sysrec *p = calloc(1, sizeof(*p));
	struct sysrec_state st = { .armed = 1 };
	double bare = 0;
	int r;

	libbpf_set_print(quiet_print);
	if (!p)
		return -ENOMEM;
	p->skel = sysrec_bpf__open();
	p->fn = fn;
	p->ctx = ctx;
	r = ring_adopt(&p->ring, p->skel, sysrec_destroy);
	if (r == 0) {
		memcpy((void *)p->skel->rodata->allow, allow, sizeof(p->skel->rodata->allow));
		p->skel->rodata->mt_all_tasks = s->system_wide;
		p->skel->rodata->mt_self_tgid = (uint32_t)getpid();
		r = sysrec_bpf__load(p->skel);
	}
	if (r == 0) {
		bare = mt_syscall_ns(1000);
		r = sysrec_bpf__attach(p->skel);
	}
	if (r == 0)
		r = ring_start(s, &p->ring, p->skel->maps.records, p->skel->maps.dropped, on_rec, p,
			       -1, NULL);
	if (r == 0) {
		sysrec_measure(p, bare, cost_ns);
		r = mark_tree(s, bpf_map__fd(p->skel->maps.tasks), &st, disarm_rec);
	}
	if (r < 0) {
		mt_bpf_ring_close(&p->ring);
		return r;
	}
	*ret = &p->ring;
	return 0;
}
