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
	"munmap",	 "mremap",   "brk",    "sbrk",	  "dlclose",
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

static int walk_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	uintptr_t base = info->dlpi_addr;
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *symtab = NULL;
	const char *strtab = NULL;
	const Elf64_Rela *rela = NULL, *jmprel = NULL;
	uint64_t relasz = 0, pltsz = 0, lo = 0, hi = 0;
	bool opened = false;

	(void)size;
	w->adds = info->dlpi_adds;
	if (base == self_base || (vdso_base && base == vdso_base) ||
	    (info->dlpi_name && strstr(info->dlpi_name, "/ld-linux")))
		return 0; /* this runtime, the vDSO and the loader keep their own */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(base + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			lo = (base + ph->p_vaddr) & ~4095ull;
			hi = (base + ph->p_vaddr + ph->p_memsz) & ~4095ull;
		}
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			symtab = (const Elf64_Sym *)dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const char *)dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_RELA:
			rela = (const Elf64_Rela *)dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_RELASZ:
			relasz = dyn->d_un.d_val;
			break;
		case DT_JMPREL:
			jmprel = (const Elf64_Rela *)dyn_ptr(base, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			pltsz = dyn->d_un.d_val;
			break;
		default:
			break;
		}
	}
	if (!symtab || !strtab)
		return 0;
	if (rela)
		walk_relocs(w, base, rela, relasz, symtab, strtab, lo, hi, &opened);
	if (jmprel)
		walk_relocs(w, base, jmprel, pltsz, symtab, strtab, lo, hi, &opened);
	if (opened)
		(void)rt_sys3(SYS_mprotect, lo, hi - lo, PROT_READ);
	return 0;
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

static int first_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;
}

/*
 * Called by the recorder in the stopped thread: conf is what MEMTAP_RT would hold, self this
 * library's path. Returns the number of redirected slots, or a negative code the recorder
 * explains: -1 the configuration is not for this runtime, -2 the process records already,
 * -3 this library cannot find itself, -4 the recorder cannot be reached.
 */
RT_EXPORT int memtap_rt_attach(const char *conf, const char *self)
{
	void *me;
	uintptr_t main_base = 0;
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
	rt_resolve_real(RTLD_DEFAULT);
	if (!rt_config_set(conf))
		return -1;
	for (unsigned i = 0; i < NHOOKED; i++)
		hook_addr[i] = dlsym(me, hooked[i]);
	vdso_base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	saved = rt_mmap_anon(SAVED_MAX * sizeof(*saved));
	/* An executable that defines malloc calls it directly, past any slot: say so. */
	dl_iterate_phdr(first_base, &main_base);
	rt_foreign_malloc = base_of((const void *)rt_libc.malloc) == main_base;
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
