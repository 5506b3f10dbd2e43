/* SPDX-License-Identifier: MIT */
/* The perf collector of mappings (MMAP2) and task records (COMM, FORK, EXIT). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/log.h"
#include "format/writer.h"
#include "record/alloc.h"
#include "record/access.h"
#include "record/buildid.h"
#include "record/probe.h"
#include "record/session.h"
#include "record/ustack.h"

/*
 * One dummy software event per CPU, attached to the command with inherit and
 * enable_on_exec: the kernel then reports every mapping, name change, fork and exit of the
 * whole tree, timestamped on CLOCK_MONOTONIC, at no cost to the workload but the record
 * itself. (An inherited event opened for all CPUs at once cannot be mmap'ed: EINVAL.)
 */

struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

static const struct sample_id *sid_of(const struct perf_event_header *h)
{
	return (const struct sample_id *)((const uint8_t *)h + h->size - sizeof(struct sample_id));
}

int mt_perfmon_open(struct mt_session *s)
{
	int ncpu = mt_perf_ncpus(), err = 0, last = -ENODEV, opened = 0;
	long page = sysconf(_SC_PAGESIZE);

	s->rings = calloc((size_t)ncpu, sizeof(*s->rings));
	if (!s->rings)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu; cpu++)
		s->rings[cpu].fd = -1;
	s->nrings = ncpu;
	/*
	 * Build-ids are read from the files of executable mappings by the recorder, not asked
	 * of the kernel: the kernel parses every file mapping, data files included, and on
	 * Linux 6.18 that read half of a 16 MiB data file into the page cache before the
	 * workload touched it (its major faults halved). Code files are being executed, so
	 * reading their ELF notes changes nothing.
	 */
	s->perf_build_ids = false;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a;
		int fd, r;

		mt_perf_attr_tree(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
				  PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
				  (uint32_t)((size_t)s->o->ring_pages * (size_t)page / 4));
		a.sample_period = 0; /* side-band records only */
		a.mmap = 1;
		a.mmap2 = 1;
		a.mmap_data = 1;
		a.comm = 1;
		a.comm_exec = 1;
		a.task = 1;
		a.build_id = s->perf_build_ids;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = mt_perf_open(&a, s->root, cpu, -1);
		if (fd == -ENODEV || fd == -EINVAL) {
			last = fd; /* an offline CPU, most likely */
			continue;
		}
		if (fd < 0) {
			err = fd;
			break;
		}
		r = mt_perf_ring_open(&s->rings[cpu], fd, s->o->ring_pages);
		if (r < 0) {
			err = r;
			break;
		}
		opened++;
	}
	if (err < 0 || !opened) {
		mt_perfmon_close(s);
		return err < 0 ? err : last;
	}
	return 0;
}

void mt_perfmon_close(struct mt_session *s)
{
	for (int i = 0; s->rings && i < s->nrings; i++)
		mt_perf_ring_close(&s->rings[i]);
	free(s->rings);
	s->rings = NULL;
	s->nrings = 0;
}

static void on_mmap2(struct mt_session *s, const struct perf_event_header *h)
{
	const struct {
		struct perf_event_header header;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		union {
			struct {
				uint32_t maj, min;
				uint64_t ino, ino_generation;
			};
			struct {
				uint8_t build_id_size, r1;
				uint16_t r2;
				uint8_t build_id[20];
			};
		};
		uint32_t prot, flags;
		char filename[];
	} *m = (const void *)h;
	const struct sample_id *sid = sid_of(h);
	size_t fixed = offsetof(__typeof__(*m), filename), maxlen;
	char path[4096], bid[64] = "";
	uint64_t row[_MT_F_MMAP_MAX];
	struct mt_file_id id = { 0, 0, 0 }; /* unknown: any regular file at the path */

	if (h->size < fixed + sizeof(*sid))
		return;
	maxlen = h->size - fixed - sizeof(*sid);
	if (maxlen >= sizeof(path))
		maxlen = sizeof(path) - 1;
	memcpy(path, m->filename, maxlen);
	path[maxlen] = 0;
	/* The kernel's names for anonymous memory; "" is the trace's. */
	if (!strcmp(path, "//anon") || !strcmp(path, "/dev/zero (deleted)"))
		path[0] = 0;
	row[MT_F_MMAP_MAJ] = row[MT_F_MMAP_MIN] = row[MT_F_MMAP_INO] = 0;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		for (unsigned i = 0; i < m->build_id_size && i < 20; i++)
			snprintf(bid + 2 * i, 3, "%02x", m->build_id[i]);
	} else {
		row[MT_F_MMAP_MAJ] = m->maj;
		row[MT_F_MMAP_MIN] = m->min;
		row[MT_F_MMAP_INO] = m->ino;
		id = (struct mt_file_id){ m->maj, m->min, m->ino };
		if (path[0] == '/' && m->ino && (m->prot & PROT_EXEC)) {
			char mf[96];

			/* the mapping itself while it exists; else the path, if it is still
			 * the file that was mapped */
			snprintf(mf, sizeof(mf), "/proc/%u/map_files/%llx-%llx", m->pid,
				 (unsigned long long)m->addr,
				 (unsigned long long)(m->addr + m->len));
			if (mt_buildid_of_file(mf, &id, bid, sizeof(bid)) < 0)
				(void)mt_buildid_of_file(path, &id, bid, sizeof(bid));
		}
	}
	row[MT_F_TIME] = sid->time;
	row[MT_F_PID] = m->pid;
	row[MT_F_TID] = m->tid;
	row[MT_F_MMAP_ADDR] = m->addr;
	row[MT_F_MMAP_LEN] = m->len;
	/* For anonymous memory the kernel reports the page index of the address; /proc says 0. */
	row[MT_F_MMAP_PGOFF] = path[0] == '/' ? m->pgoff : 0;
	row[MT_F_MMAP_PROT] = m->prot;
	row[MT_F_MMAP_FLAGS] = m->flags;
	row[MT_F_MMAP_BUILD_ID] = mt_writer_str(s->w, bid);
	row[MT_F_MMAP_PATH] = mt_writer_str(s->w, path);
	row[MT_F_MMAP_ORIGIN] = MT_MMAP_PERF;
	row[MT_F_MMAP_STACK] = 0;
	if (mt_writer_event(s->w, MT_EV_MMAP, row) == 0)
		s->maps.events++;
	if (m->prot & PROT_EXEC)
		mt_access_on_code_map(s, (pid_t)m->pid, m->addr, m->len);
	if (s->ustack && (m->prot & PROT_EXEC))
		mt_ustack_map(s->ustack, m->pid, m->addr, m->len, m->pgoff, &id, path);
}

static void on_comm(struct mt_session *s, const struct perf_event_header *h)
{
	const struct {
		struct perf_event_header header;
		uint32_t pid, tid;
		char comm[];
	} *c = (const void *)h;
	const struct sample_id *sid = sid_of(h);
	char comm[64];
	size_t n = h->size - sizeof(*c) - sizeof(*sid);

	if (h->size < sizeof(*c) + sizeof(*sid))
		return;
	if (n >= sizeof(comm))
		n = sizeof(comm) - 1;
	memcpy(comm, c->comm, n);
	comm[n] = 0;
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* ptrace reports execs itself, with the exact argv; perf mode reads /proc now. */
		if (s->follow == MT_FOLLOW_PERF) {
			mt_emit_exec(s, sid->time, (pid_t)c->pid, (pid_t)c->tid, (pid_t)c->tid,
				     comm, (pid_t)c->pid == s->root ? s->o->argv : NULL);
			mt_alloc_on_exec_at(s, (pid_t)c->pid, sid->time);
		}
		return;
	}
	mt_emit_comm(s, sid->time, (pid_t)c->pid, (pid_t)c->tid, comm);
}

static void on_task(struct mt_session *s, const struct perf_event_header *h)
{
	const struct {
		struct perf_event_header header;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} *f = (const void *)h;

	if (s->follow != MT_FOLLOW_PERF || h->size < sizeof(*f))
		return;
	if (h->type == PERF_RECORD_FORK) {
		mt_emit_task_new(s, f->time, (pid_t)f->pid, (pid_t)f->tid, (pid_t)f->ppid,
				 (pid_t)f->ptid,
				 f->pid == f->tid ? MT_TASK_PROCESS : MT_TASK_THREAD);
		if (f->pid == f->tid)
			mt_alloc_on_fork(s, (pid_t)f->ppid, (pid_t)f->pid);
	} else if ((pid_t)f->tid != s->root || s->attached) {
		/* The root's status comes from waitpid; below it (and for an attached process,
		 * whose parent memtap is not) perf cannot see statuses. */
		mt_emit_exit(s, f->time, (pid_t)f->pid, (pid_t)f->tid,
			     f->pid == f->tid ? MT_TASK_PROCESS : MT_TASK_THREAD, -1);
		if (f->pid == f->tid) /* its runtime's regions, and whether it had one */
			mt_alloc_on_process_exit(s, (pid_t)f->pid);
	}
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct mt_session *s = ctx;

	s->perf_records++;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		on_mmap2(s, h);
		break;
	case PERF_RECORD_COMM:
		on_comm(s, h);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		on_task(s, h);
		break;
	case PERF_RECORD_LOST:
		/* LOST: header, id, lost, then the sample_id the attr asks for */
		(void)mt_emit_perf_lost(s, h,
					h->size >= sizeof(*h) + 16 + sizeof(struct sample_id)
						? sid_of(h)->time
						: mt_now_ns(),
					&s->maps, "perf ring buffer full (raise --ring-pages)");
		break;
	default:
		break;
	}
}

void mt_perfmon_drain(struct mt_session *s)
{
	for (int i = 0; i < s->nrings; i++) {
		int r = mt_perf_ring_drain(&s->rings[i], on_record, s);

		if (r == -EBADMSG)
			mt_emit_lost(s, mt_now_ns(), &s->maps, 1,
				     "malformed perf record; ring dropped");
	}
}
