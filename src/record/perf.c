/* SPDX-License-Identifier: MIT */
/* perf_event_open and ring-buffer draining. */
#include "perf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/array.h"
#include "record/procfs.h"

/* Attaching (perf.h): the events opened for the root, each with its copies on the root's
 * other threads, and the threads seen. */
struct att_event {
	struct perf_event_attr at;
	int cpu, fd, out; /* out: where its records go, -1 before it has a ring */
	int *copies;
	uint64_t *ids;
	size_t n, cap, ids_cap;
};

static struct {
	pid_t root;
	pid_t *tids;
	size_t ntids, tids_cap;
	struct att_event *ev;
	size_t nev, ev_cap;
	uint64_t failed; /* copies that could not be opened (their thread not gone) */
} att;

static void att_register(const struct perf_event_attr *at, int cpu, int fd)
{
	if (mt_grow_array(&att.ev, &att.ev_cap, att.nev + 1, sizeof(*att.ev)) < 0)
		return; /* its threads then go without it: att_copy counts nothing, as for ESRCH */
	att.ev[att.nev++] = (struct att_event){ .at = *at, .cpu = cpu, .fd = fd, .out = -1 };
}

static struct att_event *att_find(int fd)
{
	for (size_t i = 0; i < att.nev; i++)
		if (att.ev[i].fd == fd)
			return &att.ev[i];
	return NULL;
}

/* A copy of e on thread tid, its records into e's ring. A thread that exited meanwhile is
 * not an error. */
static int att_copy(struct att_event *e, pid_t tid)
{
	struct perf_event_attr at = e->at;
	long fd = syscall(SYS_perf_event_open, &at, tid, e->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	uint64_t id = 0;

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, e->out) < 0 ||
	    ioctl((int)fd, PERF_EVENT_IOC_ID, &id) < 0 ||
	    mt_grow_array(&e->copies, &e->cap, e->n + 1, sizeof(int)) < 0 ||
	    mt_grow_array(&e->ids, &e->ids_cap, e->n + 1, sizeof(uint64_t)) < 0) {
		int r = errno ? -errno : -ENOMEM;

		close((int)fd);
		return r;
	}
	e->copies[e->n] = (int)fd;
	e->ids[e->n++] = id;
	return 0;
}

/* Event fd has a ring now (its own, or out's): copies of it on every thread seen. */
static void att_route(int fd, int out)
{
	struct att_event *e = att.root ? att_find(fd) : NULL;

	if (!e)
		return;
	e->out = out;
	for (size_t i = 0; i < att.ntids; i++)
		if (att.tids[i] != att.root && att_copy(e, att.tids[i]) < 0)
			att.failed++;
}

void mt_perf_attach_begin(pid_t root)
{
	att.root = root;
}

struct scan {
	int (*fn)(void *ctx, pid_t tid); /* its result is not used */
	void *ctx;
};

/* A thread not seen before: copies of every event routed so far; 1 when it is new. */
static int scan_thread(void *ctx, pid_t tid)
{
	struct scan *sc = ctx;

	for (size_t i = 0; i < att.ntids; i++)
		if (att.tids[i] == tid)
			return 0;
	if (mt_grow_array(&att.tids, &att.tids_cap, att.ntids + 1, sizeof(pid_t)) < 0) {
		att.failed++;
		return 0;
	}
	att.tids[att.ntids++] = tid;
	for (size_t i = 0; i < att.nev && tid != att.root; i++)
		if (att.ev[i].out >= 0 && att_copy(&att.ev[i], tid) < 0)
			att.failed++;
	if (sc->fn)
		(void)sc->fn(sc->ctx, tid);
	return 1;
}

int mt_perf_attach_scan(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx)
{
	struct scan sc = { fn, ctx };

	return mt_procfs_tasks(pid, scan_thread, &sc);
}

uint64_t mt_perf_attach_failed(void)
{
	return att.failed;
}

void mt_perf_attach_end(void)
{
	while (att.nev)
		mt_perf_close(att.ev[att.nev - 1].fd);
	free(att.ev);
	free(att.tids);
	memset(&att, 0, sizeof(att));
}

size_t mt_perf_copy_ids(int fd, const uint64_t **ids)
{
	struct att_event *e = att.root ? att_find(fd) : NULL;

	*ids = e ? e->ids : NULL;
	return e ? e->n : 0;
}

/*
 * Closing the last perf event of a tracepoint unregisters it, which waits for RCU grace
 * periods: ~30 ms at the end of every recording here, the larger part of a short
 * recording's cost. With mt_perf_defer_closes(true) the events are kept open (disabled by
 * their collectors' close already, their rings unmapped) and mt_perf_reap_deferred() hands
 * the last references to a short-lived child that closes them after the recorder is done.
 */
static struct {
	bool on;
	int *fd;
	size_t n, cap;
} deferred;

void mt_perf_defer_closes(bool on)
{
	deferred.on = on;
}

static void close_event(int fd)
{
	if (deferred.on &&
	    mt_grow_array(&deferred.fd, &deferred.cap, deferred.n + 1, sizeof(*deferred.fd)) == 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		deferred.fd[deferred.n++] = fd;
		return;
	}
	close(fd);
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

void mt_perf_reap_deferred(void)
{
	int go[2] = { -1, -1 };
	pid_t child;
	char c = 0;

	deferred.on = false;
	if (!deferred.n)
		return;
	mt_qsort(deferred.fd, deferred.n, sizeof(*deferred.fd), cmp_int);
	if (pipe2(go, O_CLOEXEC) < 0 || (child = fork()) < 0) {
		child = -1;
	} else if (child == 0) {
		/* The reaper: nothing but the events (no terminal, no trace, no socket) and
		 * the pipe, moved above them; it closes them once the recorder has let go of
		 * its copies. */
		unsigned lo = 0, last = (unsigned)deferred.fd[deferred.n - 1];
		int r = fcntl(go[0], F_DUPFD_CLOEXEC, (int)last + 1);

		for (size_t i = 0; i < deferred.n; i++) {
			if ((unsigned)deferred.fd[i] > lo)
				syscall(SYS_close_range, lo, (unsigned)deferred.fd[i] - 1, 0);
			lo = (unsigned)deferred.fd[i] + 1;
		}
		if (r < 0)
			_exit(0); /* the descriptors close as the process ends */
		if ((unsigned)r > lo)
			syscall(SYS_close_range, lo, (unsigned)r - 1, 0);
		syscall(SYS_close_range, (unsigned)r + 1, ~0u, 0);
		go[0] = r;
		(void)read(go[0], &c, 1); /* EOF: the recorder closed them (or exited) */
		for (size_t i = 0; i < deferred.n; i++)
			close(deferred.fd[i]);
		_exit(0);
	}
	for (size_t i = 0; i < deferred.n; i++)
		close(deferred.fd[i]); /* cheap while the reaper holds them; the cost if no reaper */
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	(void)child;
	free(deferred.fd);
	memset(&deferred, 0, sizeof(deferred));
}

void mt_perf_close(int fd)
{
	struct att_event *e = fd >= 0 && att.root ? att_find(fd) : NULL;

	if (e) {
		for (size_t i = 0; i < e->n; i++)
			close_event(e->copies[i]);
		free(e->copies);
		free(e->ids);
		*e = att.ev[--att.nev];
	}
	if (fd >= 0)
		close_event(fd);
}

int mt_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	long fd;

	attr->size = sizeof(*attr);
	if ((att.root && pid == att.root) || (pid == -1 && cpu >= 0)) {
		/* a running process, or every task on the CPU (record -a): no exec to wait for,
		 * nothing to inherit */
		attr->enable_on_exec = 0;
		attr->disabled = 0;
		if (pid == -1)
			attr->inherit = 0;
	}
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (att.root && pid == att.root && cpu >= 0 && group < 0)
		att_register(attr, cpu, (int)fd);
	return (int)fd;
}

int mt_perf_ring_open(struct mt_perf_ring *ring, int fd, unsigned data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	ring->fd = fd;
	ring->data_size = page * data_pages;
	ring->map_size = page * (data_pages + 1);
	p = mmap(NULL, ring->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int r = -errno;

		mt_perf_close(fd);
		ring->fd = -1;
		ring->base = NULL;
		return r;
	}
	ring->base = p;
	ring->data = (uint8_t *)p + page;
	att_route(fd, fd);
	return 0;
}

void mt_perf_ring_close(struct mt_perf_ring *ring)
{
	if (ring->base)
		munmap(ring->base, ring->map_size);
	mt_perf_close(ring->fd);
	ring->base = NULL;
	ring->fd = -1;
}

static void copy_out(const struct mt_perf_ring *ring, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos % ring->data_size), first = ring->data_size - off;

	if (first >= n) {
		memcpy(dst, ring->data + off, n);
	} else {
		memcpy(dst, ring->data + off, first);
		memcpy((uint8_t *)dst + first, ring->data, n - first);
	}
}

int mt_perf_ring_drain(struct mt_perf_ring *ring, mt_perf_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *mp = ring->base;
	uint64_t head, tail;
	int n = 0;

	if (!mp)
		return 0;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		size_t off = (size_t)(tail % ring->data_size);

		copy_out(ring, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
			return -EBADMSG;
		}
		if (off + h.size <= ring->data_size) {
			fn(ctx, (const struct perf_event_header *)(ring->data + off));
		} else {
			copy_out(ring, tail, ring->scratch, h.size);
			fn(ctx, (const struct perf_event_header *)ring->scratch);
		}
		tail += h.size;
		n++;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int mt_perf_ncpus(void)
{
	/* glibc reads /sys/devices/system/cpu/possible on each call: the loop asks every round */
	static int ncpus;

	if (!ncpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		ncpus = n > 0 ? (int)n : 1;
	}
	return ncpus;
}

int mt_perf_rings_pollfds(const struct mt_perf_ring *rings, int n, struct pollfd *fds, int max)
{
	int k = 0;

	for (int i = 0; i < n && k < max; i++)
		if (rings[i].fd >= 0)
			fds[k++] = (struct pollfd){ .fd = rings[i].fd, .events = POLLIN };
	return k;
}

uint64_t mt_perf_rings_drain(struct mt_perf_ring *rings, int n, mt_perf_record_fn fn, void *ctx)
{
	uint64_t malformed = 0;

	for (int i = 0; i < n; i++)
		if (rings[i].fd >= 0 && mt_perf_ring_drain(&rings[i], fn, ctx) == -EBADMSG)
			malformed++;
	return malformed;
}

void mt_perf_attr_tree(struct perf_event_attr *at, uint32_t type, uint64_t config,
		       uint64_t sample_type, uint32_t wakeup_bytes)
{
	memset(at, 0, sizeof(*at));
	at->size = sizeof(*at);
	at->type = type;
	at->config = config;
	at->sample_period = 1;
	at->sample_type = sample_type;
	mt_perf_attr_follow(at, wakeup_bytes);
}

void mt_perf_attr_follow(struct perf_event_attr *at, uint32_t wakeup_bytes)
{
	at->sample_id_all = 1;
	at->use_clockid = 1;
	at->clockid = CLOCK_MONOTONIC;
	at->inherit = 1;
	at->enable_on_exec = 1;
	at->disabled = 1;
	at->watermark = 1;
	at->wakeup_watermark = wakeup_bytes;
}

int mt_perf_open_ring(struct perf_event_attr *at, pid_t pid, int cpu, struct mt_perf_ring *ring,
		      unsigned *pages, unsigned min_pages)
{
	for (;;) {
		int fd = mt_perf_open(at, pid, cpu, -1), rc;

		if (fd < 0)
			return fd;
		rc = mt_perf_ring_open(ring, fd, *pages);
		if (rc == 0)
			return fd;
		if (rc != -EPERM || *pages <= min_pages)
			return rc;
		*pages /= 2; /* the ring closed fd: open the event again */
	}
}

int mt_perf_open_follower(struct perf_event_attr *at, pid_t pid, int cpu,
			  const struct mt_perf_ring *ring)
{
	int fd = mt_perf_open(at, pid, cpu, -1);

	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0) {
		int e = -errno;

		mt_perf_close(fd);
		return e;
	}
	if (fd >= 0)
		att_route(fd, ring->fd);
	return fd;
}

int mt_perf_rings_open(struct perf_event_attr *at, pid_t pid, struct mt_perf_ring *rings, int ncpu,
		       unsigned *pages, unsigned min_pages, mt_perf_follow_fn follow, void *ctx)
{
	int opened = 0;

	for (int cpu = 0; cpu < ncpu; cpu++)
		rings[cpu].fd = -1;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = mt_perf_open_ring(at, pid, cpu, &rings[cpu], pages, min_pages);

		if (fd == -ENODEV)
			continue; /* an offline CPU */
		if (fd < 0)
			return fd;
		if (follow && (fd = follow(ctx, cpu, &rings[cpu])) < 0)
			return fd;
		opened++;
	}
	return opened;
}
