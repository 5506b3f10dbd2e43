/* SPDX-License-Identifier: MIT */
/*
 * Entering a process that runs already (memtap record --pid). The recorder holds one of the
 * process's threads with ptrace at a system call and makes it call dlopen on this library,
 * then memtap_rt_attach (record/attach-rt.c). Preloaded, the runtime's hooks come first in
 * symbol lookup; dlopen'd, they come last, so the calls are redirected in place instead:
 * every relocation of every loaded object (a PLT slot or a GOT entry) that names a hooked
 * function is rewritten to hold the hook, RELRO pages opened for the write and closed again.
 * The real functions are the ones the program is bound to (RTLD_DEFAULT), whichever
 * allocator that is. Objects loaded later are redirected when a thread next takes a slot and
 * sees the loader's count of loaded objects change. memtap_rt_detach puts back what was
 * there. Nothing here allocates: the program's allocator may be in any state.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt/rt-internal.h"

static const char *const hooked[] = {
	"malloc",	 "free",     "calloc", "realloc", "reallocarray", "posix_memalign",
	"aligned_alloc", "memalign", "valloc", "pvalloc", "mmap",	  "mmap64",
	"munmap",	 "mremap",   "brk",    "sbrk",	  "dlclose",	  "madvise",
};
#define NHOOKED (sizeof(hooked) / sizeof(hooked[0]))

/* The two entry points the recorder calls through ptrace (exported, no header: nothing
 * links against them). */
RT_EXPORT int memtap_rt_attach(const char *conf, const char *self);
RT_EXPORT int memtap_rt_detach(void);

/* A rewritten slot and what it held: memtap_rt_detach writes it back. */
struct saved_slot {
	uint64_t addr, old;
};
#define SAVED_MAX (1u << 16)

bool rt_injected RT_HIDDEN;
static void *hook_addr[NHOOKED];
static uintptr_t self_base, vdso_base;
static struct saved_slot *saved;
static unsigned nsaved;
static bool saved_full; /* a slot could not be remembered: detach leaves the hooks in place */
static unsigned long long seen_adds;
static int walk_lock;
static bool detached; /* a recorder detached: the connection still open is its */

enum walk_mode { W_PATCH, W_RESTORE };

struct walk {
	enum walk_mode mode;
	unsigned slots;
	unsigned long long adds;
};

static int hook_index(const char *name)
{
	/* the hooked names start with one of these letters: most relocations end at one test */
	if (!strchr("mfcrpavbsd", name[0]))
		return -1;
	for (unsigned i = 0; i < NHOOKED; i++)
		if (!strcmp(name, hooked[i]))
			return (int)i;
	return -1;
}

static struct saved_slot *saved_of(uint64_t addr)
{
	for (unsigned i = 0; i < nsaved; i++)
		if (saved[i].addr == addr)
			return &saved[i];
	return NULL;
}

static void remember(uint64_t addr, uint64_t old)
{
	struct saved_slot *sv = saved_of(addr);

	if (sv)
		sv->old = old; /* a new object where an unloaded one was */
	else if (saved && nsaved < SAVED_MAX)
		saved[nsaved++] = (struct saved_slot){ addr, old };
	else
		saved_full = true;
}

/* A dynamic-section address: relocated in place by the loader where .dynamic is writable,
 * an offset from the load base where it is not. */
static uintptr_t dyn_ptr(uintptr_t base, uint64_t v)
{
	return v < base ? base + v : (uintptr_t)v;
}

/* Rewrites (or restores) the slots of one relocation table. */
static void walk_relocs(struct walk *w, uintptr_t base, const Elf64_Rela *r, size_t bytes,
			const Elf64_Sym *symtab, const char *strtab, uint64_t lo, uint64_t hi,
			bool *opened)
{
	for (size_t k = 0; k < bytes / sizeof(*r); k++) {
		uint32_t type = ELF64_R_TYPE(r[k].r_info), sym = ELF64_R_SYM(r[k].r_info);
		uint64_t *slot = (uint64_t *)(base + r[k].r_offset), cur, want;
		int h;

		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || !sym)
			continue;
		h = hook_index(strtab + symtab[sym].st_name);
		if (h < 0 || !hook_addr[h])
			continue;
		cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (w->mode == W_PATCH) {
			if (cur == (uint64_t)hook_addr[h])
				continue;
			want = (uint64_t)hook_addr[h];
		} else {
			const struct saved_slot *sv = saved_of((uint64_t)slot);

			if (cur != (uint64_t)hook_addr[h] || !sv)
				continue;
			want = sv->old;
		}
		if ((uint64_t)slot >= lo && (uint64_t)slot < hi && !*opened) {
			/* RELRO: read-only since the object was relocated */
			if (rt_sys_failed(
				    rt_sys3(SYS_mprotect, lo, hi - lo, PROT_READ | PROT_WRITE)))
				return;
			*opened = true;
		}
		if (w->mode == W_PATCH)
			remember((uint64_t)slot, cur);
		__atomic_store_n(slot, want, __ATOMIC_RELEASE);
		w->slots++;
	}
}

/* One loaded object's dynamic tables, as the loader left them. */
struct obj {
	uintptr_t base;
	const Elf64_Sym *symtab;
	const char *strtab;
	const Elf64_Rela *rela, *jmprel;
	uint64_t relasz, pltsz, lo, hi; /* lo, hi: its RELRO pages */
};

/* false for the objects that keep their own calls (this runtime, the vDSO, the loader) and
 * for one without dynamic symbols. */
static bool obj_of(const struct dl_phdr_info *info, struct obj *o)
{
	const Elf64_Dyn *dyn = NULL;

	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	if (o->base == self_base || (vdso_base && o->base == vdso_base) ||
	    (info->dlpi_name && strstr(info->dlpi_name, "/ld-linux")))
		return false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(o->base + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			o->lo = (o->base + ph->p_vaddr) & ~4095ull;
			o->hi = (o->base + ph->p_vaddr + ph->p_memsz) & ~4095ull;
		}
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			o->symtab = (const Elf64_Sym *)dyn_ptr(o->base, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			o->strtab = (const char *)dyn_ptr(o->base, dyn->d_un.d_ptr);
			break;
		case DT_RELA:
			o->rela = (const Elf64_Rela *)dyn_ptr(o->base, dyn->d_un.d_ptr);
			break;
		case DT_RELASZ:
			o->relasz = dyn->d_un.d_val;
			break;
		case DT_JMPREL:
			o->jmprel = (const Elf64_Rela *)dyn_ptr(o->base, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			o->pltsz = dyn->d_un.d_val;
			break;
		default:
			break;
		}
	}
	return o->symtab && o->strtab;
}

static int walk_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	struct obj o;
	bool opened = false;

	(void)size;
	w->adds = info->dlpi_adds;
	if (!obj_of(info, &o))
		return 0;
	if (o.rela)
		walk_relocs(w, o.base, o.rela, o.relasz, o.symtab, o.strtab, o.lo, o.hi, &opened);
	if (o.jmprel)
		walk_relocs(w, o.base, o.jmprel, o.pltsz, o.symtab, o.strtab, o.lo, o.hi, &opened);
	if (opened)
		(void)rt_sys3(SYS_mprotect, o.lo, o.hi - o.lo, PROT_READ);
	return 0;
}

/* Does the object take name from another (a PLT slot or GOT entry naming it)? */
static bool imports(const struct obj *o, const char *name)
{
	const Elf64_Rela *tabs[2] = { o->rela, o->jmprel };
	uint64_t sizes[2] = { o->relasz, o->pltsz };

	for (int t = 0; t < 2; t++)
		for (size_t k = 0; tabs[t] && k < sizes[t] / sizeof(Elf64_Rela); k++) {
			uint32_t sym = ELF64_R_SYM(tabs[t][k].r_info);

			if (sym && !strcmp(o->strtab + o->symtab[sym].st_name, name))
				return true;
		}
	return false;
}

/* Does address v lie in one of the object's loaded segments? */
static bool in_object(const struct dl_phdr_info *info, const void *v)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (uintptr_t)v >= lo && (uintptr_t)v < lo + ph->p_memsz)
			return true;
	}
	return false;
}

struct find {
	const char *name;
	void *found;
	bool in_main; /* found in the program's executable */
};

/*
 * The definition the program's calls reach: the first loaded object, in the loader's order,
 * that defines name itself. dlsym(RTLD_DEFAULT) is not it: a non-PIE executable that takes
 * malloc's address exports its own PLT entry for malloc (a "canonical PLT" address, which
 * jumps through the very slot this runtime rewrites), and calling that would call the hook.
 */
static int find_definition(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	struct obj o;
	void *h, *v = NULL;

	(void)size;
	if (f->found || !obj_of(info, &o))
		return 0;
	if (!info->dlpi_name || !*info->dlpi_name) { /* the executable: the global scope's first */
		v = dlsym(RTLD_DEFAULT, f->name);
		if (v && in_object(info, v) && !imports(&o, f->name)) {
			f->found = v;
			f->in_main = true;
		}
		return 0;
	}
	h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		v = dlsym(h, f->name); /* it, or one of its dependencies */
		dlclose(h);
	}
	if (v && in_object(info, v))
		f->found = v;
	return 0;
}

static void *definition_of(const char *name)
{
	struct find f = { name, NULL, false };

	dl_iterate_phdr(find_definition, &f);
	return f.found;
}

static bool defined_in_main(const char *name)
{
	struct find f = { name, NULL, false };

	dl_iterate_phdr(find_definition, &f);
	return f.in_main;
}

static unsigned walk_all(enum walk_mode mode)
{
	struct walk w = { .mode = mode };

	dl_iterate_phdr(walk_object, &w);
	seen_adds = w.adds;
	return w.slots;
}

static int read_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* Objects loaded since the last walk get their slots redirected (rt-slots.c calls this
 * when a thread takes a new slot). One thread at a time; the others go on. */
void rt_inject_rescan(void)
{
	unsigned long long adds = 0;

	if (__atomic_exchange_n(&walk_lock, 1, __ATOMIC_ACQUIRE))
		return;
	dl_iterate_phdr(read_adds, &adds);
	if (adds != seen_adds && __atomic_load_n(&rt_injected, __ATOMIC_ACQUIRE))
		(void)walk_all(W_PATCH);
	__atomic_store_n(&walk_lock, 0, __ATOMIC_RELEASE);
}

/* The object whose code defines fn, by load base (0: none found). */
static uintptr_t base_of(const void *fn)
{
	Dl_info di;

	return fn && dladdr(fn, &di) ? (uintptr_t)di.dli_fbase : 0;
}

/*
 * Called by the recorder in the stopped thread: conf is what MEMTAP_RT would hold, self this
 * library's path. Returns the number of redirected slots, or a negative code the recorder
 * explains: -1 the configuration is not for this runtime, -2 the process records already,
 * -3 this library cannot find itself, -4 the recorder cannot be reached, -5 no definition of
 * malloc and its family was found.
 */
RT_EXPORT int memtap_rt_attach(const char *conf, const char *self)
{
	void *me;
	int st = __atomic_load_n(&rt_state, __ATOMIC_ACQUIRE);
	unsigned n;

	if (st == RT_UNINIT)
		rt_init();
	if (st == RT_READY && detached && !rt_injected)
		rt_go_passive(); /* the recorder that detached is gone: this is a new one */
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) != RT_PASSIVE || rt_injected)
		return -2;
	me = dlopen(self, RTLD_LAZY | RTLD_NOLOAD);
	self_base = base_of((const void *)memtap_rt_attach);
	if (!me || !self_base)
		return -3;
	vdso_base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	rt_resolve_real(definition_of);
	if (!rt_libc.malloc || !rt_libc.free || !rt_libc.calloc || !rt_libc.realloc ||
	    !rt_libc.usable)
		return -5;
	if (!rt_config_set(conf))
		return -1;
	for (unsigned i = 0; i < NHOOKED; i++)
		hook_addr[i] = dlsym(me, hooked[i]);
	saved = rt_mmap_anon(SAVED_MAX * sizeof(*saved));
	/* An executable that defines malloc calls it directly, past any slot: say so. */
	rt_foreign_malloc = defined_in_main("malloc");
	__atomic_store_n(&rt_state, RT_INITIALIZING, __ATOMIC_RELEASE);
	rt_init_thread = &rt_self;
	rt_start(false);
	if (__atomic_load_n(&rt_state, __ATOMIC_ACQUIRE) != RT_READY)
		return -4;
	rt_self.mode = TM_OFF; /* the redirection's own calls are not the program's */
	while (__atomic_exchange_n(&walk_lock, 1, __ATOMIC_ACQUIRE))
		(void)rt_sys0(SYS_sched_yield);
	n = walk_all(W_PATCH);
	__atomic_store_n(&rt_injected, true, __ATOMIC_RELEASE);
	__atomic_store_n(&walk_lock, 0, __ATOMIC_RELEASE);
	rt_self.mode = TM_SETUP;
	return (int)n;
}

/* The recorder's detach: every redirected slot gets what it held back (the library stays
 * loaded, its hooks forwarding for a call that was on its way). Returns the slots restored,
 * or -1 when some could not be remembered and stay redirected. */
RT_EXPORT int memtap_rt_detach(void)
{
	unsigned n;

	if (!__atomic_load_n(&rt_injected, __ATOMIC_ACQUIRE))
		return 0;
	while (__atomic_exchange_n(&walk_lock, 1, __ATOMIC_ACQUIRE))
		(void)rt_sys0(SYS_sched_yield);
	__atomic_store_n(&rt_injected, false, __ATOMIC_RELEASE);
	detached = true;
	n = walk_all(W_RESTORE);
	__atomic_store_n(&walk_lock, 0, __ATOMIC_RELEASE);
	return saved_full ? -1 : (int)n;
}
