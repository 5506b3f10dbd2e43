/* SPDX-License-Identifier: MIT */
/* The objects' unwind tables read from their files, never from their mappings. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rt/cfi.h"
#include "rt/rt-internal.h"

/*
 * Reading .eh_frame_hdr and .eh_frame in place brings their pages into the program's page
 * tables, and so into its resident memory, though the program itself never reads them (it
 * unwinds only to throw): 17 MB more file-backed RSS on a PyTorch decoder. So the runtime
 * reads each object's tables from its file, in chunks of CHUNK bytes copied into memtap's own
 * arena (its memory, measured and kept apart) as the rules ask for them: the program's pages
 * stay what they are without memtap. An object whose file cannot be read, or whose layout
 * on disk is not the one mapped (a library replaced since it was loaded), is read in place,
 * and counted (unwind_tables_in_memory).
 */
#define CHUNK (16u << 10)
#define MAX_OBJS 512
#define MAX_CHUNKS (1u << 18) /* 4 GiB of one segment */

struct obj {
	uint64_t map_start; /* _dl_find_object's: the object's identity here */
	uint64_t lo, hi; /* the loaded segment holding its .eh_frame_hdr */
	uint64_t off; /* the file offset of lo */
	const char *path;
	uint64_t dev, ino;
	uint8_t **chunks; /* (hi - lo) / CHUNK rounded up, from the arena */
	bool in_memory; /* read in place */
};

static struct obj objs[MAX_OBJS];
static unsigned nobjs;
static int objs_lock;
static uint8_t slot_buf[2][MT_CFI_RECORD_MAX]; /* records that straddle two chunks */
static bool read_failed; /* a chunk could not be read during this rule (under objs_lock) */

static long open_path(const char *path, struct stat *st)
{
	long fd = mt_rt_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);

	if (fd < 0)
		return fd;
	if (rt_sys2(SYS_fstat, fd, st) < 0) {
		(void)rt_sys1(SYS_close, fd);
		return -EIO;
	}
	return fd;
}

static bool read_at(long fd, void *buf, uint64_t n, uint64_t off)
{
	return mt_rt_sys(SYS_pread64, fd, (long)buf, (long)n, (long)off, 0, 0) == (long)n;
}

/* The file's loaded segment holding the .eh_frame_hdr the loader found at hdr (l_addr: the
 * object's load bias); false unless the file's program headers say the same. */
static bool layout(struct obj *o, long fd, uint64_t l_addr, uint64_t hdr)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	bool eh_ok = false, seg = false;

	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !eh.e_phnum || eh.e_phnum > 64 ||
	    !read_at(fd, ph, (uint64_t)eh.e_phnum * sizeof(ph[0]), eh.e_phoff))
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		uint64_t a = l_addr + ph[i].p_vaddr;

		if (ph[i].p_type == PT_GNU_EH_FRAME && a == hdr)
			eh_ok = true;
		if (ph[i].p_type == PT_LOAD && hdr >= a && hdr - a < ph[i].p_filesz && !seg) {
			seg = true;
			o->lo = a;
			o->hi = a + ph[i].p_filesz;
			o->off = ph[i].p_offset;
		}
	}
	return eh_ok && seg && (o->hi - o->lo + CHUNK - 1) / CHUNK <= MAX_CHUNKS;
}

/* The object holding pc, its table source set up on first use; under objs_lock. */
static struct obj *obj_of(const struct dl_find_object *f)
{
	const struct link_map *l = f->dlfo_link_map;
	uint64_t start = (uint64_t)(uintptr_t)f->dlfo_map_start;
	struct obj *o;
	struct stat st;
	long fd;

	for (unsigned i = 0; i < nobjs; i++)
		if (objs[i].map_start == start)
			return &objs[i];
	if (nobjs == MAX_OBJS)
		return NULL;
	o = &objs[nobjs++];
	memset(o, 0, sizeof(*o));
	o->map_start = start;
	o->in_memory = true;
	/* the main program's name is "" (its file: /proc/self/exe, even when deleted); the
	 * vDSO's is not a file */
	o->path = l && l->l_name && l->l_name[0] ? l->l_name : "/proc/self/exe";
	if (o->path[0] != '/' || (fd = open_path(o->path, &st)) < 0)
		goto memory;
	if (layout(o, fd, l ? l->l_addr : 0, (uint64_t)(uintptr_t)f->dlfo_eh_frame) &&
	    (o->chunks = rt_mmap_anon(((o->hi - o->lo + CHUNK - 1) / CHUNK) * sizeof(void *)))) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
		o->in_memory = false;
	}
	(void)rt_sys1(SYS_close, fd);
memory:
	if (o->in_memory && rt_region)
		__atomic_add_fetch(&rt_region->unwind_in_memory, 1, __ATOMIC_RELAXED);
	return o;
}

/* Chunk c of the object, read from its file on first use; NULL if it cannot be. */
static const uint8_t *chunk(struct obj *o, uint64_t c)
{
	uint64_t at = c * CHUNK, n = o->hi - o->lo - at < CHUNK ? o->hi - o->lo - at : CHUNK;
	struct stat st;
	uint8_t *b;
	long fd;
	bool ok;

	if (o->chunks[c])
		return o->chunks[c];
	if ((fd = open_path(o->path, &st)) < 0) {
		read_failed = true; /* no descriptor left, say: this rule is read in place */
		return NULL;
	}
	/* the file first opened, still: a library replaced since is not read */
	b = (uint64_t)st.st_dev == o->dev && (uint64_t)st.st_ino == o->ino ? rt_mmap_anon(CHUNK)
									   : NULL;
	ok = b && read_at(fd, b, n, o->off + at);
	(void)rt_sys1(SYS_close, fd);
	if (!ok) {
		if (b)
			rt_munmap(b, CHUNK);
		read_failed = true;
		return NULL;
	}
	if (rt_region)
		__atomic_add_fetch(&rt_region->unwind_chunk_reads, 1, __ATOMIC_RELAXED);
	return o->chunks[c] = b;
}

static const uint8_t *file_get(void *ctx, uint64_t addr, uint64_t len, int slot)
{
	struct obj *o = ctx;
	uint64_t rel = addr - o->lo, c0 = rel / CHUNK, c1 = (rel + (len ? len - 1 : 0)) / CHUNK;
	const uint8_t *b;

	if (c0 == c1)
		return (b = chunk(o, c0)) ? b + rel % CHUNK : NULL;
	if (len > sizeof(slot_buf[0]))
		return NULL;
	/* a record across chunks: copied whole */
	for (uint64_t done = 0; done < len;) {
		uint64_t c = (rel + done) / CHUNK, in = (rel + done) % CHUNK;
		uint64_t n = CHUNK - in < len - done ? CHUNK - in : len - done;

		if (!(b = chunk(o, c)))
			return NULL;
		memcpy(slot_buf[slot] + done, b + in, n);
		done += n;
	}
	return slot_buf[slot];
}

uint64_t rt_unwind_file_rule(const struct dl_find_object *f, uint64_t pc)
{
	struct obj *o;
	uint64_t rule;

	rt_lock(&objs_lock);
	o = obj_of(f);
	if (o && !o->in_memory) {
		const struct mt_cfi_src s = { file_get, o, o->lo, o->hi };

		read_failed = false;
		rule = mt_cfi_rule_src(&s, (uint64_t)(uintptr_t)f->dlfo_eh_frame, pc);
		if (!read_failed) {
			rt_unlock(&objs_lock);
			return rule;
		}
		if (rt_region) /* the file could not be read now: in place, this once */
			__atomic_add_fetch(&rt_region->unwind_in_memory, 1, __ATOMIC_RELAXED);
	}
	rt_unlock(&objs_lock);
	return mt_cfi_rule(f->dlfo_eh_frame, pc, f->dlfo_map_start, f->dlfo_map_end);
}

void rt_unwind_file_flush(void)
{
	rt_lock(&objs_lock);
	/* an object unloaded may be replaced at its address: every table is read again, and
	 * the chunks go back to the arena */
	for (unsigned i = 0; i < nobjs; i++) {
		struct obj *o = &objs[i];
		uint64_t n = (o->hi - o->lo + CHUNK - 1) / CHUNK;

		for (uint64_t c = 0; o->chunks && c < n; c++)
			if (o->chunks[c])
				rt_munmap(o->chunks[c], CHUNK);
		if (o->chunks)
			rt_munmap(o->chunks, n * sizeof(void *));
	}
	nobjs = 0;
	rt_unlock(&objs_lock);
}

void rt_unwind_file_fork_child(void)
{
	objs_lock = 0; /* a thread that died in fork may have held it; the tables stay valid */
}
