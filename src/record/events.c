/* SPDX-License-Identifier: MIT */
/* Building the recorder's events: lifecycle, mappings, losses. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include <memtap/trace-format.h>

#include "format/writer.h"
#include "record/buildid.h"
#include "record/procfs.h"
#include "record/rss.h"
#include "record/session.h"
#include "record/ustack.h"

void mt_emit_task_new(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, pid_t ppid,
		      pid_t ptid, int kind)
{
	uint64_t row[_MT_F_NEW_MAX] = {
		t, (uint64_t)pid, (uint64_t)tid, (uint64_t)ppid, (uint64_t)ptid, (uint64_t)kind
	};

	if (mt_writer_event(s->w, MT_EV_TASK_NEW, row) == 0)
		s->proc.events++;
	if (s->ustack && kind != MT_TASK_THREAD)
		mt_ustack_fork(s->ustack, (uint32_t)ppid, (uint32_t)pid); /* same address space */
	if (kind == MT_TASK_THREAD)
		s->nthreads++;
	else
		s->nprocesses++;
}

void mt_emit_exec(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, pid_t old_tid,
		  const char *comm_hint, char *const *argv_hint)
{
	static char argv[1 << 17];
	char exe[PATH_MAX] = "", comm[64] = "", cgroup[512] = "";
	long n = mt_procfs_cmdline(pid, argv, sizeof(argv));
	uint64_t row[_MT_F_EXEC_MAX];

	(void)mt_procfs_exe(pid, exe, sizeof(exe));
	(void)mt_procfs_cgroup(pid, cgroup, sizeof(cgroup));
	if (mt_procfs_comm(pid, comm, sizeof(comm)) < 0 && comm_hint)
		snprintf(comm, sizeof(comm), "%s", comm_hint);
	if (n <= 0 && argv_hint) {
		n = 0;
		for (int i = 0; argv_hint[i]; i++) {
			size_t len = strlen(argv_hint[i]) + 1;

			if ((size_t)n + len > sizeof(argv))
				break;
			memcpy(argv + n, argv_hint[i], len);
			n += (long)len;
		}
	}
	row[MT_F_TIME] = t;
	row[MT_F_PID] = (uint64_t)pid;
	row[MT_F_TID] = (uint64_t)tid;
	row[MT_F_EXEC_EXE] = mt_writer_str(s->w, exe);
	row[MT_F_EXEC_ARGV] = n > 0 ? mt_writer_strn(s->w, argv, (size_t)n) : 0;
	row[MT_F_EXEC_COMM] = mt_writer_str(s->w, comm);
	row[MT_F_EXEC_OLD_TID] = (uint64_t)old_tid;
	row[MT_F_EXEC_CGROUP] = mt_writer_str(s->w, cgroup);
	if (mt_writer_event(s->w, MT_EV_TASK_EXEC, row) == 0)
		s->proc.events++;
	mt_snapshot_maps(s, t, pid, tid);
}

void mt_emit_comm(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, const char *comm)
{
	uint64_t row[_MT_F_COMM_MAX] = { t, (uint64_t)pid, (uint64_t)tid,
					 mt_writer_str(s->w, comm) };

	if (mt_writer_event(s->w, MT_EV_TASK_COMM, row) == 0)
		s->proc.events++;
}

void mt_emit_exit(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid, int kind, int status)
{
	/* status: a wait status, or -1 when the mechanism cannot observe it */
	uint64_t row[_MT_F_EXIT_MAX] = {
		t, (uint64_t)pid, (uint64_t)tid, (uint64_t)kind, 0, 0, 0, 0
	};

	if (status >= 0) {
		row[MT_F_EXIT_KNOWN] = 1;
		if (WIFSIGNALED(status)) {
			row[MT_F_EXIT_CODE] = (uint64_t)(int64_t)-1;
			row[MT_F_EXIT_SIGNAL] = (uint64_t)WTERMSIG(status);
			row[MT_F_EXIT_CORE] = WCOREDUMP(status) ? 1 : 0;
		} else {
			row[MT_F_EXIT_CODE] = (uint64_t)WEXITSTATUS(status);
		}
	}
	if (mt_writer_event(s->w, MT_EV_TASK_EXIT, row) == 0)
		s->proc.events++;
	if (kind == MT_TASK_PROCESS)
		mt_rss_on_exit(s, pid, t);
}

void mt_emit_lost(struct mt_session *s, uint64_t t, struct mt_coll *c, uint64_t count,
		  const char *reason)
{
	uint64_t row[_MT_F_LOST_MAX] = { t,	0,
					 0,	mt_writer_str(s->w, c->name),
					 count, mt_writer_str(s->w, reason) };

	c->lost += count;
	(void)mt_writer_event(s->w, MT_EV_LOST, row);
}

uint64_t mt_emit_perf_lost(struct mt_session *s, const struct perf_event_header *h, uint64_t t,
			   struct mt_coll *c, const char *reason)
{
	const struct {
		struct perf_event_header header;
		uint64_t id, lost;
	} *l = (const void *)h;

	if (h->type != PERF_RECORD_LOST || h->size < sizeof(*l))
		return 0;
	mt_emit_lost(s, t, c, l->lost, reason);
	return l->lost;
}

struct snap {
	struct mt_session *s;
	uint64_t t;
	pid_t pid, tid;
};

static int snap_one(void *ctx, const struct mt_maps_entry *e)
{
	struct snap *sn = ctx;
	struct mt_session *s = sn->s;
	char bid[64] = "", mf[96];
	uint64_t row[_MT_F_MMAP_MAX];
	struct mt_file_id id = { e->maj, e->min, e->ino };

	/* Build-ids of executable file mappings (what symbolization needs; reading data files
	 * would fill the page cache behind the workload's back): through map_files (exact even
	 * for deleted or namespaced files) when permitted, else through the path. */
	if (e->path[0] == '/' && e->ino && (e->prot & PROT_EXEC)) {
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)sn->pid,
			 (unsigned long long)e->start, (unsigned long long)e->end);
		if (mt_buildid_of_file(mf, NULL, bid, sizeof(bid)) < 0)
			(void)mt_buildid_of_file(e->path, &id, bid, sizeof(bid));
	}
	row[MT_F_TIME] = sn->t;
	row[MT_F_PID] = (uint64_t)sn->pid;
	row[MT_F_TID] = (uint64_t)sn->tid;
	row[MT_F_MMAP_ADDR] = e->start;
	row[MT_F_MMAP_LEN] = e->end - e->start;
	row[MT_F_MMAP_PGOFF] = e->pgoff;
	row[MT_F_MMAP_PROT] = e->prot;
	row[MT_F_MMAP_FLAGS] = e->shared ? MAP_SHARED : MAP_PRIVATE;
	row[MT_F_MMAP_MAJ] = e->maj;
	row[MT_F_MMAP_MIN] = e->min;
	row[MT_F_MMAP_INO] = e->ino;
	row[MT_F_MMAP_BUILD_ID] = mt_writer_str(s->w, bid);
	row[MT_F_MMAP_PATH] = mt_writer_str(s->w, e->path);
	row[MT_F_MMAP_ORIGIN] = MT_MMAP_PROCFS;
	row[MT_F_MMAP_STACK] = 0;
	if (mt_writer_event(s->w, MT_EV_MMAP, row) == 0)
		s->maps.events++;
	if (s->ustack && (e->prot & PROT_EXEC))
		mt_ustack_map(s->ustack, (uint32_t)sn->pid, e->start, e->end - e->start, e->pgoff,
			      &id, e->path);
	return 0;
}

int mt_snapshot_maps(struct mt_session *s, uint64_t t, pid_t pid, pid_t tid)
{
	struct snap sn = { s, t, pid, tid };

	return mt_procfs_maps(pid, snap_one, &sn);
}
