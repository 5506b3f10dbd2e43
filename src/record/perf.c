/* SPDX-License-Identifier: MIT */
/* perf_event_open and ring-buffer draining. */
#include "perf.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int mt_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	long fd;

	attr->size = sizeof(*attr);
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
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

		close(fd);
		ring->fd = -1;
		ring->base = NULL;
		return r;
	}
	ring->base = p;
	ring->data = (uint8_t *)p + page;
	return 0;
}

void mt_perf_ring_close(struct mt_perf_ring *ring)
{
	if (ring->base)
		munmap(ring->base, ring->map_size);
	if (ring->fd >= 0)
		close(ring->fd);
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
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
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

		close(fd);
		return e;
	}
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
