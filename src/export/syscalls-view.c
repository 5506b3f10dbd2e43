/* SPDX-License-Identifier: MIT */
/* `memtap syscalls` rendered: the strace -c summary, every call (--list) with its arguments
 * and stack, and the file ranges read again (--rereads), as text, JSON or CSV. */
#include "export/syscalls-view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/fdtable.h"
#include "analysis/symbols.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "export/json.h"
#include "export/report.h"
#include "export/table.h"
#include "format/chunk.h"
#include "format/reader.h"

static void csv_table(const struct mt_sc_view *v, const struct mt_syscall_table *tb,
		      const char *origin)
{
	char buf[32];

	for (size_t i = 0; i < tb->n; i++) {
		const struct mt_syscall_stat *s = &tb->v[i];

		fprintf(v->f,
			"%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%s\n",
			mt_syscall_name(s->nr, buf, sizeof(buf)), s->nr, s->calls, s->errors,
			s->no_return, s->total_ns, s->min_ns, s->max_ns, origin);
	}
}

/* The strace -c table. */
static void text_table(const struct mt_sc_view *v, const struct mt_syscall_table *tb)
{
	char buf[32];

	fprintf(v->f, "%% time     seconds  usecs/call     calls    errors syscall\n");
	fprintf(v->f, "------ ----------- ----------- --------- --------- ----------------\n");
	for (size_t i = 0; i < tb->n; i++) {
		const struct mt_syscall_stat *s = &tb->v[i];
		char errs[32], nb[32];

		if (!s->calls)
			continue;
		snprintf(errs, sizeof(errs), "%" PRIu64, s->errors);
		fprintf(v->f, "%6.2f %11.6f %11" PRIu64 " %9" PRIu64 " %9s %s\n",
			tb->total_ns ? 100.0 * (double)s->total_ns / (double)tb->total_ns : 0.0,
			(double)s->total_ns / 1e9, s->total_ns / 1000 / s->calls, s->calls,
			s->errors ? errs : "", mt_syscall_name(s->nr, nb, sizeof(nb)));
	}
	fprintf(v->f, "------ ----------- ----------- --------- --------- ----------------\n");
	fprintf(v->f, "100.00 %11.6f %11" PRIu64 " %9" PRIu64 " %9" PRIu64 " total\n",
		(double)tb->total_ns / 1e9, tb->calls ? tb->total_ns / 1000 / tb->calls : 0,
		tb->calls, tb->errors);
	for (size_t i = 0; i < tb->n; i++)
		if (tb->v[i].no_return)
			fprintf(v->f, "(never returned: %s x%" PRIu64 ")\n",
				mt_syscall_name(tb->v[i].nr, buf, sizeof(buf)), tb->v[i].no_return);
}

void mt_sc_print_summary(const struct mt_sc_view *v, const struct mt_syscalls_stats *st,
			 uint64_t cost_ns, const char *mech, bool loader_unknown)
{
	if (v->format == 1) {
		struct mt_json j;

		mt_json_init(&j, v->f, true);
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "durations", "entry to exit, tracing overhead included");
		mt_json_kv_u64(&j, "tracing_cost_ns_per_call", cost_ns); /* 0: not measured */
		mt_json_kv_str(&j, "mechanism", mech ? mech : "unknown");
		mt_json_kv_u64(&j, "calls", st->work.calls);
		mt_json_kv_u64(&j, "errors", st->work.errors);
		mt_json_kv_u64(&j, "no_return", st->work.no_return);
		mt_json_kv_u64(&j, "total_ns", st->work.total_ns);
		mt_report_syscall_list_json(&j, "syscalls", &st->work, true);
		/* memtap's preload runtime's own calls inside the workload, never in "syscalls" */
		mt_json_kv_u64(&j, "runtime_calls", st->rt.calls);
		mt_report_syscall_list_json(&j, "runtime_syscalls", &st->rt, true);
		/* false when the loader's work for the runtime could not be told apart (no paths) */
		mt_json_kv_bool(&j, "runtime_loader_apart", !loader_unknown);
		mt_json_end_object(&j);
		fputc('\n', v->f);
		return;
	}
	if (v->format == 2) {
		fprintf(v->f, "syscall,nr,calls,errors,no_return,total_ns,min_ns,max_ns,origin\n");
		csv_table(v, &st->work, "workload");
		csv_table(v, &st->rt, "memtap-runtime");
		return;
	}
	text_table(v, &st->work);
	fprintf(v->f,
		st->summary ? "(counted in the kernel by BPF for the whole tree; durations include "
			      "part of its cost per call"
			    : "(durations include part of the tracer's cost per call: %s",
		mech ? mech : "unknown");
	if (cost_ns)
		fprintf(v->f, ", measured at the start: %" PRIu64 " ns per call", cost_ns);
	fprintf(v->f, ")\n");
	if (loader_unknown)
		fprintf(v->f,
			"(the dynamic loader's work loading memtap's runtime, about 10 calls per "
			"process, is in these counts: without BPF no path tells it apart)\n");
	if (st->rt.n) {
		fprintf(v->f,
			"\nmemtap's preload runtime inside the workload (not counted above):\n");
		text_table(v, &st->rt);
	}
}

static const char *fd_name(void *ctx, int fd)
{
	void **c = ctx;
	struct mt_fd_ent *e = mt_fdtab_get(c[0], *(uint32_t *)c[1], fd);

	return e ? e->path : NULL;
}

/* The frames of a call's stack (--syscall-stacks), innermost first: at most max. */
static int stack_frames(struct mt_reader *r, const struct mt_event *ev, uint64_t *ips, int max)
{
	if (!ev->v[MT_F_SYSCALL_STACK])
		return 0;
	return mt_reader_stack(r, ev->stream, ev->v[MT_F_SYSCALL_STACK], ips, max);
}

static bool system_frame(const struct mt_frame *fr)
{
	const char *m = fr->module ? strrchr(fr->module, '/') : NULL;

	m = m ? m + 1 : fr->module;
	return m && (!strncmp(m, "libc.so", 7) || !strncmp(m, "ld-linux", 8) ||
		     !strncmp(m, "libpthread", 10));
}

static void print_stack(const struct mt_sc_view *v, struct mt_reader *r, struct mt_symbolizer *sym,
			const struct mt_event *ev)
{
	uint64_t ips[64];
	int n = stack_frames(r, ev, ips, 64), shown = 0, first = 0;

	if (n <= 0 || !sym)
		return;
	/* from the first frame the program's own code made: the caller of the libc wrapper */
	for (int i = 0; i < n; i++) {
		const struct mt_frame *fr;

		if (mt_sym_resolve(sym, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_TIME], ips[i], true,
				   &fr) > 0 &&
		    !system_frame(&fr[0])) {
			first = i;
			break;
		}
	}
	fprintf(v->f, "%24s", "");
	for (int i = first; i < n && shown < 4; i++, shown++) {
		const struct mt_frame *fr;
		char buf[512];

		if (mt_sym_resolve(sym, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_TIME], ips[i], true,
				   &fr) <= 0) {
			fprintf(v->f, "%s0x%" PRIx64, shown ? " <- " : "at ", ips[i]);
			continue;
		}
		fprintf(v->f, "%s%s", shown ? " <- " : "at ",
			mt_frame_name(&fr[0], buf, sizeof(buf)));
	}
	if (n - first > shown)
		fprintf(v->f, " <- ... (%d frames)", n);
	fputc('\n', v->f);
}

static void json_stack(struct mt_json *j, struct mt_reader *r, struct mt_symbolizer *sym,
		       const struct mt_event *ev)
{
	uint64_t ips[64];
	int n = stack_frames(r, ev, ips, 64);

	if (n <= 0)
		return;
	mt_json_key(j, "stack");
	mt_json_begin_array(j);
	for (int i = 0; i < n; i++) {
		const struct mt_frame *fr = NULL;

		mt_json_begin_object(j);
		mt_json_key(j, "ip");
		mt_json_hex(j, ips[i]);
		if (sym && mt_sym_resolve(sym, (uint32_t)ev->v[MT_F_PID], ev->v[MT_F_TIME], ips[i],
					  true, &fr) > 0) {
			if (fr->function)
				mt_json_kv_str(j, "function", fr->function);
			if (fr->file) {
				mt_json_kv_str(j, "file", fr->file);
				mt_json_kv_u64(j, "line", fr->line);
			}
			if (fr->module)
				mt_json_kv_str(j, "module", fr->module);
		}
		mt_json_end_object(j);
	}
	mt_json_end_array(j);
}

/* A call's arguments: "args" {name: "0x..."} for those it takes (the kernel's names), and
 * "call", the same line as the text list prints. */
static void json_args(struct mt_json *j, unsigned nr, const uint64_t *a, const char *path,
		      const char *(*fdname)(void *, int), void *fctx)
{
	int n = mt_syscall_nargs(nr);
	char hex[24], text[768], nb[32];

	mt_json_key(j, "args");
	mt_json_begin_object(j);
	for (int i = 0; i < (n < 0 ? 6 : n); i++) {
		const char *an = mt_syscall_arg_name(nr, i);
		char key[16];

		if (!an) {
			snprintf(key, sizeof(key), "a%d", i);
			an = key;
		}
		snprintf(hex, sizeof(hex), "0x%" PRIx64, a[i]);
		mt_json_kv_str(j, an, hex);
	}
	mt_json_end_object(j);
	mt_syscall_format_call(nr, a, path, fdname, fctx, text, sizeof(text));
	{
		char call[900];

		snprintf(call, sizeof(call), "%s(%s)", mt_syscall_name(nr, nb, sizeof(nb)), text);
		mt_json_kv_str(j, "call", call);
	}
}

int mt_sc_print_list(const struct mt_sc_view *v, struct mt_reader *r,
		     const struct mt_syscall_filter *f, uint64_t t0)
{
	/* Every process's calls and creations: the descriptor tables follow forks. */
	struct mt_cursor_opts co = { .type_mask = 1ull << MT_EV_SYSCALL | 1ull << MT_EV_TASK_NEW };
	struct mt_fdtab fdt;
	struct mt_symbolizer *sym = NULL;
	uint32_t cur_pid = 0;
	void *fctx[2] = { &fdt, &cur_pid };
	struct mt_cursor *c;
	struct mt_event ev;
	char buf[32];
	bool first = true;
	int rc = mt_cursor_new(r, &co, &c);

	if (rc < 0)
		return rc;
	mt_fdtab_init(&fdt, mt_reader_meta(r, "cwd"));
	if (mt_sym_open(r, &sym) < 0)
		sym = NULL; /* stacks then print as addresses */
	if (v->format == 2)
		fprintf(v->f,
			"time_ns,pid,tid,syscall,ret,duration_ns,a0,a1,a2,a3,a4,a5,returned,runtime,"
			"runtime_loader,path\n");
	if (v->format == 1)
		fprintf(v->f, "[");
	while ((rc = mt_cursor_next(c, &ev)) == 1) {
		unsigned nr = (unsigned)ev.v[MT_F_SYSCALL_NR];
		size_t plen = 0;
		const char *path;

		if (ev.type != MT_EV_SYSCALL || (f->by_pid && ev.v[MT_F_PID] != f->pid)) {
			mt_fdtab_apply(&fdt, r, &ev);
			continue;
		}
		path = ev.v[MT_F_SYSCALL_PATH]
			       ? mt_reader_str(r, ev.stream, ev.v[MT_F_SYSCALL_PATH], &plen)
			       : NULL;
		cur_pid = (uint32_t)ev.v[MT_F_PID];
		const char *name = mt_syscall_name(nr, buf, sizeof(buf));
		int64_t ret = (int64_t)ev.v[MT_F_SYSCALL_RET];
		bool returned = !(ev.v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_NO_EXIT);
		bool own = ev.v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RUNTIME;
		const uint64_t *a = &ev.v[MT_F_SYSCALL_A0];

		if ((f->nr >= 0 && (unsigned)f->nr != nr) ||
		    (f->classes && f->classes != MT_SC_ALL &&
		     !(mt_syscall_classes(nr) & f->classes))) {
			mt_fdtab_apply(&fdt, r, &ev);
			continue;
		}
		if (v->format == 2) {
			int n = mt_syscall_nargs(nr);

			fprintf(v->f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRId64 ",%" PRIu64,
				ev.v[MT_F_TIME], ev.v[MT_F_PID], ev.v[MT_F_TID], name, ret,
				ev.v[MT_F_SYSCALL_DURATION]);
			/* the arguments the call takes; the others are empty (null) */
			for (int i = 0; i < 6; i++)
				if (n < 0 || i < n)
					fprintf(v->f, ",0x%" PRIx64, a[i]);
				else
					fputc(',', v->f);
			fprintf(v->f, ",%d,%d,%d", returned, own,
				(ev.v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RT_LOADER) != 0);
			if (path)
				mt_csv_cell(v->f, path, plen, false);
			else
				fputc(',', v->f);
			fputc('\n', v->f);
		} else if (v->format == 1) {
			struct mt_json j;

			fprintf(v->f, "%s\n", first ? "" : ",");
			mt_json_init(&j, v->f, false);
			mt_json_begin_object(&j);
			mt_json_kv_u64(&j, "time_ns", ev.v[MT_F_TIME]);
			mt_json_kv_u64(&j, "pid", ev.v[MT_F_PID]);
			mt_json_kv_u64(&j, "tid", ev.v[MT_F_TID]);
			mt_json_kv_str(&j, "syscall", name);
			mt_json_key(&j, "ret");
			mt_json_i64(&j, ret);
			mt_json_kv_u64(&j, "duration_ns", ev.v[MT_F_SYSCALL_DURATION]);
			mt_json_key(&j, "returned");
			mt_json_bool(&j, returned);
			mt_json_key(&j, "runtime");
			mt_json_bool(&j, own);
			mt_json_key(&j, "runtime_loader");
			mt_json_bool(&j, (ev.v[MT_F_SYSCALL_FLAGS] & MT_SYSCALL_RT_LOADER) != 0);
			json_args(&j, nr, a, path, fd_name, fctx);
			if (path) {
				mt_json_key(&j, "path");
				mt_json_strn(&j, path, plen);
			}
			json_stack(&j, r, sym, &ev);
			mt_json_end_object(&j);
		} else {
			char args[768];

			mt_syscall_format_call(nr, a, path, fd_name, fctx, args, sizeof(args));
			fprintf(v->f, "%12.6f %7" PRIu64 " %s%s(%s) = ",
				(double)(ev.v[MT_F_TIME] - t0) / 1e9, ev.v[MT_F_TID],
				own ? "[memtap-rt] " : "", name, args);
			if (!returned)
				fprintf(v->f, "?\n");
			else if (ret >= 0 && (nr == 9 || nr == 12 || nr == 25)) /* addresses */
				fprintf(v->f, "0x%" PRIx64 " <%.6f>\n", (uint64_t)ret,
					(double)ev.v[MT_F_SYSCALL_DURATION] / 1e9);
			else
				fprintf(v->f, "%" PRId64 " <%.6f>\n", ret,
					(double)ev.v[MT_F_SYSCALL_DURATION] / 1e9);
			print_stack(v, r, sym, &ev);
		}
		first = false;
		mt_fdtab_apply(&fdt, r, &ev);
	}
	if (v->format == 1)
		fprintf(v->f, "\n]\n");
	mt_fdtab_release(&fdt);
	if (sym)
		mt_sym_close(sym);
	mt_cursor_free(c);
	return rc < 0 ? rc : 0;
}

/* Is f shown: the workload's data files, or every file with --all-files. */
static bool shown(const struct mt_sc_view *v, const struct mt_reread_file *f)
{
	return v->all_files || f->kind == MT_RR_DATA;
}

void mt_sc_print_rereads(const struct mt_sc_view *v, const struct mt_rereads *rr)
{
	char b1[32], b2[32];
	uint64_t hidden = 0;

	for (size_t i = 0; i < rr->nfiles; i++)
		hidden += !shown(v, &rr->files[i]) && rr->files[i].reread_bytes;

	if (v->format == 1) {
		struct mt_json j;

		mt_json_init(&j, v->f, true);
		mt_json_begin_object(&j);
		mt_json_kv_u64(&j, "fault_window_bytes", rr->fault_window);
		mt_json_kv_u64(&j, "reads_unknown_fd", rr->reads_unknown_fd);
		mt_json_kv_bool(&j, "all_files", v->all_files);
		mt_json_kv_u64(&j, "files_left_out", hidden); /* re-read, but not data files */
		mt_json_key(&j, "files");
		mt_json_begin_array(&j);
		for (size_t i = 0; i < rr->nfiles; i++) {
			const struct mt_reread_file *f = &rr->files[i];

			if (!shown(v, f))
				continue;
			mt_json_begin_object(&j);
			mt_json_key(&j, "path");
			mt_json_strn(&j, f->path, f->len);
			mt_json_kv_str(&j, "kind", mt_reread_kind_name(f->kind));
			mt_json_kv_u64(&j, "reads", f->reads);
			mt_json_kv_u64(&j, "faults", f->faults);
			mt_json_kv_u64(&j, "bytes_read", f->bytes_read);
			mt_json_kv_u64(&j, "reread_bytes", f->reread_bytes);
			mt_json_key(&j, "reread_ranges");
			mt_json_begin_array(&j);
			for (size_t k = 0; k < f->nsegs; k++) {
				if (f->segs[k].times < 2)
					continue;
				mt_json_begin_object(&j);
				mt_json_kv_u64(&j, "start", f->segs[k].start);
				mt_json_kv_u64(&j, "end", f->segs[k].end);
				mt_json_kv_u64(&j, "times", f->segs[k].times);
				mt_json_end_object(&j);
			}
			mt_json_end_array(&j);
			mt_json_end_object(&j);
		}
		mt_json_end_array(&j);
		mt_json_end_object(&j);
		fputc('\n', v->f);
		return;
	}
	if (v->format == 2) {
		fprintf(v->f, "path,kind,start,end,times\n");
		for (size_t i = 0; i < rr->nfiles; i++)
			for (size_t k = 0; shown(v, &rr->files[i]) && k < rr->files[i].nsegs; k++) {
				const struct mt_reread_seg *g = &rr->files[i].segs[k];

				if (g->times < 2)
					continue;
				mt_csv_cell(v->f, rr->files[i].path, rr->files[i].len, true);
				fprintf(v->f, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
					mt_reread_kind_name(rr->files[i].kind), g->start, g->end,
					g->times);
			}
		return;
	}
	fprintf(v->f, "%-10s %8s %8s %10s %10s  %-6s  %s\n", "re-read", "reads", "faults", "read",
		"ranges", "kind", "file");
	for (size_t i = 0; i < rr->nfiles; i++) {
		const struct mt_reread_file *f = &rr->files[i];
		size_t nr = 0;

		if (!f->reread_bytes || !shown(v, f))
			continue;
		for (size_t k = 0; k < f->nsegs; k++)
			nr += f->segs[k].times > 1;
		fprintf(v->f, "%-10s %8" PRIu64 " %8" PRIu64 " %10s %10zu  %-6s  %.*s\n",
			mt_fmt_bytes(f->reread_bytes, b1, sizeof(b1)), f->reads, f->faults,
			mt_fmt_bytes(f->bytes_read, b2, sizeof(b2)), nr,
			mt_reread_kind_name(f->kind), (int)f->len, f->path);
		for (size_t k = 0, shown = 0; k < f->nsegs && shown < 8; k++) {
			const struct mt_reread_seg *g = &f->segs[k];

			if (g->times < 2)
				continue;
			fprintf(v->f,
				"%10s bytes %" PRIu64 "..%" PRIu64 " (%s) read %" PRIu64 " times\n",
				"", g->start, g->end,
				mt_fmt_bytes(g->end - g->start, b1, sizeof(b1)), g->times);
			if (++shown == 8 && nr > 8)
				fprintf(v->f, "%10s ... %zu more ranges (--format csv lists all)\n",
					"", nr - 8);
		}
	}
	if (hidden)
		fprintf(v->f,
			"(%" PRIu64 " re-read files that are not the workload's data are left out: "
			"libraries, the loader's cache, locale data, memtap's own; --all-files "
			"shows them)\n",
			hidden);
	fprintf(v->f,
		"(files read only once are left out. A fault on a file mapping counts its page "
		"(%" PRIu64
		" bytes);\n the kernel maps cached neighbours with it, whose reads raise "
		"no fault: mapped ranges are lower bounds.\n %" PRIu64
		" reads were of descriptors without a known file.)\n",
		rr->fault_window, rr->reads_unknown_fd);
}
