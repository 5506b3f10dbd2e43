/* SPDX-License-Identifier: MIT */
/* Symbolization: which file mapped an address then, and what libdw says is there. */
#include "common/array.h"
#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/hash.h"
#include "common/safeopen.h"
#include "format/block.h"
#include "analysis/pass.h"
#include "format/reader.h"

/* The C++ ABI's demangler (libstdc++); names that are not mangled never reach it. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct map {
	uint32_t pid;
	uint32_t prev; /* index + 1 of the same process's previous mapping, 0: none */
	uint64_t t, addr, len, pgoff;
	const char *path; /* owned by the reader */
	const char *build_id;
};

struct load {
	uint64_t off, filesz, vaddr;
};

enum mod_state { MOD_OK, MOD_NO_FILE };

struct module {
	char *path;
	enum mod_state state;
	Dwfl *dwfl;
	Dwfl_Module *m;
	GElf_Addr bias;
	char build_id[130]; /* of the file on disk, hex; "" if none */
	struct load loads[32];
	unsigned nloads;
};

/* A process created by fork (no exec yet): it holds its parent's mappings as they were then. */
struct forked {
	uint32_t pid, ppid;
	uint32_t prev; /* index + 1 of the same pid's previous fork record, 0: none */
	uint64_t t; /* the fork */
	uint64_t exec_t; /* its first exec after the fork: a new image (UINT64_MAX: none) */
};

/* A Python function of a process (PY_FUNC event): what its frames' ids mean from t on. */
struct pyfn {
	uint32_t pid;
	uint32_t prev; /* index + 1 of an older record with the same key, 0: none */
	uint64_t id, t;
	const char *name, *file; /* owned by the reader */
};

/* A resolved address: the key it was asked with, and its frames in the frames array. */
struct result {
	uint64_t ip;
	uint32_t pid;
	bool ret;
	uint32_t first, n;
};

/*
 * The index is built in event (time) order and is complete for every time already read: it
 * answers during the read that builds it (the access pass types regions by their allocation
 * stacks as their first samples come) as well as after. Each process's mappings and fork
 * records are chained newest first from last_map and last_fork (pid -> index + 1).
 */
struct mt_symbolizer {
	struct mt_reader *r;
	struct map *maps;
	size_t nmaps, maps_cap;
	struct forked *forks;
	size_t nforks, forks_cap;
	struct mt_map64 last_map, last_fork;
	struct module *mods;
	size_t nmods, mods_cap;
	struct mt_frame *frames;
	size_t nframes, frames_cap;
	struct mt_map64 cache; /* hash(pid, ip, ret) -> index into results + 1 */
	struct result *results;
	size_t nresults, results_cap;
	char **strs; /* strings the frames point to */
	size_t nstrs, strs_cap;
	struct pyfn *pyfns;
	size_t npyfns, pyfns_cap;
	struct mt_map64 last_pyfn; /* hash(pid, id) -> newest pyfn index + 1 */
	struct mt_frame py_frame; /* the answer for a Python frame, valid until the next call */
	struct mt_sym_stats stats;
};

static char *keep(struct mt_symbolizer *s, const char *str);

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The latest fork record of pid at or before t (pids are reused), or NULL. */
static struct forked *fork_of(const struct mt_symbolizer *s, uint32_t pid, uint64_t t)
{
	uint64_t *last = mt_map64_get(&s->last_fork, pid);

	struct forked *f = NULL;

	for (uint32_t k = last ? (uint32_t)*last : 0; k; k = s->forks[k - 1].prev)
		if (s->forks[k - 1].t <= t && (!f || s->forks[k - 1].t > f->t))
			f = &s->forks[k - 1];
	return f;
}

/* A file mapping (MMAP event values v) whose symbols can be read; others are left out. */
static int add_map(struct mt_symbolizer *s, uint32_t stream, const uint64_t *v)
{
	const char *path = mt_reader_str(s->r, stream, v[MT_F_MMAP_PATH], NULL);
	struct map *m;
	uint64_t *last;

	if (!path || path[0] != '/' || !v[MT_F_MMAP_LEN])
		return 0; /* anonymous, [vdso], [heap]: no file to read symbols from */
	if (mt_grow_array(&s->maps, &s->maps_cap, s->nmaps + 1, sizeof(*s->maps)) < 0 ||
	    mt_map64_put(&s->last_map, (uint32_t)v[MT_F_PID], &last) < 0)
		return -ENOMEM;
	m = &s->maps[s->nmaps++];
	m->pid = (uint32_t)v[MT_F_PID];
	m->prev = (uint32_t)*last;
	*last = s->nmaps;
	m->t = v[MT_F_TIME];
	m->addr = v[MT_F_MMAP_ADDR];
	m->len = v[MT_F_MMAP_LEN];
	m->pgoff = v[MT_F_MMAP_PGOFF];
	m->path = path;
	m->build_id = mt_reader_str(s->r, stream, v[MT_F_MMAP_BUILD_ID], NULL);
	if (!m->build_id)
		m->build_id = "";
	return 0;
}

static int add_fork(struct mt_symbolizer *s, uint32_t pid, uint32_t ppid, uint64_t t)
{
	uint64_t *last;

	if (mt_grow_array(&s->forks, &s->forks_cap, s->nforks + 1, sizeof(*s->forks)) < 0 ||
	    mt_map64_put(&s->last_fork, pid, &last) < 0)
		return -ENOMEM;
	s->forks[s->nforks] = (struct forked){ pid, ppid, (uint32_t)*last, t, UINT64_MAX };
	*last = ++s->nforks;
	return 0;
}

static uint64_t pyfn_key(uint32_t pid, uint64_t id)
{
	uint64_t k = mt_hash_u64(id * 0x9e3779b97f4a7c15ull ^ pid);

	return k == MT_MAP64_EMPTY ? 0 : k;
}

static int add_pyfn(struct mt_symbolizer *s, uint32_t pid, uint64_t id, uint64_t t,
		    const char *name, const char *file)
{
	uint64_t *last;

	if (mt_grow_array(&s->pyfns, &s->pyfns_cap, s->npyfns + 1, sizeof(*s->pyfns)) < 0 ||
	    mt_map64_put(&s->last_pyfn, pyfn_key(pid, id), &last) < 0)
		return -ENOMEM;
	s->pyfns[s->npyfns] = (struct pyfn){ pid, (uint32_t)*last, id, t, name, file };
	*last = ++s->npyfns;
	return 0;
}

/* The function id names in pid at t: its newest record at or before t, else (a fork child
 * before its exec) what it named in the parent at the fork. */
static const struct pyfn *find_pyfn(const struct mt_symbolizer *s, uint32_t pid, uint64_t t,
				    uint64_t id)
{
	for (int hop = 0; hop < 64; hop++) {
		uint64_t *last = mt_map64_get(&s->last_pyfn, pyfn_key(pid, id));
		const struct forked *f;

		for (uint32_t k = last ? (uint32_t)*last : 0; k; k = s->pyfns[k - 1].prev) {
			const struct pyfn *p = &s->pyfns[k - 1];

			if (p->pid == pid && p->id == id && p->t <= t)
				return p;
		}
		f = fork_of(s, pid, t);
		if (!f || f->exec_t <= t)
			return NULL;
		pid = f->ppid;
		t = f->t;
	}
	return NULL;
}

/* The index built from the event stream: file mappings, forks, and the first exec after each
 * fork (a new image: the parent's mappings no longer hold). */
struct sym_pass {
	struct mt_symbolizer *s, **ret;
};

static int sym_event(void *ctx, const struct mt_event *ev)
{
	struct sym_pass *p = ctx;
	struct mt_symbolizer *s = p->s;
	uint32_t pid = (uint32_t)ev->v[MT_F_PID];
	struct forked *f;

	switch (ev->type) {
	case MT_EV_MMAP:
		return add_map(s, ev->stream, ev->v);
	case MT_EV_PY_FUNC:
		return add_pyfn(s, pid, ev->v[MT_F_PYFN_ID], ev->v[MT_F_TIME],
				mt_reader_str(s->r, ev->stream, ev->v[MT_F_PYFN_NAME], NULL),
				mt_reader_str(s->r, ev->stream, ev->v[MT_F_PYFN_FILE], NULL));
	case MT_EV_TASK_NEW:
		if (ev->v[MT_F_NEW_KIND] == MT_TASK_THREAD || pid == ev->v[MT_F_NEW_PPID])
			return 0;
		return add_fork(s, pid, (uint32_t)ev->v[MT_F_NEW_PPID], ev->v[MT_F_TIME]);
	case MT_EV_TASK_EXEC:
		f = fork_of(s, pid, ev->v[MT_F_TIME]);
		if (f && ev->v[MT_F_TIME] < f->exec_t)
			f->exec_t = ev->v[MT_F_TIME];
		return 0;
	default:
		return 0;
	}
}

static int sym_finish(void *ctx, int rc)
{
	struct sym_pass *p = ctx;

	if (rc < 0) {
		mt_sym_close(p->s);
		*p->ret = NULL;
	}
	free(p);
	return rc;
}

int mt_sym_pass(struct mt_reader *r, struct mt_symbolizer **ret, struct mt_pass *pass)
{
	struct mt_symbolizer *s = calloc(1, sizeof(*s));
	struct sym_pass *p = calloc(1, sizeof(*p));

	*ret = NULL;
	if (!s || !p) {
		free(s);
		free(p);
		return -ENOMEM;
	}
	s->r = r;
	mt_map64_init(&s->cache);
	mt_map64_init(&s->last_map);
	mt_map64_init(&s->last_fork);
	mt_map64_init(&s->last_pyfn);
	p->s = s;
	p->ret = ret;
	*ret = s;
	*pass = (struct mt_pass){ .name = "symbols",
				  .types = 1ull << MT_EV_MMAP | 1ull << MT_EV_TASK_NEW |
					   1ull << MT_EV_TASK_EXEC | 1ull << MT_EV_PY_FUNC,
				  .ctx = p,
				  .event = sym_event,
				  .finish = sym_finish };
	return 0;
}

struct mt_symbolizer *mt_sym_new_live(void)
{
	return calloc(1, sizeof(struct mt_symbolizer)); /* no reader; empty maps are zeroes */
}

int mt_sym_add_map(struct mt_symbolizer *s, uint32_t pid, uint64_t addr, uint64_t len,
		   uint64_t pgoff, const char *path)
{
	const char *kept = keep(s, path);
	uint64_t *last;

	if (!kept || mt_grow_array(&s->maps, &s->maps_cap, s->nmaps + 1, sizeof(*s->maps)) < 0 ||
	    mt_map64_put(&s->last_map, pid, &last) < 0)
		return -ENOMEM;
	s->maps[s->nmaps] = (struct map){ pid, (uint32_t)*last, 0, addr, len, pgoff, kept, "" };
	*last = ++s->nmaps;
	return 0;
}

int mt_sym_open(struct mt_reader *r, struct mt_symbolizer **ret)
{
	struct mt_pass p;

	return mt_pass_run_one(r, mt_sym_pass(r, ret, &p), &p);
}

int mt_sym_clone(const struct mt_symbolizer *s, struct mt_symbolizer **ret)
{
	struct mt_symbolizer *c = calloc(1, sizeof(*c));
	int rc = 0;

	*ret = NULL;
	if (!c)
		return -ENOMEM;
	c->r = s->r;
	mt_map64_init(&c->cache);
	mt_map64_init(&c->last_map);
	mt_map64_init(&c->last_fork);
	mt_map64_init(&c->last_pyfn);
	for (size_t i = 0; rc == 0 && i < s->npyfns; i++)
		rc = add_pyfn(c, s->pyfns[i].pid, s->pyfns[i].id, s->pyfns[i].t, s->pyfns[i].name,
			      s->pyfns[i].file);
	/* the same records in the same order: the same chains */
	for (size_t i = 0; rc == 0 && i < s->nforks; i++) {
		rc = add_fork(c, s->forks[i].pid, s->forks[i].ppid, s->forks[i].t);
		if (rc == 0)
			c->forks[i].exec_t = s->forks[i].exec_t;
	}
	for (size_t i = 0; rc == 0 && i < s->nmaps; i++) {
		uint64_t *last;

		rc = mt_grow_array(&c->maps, &c->maps_cap, i + 1, sizeof(*c->maps));
		if (rc == 0)
			rc = mt_map64_put(&c->last_map, s->maps[i].pid, &last);
		if (rc == 0) {
			c->maps[i] = s->maps[i];
			c->maps[i].prev = (uint32_t)*last;
			*last = ++c->nmaps;
		}
	}
	if (rc < 0) {
		mt_sym_close(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

void mt_sym_close(struct mt_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		if (s->mods[i].dwfl)
			dwfl_end(s->mods[i].dwfl);
		free(s->mods[i].path);
	}
	for (size_t i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	free(s->mods);
	free(s->maps);
	free(s->forks);
	free(s->frames);
	free(s->results);
	free(s->pyfns);
	mt_map64_release(&s->last_pyfn);
	mt_map64_release(&s->cache);
	mt_map64_release(&s->last_map);
	mt_map64_release(&s->last_fork);
	free(s);
}

const struct mt_sym_stats *mt_sym_stats(const struct mt_symbolizer *s)
{
	return &s->stats;
}

/* The mapping of pid's own records that held ip: the latest at or before t, or the first
 * after t (*after). */
static const struct map *own_map(const struct mt_symbolizer *s, uint32_t pid, uint64_t t,
				 uint64_t ip, const struct map **after)
{
	uint64_t *last = mt_map64_get(&s->last_map, pid);

	const struct map *before = NULL;

	*after = NULL;
	for (uint32_t k = last ? (uint32_t)*last : 0; k; k = s->maps[k - 1].prev) {
		const struct map *m = &s->maps[k - 1];

		if (ip < m->addr || ip - m->addr >= m->len)
			continue;
		if (m->t <= t && (!before || m->t > before->t))
			before = m; /* the latest at or before t (of equal times, the last read) */
		else if (m->t > t && (!*after || m->t <= (*after)->t))
			*after = m; /* the earliest after t */
	}
	return before;
}

/*
 * The mapping that held ip in pid at time t: the process's own latest one before t; else,
 * in a child of fork that has not exec'd since, what its parent held at the fork (a
 * pre-fork server's workers, Python multiprocessing: their mappings were never recorded
 * apart); else the process's earliest one after t.
 */
static const struct map *find_map(const struct mt_symbolizer *s, uint32_t pid, uint64_t t,
				  uint64_t ip)
{
	const struct map *after, *m = own_map(s, pid, t, ip, &after), *first_after = after;

	for (int depth = 0; !m && depth < 64; depth++) {
		const struct forked *f = fork_of(s, pid, t);

		if (!f || t >= f->exec_t)
			break;
		pid = f->ppid;
		t = f->t;
		m = own_map(s, pid, t, ip, &after);
	}
	return m ? m : first_after;
}

static char *keep(struct mt_symbolizer *s, const char *str)
{
	char *d;

	if (!str)
		return NULL;
	if (mt_grow_array(&s->strs, &s->strs_cap, s->nstrs + 1, sizeof(*s->strs)) < 0)
		return NULL;
	d = strdup(str);
	if (d)
		s->strs[s->nstrs++] = d;
	return d;
}

/* A kept copy of name, demangled when it is a C++ name. */
static const char *keep_name(struct mt_symbolizer *s, const char *name)
{
	char *dm;
	const char *k;
	int status = -1;

	if (!name)
		return NULL;
	if (name[0] != '_' || name[1] != 'Z')
		return keep(s, name);
	dm = __cxa_demangle(name, NULL, NULL, &status);
	k = keep(s, status == 0 && dm ? dm : name);
	free(dm);
	return k;
}

static struct module *module_get(struct mt_symbolizer *s, const char *path)
{
	struct module *m;
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph;
	const unsigned char *bid;
	GElf_Addr bid_addr;
	int n, fd;

	for (size_t i = 0; i < s->nmods; i++)
		if (!strcmp(s->mods[i].path, path))
			return &s->mods[i];
	if (mt_grow_array(&s->mods, &s->mods_cap, s->nmods + 1, sizeof(*s->mods)) < 0)
		return NULL;
	m = &s->mods[s->nmods];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return NULL;
	s->nmods++;
	m->state = MOD_NO_FILE;
	/* The path comes from the trace, which may come from anywhere: only a regular file
	 * is opened (a FIFO or a device named there could block, never end, or act on being
	 * opened). */
	fd = mt_open_regular(path, NULL);
	if (fd < 0)
		return m;
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl) {
		close(fd);
		return m;
	}
	m->m = dwfl_report_offline(m->dwfl, path, path, fd); /* consumes fd on success */
	if (!m->m)
		close(fd);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->m || !(elf = dwfl_module_getelf(m->m, &m->bias)) || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &nph) < 0)
		return m;
	for (size_t i = 0; i < nph && m->nloads < 32; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m->loads[m->nloads++] = (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	n = dwfl_module_build_id(m->m, &bid, &bid_addr);
	for (int i = 0; i < n && i < 64; i++)
		snprintf(m->build_id + 2 * i, 3, "%02x", bid[i]);
	m->state = MOD_OK;
	return m;
}

static struct mt_frame *frame_new(struct mt_symbolizer *s)
{
	if (mt_grow_array(&s->frames, &s->frames_cap, s->nframes + 1, sizeof(*s->frames)) < 0)
		return NULL;
	memset(&s->frames[s->nframes], 0, sizeof(s->frames[0]));
	return &s->frames[s->nframes++];
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
	return n;
}

/* The call site an inlined subroutine's DIE records (file and line in its caller). */
static void call_site(Dwarf_Die *cu, Dwarf_Die *d, const char **file, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &w) == 0)
		*line = (unsigned)w;
	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

/*
 * The CU holding addr when libdw finds none: clang emits no .debug_aranges, and libdw 0.188
 * finds CUs through them only (later versions read the CUs' ranges instead). Walks the CUs'
 * DW_AT_ranges / low_pc..high_pc.
 */
static Dwarf_Die *cu_by_ranges(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = NULL;

	while ((cu = dwfl_module_nextcu(mod, cu, bias)) != NULL) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0)
			if (addr - *bias >= lo && addr - *bias < hi)
				return cu;
	}
	return NULL;
}

/* Fills frames for ip in module m; returns how many were added. */
static uint32_t describe(struct mt_symbolizer *s, struct module *m, uint64_t ip, uint64_t foff,
			 uint64_t addr, const char *module)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *symname = dwfl_module_addrinfo(m->m, addr, &off, &sym, NULL, NULL, NULL);
	Dwfl_Line *line = dwfl_module_getsrc(m->m, addr);
	const char *lfile = NULL;
	int lline = 0;
	Dwarf_Addr dbias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(m->m, addr, &dbias);
	Dwarf_Die *scopes = NULL;
	int nscopes = cu ? dwarf_getscopes(cu, addr - dbias, &scopes) : 0;
	uint32_t added = 0;
	const char *cfile = NULL;
	unsigned cline = 0;
	struct mt_frame *f;

	if (!cu && (cu = cu_by_ranges(m->m, addr, &dbias)) != NULL)
		nscopes = dwarf_getscopes(cu, addr - dbias, &scopes);
	if (line) {
		lfile = dwfl_lineinfo(line, NULL, &lline, NULL, NULL, NULL);
	} else if (cu) {
		Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - dbias);

		if (dl) {
			lfile = dwarf_linesrc(dl, NULL, NULL);
			if (dwarf_lineno(dl, &lline) != 0)
				lline = 0;
		}
	}
	/* Innermost first: each inlined subroutine, then the function it was inlined into. */
	for (int i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		f = frame_new(s);
		if (!f)
			break;
		f->ip = ip;
		f->module = module;
		f->offset = foff;
		f->function = keep_name(s, die_name(&scopes[i]));
		if (!added) {
			f->file = keep(s, lfile);
			f->line = lline > 0 ? (unsigned)lline : 0;
		} else {
			f->file = keep(s, cfile);
			f->line = cline;
		}
		added++;
		if (tag == DW_TAG_subprogram) {
			if (!f->function)
				f->function = keep_name(s, symname);
			break;
		}
		f->inlined = true;
		call_site(cu, &scopes[i], &cfile, &cline);
	}
	free(scopes);
	if (added) {
		/* The outermost DWARF frame names the machine frame; the symbol table agrees or
		 * knows better (a DIE without a name). */
		return added;
	}
	f = frame_new(s);
	if (!f)
		return 0;
	f->ip = ip;
	f->module = module;
	f->offset = foff;
	f->function = keep_name(s, symname);
	f->file = keep(s, lfile);
	f->line = lline > 0 ? (unsigned)lline : 0;
	return 1;
}

/* A frame that names only where the address is (module and offset, or nothing). */
static uint32_t bare_frame(struct mt_symbolizer *s, uint64_t ip, const char *module, uint64_t off)
{
	struct mt_frame *f = frame_new(s);

	if (!f)
		return 0;
	f->ip = ip;
	f->module = module;
	f->offset = off;
	return 1;
}

static uint32_t resolve_one(struct mt_symbolizer *s, uint32_t pid, uint64_t t, uint64_t ip,
			    bool ret)
{
	const struct map *mp = find_map(s, pid, t, ip);
	struct module *m;
	uint64_t foff, addr = 0;
	const char *module;
	bool in_load = false;
	uint32_t n;

	s->stats.addresses++;
	if (!mp) {
		s->stats.no_mapping++;
		return bare_frame(s, ip, NULL, 0);
	}
	foff = ip - mp->addr + mp->pgoff;
	module = mp->path;
	m = module_get(s, mp->path);
	if (!m || m->state != MOD_OK || (mp->build_id[0] && strcmp(mp->build_id, m->build_id))) {
		if (m && m->state == MOD_OK)
			s->stats.build_id_mismatch++;
		else
			s->stats.no_file++;
		return bare_frame(s, ip, module, foff);
	}
	for (unsigned i = 0; i < m->nloads; i++) {
		if (foff >= m->loads[i].off && foff - m->loads[i].off < m->loads[i].filesz) {
			addr = foff - m->loads[i].off + m->loads[i].vaddr + m->bias;
			in_load = true;
			break;
		}
	}
	if (!in_load) {
		s->stats.no_symbol++;
		return bare_frame(s, ip, module, foff);
	}
	n = describe(s, m, ip, foff, ret && addr ? addr - 1 : addr, module);
	if (n && s->frames[s->nframes - n].function) {
		s->stats.resolved++;
		if (s->frames[s->nframes - n].file)
			s->stats.with_line++;
	} else {
		s->stats.no_symbol++;
	}
	return n;
}

/* A Python frame: looked up by time (a process's ids start afresh at each exec), not cached. */
static int resolve_python(struct mt_symbolizer *s, uint32_t pid, uint64_t t, uint64_t ip,
			  const struct mt_frame **frames)
{
	uint64_t id = (ip & ~MT_PY_FRAME_BIT) >> MT_PY_FRAME_LINE_BITS;
	const struct pyfn *p = find_pyfn(s, pid, t, id);
	struct mt_frame *f = &s->py_frame;

	*f = (struct mt_frame){ .ip = ip };
	f->line = (unsigned)(ip & ((1ull << MT_PY_FRAME_LINE_BITS) - 1));
	if (p) {
		f->function = p->name && p->name[0] ? p->name : NULL;
		f->file = p->file && p->file[0] ? p->file : NULL;
	} else {
		f->offset = id; /* shown as [python]+0xID: no PY_FUNC record names it */
		f->module = "[python]";
	}
	*frames = f;
	return 1;
}

int mt_sym_resolve(struct mt_symbolizer *s, uint32_t pid, uint64_t t, uint64_t ip, bool ret,
		   const struct mt_frame **frames)
{
	uint64_t key = mt_hash_u64(ip ^ ((uint64_t)pid << 32) ^ (uint64_t)ret << 63), *v;
	size_t first;
	uint32_t n;

	if (ip & MT_PY_FRAME_BIT)
		return resolve_python(s, pid, t, ip, frames);
	/* Collisions of the 64-bit key are checked against the stored (pid, ip, ret). */
	for (;;) {
		if (mt_map64_put(&s->cache, key == MT_MAP64_EMPTY ? 0 : key, &v) < 0)
			return -ENOMEM;
		if (!*v)
			break;
		const struct result *res = &s->results[*v - 1];

		if (res->pid == pid && res->ip == ip && res->ret == ret) {
			*frames = &s->frames[res->first];
			return (int)res->n;
		}
		key = mt_hash_u64(key + 1);
	}
	if (mt_grow_array(&s->results, &s->results_cap, s->nresults + 1, sizeof(*s->results)) < 0)
		return -ENOMEM;
	first = s->nframes;
	n = resolve_one(s, pid, t, ip, ret);
	if (!n)
		return -ENOMEM;
	s->results[s->nresults] = (struct result){
		.ip = ip, .pid = pid, .ret = ret, .first = (uint32_t)first, .n = n
	};
	/* v is still the cache slot: only an insertion into the cache map moves it. */
	*v = ++s->nresults;
	*frames = &s->frames[first];
	return (int)n;
}
