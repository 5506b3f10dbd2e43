/* SPDX-License-Identifier: MIT */
/* The RSS collector: kmem:rss_stat records aggregated per process, or statm polling. */
#include "record/rss.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/strutil.h"
#include "decode/sample.h"
#include "format/chunk.h"
#include "format/writer.h"
#include "record/perf.h"
#include "record/probe.h"
#include "record/session.h"
#include "record/sysinfo.h"

/*
 * kmem:rss_stat fires on every change of a process's file, anon, swap or shmem counter
 * with the counter's new value in bytes. The recorder keeps every process's current
 * values and writes an RSS event at most every --rss-interval-ms per process, carrying the
 * largest total (file + anon + shmem) seen since the previous event, so the series is
 * decimated but its peak is exact. Where the tracepoint cannot be used, /proc/PID/statm is
 * polled at the same interval (at least 10 ms): resident and shared pages give anon and
 * file+shmem together, without swap, and a peak between polls is missed.
 */

#define RING_PAGES 128
#define POLL_MIN_NS 10000000ull

struct proc_rss {
	pid_t pid;
	uint64_t v[4]; /* by the tracepoint's member: file, anon, swap, shmem */
	uint64_t peak; /* largest file + anon + shmem since the last event */
	uint64_t last_emit, last_change;
	uint64_t gone_ns; /* when the process exited (0: it runs) */
	bool pending;
};

/* An exited process's state is kept this long for the records still in flight. */
#define GONE_KEEP_NS 2000000000ull

struct mt_rss_state {
	struct mt_perf_ring *rings;
	int nrings;
	bool polling;
	uint64_t interval_ns, last_poll, last_forget;
	struct mt_tp_field f_curr, f_member, f_size;
	struct mt_map64 ix; /* pid -> index into procs */
	struct proc_rss *procs;
	size_t nprocs, cap;
	uint64_t records, events, foreign, lost, malformed, polls;
	uint64_t hwm; /* peaks taken from the kernel's high-water mark at an exit */
};

static const uint64_t sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;

static struct proc_rss *proc_of(struct mt_rss_state *r, pid_t pid)
{
	uint64_t *ix = mt_map64_get(&r->ix, (uint64_t)pid);

	if (ix)
		return &r->procs[*ix];
	if (mt_grow_array(&r->procs, &r->cap, r->nprocs + 1, sizeof(*r->procs)) < 0 ||
	    mt_map64_put(&r->ix, (uint64_t)pid, &ix) < 0)
		return NULL;
	*ix = r->nprocs;
	memset(&r->procs[r->nprocs], 0, sizeof(r->procs[0]));
	r->procs[r->nprocs].pid = pid;
	return &r->procs[r->nprocs++];
}

static void emit_as(struct mt_session *s, struct proc_rss *p, uint64_t t, unsigned source)
{
	struct mt_rss_state *r = s->rss;
	uint64_t row[_MT_F_RSS_MAX];

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = (uint64_t)p->pid;
	row[MT_F_RSS_FILE] = p->v[0];
	row[MT_F_RSS_ANON] = p->v[1];
	row[MT_F_RSS_SWAP] = p->v[2];
	row[MT_F_RSS_SHMEM] = p->v[3];
	row[MT_F_RSS_PEAK] = p->peak;
	row[MT_F_RSS_SOURCE] = source;
	if (mt_writer_event(s->w, MT_EV_RSS, row) == 0) {
		s->rss_coll.events++;
		r->events++;
	}
	p->peak = p->v[0] + p->v[1] + p->v[3];
	p->pending = false;
	p->last_emit = t;
}

static void emit(struct mt_session *s, struct proc_rss *p, uint64_t t)
{
	emit_as(s, p, t, s->rss->polling ? MT_RSS_STATM : MT_RSS_TRACEPOINT);
}

static void update(struct mt_session *s, struct proc_rss *p, uint64_t t)
{
	uint64_t total = p->v[0] + p->v[1] + p->v[3];

	if (total > p->peak)
		p->peak = total;
	p->pending = true;
	p->last_change = t;
	if (t - p->last_emit >= s->rss->interval_ns)
		emit(s, p, t);
}

/* The counters /proc/PID/status gives, in bytes, into v (file anon swap shmem, then VmHWM);
 * returns a bit per one found. */
static unsigned read_status(pid_t pid, uint64_t v[5])
{
	static const char *const keys[5] = { "RssFile:", "RssAnon:", "VmSwap:", "RssShmem:",
					     "VmHWM:" };
	char path[64], line[256];
	unsigned found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		for (int k = 0; k < 5; k++)
			if (!strncmp(line, keys[k], strlen(keys[k]))) {
				v[k] = strtoull(line + strlen(keys[k]), NULL, 10) * 1024;
				found |= 1u << k;
			}
	fclose(f);
	return found;
}

void mt_rss_seed(struct mt_session *s, pid_t pid)
{
	struct mt_rss_state *r = s->rss;
	struct proc_rss *p;
	uint64_t v[5];

	if (!r || !(p = proc_of(r, pid)) || (read_status(pid, v) & 15) != 15)
		return;
	for (int k = 0; k < 4; k++)
		p->v[k] = v[k];
	p->peak = p->v[0] + p->v[1] + p->v[3];
	emit(s, p, mt_now_ns());
}

static int read_format(struct mt_rss_state *r)
{
	char *text;
	int rc = mt_tracepoint_format("kmem/rss_stat", &text);

	if (rc < 0)
		return rc;
	if (mt_tp_format_field(text, "curr", &r->f_curr) < 0 ||
	    mt_tp_format_field(text, "member", &r->f_member) < 0 ||
	    mt_tp_format_field(text, "size", &r->f_size) < 0)
		rc = -EPROTO;
	free(text);
	return rc;
}

static int open_rings(struct mt_session *s, struct mt_rss_state *r)
{
	struct perf_event_attr at;
	int id = mt_tracepoint_id("kmem/rss_stat"), ncpu = mt_perf_ncpus(), rc;
	unsigned pages = RING_PAGES;

	if (id < 0)
		return id;
	rc = read_format(r);
	if (rc < 0)
		return rc;
	r->rings = calloc((size_t)ncpu, sizeof(*r->rings));
	if (!r->rings)
		return -ENOMEM;
	r->nrings = ncpu;
	mt_perf_attr_tree(&at, PERF_TYPE_TRACEPOINT, (uint64_t)id, sample_type,
			  RING_PAGES * 4096 / 4);
	rc = mt_perf_rings_open(&at, s->root, r->rings, ncpu, &pages, RING_PAGES, NULL, NULL);
	return rc < 0 ? rc : rc ? 0 : -ENODEV;
}

static void free_state(struct mt_rss_state *r)
{
	for (int i = 0; r->rings && i < r->nrings; i++)
		mt_perf_ring_close(&r->rings[i]);
	free(r->rings);
	free(r->procs);
	mt_map64_release(&r->ix);
	free(r);
}

int mt_rss_open(struct mt_session *s)
{
	struct mt_rss_state *r = calloc(1, sizeof(*r));
	int rc = -ENOTSUP;

	if (!r)
		return -ENOMEM;
	mt_map64_init(&r->ix);
	r->interval_ns = s->o->rss_interval_ns;
	if (mt_feat_ok(MT_FEAT_TP_RSS))
		rc = open_rings(s, r);
	if (rc < 0) {
		for (int i = 0; r->rings && i < r->nrings; i++)
			mt_perf_ring_close(&r->rings[i]);
		free(r->rings);
		r->rings = NULL;
		r->nrings = 0;
		r->polling = true;
		if (r->interval_ns < POLL_MIN_NS)
			r->interval_ns = POLL_MIN_NS;
	}
	s->rss = r;
	return r->polling ? 1 : 0;
}

int mt_rss_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	return s->rss ? mt_perf_rings_pollfds(s->rss->rings, s->rss->nrings, fds, max) : 0;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct mt_session *s = ctx;
	struct mt_rss_state *r = s->rss;
	struct mt_perf_sample ps;
	struct proc_rss *p;
	uint64_t member;
	pid_t pid;

	if (h->type == PERF_RECORD_LOST) {
		r->lost += mt_emit_perf_lost(s, h, mt_now_ns(), &s->rss_coll,
					     "rss_stat: perf ring buffer full");
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	if (mt_perf_sample_parse(h, h->size, sample_type, 0, &ps) < 0 || !ps.raw) {
		r->malformed++;
		return;
	}
	r->records++;
	member = mt_tp_value(ps.raw, ps.raw_size, &r->f_member);
	if (member > 3)
		return;
	pid = (pid_t)ps.pid;
	if (!mt_tp_value(ps.raw, ps.raw_size, &r->f_curr)) {
		/* A change to another process's memory (fork copying the parent's pages into the
		 * child's, process_vm_writev): its mm_id names no pid reliably (a freed mm's
		 * address is reused), so it is counted, not attributed; the owner's own next
		 * change carries the counter's full value. */
		r->foreign++;
		return;
	}
	p = proc_of(r, pid);
	if (!p)
		return;
	p->v[member] = mt_tp_value(ps.raw, ps.raw_size, &r->f_size);
	update(s, p, ps.time);
}

/* statm: size resident shared text lib data dt, in pages. */
static void poll_statm(struct mt_session *s, uint64_t now)
{
	struct mt_rss_state *r = s->rss;
	long page = sysconf(_SC_PAGESIZE);

	r->polls++;
	for (size_t i = 0; i < s->ntasks; i++) {
		const struct task *k = &s->tasks[i];
		char path[64], line[256];
		unsigned long long size, res, shared;
		struct proc_rss *p;

		if (k->state != TASK_LIVE || k->pid != k->tid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)k->pid);
		if (mt_read_line_file(path, line, sizeof(line)) < 0 ||
		    sscanf(line, "%llu %llu %llu", &size, &res, &shared) != 3)
			continue;
		p = proc_of(r, k->pid);
		if (!p)
			continue;
		p->v[0] = shared * (uint64_t)page;
		p->v[1] = (res - (shared < res ? shared : res)) * (uint64_t)page;
		update(s, p, now);
	}
}

/*
 * At a thread's exit stop (the process's memory still there): when records were lost (a
 * full ring) or values are polled, the records may have missed the peak; the kernel's
 * high-water mark has it. One HWM record: the values now and VmHWM as peak (its time is not
 * known; the analysis says so).
 */
void mt_rss_exit_stop(struct mt_session *s, pid_t pid)
{
	struct mt_rss_state *r = s->rss;
	struct proc_rss *p;
	uint64_t v[5];

	if (!r || (!r->lost && !r->polling))
		return;
	mt_rss_drain(s); /* the records still in the rings first: they may hold the peak */
	if (read_status(pid, v) != 31 || !(p = proc_of(r, pid)) || v[4] <= p->peak)
		return;
	for (int k = 0; k < 4; k++)
		p->v[k] = v[k];
	p->peak = v[4];
	r->hwm++;
	emit_as(s, p, mt_now_ns(), MT_RSS_HWM);
}

void mt_rss_on_exit(struct mt_session *s, pid_t pid, uint64_t t)
{
	/* Made if it is not there yet: a short process's counter records can be drained after
	 * its exit record (another ring), and must find it marked, to be forgotten too. */
	struct proc_rss *p = s->rss ? proc_of(s->rss, pid) : NULL;

	if (p)
		p->gone_ns = t ? t : 1;
}

/* Drops the exited processes whose records are all in: swap-remove, the map kept right. */
static void forget_gone(struct mt_rss_state *r, uint64_t now)
{
	for (size_t i = 0; i < r->nprocs;) {
		struct proc_rss *p = &r->procs[i];
		uint64_t *ix;

		if (!p->gone_ns || p->pending || now - p->gone_ns < GONE_KEEP_NS) {
			i++;
			continue;
		}
		(void)mt_map64_del(&r->ix, (uint64_t)p->pid);
		if (i != --r->nprocs) {
			*p = r->procs[r->nprocs];
			if ((ix = mt_map64_get(&r->ix, (uint64_t)p->pid)))
				*ix = i;
		}
	}
}

void mt_rss_drain(struct mt_session *s)
{
	struct mt_rss_state *r = s->rss;
	uint64_t now;

	if (!r)
		return;
	now = mt_now_ns();
	if (r->polling) {
		if (now - r->last_poll >= r->interval_ns) {
			poll_statm(s, now);
			r->last_poll = now;
		}
		return;
	}
	r->malformed += mt_perf_rings_drain(r->rings, r->nrings, on_record, s);
	/* (statm polling keeps its processes: it reads the session's live ones only) */
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].pending && now - r->procs[i].last_emit >= r->interval_ns)
			emit(s, &r->procs[i], r->procs[i].last_change);
	if (now - r->last_forget >= GONE_KEEP_NS) {
		forget_gone(r, now);
		r->last_forget = now;
	}
}

int mt_rss_timeout_ms(struct mt_session *s)
{
	if (!s->rss || !s->rss->polling)
		return -1;
	return (int)(s->rss->interval_ns / 1000000);
}

void mt_rss_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_rss_state *r = s->rss;

	if (!r)
		return;
	mt_rss_drain(s);
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].pending)
			emit(s, &r->procs[i], r->procs[i].last_change);
	mt_kv_add(kv, "source", r->polling ? "/proc/PID/statm polling" : "kmem:rss_stat");
	mt_kv_add_u64(kv, "interval_ns", r->interval_ns);
	mt_kv_add_u64(kv, "tracepoint_records", r->records);
	mt_kv_add_u64(kv, "foreign_changes", r->foreign);
	mt_kv_add_u64(kv, "polls", r->polls);
	mt_kv_add_u64(kv, "malformed", r->malformed);
	mt_kv_add_u64(kv, "peaks_from_hwm", r->hwm);
	s->rss_coll.lost = r->lost;
	free_state(r);
	s->rss = NULL;
}
