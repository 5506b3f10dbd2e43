/* SPDX-License-Identifier: MIT */
/* Re-reads: byte coverage counts per file from read offsets and file-backed page faults. */
#include "analysis/rereads.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memtap/trace-format.h>

#include "analysis/fdtable.h"
#include "common/array.h"
#include "common/hash.h"
#include "analysis/pass.h"
#include "format/reader.h"

/*
 * Reads: read() and readv() cover [offset, offset + result) at the descriptor's offset as
 * replayed from open/lseek/read (analysis/fdtable.c); pread64 and preadv at their offset
 * argument. Faults: a fault in a file-backed mapping covers the page that faulted. The
 * kernel maps neighbouring pages with it when they are in the page cache (fault-around,
 * 64 KiB by default, and whole large folios), and the program's reads of those raise no
 * fault of their own: ranges from faults are the pages that had to be brought into the
 * mapping, a lower bound of what was read through it. A range read again counts again: a
 * page faulted in, unmapped (or evicted) and faulted in again, or pread twice at one
 * offset, shows as read twice.
 */

struct map {
	uint64_t start, end, pgoff;
	size_t file; /* index + 1, 0 for memory that is not a file */
};

struct pmaps {
	struct map *v;
	size_t n, cap;
};

struct state {
	struct mt_rereads *out;
	size_t files_cap;
	struct mt_map64 by_hash; /* path hash -> file index + 1 */
	struct mt_map64 by_pid; /* pid -> pmaps index + 1 */
	struct pmaps *pm;
	size_t npm, pm_cap;
};

static long file_of(struct state *st, const char *p, size_t len)
{
	struct mt_rereads *o = st->out;
	uint64_t h = mt_hash64(p, len, 0x5eed), *ix;
	struct mt_reread_file *f;

	ix = mt_map64_get(&st->by_hash, h);
	if (ix && *ix) {
		f = &o->files[*ix - 1];
		if (f->len == len && !memcmp(f->path, p, len))
			return (long)*ix - 1;
		for (size_t i = 0; i < o->nfiles; i++) /* a hash collision: the slow way */
			if (o->files[i].len == len && !memcmp(o->files[i].path, p, len))
				return (long)i;
	}
	if (mt_grow_array(&o->files, &st->files_cap, o->nfiles + 1, sizeof(*o->files)) < 0)
		return -ENOMEM;
	f = &o->files[o->nfiles];
	memset(f, 0, sizeof(*f));
	/* A copy of all len bytes (a damaged trace's path may hold a NUL: strndup would stop
	 * there, and len would then overrun it); the descriptor table's paths do not outlive it. */
	char *copy = malloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, p, len);
	copy[len] = 0;
	f->path = copy;
	f->len = len;
	if (!ix && mt_map64_put(&st->by_hash, h, &ix) == 0)
		*ix = o->nfiles + 1;
	return (long)o->nfiles++;
}

/* Doubles the replacement's room; the first room (tmp) is on the stack. On failure the
 * pieces are freed. */
static int grow_piece(struct mt_reread_seg **piece, size_t *cap, const struct mt_reread_seg *tmp,
		      size_t np)
{
	struct mt_reread_seg *nb = malloc(*cap * 2 * sizeof(*nb));

	if (nb)
		memcpy(nb, *piece, np * sizeof(*nb));
	if (*piece != tmp)
		free(*piece);
	*piece = nb;
	*cap *= 2;
	return nb ? 0 : -ENOMEM;
}

int mt_reread_cover(struct mt_reread_file *f, uint64_t a, uint64_t b)
{
	struct mt_reread_seg tmp[64], *piece = tmp;
	size_t lo = 0, hi = f->nsegs, first, last, np = 0, cap = 64;
	uint64_t at = a;

	if (a >= b)
		return 0;
	f->bytes_read += b - a;
	while (lo < hi) { /* the first segment ending after a */
		size_t mid = (lo + hi) / 2;

		if (f->segs[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = last = lo;
	/* the replacement of segments [first, last): the parts before a and after b kept */
	for (; last < f->nsegs && f->segs[last].start < b; last++) {
		const struct mt_reread_seg *s = &f->segs[last];

		if (np + 4 > cap && grow_piece(&piece, &cap, tmp, np) < 0)
			return -ENOMEM;
		if (s->start < a)
			piece[np++] = (struct mt_reread_seg){ s->start, a, s->times };
		if (at < s->start)
			piece[np++] = (struct mt_reread_seg){ at, s->start, 1 };
		piece[np++] = (struct mt_reread_seg){ s->start > a ? s->start : a,
						      s->end < b ? s->end : b, s->times + 1 };
		if (s->end > b)
			piece[np++] = (struct mt_reread_seg){ b, s->end, s->times };
		at = s->end;
	}
	if (at < b) {
		if (np == cap && grow_piece(&piece, &cap, tmp, np) < 0)
			return -ENOMEM;
		piece[np++] = (struct mt_reread_seg){ at, b, 1 };
	}
	if (np > last - first && mt_grow_array(&f->segs, &f->cap, f->nsegs + np - (last - first),
					       sizeof(*f->segs)) < 0) {
		if (piece != tmp)
			free(piece);
		return -ENOMEM;
	}
	memmove(f->segs + first + np, f->segs + last, (f->nsegs - last) * sizeof(*f->segs));
	memcpy(f->segs + first, piece, np * sizeof(*piece));
	f->nsegs = f->nsegs + np - (last - first);
	if (piece != tmp)
		free(piece);
	/* merge touching neighbours with equal counts around the change */
	{
		size_t from = first ? first - 1 : 0, to = first + np + 1, w = from;

		if (to > f->nsegs)
			to = f->nsegs;
		for (size_t i = from + 1; i < to; i++) {
			if (f->segs[w].end == f->segs[i].start &&
			    f->segs[w].times == f->segs[i].times)
				f->segs[w].end = f->segs[i].end;
			else
				f->segs[++w] = f->segs[i];
		}
		w++;
		memmove(f->segs + w, f->segs + to, (f->nsegs - to) * sizeof(*f->segs));
		f->nsegs -= to - w;
	}
	return 0;
}

static struct pmaps *maps_of(struct state *st, uint32_t pid)
{
	uint64_t *ix;

	if (mt_map64_put(&st->by_pid, pid, &ix) < 0)
		return NULL;
	if (!*ix) {
		if (mt_grow_array(&st->pm, &st->pm_cap, st->npm + 1, sizeof(*st->pm)) < 0)
			return NULL;
		memset(&st->pm[st->npm], 0, sizeof(*st->pm));
		*ix = ++st->npm;
	}
	return &st->pm[*ix - 1];
}

static int on_read(struct state *st, struct mt_fdtab *fd, const struct mt_event *ev, uint32_t pid)
{
	uint64_t nr = ev->v[MT_F_SYSCALL_NR], off;
	int64_t ret = (int64_t)ev->v[MT_F_SYSCALL_RET];
	const uint64_t *a = &ev->v[MT_F_SYSCALL_A0];
	struct mt_fd_ent *e;
	long f;

	if (nr == 9 && (a[2] & 4 /* PROT_EXEC */) && (int64_t)a[4] >= 0 && ret > 0) {
		/* An executable mmap of a descriptor: the file is a loaded object, under the path
		 * it was opened by (the loader reads /lib/... that the kernel names /usr/lib/...) */
		e = mt_fdtab_get(fd, (uint32_t)ev->v[MT_F_PID], (int)a[4]);
		if (e) {
			f = file_of(st, e->path, e->len);
			if (f < 0)
				return (int)f;
			st->out->files[f].exec = true;
		}
		return 0;
	}
	if (nr != 0 && nr != 17 && nr != 19 && nr != 295 && nr != 327)
		return 0;
	if (ret <= 0 || (ev->v[MT_F_SYSCALL_FLAGS] & (MT_SYSCALL_NO_EXIT | MT_SYSCALL_RUNTIME)))
		return 0;
	e = mt_fdtab_get(fd, (uint32_t)ev->v[MT_F_PID], (int)a[0]);
	if (!e) {
		st->out->reads_unknown_fd++;
		return 0;
	}
	if (pid && ev->v[MT_F_PID] != pid)
		return 0;
	off = nr == 0 || nr == 19 ? e->pos : a[3]; /* pread64, preadv, preadv2: the argument */
	if (nr == 327 && (int64_t)a[3] == -1)
		off = e->pos; /* preadv2 at -1: the current offset */
	f = file_of(st, e->path, e->len);
	if (f < 0)
		return (int)f;
	st->out->files[f].reads++;
	return mt_reread_cover(&st->out->files[f], off, off + (uint64_t)ret);
}

static int on_fault(struct state *st, const struct mt_event *ev)
{
	struct pmaps *pm = maps_of(st, (uint32_t)ev->v[MT_F_PID]);
	uint64_t addr = ev->v[MT_F_FAULT_ADDR];

	if (!pm)
		return -ENOMEM;
	if (ev->v[MT_F_FAULT_TRACKING] & MT_FAULT_TRACKING)
		return 0; /* page-write tracking's: no read of the file */
	for (size_t i = pm->n; i-- > 0;) {
		const struct map *m = &pm->v[i];
		uint64_t lo, hi;
		struct mt_reread_file *f;

		if (addr < m->start || addr >= m->end)
			continue;
		if (!m->file)
			return 0;
		lo = addr & ~(uint64_t)4095;
		hi = lo + 4096;
		if (hi > m->end)
			hi = m->end;
		f = &st->out->files[m->file - 1];
		f->faults++;
		return mt_reread_cover(f, m->pgoff + (lo - m->start), m->pgoff + (hi - m->start));
	}
	return 0;
}

static int on_mmap(struct state *st, struct mt_reader *r, const struct mt_event *ev, uint32_t pid)
{
	struct pmaps *pm = maps_of(st, (uint32_t)ev->v[MT_F_PID]);
	size_t len = 0;
	const char *p = mt_reader_str(r, ev->stream, ev->v[MT_F_MMAP_PATH], &len);
	long f = 0;

	/* The runtime's record of an mmap call has no path: the kernel's record of the same
	 * mapping (perf MMAP2, or the /proc snapshot) names the file. */
	if (ev->v[MT_F_MMAP_ORIGIN] == MT_MMAP_RT)
		return 0;
	if (!pm || mt_grow_array(&pm->v, &pm->cap, pm->n + 1, sizeof(*pm->v)) < 0)
		return -ENOMEM;
	if (p && len && p[0] == '/' && ev->v[MT_F_MMAP_INO] && (!pid || ev->v[MT_F_PID] == pid)) {
		f = file_of(st, p, len);
		if (f < 0)
			return (int)f;
		f++;
	}
	if (f && (ev->v[MT_F_MMAP_PROT] & 4 /* PROT_EXEC */))
		st->out->files[f - 1].exec = true;
	pm->v[pm->n++] = (struct map){ .start = ev->v[MT_F_MMAP_ADDR],
				       .end = ev->v[MT_F_MMAP_ADDR] + ev->v[MT_F_MMAP_LEN],
				       .pgoff = ev->v[MT_F_MMAP_PGOFF],
				       .file = (size_t)f };
	return 0;
}

const char *mt_reread_kind_name(unsigned kind)
{
	static const char *const n[MT_RR_NKINDS] = { "data", "code", "system", "memtap" };

	return kind < MT_RR_NKINDS ? n[kind] : "?";
}

static bool has_prefix(const struct mt_reread_file *f, const char *p)
{
	size_t n = strlen(p);

	return f->len >= n && !memcmp(f->path, p, n);
}

/* What a file is to the workload (rt: the preload runtime's path, or NULL). */
static unsigned classify(const struct mt_reread_file *f, const char *rt)
{
	static const char *const system[] = { "/etc/ld.so.cache", "/usr/lib/locale/",
					      "/usr/lib/x86_64-linux-gnu/gconv/",
					      "/usr/share/locale/" };
	const char *base = memrchr(f->path, '/', f->len);

	if (has_prefix(f, "/memfd:memtap") ||
	    (rt && f->len == strlen(rt) && !memcmp(f->path, rt, f->len)) ||
	    (base && (size_t)(f->path + f->len - base) == sizeof("/libmemtap-rt.so") - 1 &&
	     !memcmp(base, "/libmemtap-rt.so", sizeof("/libmemtap-rt.so") - 1)))
		return MT_RR_MEMTAP;
	if (f->exec)
		return MT_RR_CODE;
	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (has_prefix(f, system[i]))
			return MT_RR_SYSTEM;
	return MT_RR_DATA;
}

/* The preload runtime's path the trace names, or NULL. */
static const char *rt_path(struct mt_reader *r)
{
	const struct mt_kvlist *kv = mt_reader_collector_named(r, "alloc");

	return kv ? mt_kvlist_get(kv, "runtime") : NULL;
}

static int cmp_files(const void *a, const void *b)
{
	const struct mt_reread_file *x = a, *y = b;

	if (x->reread_bytes != y->reread_bytes)
		return x->reread_bytes > y->reread_bytes ? -1 : 1;
	if (x->bytes_read != y->bytes_read)
		return x->bytes_read > y->bytes_read ? -1 : 1;
	return x->len == y->len ? memcmp(x->path, y->path, x->len) : (x->len < y->len ? -1 : 1);
}

struct rr_pass {
	struct mt_reader *r;
	uint32_t pid;
	struct state st;
	struct mt_fdtab fd;
};

static int rr_event(void *ctx, const struct mt_event *ev)
{
	struct rr_pass *p = ctx;
	int rc = 0;

	switch (ev->type) {
	case MT_EV_SYSCALL:
		rc = on_read(&p->st, &p->fd, ev, p->pid);
		mt_fdtab_apply(&p->fd, p->r, ev); /* after: read() advances the offset */
		break;
	case MT_EV_TASK_NEW:
		mt_fdtab_apply(&p->fd, p->r, ev);
		break;
	case MT_EV_MMAP:
		rc = on_mmap(&p->st, p->r, ev, p->pid);
		break;
	case MT_EV_FAULT:
		if (!p->pid || ev->v[MT_F_PID] == p->pid)
			rc = on_fault(&p->st, ev);
		break;
	default:
		break;
	}
	return rc < 0 ? rc : 0;
}

static int rr_finish(void *ctx, int rc)
{
	struct rr_pass *p = ctx;
	struct mt_reader *r = p->r;
	struct mt_rereads *out = p->st.out;

	mt_fdtab_release(&p->fd);
	mt_map64_release(&p->st.by_hash);
	mt_map64_release(&p->st.by_pid);
	for (size_t i = 0; i < p->st.npm; i++)
		free(p->st.pm[i].v);
	free(p->st.pm);
	free(p);
	if (rc < 0) {
		mt_rereads_release(out);
		return rc;
	}
	for (size_t i = 0; i < out->nfiles; i++) {
		for (size_t k = 0; k < out->files[i].nsegs; k++)
			if (out->files[i].segs[k].times > 1)
				out->files[i].reread_bytes +=
					out->files[i].segs[k].end - out->files[i].segs[k].start;
		out->files[i].kind = (unsigned char)classify(&out->files[i], rt_path(r));
		out->files_by_kind[out->files[i].kind]++;
	}
	mt_qsort(out->files, out->nfiles, sizeof(*out->files), cmp_files);
	return 0;
}

int mt_rereads_pass(struct mt_reader *r, uint32_t pid, struct mt_rereads *out, struct mt_pass *pass)
{
	struct rr_pass *p;

	memset(out, 0, sizeof(*out));
	out->fault_window = 4096;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->r = r;
	p->pid = pid;
	p->st.out = out;
	mt_fdtab_init(&p->fd, mt_reader_meta(r, "cwd"));
	mt_map64_init(&p->st.by_hash);
	mt_map64_init(&p->st.by_pid);
	*pass = (struct mt_pass){ .name = "rereads",
				  .types = 1ull << MT_EV_SYSCALL | 1ull << MT_EV_TASK_NEW |
					   1ull << MT_EV_MMAP | 1ull << MT_EV_FAULT,
				  .ctx = p,
				  .event = rr_event,
				  .finish = rr_finish };
	return 0;
}

int mt_rereads_analyze(struct mt_reader *r, uint32_t pid, struct mt_rereads *out)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_rereads_pass(r, pid, out, &p), &p);
}

void mt_rereads_release(struct mt_rereads *rr)
{
	for (size_t i = 0; i < rr->nfiles; i++) {
		free(rr->files[i].segs);
		free((char *)rr->files[i].path);
	}
	free(rr->files);
	memset(rr, 0, sizeof(*rr));
}
