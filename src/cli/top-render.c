/* SPDX-License-Identifier: MIT */
/*
 * memtap top's frame: the header, one line per process, and, as room allows, the hottest
 * regions (sampled accesses so far) and the allocation sites with the most heap in use.
 * Site frames are named here, from the process's mappings as /proc/PID/maps lists them now
 * (analysis/symbols.c reads their symbols), the recorder only sends addresses.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/symbols.h"
#include "cli/top.h"
#include "common/strutil.h"
#include "common/termsafe.h"
#include "record/procfs.h"

#define NAMES_KEPT 64 /* site names remembered across frames */
#define MAPS_AGAIN_NS 5000000000ull /* an unnamed frame: its process's maps read again */

/* ---- naming the sites' frames ---- */

struct named {
	int pid;
	uint64_t ip[2];
	char label[256];
};

static struct {
	struct mt_symbolizer *sym;
	int pids[64]; /* whose maps the symbolizer holds */
	size_t npids;
	uint64_t built_ns; /* when the symbolizer was made (the frame's now) */
	struct named names[NAMES_KEPT];
	size_t nnames, next;
} nm;

static int add_map(void *ctx, const struct mt_maps_entry *e)
{
	const int *pid = ctx;

	if (e->path[0] == '/')
		(void)mt_sym_add_map(nm.sym, (uint32_t)*pid, e->start, e->end - e->start, e->pgoff,
				     e->path);
	return 0;
}

static bool have_maps(int pid)
{
	for (size_t i = 0; i < nm.npids; i++)
		if (nm.pids[i] == pid)
			return true;
	return false;
}

/* A frame's name, "function" or "module+0xoff" or "0xip" ("" for no frame). */
static const char *frame_name(int pid, uint64_t ip, char *buf, size_t size)
{
	const struct mt_frame *fr;

	buf[0] = 0;
	if (!ip)
		return buf;
	if (!nm.sym || mt_sym_resolve(nm.sym, (uint32_t)pid, 1, ip, true, &fr) < 1) {
		snprintf(buf, size, "0x%" PRIx64, ip);
		return buf;
	}
	if (fr[0].function)
		mt_strlcpy(buf, fr[0].function, size);
	else
		mt_frame_name(&fr[0], buf, size);
	return buf;
}

/* "caller < next" as the report's site column: the innermost native frame, then the
 * innermost Python frame when there is one, else the next native frame. */
static void site_label(struct top_site *st, uint64_t now)
{
	char a[256], b[256];
	struct named *k = NULL;

	for (size_t i = 0; i < nm.nnames && !k; i++)
		if (nm.names[i].pid == st->pid && nm.names[i].ip[0] == st->ip[0] &&
		    nm.names[i].ip[1] == st->ip[1])
			k = &nm.names[i];
	if (k && !(st->py[0] && !strstr(k->label, st->py))) {
		mt_strlcpy(st->label, k->label, sizeof(st->label));
		return;
	}
	if (!have_maps(st->pid) || (nm.sym && now - nm.built_ns > MAPS_AGAIN_NS)) {
		if (!nm.sym || now - nm.built_ns > MAPS_AGAIN_NS) {
			mt_sym_close(nm.sym);
			nm.sym = mt_sym_new_live();
			nm.npids = 0;
			nm.nnames = 0;
			nm.built_ns = now;
		}
		if (nm.sym && nm.npids < 64) {
			nm.pids[nm.npids++] = st->pid;
			(void)mt_procfs_maps(st->pid, add_map, &st->pid);
		}
	}
	frame_name(st->pid, st->ip[0], a, sizeof(a));
	if (st->py[0])
		mt_strlcpy(b, st->py, sizeof(b));
	else
		frame_name(st->pid, st->ip[1], b, sizeof(b));
	if (!a[0] && !b[0])
		snprintf(st->label, sizeof(st->label), "(no stack recorded)");
	else
		snprintf(st->label, sizeof(st->label), "%s%s%s", a, a[0] && b[0] ? " < " : "", b);
	k = &nm.names[nm.nnames < NAMES_KEPT ? nm.nnames++ : nm.next++ % NAMES_KEPT];
	*k = (struct named){ .pid = st->pid, .ip = { st->ip[0], st->ip[1] } };
	mt_strlcpy(k->label, st->label, sizeof(k->label));
}

void top_render_end(void)
{
	mt_sym_close(nm.sym);
	memset(&nm, 0, sizeof(nm));
}

/* ---- the frame ---- */

/* A row's rates against the previous frame (per second; -1: no previous frame). */
struct rated {
	const struct top_row *r;
	double faults, major, sys, samples;
};

static enum top_sort sort_key;

static double rate(uint64_t now, uint64_t then, double secs)
{
	return secs > 0 && now >= then ? (double)(now - then) / secs : -1;
}

static double key_of(const struct rated *x)
{
	switch (sort_key) {
	case TOP_FAULTS:
		return x->faults;
	case TOP_SYSCALLS:
		return x->sys;
	case TOP_SAMPLES:
		return x->samples;
	case TOP_HEAP:
		return x->r->heap ? (double)x->r->heap_live : -1;
	default:
		return (double)(x->r->rss[0] + x->r->rss[1] + x->r->rss[2]);
	}
}

static int by_key(const void *a, const void *b)
{
	const struct rated *x = a, *y = b;
	double kx = key_of(x), ky = key_of(y);

	return kx < ky ? 1 : kx > ky ? -1 : x->r->pid - y->r->pid;
}

static const char *fmt_rate(double v, char *buf, size_t size)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, v >= 1000 ? "%.0f" : "%.1f", v);
	return buf;
}

/* Bytes in at most 6 columns: "512B", "4.0K", "98.1M", "123M", "1.2G" (">" prefix: at
 * least). */
static const char *fmt_size(uint64_t n, bool at_least, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	double v = (double)n;
	int u = 0;

	while (v >= 1000 && u < 6) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%s%" PRIu64 "B", at_least ? ">" : "", n);
	else
		snprintf(buf, size, v >= 100 ? "%s%.0f%c" : "%s%.1f%c", at_least ? ">" : "", v,
			 units[u]);
	return buf;
}

static size_t rate_rows(struct rated *v, const struct top_snap *cur, const struct top_snap *prev)
{
	double secs = prev ? (double)(cur->now - prev->now) / 1e9 : 0;
	size_t live = 0;

	for (size_t i = 0; i < cur->n; i++) {
		const struct top_row *r = &cur->rows[i], *p = top_find_row(prev, r->pid);

		if (r->gone)
			continue;
		v[live].r = r;
		/* -1 (shown '-'): no previous frame, or not counted in this recording */
		v[live].faults = p && cur->have[0]
					 ? rate(r->minor + r->major, p->minor + p->major, secs)
					 : -1;
		v[live].major = p && cur->have[0] ? rate(r->major, p->major, secs) : -1;
		v[live].sys = p && cur->have[1] ? rate(r->sys, p->sys, secs) : -1;
		v[live].samples = p && cur->have[2] ? rate(r->samples, p->samples, secs) : -1;
		live++;
	}
	return live;
}

static void print_proc(FILE *f, const struct top_snap *cur, const struct rated *x, bool file)
{
	const struct top_row *r = x->r;
	char a[16], b[16], c[16], d[16], e[16], g[32], h[32], k[32], m[32], comm[64];

	mt_escape_ctl(r->comm, comm, sizeof(comm));
	fprintf(f, "%7d %-11.11s %6s %6s", r->pid, comm,
		fmt_size(r->rss[0] + r->rss[1] + r->rss[2], false, a, sizeof(a)),
		fmt_size(r->rss[1], false, b, sizeof(b)));
	if (file)
		fprintf(f, " %6s", fmt_size(r->rss[0], false, c, sizeof(c)));
	fprintf(f, " %7s %6s %8s %5s %6s %6s\n",
		r->heap ? fmt_size(r->heap_live, r->heap == 2, d, sizeof(d)) : "-",
		r->wss >= 0 && (cur->have[0] || cur->have[2])
			? fmt_size((uint64_t)r->wss * 4096, cur->wss_partial, e, sizeof(e))
			: "-",
		fmt_rate(x->faults, g, sizeof(g)), fmt_rate(x->major, h, sizeof(h)),
		fmt_rate(x->sys, k, sizeof(k)), fmt_rate(x->samples, m, sizeof(m)));
}

/* A name cut to width from the left (the end of a path says most), escaped. */
static const char *fit(const char *name, int width, char *buf, size_t size)
{
	char esc[512];
	size_t len;

	mt_escape_ctl(name, esc, sizeof(esc));
	len = strlen(esc);
	if (width < 4)
		width = 4;
	if (len <= (size_t)width)
		mt_strlcpy(buf, esc, size);
	else
		snprintf(buf, size, "...%s", esc + len - (size_t)width + 3);
	return buf;
}

static void print_regions(FILE *f, const struct top_snap *cur, size_t n, int cols)
{
	uint64_t total = 0;

	for (size_t i = 0; i < cur->n; i++)
		total += cur->rows[i].samples;
	fprintf(f, "\nHOTTEST REGIONS (sampled accesses so far)\n%7s %6s %8s %6s  %s\n", "PID",
		"SHARE", "SAMPLES", "SIZE", "REGION");
	for (size_t i = 0; i < n; i++) {
		const struct top_region *g = &cur->regions[i];
		char a[32], b[16], name[512];

		fprintf(f, "%7d %5.1f%% %8s %6s  %s\n", g->pid,
			total ? 100.0 * (double)g->samples / (double)total : 0.0,
			mt_fmt_count(g->samples, a, sizeof(a)),
			fmt_size(g->bytes, false, b, sizeof(b)),
			fit(g->name, cols - 34, name, sizeof(name)));
	}
}

static void print_sites(FILE *f, struct top_snap *cur, size_t n, int cols)
{
	fprintf(f, "\nALLOCATION SITES (heap in use)\n%7s %8s %6s %8s  %s\n", "PID", "LIVE",
		"BLOCKS", "CALLS", "SITE");
	for (size_t i = 0; i < n; i++) {
		struct top_site *st = &cur->sites[i];
		char a[16], b[32], c[32], name[512];

		site_label(st, cur->now);
		fprintf(f, "%7d %8s %6s %8s  %s\n", st->pid,
			fmt_size(st->live, false, a, sizeof(a)),
			mt_fmt_count(st->nlive, b, sizeof(b)),
			mt_fmt_count(st->calls, c, sizeof(c)),
			fit(st->label, cols - 35, name, sizeof(name)));
	}
}

void top_render(FILE *f, struct top_snap *cur, const struct top_snap *prev, int rows, int cols,
		bool tty, enum top_sort sort, const char *sort_name)
{
	struct rated *v = calloc(cur->n + 1, sizeof(*v));
	char a[32], b[32], cmd[512];
	size_t live, nreg, nsite;
	int budget = tty ? rows - 5 : 40, procs;
	bool file = cols >= 85;

	if (!v)
		return;
	live = rate_rows(v, cur, prev);
	sort_key = sort;
	qsort(v, live, sizeof(*v), by_key);
	/* the panels take 4 lines each (8 on a tall terminal), the processes keep at least 3 */
	nreg = cur->nregions < (rows >= 40 ? 8u : 4u) ? cur->nregions : (rows >= 40 ? 8u : 4u);
	nsite = cur->nsites < (rows >= 40 ? 8u : 4u) ? cur->nsites : (rows >= 40 ? 8u : 4u);
	if (!tty)
		nreg = cur->nregions < 8 ? cur->nregions : 8,
		nsite = cur->nsites < 8 ? cur->nsites : 8;
	for (;;) {
		procs = budget - (nreg ? (int)nreg + 3 : 0) - (nsite ? (int)nsite + 3 : 0);
		if (!tty || procs >= (live < 3 ? (int)live : 3) || (!nreg && !nsite))
			break;
		if (nreg >= nsite && nreg)
			nreg--;
		else
			nsite--;
	}
	if (tty)
		fputs("\033[H\033[J", f);
	mt_escape_ctl(cur->command, cmd, sizeof(cmd));
	fprintf(f, "memtap top - recorder %d: %.*s\n", cur->recorder, cols > 30 ? cols - 30 : 10,
		cmd);
	fprintf(f, "up %.1f s, trace %s, lost %s, %zu process%s%s [q r f s a h: %s]\n",
		(double)(cur->now - cur->start) / 1e9, mt_fmt_bytes(cur->bytes, a, sizeof(a)),
		mt_fmt_count(cur->lost, b, sizeof(b)), live, live == 1 ? "" : "es",
		cur->system_wide ? " (system)" : "", sort_name);
	fprintf(f, "\n%7s %-11s %6s %6s", "PID", "COMMAND", "RSS", "ANON");
	if (file)
		fprintf(f, " %6s", "FILE");
	fprintf(f, " %7s %6s %8s %5s %6s %6s\n", "HEAP", "WSS", "FAULTS/s", "MAJ/s", "SYSC/s",
		"SMP/s");
	for (size_t i = 0; i < live && (int)i < procs; i++)
		print_proc(f, cur, &v[i], file);
	if (nreg)
		print_regions(f, cur, nreg, cols);
	if (nsite)
		print_sites(f, cur, nsite, cols);
	fflush(f);
	free(v);
}
