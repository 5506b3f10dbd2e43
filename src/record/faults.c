/* SPDX-License-Identifier: MIT */
/* The page-fault collector: perf's minor/major fault software events, one record each. */
#include "record/faults.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/log.h"
#include "decode/sample.h"
#include "format/chunk.h"
#include "format/writer.h"
#include "record/perf.h"
#include "record/session.h"
#include "record/sysinfo.h"

/*
 * Two software events per CPU, page-faults-min and page-faults-maj, with a period of 1:
 * every fault is a record (IP, TID, TIME, ADDR). Only these events tell major from minor
 * (the exceptions tracepoint's error code says protection violation, not I/O). The major
 * event writes into the minor event's ring, so one drain sees both in order. Faults taken
 * inside syscalls (the kernel touching user memory, e.g. read() into a fresh buffer) are
 * included when the kernel allows it (root or perf_event_paranoid <= 1), as perf stat
 * counts them; otherwise only user-mode faults are, and the collector says so.
 */

#define RING_PAGES 256 /* 1 MiB per CPU */

struct mt_faults_state {
	struct mt_perf_ring *rings;
	int *maj_fds;
	uint64_t *maj_ids; /* the major events' ids (inherited copies report their parent's) */
	int nrings;
	bool kernel;
	uint64_t minor, major, lost, malformed;
};

static const uint64_t sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;

static void close_all(struct mt_faults_state *f)
{
	for (int i = 0; f->maj_fds && i < f->nrings; i++)
		if (f->maj_fds[i] >= 0)
			mt_perf_close(f->maj_fds[i]);
	for (int i = 0; f->rings && i < f->nrings; i++)
		mt_perf_ring_close(&f->rings[i]);
	free(f->maj_fds);
	free(f->maj_ids);
	free(f->rings);
	free(f);
}

static int open_cpu(struct mt_faults_state *f, pid_t pid, int cpu, bool kernel)
{
	struct perf_event_attr at;
	int fd, r;

	mt_perf_attr_tree(&at, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, sample_type,
			  RING_PAGES * 4096 / 4);
	at.exclude_kernel = !kernel;
	at.exclude_hv = 1;
	fd = mt_perf_open(&at, pid, cpu, -1);
	if (fd < 0)
		return fd;
	r = mt_perf_ring_open(&f->rings[cpu], fd, RING_PAGES);
	if (r < 0)
		return r;
	at.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
	fd = mt_perf_open_follower(&at, pid, cpu, &f->rings[cpu]);
	if (fd < 0)
		return fd;
	f->maj_fds[cpu] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &f->maj_ids[cpu]) < 0)
		return -errno;
	return 0;
}

int mt_faults_open(struct mt_session *s)
{
	struct mt_faults_state *f = calloc(1, sizeof(*f));
	int ncpu = mt_perf_ncpus(), opened = 0, r = 0;

	if (!f)
		return -ENOMEM;
	f->nrings = ncpu;
	f->rings = calloc((size_t)ncpu, sizeof(*f->rings));
	f->maj_fds = malloc((size_t)ncpu * sizeof(int));
	f->maj_ids = calloc((size_t)ncpu, sizeof(uint64_t));
	if (!f->rings || !f->maj_fds || !f->maj_ids) {
		close_all(f);
		return -ENOMEM;
	}
	for (int i = 0; i < ncpu; i++)
		f->rings[i].fd = f->maj_fds[i] = -1;
	/* Kernel-mode faults (in syscalls) too, where allowed. */
	f->kernel = geteuid() == 0 || mt_sysctl_int("/proc/sys/kernel/perf_event_paranoid", 2) <= 1;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		r = open_cpu(f, s->root, cpu, f->kernel);
		if (r == -EACCES && f->kernel && cpu == 0) {
			f->kernel = false;
			mt_perf_ring_close(&f->rings[cpu]);
			r = open_cpu(f, s->root, cpu, false);
		}
		if (r == -ENODEV) {
			mt_perf_ring_close(&f->rings[cpu]);
			continue; /* an offline CPU */
		}
		if (r < 0)
			break;
		opened++;
	}
	if (r < 0 || !opened) {
		close_all(f);
		return r < 0 ? r : -ENODEV;
	}
	s->faults = f;
	return 0;
}

int mt_faults_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	return s->faults ? mt_perf_rings_pollfds(s->faults->rings, s->faults->nrings, fds, max) : 0;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct mt_session *s = ctx;
	struct mt_faults_state *f = s->faults;
	struct mt_perf_sample ps;
	uint64_t row[_MT_F_FAULT_MAX];

	if (h->type == PERF_RECORD_LOST) {
		f->lost += mt_emit_perf_lost(s, h, mt_now_ns(), &s->faults_coll,
					     "page faults: perf ring buffer full");
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	if (mt_perf_sample_parse(h, h->size, sample_type, 0, &ps) < 0) {
		f->malformed++;
		return;
	}
	row[MT_F_TIME] = ps.time;
	row[MT_F_PID] = ps.pid;
	row[MT_F_TID] = ps.tid;
	row[MT_F_FAULT_KIND] = MT_FAULT_MINOR;
	for (int i = 0; i < f->nrings; i++) {
		const uint64_t *ids;
		size_t n = f->maj_fds[i] >= 0 ? mt_perf_copy_ids(f->maj_fds[i], &ids) : 0;

		if (f->maj_fds[i] >= 0 && ps.id == f->maj_ids[i])
			row[MT_F_FAULT_KIND] = MT_FAULT_MAJOR;
		for (size_t k = 0; k < n; k++) /* an attached process's threads (perf.h) */
			if (ps.id == ids[k])
				row[MT_F_FAULT_KIND] = MT_FAULT_MAJOR;
	}
	row[MT_F_FAULT_IP] = ps.ip;
	row[MT_F_FAULT_ADDR] = ps.addr;
	row[MT_F_FAULT_TRACKING] = 0; /* the reader derives it (format/pwfault.h) */
	if (row[MT_F_FAULT_KIND] == MT_FAULT_MAJOR)
		f->major++;
	else
		f->minor++;
	if (mt_writer_event(s->w, MT_EV_FAULT, row) == 0)
		s->faults_coll.events++;
}

void mt_faults_drain(struct mt_session *s)
{
	struct mt_faults_state *f = s->faults;

	if (f)
		f->malformed += mt_perf_rings_drain(f->rings, f->nrings, on_record, s);
}

void mt_faults_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_faults_state *f = s->faults;

	if (!f)
		return;
	mt_faults_drain(s);
	mt_kv_add(kv, "perf_events", "page-faults-min,page-faults-maj (every fault)");
	mt_kv_add(kv, "scope",
		  f->kernel ? "user and kernel mode (faults inside syscalls included)"
			    : "user mode only (perf_event_paranoid)");
	mt_kv_add_u64(kv, "minor", f->minor);
	mt_kv_add_u64(kv, "major", f->major);
	mt_kv_add_u64(kv, "malformed", f->malformed);
	mt_kv_add_u64(kv, "ring_bytes_per_cpu", RING_PAGES * 4096);
	s->faults_coll.lost = f->lost;
	close_all(f);
	s->faults = NULL;
}
