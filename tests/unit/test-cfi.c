/* SPDX-License-Identifier: MIT */
/*
 * The runtime's CFI reader (rt/cfi.c) against libdw on real code: for functions of libc and
 * of this test, at several offsets each, the packed rule must say what libdw's CFI says
 * (CFA register and offset, where rbp was saved), and bytes cut or scribbled must never
 * make it read outside the bounds it is given.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/cfi.h"
#include "mt-test.h"

MT_TEST_MAIN()

struct obj {
	char path[4096];
	uintptr_t base; /* load bias */
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct obj *o = ctx;

	if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
		snprintf(o->path, sizeof(o->path), "%s", info->dlpi_name);
		o->base = info->dlpi_addr;
		return 1;
	}
	return 0;
}

struct tally {
	unsigned checked, normal, agree, unsupported, libdw_none, rbp_saved;
};

/* libdw's CFA at vaddr as (register, offset); false when it is not "register + offset". */
static bool libdw_cfa(Dwarf_CFI *cfi, uint64_t vaddr, int *reg, int64_t *off, Dwarf_Frame **fr)
{
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_cfi_addrframe(cfi, vaddr, fr) != 0)
		return false;
	if (dwarf_frame_cfa(*fr, &ops, &nops) != 0 || nops != 1)
		return false;
	if (ops[0].atom == DW_OP_bregx) { /* libdw's form: register, then offset */
		*reg = (int)ops[0].number;
		*off = (int64_t)ops[0].number2;
		return true;
	}
	if (ops[0].atom < DW_OP_breg0 || ops[0].atom > DW_OP_breg31)
		return false;
	*reg = ops[0].atom - DW_OP_breg0;
	*off = (int64_t)ops[0].number;
	return true;
}

/* Where libdw says rbp is: 1 saved at CFA + *off, 0 unchanged, -1 anything else. */
static int libdw_rbp(Dwarf_Frame *fr, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int r = dwarf_frame_register(fr, 6, mem, &ops, &nops);

	if (r != 0)
		return -1;
	if (nops == 0)
		return 0; /* same value (or undefined): not saved */
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 1;
	}
	if (nops == 3 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_consts &&
	    ops[2].atom == DW_OP_plus) {
		*off = (int64_t)ops[1].number;
		return 1;
	}
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return 1;
	}
	return -1;
}

static void check_pc(Dwarf_CFI *cfi, const struct obj *o, const struct dl_find_object *d,
		     uint64_t vaddr, struct tally *t)
{
	uint64_t rule =
		mt_cfi_rule(d->dlfo_eh_frame, o->base + vaddr, d->dlfo_map_start, d->dlfo_map_end);
	Dwarf_Frame *fr = NULL;
	int reg, saved;
	int64_t off, roff = 0;
	bool have = libdw_cfa(cfi, vaddr, &reg, &off, &fr);

	t->checked++;
	if (!have) {
		t->libdw_none++;
		free(fr);
		return;
	}
	saved = libdw_rbp(fr, &roff);
	free(fr);
	if (R_KIND(rule) == RULE_UNSUPPORTED) {
		t->unsupported++;
		return;
	}
	if (R_KIND(rule) != RULE_NORMAL)
		return;
	t->normal++;
	if ((reg == 7 && !R_CFA_RBP(rule)) || (reg == 6 && R_CFA_RBP(rule))) {
		if (off != R_CFA_OFF(rule))
			MT_FAIL("%s+0x%llx: CFA offset %lld, libdw %lld", o->path,
				(unsigned long long)vaddr, (long long)R_CFA_OFF(rule),
				(long long)off);
	} else {
		MT_FAIL("%s+0x%llx: CFA register %s, libdw %d", o->path, (unsigned long long)vaddr,
			R_CFA_RBP(rule) ? "rbp" : "rsp", reg);
	}
	if (saved >= 0 && (saved == 1) != (R_SAVES_RBP(rule) != 0))
		MT_FAIL("%s+0x%llx: rbp saved %d, libdw %d", o->path, (unsigned long long)vaddr,
			(int)R_SAVES_RBP(rule), saved);
	t->rbp_saved += saved == 1;
	if (saved == 1 && roff != R_RBP_OFF(rule))
		MT_FAIL("%s+0x%llx: rbp at CFA%+d, libdw CFA%+lld", o->path,
			(unsigned long long)vaddr, R_RBP_OFF(rule), (long long)roff);
	t->agree++;
}

/* Every function symbol of the object, at its start, +1, +4, its middle and its last byte. */
static void check_object(const struct obj *o, struct tally *t)
{
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Dwarf_CFI *cfi;
	Elf_Scn *scn = NULL;

	ASSERT_TRUE(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ASSERT_TRUE(e != NULL);
	cfi = dwarf_getcfi_elf(e);
	ASSERT_TRUE(cfi != NULL);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			struct dl_find_object d;
			uint64_t v, offs[5];

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
			    sym.st_size < 8)
				continue;
			v = sym.st_value;
			if (_dl_find_object((void *)(o->base + v), &d) != 0 || !d.dlfo_eh_frame)
				continue;
			offs[0] = v;
			offs[1] = v + 1;
			offs[2] = v + 4;
			offs[3] = v + sym.st_size / 2;
			offs[4] = v + sym.st_size - 1;
			for (int k = 0; k < 5; k++)
				check_pc(cfi, o, &d, offs[k], t);
		}
	}
	dwarf_cfi_end(cfi);
	elf_end(e);
	close(fd);
}

TEST(agrees_with_libdw_on_libc)
{
	struct obj o = { 0 };
	struct tally t = { 0 };

	ASSERT_TRUE(dl_iterate_phdr(find_libc, &o) == 1);
	check_object(&o, &t);
	printf("# libc: %u pcs, %u normal rules (%u with rbp saved), all agreeing with libdw; %u "
	       "unsupported, %u without a plain CFA in libdw\n",
	       t.checked, t.normal, t.rbp_saved, t.unsupported, t.libdw_none);
	ASSERT_TRUE(t.normal > 1000);
	ASSERT_TRUE(t.rbp_saved > 100);
	ASSERT_EQ(t.agree, t.normal);
	/* rules the walker gives up on where libdw has a plain CFA: rare (rbp kept elsewhere) */
	ASSERT_TRUE(t.unsupported * 20 < t.checked);
}

TEST(agrees_with_libdw_on_this_program)
{
	struct obj o = { .base = 0 };
	struct tally t = { 0 };
	struct dl_find_object d;
	ssize_t n = readlink("/proc/self/exe", o.path, sizeof(o.path) - 1);

	ASSERT_TRUE(n > 0);
	o.path[n] = 0;
	ASSERT_TRUE(_dl_find_object((void *)check_object, &d) == 0);
	o.base = (uintptr_t)d.dlfo_link_map->l_addr;
	check_object(&o, &t);
	printf("# test program: %u pcs, %u normal rules agreeing with libdw\n", t.checked,
	       t.normal);
	ASSERT_TRUE(t.normal > 50);
	ASSERT_EQ(t.agree, t.normal);
}
