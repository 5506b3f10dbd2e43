/* SPDX-License-Identifier: MIT */
/*
 * The live file (memtap top reads it), text, one record per line:
 *   memtap-live 2
 *   recorder PID  start_ns T  now_ns T  trace BYTES  lost N  system_wide 0|1
 *   command TEXT
 *   path TRACE
 *   have FAULTS SYSCALLS SAMPLES (1: counted live; syscalls in summary mode are not)
 *   wss WINDOW_NS PARTIAL (PARTIAL 1: the last window reached its bound, a lower bound)
 *   proc PID MINOR MAJOR SYSCALLS SAMPLES FILE ANON SHMEM SWAP WSS UNPLACED GONE COMM
 *   heap PID LIVE_BYTES LIVE_BLOCKS CALLS BYTES PARTIAL     (live-heap.c)
 *   site PID LIVE_BYTES LIVE_BLOCKS CALLS BYTES IP0 IP1 PYTHON_FRAME
 *   region PID SAMPLES BYTES NAME                           (live-regions.c)
 * Counts are totals since the start (top makes rates of two files); RSS bytes are the
 * process's latest; WSS is the pages of the last full window (-1: none yet). Written to a
 * new name and renamed over the old one: a reader never sees half a file.
 */
#include "record/live.h"
#include "record/live-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/livedir.h"
#include "common/log.h"
#include "format/pwfault.h"
#include "format/writer.h"
#include "record/procfs.h"
#include "record/session.h"

#define PERIOD_NS 500000000ull
#define MAX_PROCS 4096 /* the most active first beyond this */

#define GONE_SHOWN_NS 5000000000ull

struct live_proc *mt_live_proc(struct mt_live *l, pid_t pid)
{
	uint64_t *ix = mt_map64_get(&l->ix, (uint64_t)pid);

	if (ix)
		return &l->v[*ix];
	if (l->n >= MAX_PROCS * 4 || mt_grow_array(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0 ||
	    mt_map64_put(&l->ix, (uint64_t)pid, &ix) < 0)
		return NULL;
	*ix = l->n;
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].pid = pid;
	l->v[l->n].comm_stale = true; /* read when published: most short processes never are */
	snprintf(l->v[l->n].comm, sizeof(l->v[0].comm), "?");
	return &l->v[l->n++];
}

static bool own(const struct live_proc *p, uint64_t addr)
{
	for (unsigned i = 0; i < p->nown; i++)
		if (addr >= p->own[i].lo && addr < p->own[i].hi)
			return true;
	return false;
}

static void on_event(void *ctx, unsigned type, const uint64_t *row)
{
	struct mt_live *l = ctx;
	struct live_proc *p = row[MT_F_PID] ? mt_live_proc(l, (pid_t)row[MT_F_PID]) : NULL;
	/* the reader's rule for page-write tracking's faults, on events as they are written
	 * (a scan's events before the faults of its walk, as in time order) */
	unsigned tracking = l->pwf ? mt_pwf_event(l->pwf, type, row) : 0;

	if (!p)
		return;
	switch (type) {
	case MT_EV_MMAP:
		if (row[MT_F_MMAP_ORIGIN] == MT_MMAP_MEMTAP && p->nown < LIVE_OWN_MAX)
			p->own[p->nown++] =
				(struct live_own){ row[MT_F_MMAP_ADDR],
						   row[MT_F_MMAP_ADDR] + row[MT_F_MMAP_LEN] };
		break;
	case MT_EV_FAULT:
		if ((tracking & MT_FAULT_TRACKING) || own(p, row[MT_F_FAULT_ADDR]) ||
		    own(p, row[MT_F_FAULT_IP]))
			break; /* memtap's write protection or own memory, not the workload's */
		if (row[MT_F_FAULT_KIND] == MT_FAULT_MAJOR)
			p->major++;
		else
			p->minor++;
		mt_live_touch(l, p, row[MT_F_FAULT_ADDR], row[MT_F_TIME]);
		break;
	case MT_EV_SYSCALL:
		if (!(row[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RUNTIME))
			p->syscalls++;
		break;
	case MT_EV_ACCESS:
		if (own(p, row[MT_F_ACCESS_ADDR]))
			break; /* memtap's own memory: not the workload's hottest region */
		p->samples++;
		if (row[MT_F_ACCESS_ADDR]) {
			mt_live_touch(l, p, row[MT_F_ACCESS_ADDR], row[MT_F_TIME]);
			mt_live_sample(l, p, row[MT_F_ACCESS_ADDR], row[MT_F_TIME]);
		}
		break;
	case MT_EV_RSS:
		p->rss[0] = row[MT_F_RSS_FILE];
		p->rss[1] = row[MT_F_RSS_ANON];
		p->rss[2] = row[MT_F_RSS_SHMEM];
		p->rss[3] = row[MT_F_RSS_SWAP];
		break;
	case MT_EV_TASK_EXEC:
		mt_live_maps_free(p->maps); /* a new image: its mappings are read afresh */
		p->maps = NULL;
		p->nown = 0; /* its runtime greets again */
		p->comm_stale = true;
		break;
	case MT_EV_TASK_COMM:
		p->comm_stale = true;
		break;
	case MT_EV_TASK_EXIT:
		if (row[MT_F_EXIT_KIND] == MT_TASK_PROCESS) {
			p->gone = 1;
			p->gone_ns = row[MT_F_TIME];
		}
		break;
	default:
		break;
	}
}

/* The live files of recorders that are gone (a SIGKILL leaves its file, and its temporary
 * one: hundreds after a day of tests), removed from the user's private directory. A file is
 * PID.live or PID.live.XXXXXX; a recorder that runs keeps its own. */
static void sweep(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *d;

	while (dd && (d = readdir(dd))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (pid <= 0 || pid > INT_MAX || end == d->d_name || strncmp(end, ".live", 5) ||
		    (end[5] && (end[5] != '.' || strlen(end + 6) != 6)))
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			(void)unlinkat(dirfd(dd), d->d_name, 0);
	}
	if (dd)
		closedir(dd);
}

void mt_live_open(struct mt_session *s)
{
	char dir[PATH_MAX - 32];
	struct mt_live *l;
	int r = mt_live_dir(dir, sizeof(dir), true);

	if (r < 0) {
		mt_debug("no live figures for memtap top: %s", strerror(-r));
		return;
	}
	sweep(dir);
	if (!(l = calloc(1, sizeof(*l))))
		return;
	snprintf(l->path, sizeof(l->path), "%s/%d.live", dir, (int)s->self);
	mt_map64_init(&l->ix);
	if (s->o->page_writes_ns)
		l->pwf = mt_pwf_new(); /* without it, tracking's faults count as the workload's */
	s->livefig = l;
	mt_writer_tap(s->w,
		      1u << MT_EV_FAULT | 1u << MT_EV_SYSCALL | 1u << MT_EV_ACCESS |
			      1u << MT_EV_RSS | 1u << MT_EV_TASK_EXEC | 1u << MT_EV_TASK_COMM |
			      1u << MT_EV_MMAP | 1u << MT_EV_TASK_EXIT |
			      (uint32_t)(l->pwf ? MT_PWF_TYPES : 0),
		      on_event, l);
}

/* The most active processes first when there are too many to list. */
static int by_activity(const void *a, const void *b)
{
	const struct live_proc *x = a, *y = b;
	uint64_t ax = x->minor + x->major + x->syscalls + x->samples + x->rss[1] / 4096;
	uint64_t ay = y->minor + y->major + y->syscalls + y->samples + y->rss[1] / 4096;

	return ax < ay ? 1 : ax > ay ? -1 : 0;
}

static void publish(struct mt_session *s, struct mt_live *l, uint64_t now)
{
	char tmp[PATH_MAX + 16];
	struct live_proc *v = l->v;
	size_t n = l->n;
	uint64_t lost = 0;
	FILE *f;
	int fd;

	if (n > MAX_PROCS && (v = malloc(n * sizeof(*v)))) {
		memcpy(v, l->v, n * sizeof(*v));
		qsort(v, n, sizeof(*v), by_activity);
		n = MAX_PROCS;
	} else if (n > MAX_PROCS) {
		v = l->v;
		n = MAX_PROCS;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", l->path);
	if ((fd = mkstemp(tmp)) < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	lost = s->alloc_coll.lost + s->access_coll.lost + s->faults_coll.lost + s->rss_coll.lost +
	       s->syscalls_coll.lost + s->events_coll.lost + s->maps.lost + s->proc.lost;
	fprintf(f, "memtap-live 2\n");
	fprintf(f,
		"recorder %d start_ns %" PRIu64 " now_ns %" PRIu64 " trace %" PRIu64
		" lost %" PRIu64 " system_wide %d\n",
		(int)s->self, s->t_start, now, mt_writer_stats(s->w)->bytes, lost,
		s->system_wide ? 1 : 0);
	fprintf(f, "command %s\n", s->live_command);
	fprintf(f, "path %s\n", s->o->output);
	fprintf(f, "have %d %d %d\n", s->faults != NULL, s->syscalls != NULL && !s->syscalls_bpf,
		s->access != NULL);
	fprintf(f, "wss %" PRIu64 " %d\n", (uint64_t)LIVE_WSS_NS, l->wss_partial_last ? 1 : 0);
	for (size_t i = 0; i < n; i++) {
		if (v[i].comm_stale && !v[i].gone) {
			(void)mt_procfs_comm(v[i].pid, v[i].comm, sizeof(v[i].comm));
			v[i].comm_stale = false;
		}
		fprintf(f,
			"proc %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRIu64 " %d %s\n",
			(int)v[i].pid, v[i].minor, v[i].major, v[i].syscalls, v[i].samples,
			v[i].rss[0], v[i].rss[1], v[i].rss[2], v[i].rss[3],
			v[i].wss_seen ? (int64_t)v[i].wss_last : -1, v[i].unplaced, v[i].gone,
			v[i].comm);
	}
	mt_live_heap_print(l, f);
	mt_live_regions_print(l, f);
	if (fclose(f) != 0 || rename(tmp, l->path) < 0)
		unlink(tmp);
out:
	if (v != l->v)
		free(v);
}

/* Processes that exited a while ago leave the list: a long system-wide recording's memory
 * does not grow with every process it saw. */
static void forget_gone(struct mt_live *l, uint64_t now)
{
	for (size_t i = 0; i < l->n;) {
		struct live_proc *p = &l->v[i];
		uint64_t *ix;

		if (!p->gone || now < p->gone_ns + GONE_SHOWN_NS) {
			i++;
			continue;
		}
		(void)mt_map64_del(&l->ix, (uint64_t)p->pid);
		mt_live_heap_free(l, p->heap);
		mt_live_maps_free(p->maps);
		p->heap = NULL;
		p->maps = NULL;
		mt_live_regions_forget(l, p->pid);
		if (i != --l->n) {
			*p = l->v[l->n];
			if ((ix = mt_map64_get(&l->ix, (uint64_t)p->pid)))
				*ix = i;
		}
	}
}

void mt_live_tick(struct mt_session *s)
{
	struct mt_live *l = s->livefig;
	uint64_t now;

	if (!l || (now = mt_now_ns()) - l->last < PERIOD_NS)
		return;
	l->last = now;
	mt_live_wss_roll(l, now);
	forget_gone(l, now);
	publish(s, l, now);
}

void mt_live_close(struct mt_session *s)
{
	struct mt_live *l = s->livefig;

	if (!l)
		return;
	mt_writer_tap(s->w, 0, NULL, NULL);
	unlink(l->path);
	for (size_t i = 0; i < l->n; i++)
		mt_live_heap_free(l, l->v[i].heap);
	mt_live_regions_release(l);
	mt_map64_release(&l->ix);
	mt_pwf_free(l->pwf);
	free(l->v);
	free(l);
	s->livefig = NULL;
}
