/* SPDX-License-Identifier: MIT */
/* Unwinding copied user stacks with libdwfl, and a stack trie for the recorder's stream. */
#include "record/ustack.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/hash.h"
#include "format/chunk.h"
#include "format/writer.h"

/*
 * Per process, the executable file mappings seen (perf MMAP2 records and /proc snapshots,
 * inherited at fork), and a Dwfl built from them when a stack of that process is unwound
 * after they changed. The Dwfl unwinds from the sampled registers (ip, sp, bp) with the
 * files' CFI, reading stack words from the copy perf made at the syscall's entry; a frame
 * outside the copy or without CFI ends the walk. Frames are interned into one trie for the
 * recorder's stream (0), written in STACKS2 chunks like the runtime's.
 */

#define MAX_FRAMES 64

struct mod {
	uint64_t start, end, pgoff;
	struct mt_file_id id; /* the file mapped: its path may name another one by now */
	char *path;
};

struct proc {
	uint32_t pid;
	struct mod *m;
	size_t n, cap;
	Dwfl *dwfl;
	bool dirty; /* the mappings changed since dwfl was built */
	bool attached;
};

struct mt_ustack {
	struct mt_map64 by_pid; /* pid -> index + 1 */
	struct proc *p;
	size_t np, pcap;
	/* the sample being unwound, for the callbacks */
	uint32_t tid;
	uint64_t ip, sp, bp;
	const uint8_t *stack;
	size_t size;
	uint64_t frames[MAX_FRAMES];
	unsigned nframes;
	/* the trie: node i (1-based) is (parent[i], ip[i]) */
	struct mt_map64 nodes; /* hash(parent, ip) -> id, probing on collisions */
	uint64_t *parent, *ips;
	size_t nnodes, ncap, written;
	uint64_t unwound, frames_total, no_module, failed;
};

/* CFI comes from each mapped file's own .eh_frame. Separate debug files are not looked for:
 * the standard search follows the file's debuglink into directories its owner controls
 * (a root recorder must not open what another user puts there). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int mt_ustack_new(struct mt_ustack **ret)
{
	struct mt_ustack *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	mt_map64_init(&u->by_pid);
	mt_map64_init(&u->nodes);
	*ret = u;
	return 0;
}

static void drop_dwfl(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
}

void mt_ustack_free(struct mt_ustack *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->np; i++) {
		drop_dwfl(&u->p[i]);
		for (size_t k = 0; k < u->p[i].n; k++)
			free(u->p[i].m[k].path);
		free(u->p[i].m);
	}
	free(u->p);
	free(u->parent);
	free(u->ips);
	mt_map64_release(&u->by_pid);
	mt_map64_release(&u->nodes);
	free(u);
}

static struct proc *proc_of(struct mt_ustack *u, uint32_t pid, bool create)
{
	uint64_t *ix = mt_map64_get(&u->by_pid, pid);

	if (ix && *ix)
		return &u->p[*ix - 1];
	if (!create || mt_grow_array(&u->p, &u->pcap, u->np + 1, sizeof(*u->p)) < 0 ||
	    mt_map64_put(&u->by_pid, pid, &ix) < 0)
		return NULL;
	memset(&u->p[u->np], 0, sizeof(*u->p));
	u->p[u->np].pid = pid;
	*ix = ++u->np;
	return &u->p[u->np - 1];
}

static void add_mod(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		    const struct mt_file_id *id, const char *path)
{
	char *copy;

	for (size_t i = 0; i < p->n; i++) /* the same mapping again (a /proc snapshot) */
		if (p->m[i].start == start && p->m[i].end == end && p->m[i].pgoff == pgoff &&
		    !strcmp(p->m[i].path, path))
			return;
	if (mt_grow_array(&p->m, &p->cap, p->n + 1, sizeof(*p->m)) < 0 || !(copy = strdup(path)))
		return;
	p->m[p->n++] = (struct mod){ start, end, pgoff, *id, copy };
	p->dirty = true;
}

void mt_ustack_map(struct mt_ustack *u, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const struct mt_file_id *id, const char *path)
{
	struct proc *p;

	if (!path || path[0] != '/' || !len)
		return;
	p = proc_of(u, pid, true);
	if (p)
		add_mod(p, start, start + len, pgoff, id, path);
}

void mt_ustack_fork(struct mt_ustack *u, uint32_t parent, uint32_t child)
{
	struct proc *pp = proc_of(u, parent, false), *c;
	size_t n;

	if (!pp || parent == child)
		return;
	n = pp->n;
	c = proc_of(u, child, true); /* may move u->p */
	pp = proc_of(u, parent, false);
	for (size_t i = 0; c && pp && i < n; i++)
		add_mod(c, pp->m[i].start, pp->m[i].end, pp->m[i].pgoff, &pp->m[i].id,
			pp->m[i].path);
}

/* The load bias of the file fd mapped at start from file offset pgoff: the address of its
 * vaddr 0. */
static bool load_bias(int fd, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	Elf *e;
	size_t n;
	bool ok = false;

	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X))
				continue;
			if (pgoff < (ph.p_offset & ~4095ull) || pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = start - pgoff -
				((ph.p_vaddr & ~4095ull) - (ph.p_offset & ~4095ull));
			ok = true;
		}
	}
	if (e)
		elf_end(e);
	return ok;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct mt_ustack *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct mt_ustack *u = arg;

	(void)dwfl;
	if (addr < u->sp || addr + 8 > u->sp + u->size || addr + 8 < addr)
		return false;
	memcpy(result, u->stack + (addr - u->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct mt_ustack *u = arg;
	Dwarf_Word regs[2] = { u->bp, u->sp }; /* DWARF 6 rbp, 7 rsp */

	if (!dwfl_thread_state_registers(thread, 6, 2, regs))
		return false;
	dwfl_thread_state_register_pc(thread, u->ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static bool build(struct mt_ustack *u, struct proc *p)
{
	drop_dwfl(p);
	p->dwfl = dwfl_begin(&callbacks);
	if (!p->dwfl)
		return false;
	dwfl_report_begin(p->dwfl);
	/* newest first; an older mapping overlapping a newer one is gone */
	for (size_t i = p->n; i-- > 0;) {
		const struct mod *m = &p->m[i];
		uint64_t bias;
		bool overlap = false;
		int fd;

		for (size_t k = i + 1; k < p->n && !overlap; k++)
			overlap = p->m[k].start < m->end && m->start < p->m[k].end;
		/* the file that was mapped, or none: never a FIFO or device put at its path */
		if (overlap || (fd = mt_open_regular(m->path, &m->id)) < 0)
			continue;
		/* one module per file and bias: a file's several executable mappings are one;
		 * libdwfl takes the descriptor when it reports the module */
		if (!load_bias(fd, m->start, m->pgoff, &bias) ||
		    !dwfl_report_elf(p->dwfl, m->path, m->path, fd, bias, false))
			close(fd);
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_callbacks, u);
	p->dirty = false;
	return p->attached;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct mt_ustack *u = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || !pc || u->nframes == MAX_FRAMES)
		return DWARF_CB_ABORT;
	u->frames[u->nframes++] = pc;
	return DWARF_CB_OK;
}

static uint64_t intern(struct mt_ustack *u, uint64_t parent, uint64_t ip)
{
	uint64_t key = mt_hash_u64(parent * 0x9e3779b97f4a7c15ull ^ ip), *v;

	for (;; key++) {
		v = mt_map64_get(&u->nodes, key);
		if (!v || !*v)
			break;
		if (u->parent[*v - 1] == parent && u->ips[*v - 1] == ip)
			return *v;
	}
	if (u->nnodes == u->ncap) {
		size_t nc = u->ncap ? u->ncap * 2 : 1024;
		uint64_t *np = realloc(u->parent, nc * sizeof(*np)), *ni;

		if (!np)
			return 0;
		u->parent = np;
		ni = realloc(u->ips, nc * sizeof(*ni));
		if (!ni)
			return 0;
		u->ips = ni;
		u->ncap = nc;
	}
	if (mt_map64_put(&u->nodes, key, &v) < 0)
		return 0;
	u->parent[u->nnodes] = parent;
	u->ips[u->nnodes] = ip;
	*v = ++u->nnodes;
	return *v;
}

uint64_t mt_ustack_unwind(struct mt_ustack *u, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t sp,
			  uint64_t bp, const uint8_t *stack, size_t size)
{
	struct proc *p = proc_of(u, pid, false);
	uint64_t id = 0;

	u->tid = tid;
	u->ip = ip;
	u->sp = sp;
	u->bp = bp;
	u->stack = stack;
	u->size = size;
	u->nframes = 0;
	if (!p || !p->n) {
		u->no_module++;
		return 0;
	}
	if ((p->dirty || !p->dwfl) && !build(u, p)) {
		u->failed++;
		return 0;
	}
	/* an error after some frames leaves the frames found */
	(void)dwfl_getthread_frames(p->dwfl, (pid_t)tid, on_frame, u);
	if (!u->nframes)
		u->frames[u->nframes++] = ip; /* at least where the call was made */
	u->unwound++;
	u->frames_total += u->nframes;
	for (unsigned i = u->nframes; i-- > 0;) /* outermost first */
		if (!(id = intern(u, id, u->frames[i])))
			return 0;
	return id;
}

int mt_ustack_flush(struct mt_ustack *u, struct mt_writer *w)
{
	int r = 0;

	if (u->written < u->nnodes) {
		r = mt_writer_stacks(w, 0, u->written + 1, u->nnodes - u->written,
				     u->parent + u->written, u->ips + u->written);
		if (r == 0)
			u->written = u->nnodes;
	}
	return r;
}

void mt_ustack_stats(const struct mt_ustack *u, struct mt_kv *kv)
{
	mt_kv_add(kv, "stacks", "user stack copied at entry, unwound with .eh_frame CFI (libdwfl)");
	mt_kv_add_u64(kv, "stacks_unwound", u->unwound);
	mt_kv_add_u64(kv, "stacks_frames", u->frames_total);
	mt_kv_add_u64(kv, "stacks_no_mappings", u->no_module);
	mt_kv_add_u64(kv, "stacks_failed", u->failed);
}
