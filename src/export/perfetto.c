/* SPDX-License-Identifier: MIT */
/* The Chrome/Perfetto Trace Event JSON timeline, written in one pass over the events. */
#include "export/perfetto-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/access.h"
#include "analysis/own.h"
#include "analysis/procs.h"
#include "analysis/symbols.h"
#include "analysis/timeline.h"
#include "common/outfile.h"
#include "common/hash.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "analysis/pass.h"
#include "format/reader.h"
#include "format/schema.h"

/* A duration in microseconds with ns kept: "1234.567". */
static void us(struct pf *p, const char *key, uint64_t ns)
{
	fprintf(p->f, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

/* A time: since t0. */
static void ts(struct pf *p, const char *key, uint64_t t)
{
	us(p, key, t > p->t0 ? t - p->t0 : 0);
}

/* Starts an event object: {"ph":PH,"pid":..,"tid":.. */
static void begin(struct pf *p, char ph, uint32_t pid, uint32_t tid)
{
	fputs(p->first ? "\n" : ",\n", p->f);
	p->first = false;
	fprintf(p->f, "{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, ph, pid, tid);
	p->st->events++;
}

static void name(struct pf *p, const char *s)
{
	fputs(",\"name\":", p->f);
	mt_json_write_string(p->f, s, strlen(s), false);
}

static void meta(struct pf *p, const char *what, uint32_t pid, uint32_t tid, const char *value)
{
	if (p->proto) {
		p->st->events++;
		if (!strcmp(what, "process_name"))
			mt_pf_pb_process(p, pid, value);
		else
			mt_pf_pb_thread(p, pid, tid, value);
		return;
	}
	begin(p, 'M', pid, tid);
	name(p, what);
	fputs(",\"args\":{\"name\":", p->f);
	mt_json_write_string(p->f, value, strlen(value), false);
	fputs("}}", p->f);
}

static void args_json(struct pf *p, const struct pf_arg *a, int n)
{
	if (!n)
		return;
	fputs(",\"args\":{", p->f);
	for (int i = 0; i < n; i++) {
		fprintf(p->f, "%s\"%s\":", i ? "," : "", a[i].key);
		if (a[i].kind == PF_U64)
			fprintf(p->f, "%" PRIu64, a[i].u);
		else if (a[i].kind == PF_I64)
			fprintf(p->f, "%" PRId64, (int64_t)a[i].u);
		else if (a[i].kind == PF_HEX)
			fprintf(p->f, "\"0x%" PRIx64 "\"", a[i].u);
		else
			mt_json_write_string(p->f, a[i].s, strlen(a[i].s), false);
	}
	fputc('}', p->f);
}

/* A counter track's values at t: one JSON event with every value as an argument; in
 * protobuf one counter track per value, "name key". */
static void counter(struct pf *p, uint32_t pid, const char *nm, uint64_t t, const struct pf_arg *a,
		    int n)
{
	p->st->counters++;
	if (p->proto) {
		p->st->events++;
		mt_pf_pb_counter(p, pid, nm, t, a, n);
		return;
	}
	begin(p, 'C', pid, pid);
	name(p, nm);
	ts(p, "ts", t);
	args_json(p, a, n);
	fputc('}', p->f);
}

static void instant(struct pf *p, uint32_t pid, uint32_t tid, const char *cat, const char *nm,
		    uint64_t t, const struct pf_arg *a, int n)
{
	p->st->instants++;
	if (p->proto) {
		p->st->events++;
		mt_pf_pb_instant(p, pid, tid, cat, nm, t, a, n);
		return;
	}
	begin(p, 'i', pid, tid);
	name(p, nm);
	fprintf(p->f, ",\"cat\":\"%s\",\"s\":\"t\"", cat);
	ts(p, "ts", t);
	args_json(p, a, n);
	fputc('}', p->f);
}

static void slice(struct pf *p, uint32_t pid, uint32_t tid, const char *cat, const char *nm,
		  uint64_t t, uint64_t dur, const struct pf_arg *a, int n)
{
	p->st->slices++;
	if (p->proto) {
		p->st->events++;
		mt_pf_pb_slice(p, pid, tid, cat, nm, t, dur, a, n);
		return;
	}
	begin(p, 'X', pid, tid);
	name(p, nm);
	fprintf(p->f, ",\"cat\":\"%s\"", cat);
	ts(p, "ts", t);
	us(p, "dur", dur);
	args_json(p, a, n);
	fputc('}', p->f);
}

static struct proc *proc_of(struct pf *p, uint32_t pid)
{
	uint64_t *ix;

	if (mt_map64_put(&p->proc_ix, pid, &ix) < 0)
		return NULL;
	if (!*ix) {
		if (p->nprocs == p->procs_cap) {
			size_t cap = p->procs_cap ? p->procs_cap * 2 : 16;
			struct proc *v = realloc(p->procs, cap * sizeof(*v));

			if (!v)
				return NULL;
			p->procs = v;
			p->procs_cap = cap;
		}
		p->procs[p->nprocs] = (struct proc){ .pid = pid };
		*ix = ++p->nprocs;
	}
	return &p->procs[*ix - 1];
}

static void heap_point(struct pf *p, struct proc *pr, uint64_t t)
{
	struct pf_arg a = { "live_bytes", PF_U64, pr->heap_live, NULL };

	counter(p, pr->pid, "heap", t, &a, 1);
	pr->heap_last_ns = t;
	pr->heap_pending = false;
}

/* The fault counter of the window that ended, and a return to 0 if the next had none. */
static void fault_flush(struct pf *p, struct proc *pr, uint64_t next_win)
{
	uint64_t w = pr->fwin - 1;

	struct pf_arg a[2] = { { "minor", PF_U64, pr->fminor, NULL },
			       { "major", PF_U64, pr->fmajor, NULL } };

	if (!pr->fwin)
		return;
	counter(p, pr->pid, "faults", p->t0 + w * p->window_ns, a, 2);
	if (next_win != w + 1) {
		a[0].u = a[1].u = 0;
		counter(p, pr->pid, "faults", p->t0 + (w + 1) * p->window_ns, a, 2);
	}
	pr->fminor = pr->fmajor = 0;
	pr->fwin = 0;
}

static void phase_end(struct pf *p, struct proc *pr, uint64_t t)
{
	const char *s;

	if (!pr->phase)
		return;
	if (!pr->phases_named) {
		meta(p, "thread_name", pr->pid, PHASE_TID_BASE + pr->pid, "phases");
		pr->phases_named = true;
	}
	s = mt_reader_str(p->r, pr->phase_stream, pr->phase - 1, NULL);
	slice(p, pr->pid, PHASE_TID_BASE + pr->pid, "phase", s ? s : "?", pr->phase_since,
	      t > pr->phase_since ? t - pr->phase_since : 0, NULL, 0);
	pr->phase = 0;
}

static void on_alloc(struct pf *p, const struct mt_event *ev)
{
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct proc *pr = proc_of(p, pid);
	uint64_t t = ev->v[MT_F_TIME], kind = ev->v[MT_F_ALLOC_KIND];
	uint64_t addr = ev->v[MT_F_ALLOC_ADDR], usable = ev->v[MT_F_ALLOC_USABLE];

	if (!pr)
		return;
	pr->heap_live = mt_heap_event(&p->heap, ev);
	if (kind != MT_ALLOC_FREE && addr && p->o->min_alloc && usable >= p->o->min_alloc) {
		char b[32], nm[64];

		if (p->st->instants < MAX_INSTANTS) {
			const struct mt_field_desc *fd = &ev->desc->fields[MT_F_ALLOC_KIND];
			struct pf_arg a[3] = { { "size", PF_U64, ev->v[MT_F_ALLOC_SIZE], NULL },
					       { "usable", PF_U64, usable, NULL },
					       { "addr", PF_HEX, addr, NULL } };

			snprintf(nm, sizeof(nm), "%s %s", mt_field_enum_name(fd, kind),
				 mt_fmt_bytes(usable, b, sizeof(b)));
			instant(p, pid, (uint32_t)ev->v[MT_F_TID], "alloc", nm, t, a, 3);
		} else {
			p->st->instants_dropped++;
		}
	}
	if (t - pr->heap_last_ns >= p->heap_step || !pr->heap_last_ns)
		heap_point(p, pr, t);
	else
		pr->heap_pending = true;
}

static void on_fault(struct pf *p, const struct mt_event *ev)
{
	struct proc *pr = proc_of(p, (uint32_t)ev->v[MT_F_PID]);
	uint64_t t = ev->v[MT_F_TIME], w = (t > p->t0 ? t - p->t0 : 0) / p->window_ns;
	bool major = ev->v[MT_F_FAULT_KIND] == MT_FAULT_MAJOR;

	if (!pr)
		return;
	if (pr->fwin != w + 1) {
		fault_flush(p, pr, w);
		pr->fwin = w + 1;
	}
	if (major)
		pr->fmajor++;
	else
		pr->fminor++;
	if (!major)
		return;
	if (p->st->instants >= MAX_INSTANTS) {
		p->st->instants_dropped++;
		return;
	}
	{
		struct pf_arg a[2] = { { "addr", PF_HEX, ev->v[MT_F_FAULT_ADDR], NULL },
				       { "ip", PF_HEX, ev->v[MT_F_FAULT_IP], NULL } };

		instant(p, pr->pid, (uint32_t)ev->v[MT_F_TID], "fault", "major fault", t, a, 2);
	}
}

static void on_syscall(struct pf *p, const struct mt_event *ev)
{
	uint64_t dur = ev->v[MT_F_SYSCALL_DURATION], flags = ev->v[MT_F_SYSCALL_FLAGS];
	const char *path;
	char nm[64], b[32];
	struct pf_arg a[2] = { { "ret", PF_I64, ev->v[MT_F_SYSCALL_RET], NULL },
			       { "path", PF_STR, 0, NULL } };

	if (dur < p->o->min_syscall_ns || (flags & (MT_SYSCALL_NO_EXIT | MT_SYSCALL_NO_ENTRY)))
		return;
	snprintf(nm, sizeof(nm), "%s%s",
		 mt_syscall_name((unsigned)ev->v[MT_F_SYSCALL_NR], b, sizeof(b)),
		 flags & MT_SYSCALL_RUNTIME ? " [memtap-rt]" : "");
	path = ev->v[MT_F_SYSCALL_PATH]
		       ? mt_reader_str(p->r, ev->stream, ev->v[MT_F_SYSCALL_PATH], NULL)
		       : NULL;
	a[1].s = path;
	slice(p, (uint32_t)ev->v[MT_F_PID], (uint32_t)ev->v[MT_F_TID], "syscall", nm,
	      ev->v[MT_F_TIME], dur, a, path ? 2 : 1);
}

static void on_rss(struct pf *p, const struct mt_event *ev)
{
	uint64_t v[4];
	struct pf_arg a[4] = { { "file", PF_U64, 0, NULL },
			       { "anon", PF_U64, 0, NULL },
			       { "shmem", PF_U64, 0, NULL },
			       { "swap", PF_U64, 0, NULL } };

	if (!mt_own_rss(&p->own, ev, v))
		return; /* memtap's own part, out of the counters that follow */
	for (int i = 0; i < 4; i++)
		a[i].u = v[i];
	counter(p, (uint32_t)ev->v[MT_F_PID], "rss", ev->v[MT_F_TIME], a, 4);
}

static void on_phase(struct pf *p, const struct mt_event *ev)
{
	struct proc *pr = proc_of(p, (uint32_t)ev->v[MT_F_PID]);
	uint64_t id = ev->v[MT_F_PHASE_NAME];

	if (!pr)
		return;
	phase_end(p, pr, ev->v[MT_F_TIME]);
	if (id) {
		pr->phase = (uint32_t)id + 1;
		pr->phase_stream = ev->stream;
		pr->phase_since = ev->v[MT_F_TIME];
	}
}

static void on_comm(struct pf *p, uint32_t pid, uint32_t tid, uint32_t stream, uint64_t id)
{
	const char *s = mt_reader_str(p->r, stream, id, NULL);
	uint64_t *v;

	if (!s || !s[0] || mt_map64_put(&p->thread_named, tid, &v) < 0)
		return;
	*v = 1;
	meta(p, "thread_name", pid, tid, s);
}

/* Ends what is open for a process at t: heap point, fault window, phase. */
static void proc_end(struct pf *p, struct proc *pr, uint64_t t)
{
	if (pr->heap_pending)
		heap_point(p, pr, t);
	fault_flush(p, pr, UINT64_MAX);
	phase_end(p, pr, t);
}

#define PF_TYPES                                                                                   \
	(1ull << MT_EV_TASK_NEW | 1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_TASK_COMM |              \
	 1ull << MT_EV_TASK_EXIT | 1ull << MT_EV_ALLOC | 1ull << MT_EV_FAULT | 1ull << MT_EV_RSS | \
	 1ull << MT_EV_SYSCALL | 1ull << MT_EV_PHASE | MT_OWN_EVENTS)

/* The timeline's events, written as the shared read meets them (into p->f, a temporary file:
 * they follow what needs the whole read, the processes' names and the working set). */
static int pf_event(void *ctx, const struct mt_event *ev)
{
	struct pf *p = ctx;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID], tid = (uint32_t)ev->v[MT_F_TID];

	p->last = ev->v[MT_F_TIME];
	mt_own_event(&p->own, ev);
	switch (ev->type) {
	case MT_EV_ALLOC:
		on_alloc(p, ev);
		break;
	case MT_EV_FAULT: /* the workload's: not memtap's own, not page-write tracking's */
		if (mt_own_fault(&p->own, ev) == MT_FW_WORKLOAD)
			on_fault(p, ev);
		break;
	case MT_EV_RSS:
		on_rss(p, ev);
		break;
	case MT_EV_SYSCALL:
		on_syscall(p, ev);
		break;
	case MT_EV_PHASE:
		on_phase(p, ev);
		break;
	case MT_EV_TASK_EXEC:
		on_comm(p, pid, tid, ev->stream, ev->v[MT_F_EXEC_COMM]);
		break;
	case MT_EV_TASK_COMM:
		on_comm(p, pid, tid, ev->stream, ev->v[MT_F_COMM_COMM]);
		break;
	case MT_EV_TASK_EXIT:
		if (ev->v[MT_F_EXIT_KIND] == MT_TASK_PROCESS) {
			struct proc *pr = proc_of(p, pid);

			if (pr)
				proc_end(p, pr, p->last);
		}
		break;
	default:
		break;
	}
	return ferror(p->f) ? -EIO : 0;
}

static int pf_finish(void *ctx, int rc)
{
	struct pf *p = ctx;

	for (size_t i = 0; rc == 0 && i < p->nprocs; i++)
		proc_end(p, &p->procs[i], p->last);
	if (rc == 0 && ferror(p->f))
		rc = -EIO;
	return rc;
}

/* Copies the events written during the read after those written since; the first began
 * with a comma for a predecessor it may not have. */
static int append_events(struct pf *p, FILE *events)
{
	char buf[65536];
	size_t n;
	bool lead = true;

	if (fflush(events) != 0 || fseek(events, 0, SEEK_SET) != 0)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), events)) > 0) {
		const char *s = buf;

		if (lead && !p->proto && p->first && buf[0] == ',')
			s++, n--;
		lead = false;
		if (n && fwrite(s, 1, n, p->f) != n)
			return -EIO;
	}
	return ferror(events) ? -EIO : 0;
}

int mt_export_perfetto(struct mt_reader *r, const char *path, const char *out,
		       const struct mt_perfetto_opts *o, struct mt_perfetto_stats *st)
{
	struct pf p = { .o = o, .st = st, .r = r, .proto = !o->json };
	struct mt_access_opts ao = o->ao ? *o->ao : (struct mt_access_opts){ 0 };
	struct mt_access_stats as = { 0 };
	struct mt_procs procs = { 0 };
	struct mt_symbolizer *sym = NULL;
	bool to_stdout = !strcmp(out, "-");
	struct mt_passes ps;
	struct mt_pass pass;
	FILE *events = NULL;
	struct mt_outfile of = { .fd = -1 };
	uint64_t lo = 0, hi = 0;
	uint32_t root = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!to_stdout && !o->force && mt_path_exists(out))
		return -EEXIST;
	mt_own_init(&p.own, r);
	mt_reader_time_range(r, &lo, &hi);
	p.t0 = p.last = lo;
	p.window_ns = ao.window_ns ? ao.window_ns : 100000000;
	p.heap_step = (hi - lo) / HEAP_POINTS ? (hi - lo) / HEAP_POINTS : 1;
	mt_map64_init(&p.proc_ix);
	mt_heap_init(&p.heap);
	mt_map64_init(&p.thread_named);
	mt_pf_pb_init(&p);
	/* One read: the process tree, the working set (the same figures as memtap report) and
	 * the timeline's events, the last into a temporary file until the others are known. */
	events = tmpfile();
	if (!events) {
		rc = -errno;
		goto out;
	}
	p.f = events;
	mt_passes_init(&ps);
	if (ao.rules && !ao.sym) { /* symbol rules: the mapping index of the same read */
		mt_passes_add(&ps, mt_sym_pass(r, &sym, &pass), &pass);
		ao.sym = sym;
	}
	mt_passes_add(&ps, mt_procs_pass(r, &procs, &pass), &pass);
	mt_passes_add(&ps, mt_access_pass(r, &ao, &as, &pass), &pass);
	mt_passes_add(&ps, 0,
		      &(struct mt_pass){ .name = "perfetto",
					 .types = PF_TYPES,
					 .ctx = &p,
					 .event = pf_event,
					 .finish = pf_finish });
	rc = mt_passes_run(r, &ps);
	if (rc < 0)
		goto out;
	if (procs.n)
		root = procs.v[0].pid;
	if (to_stdout) {
		p.f = stdout;
	} else {
		rc = mt_outfile_open(&of, out, o->force, 0666);
		if (rc < 0)
			goto out;
		if (!(p.f = mt_outfile_stream(&of))) {
			rc = -errno;
			mt_outfile_abort(&of);
			goto out;
		}
	}
	p.first = true;
	if (!p.proto) {
		fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"memtap " MEMTAP_VERSION
		      "\",\"trace\":",
		      p.f);
		mt_json_write_string(p.f, path, strlen(path), false);
		fprintf(p.f,
			",\"t0_monotonic_ns\":%" PRIu64 ",\"window_ns\":%" PRIu64
			",\"min_alloc_bytes\":%" PRIu64 ",\"min_syscall_ns\":%" PRIu64
			"},\"traceEvents\":[",
			lo, p.window_ns, o->min_alloc, o->min_syscall_ns);
	}
	for (size_t i = 0; i < procs.n; i++) {
		const struct mt_proc *pr = &procs.v[i];
		char nm[300];

		snprintf(nm, sizeof(nm), "%s", pr->comm && pr->comm[0] ? pr->comm : "?");
		meta(&p, "process_name", pr->pid, pr->pid, nm);
	}
	if (as.nwss) {
		for (size_t i = 0; i < as.nwss; i++) {
			struct pf_arg a = { "pages", PF_U64, as.wss[i].pages, NULL };

			counter(&p, root, "working set", as.t0 + as.wss[i].t, &a, 1);
		}
	}
	rc = append_events(&p, events);
	if (!p.proto)
		fprintf(p.f, "\n],\"metadata\":{\"instants_dropped\":%" PRIu64 "}}\n",
			st->instants_dropped);
	if (!rc && (ferror(p.f) || p.pb_failed))
		rc = -EIO;
	if (!to_stdout) {
		if (rc)
			mt_outfile_abort(&of);
		else
			rc = mt_outfile_commit(&of);
	} else if (fflush(stdout) != 0 && !rc) {
		rc = -errno;
	}
out:
	if (events)
		fclose(events);
	mt_map64_release(&p.proc_ix);
	mt_heap_release(&p.heap);
	mt_map64_release(&p.thread_named);
	mt_pf_pb_release(&p);
	free(p.procs);
	mt_access_release(&as);
	mt_procs_release(&procs);
	mt_own_release(&p.own);
	mt_sym_close(sym);
	return rc;
}
