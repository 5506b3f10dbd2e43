/* SPDX-License-Identifier: MIT */
/* Build-id extraction from ELF notes (program headers first, then sections). */
#include "common/array.h"
#include "buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/safeopen.h"
#include "common/strutil.h"

/* Cache: key = hash of (dev, ino, mtime); value = index into ids, +1 (0 = no build-id). */
static struct mt_map64 cache;
static char (*ids)[64];
static size_t nids, ids_cap;

static int find_in_notes(Elf_Data *d, char *hex, size_t size)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *desc = (const uint8_t *)d->d_buf + desc_off;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz * 2 < size) {
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", desc[i]);
			return 0;
		}
	}
	return -ENOENT;
}

static int read_buildid(int fd, char *hex, size_t size)
{
	Elf *e;
	size_t n;
	int r = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOENT;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return -ENOENT;
	if (elf_kind(e) != ELF_K_ELF)
		goto out;
	if (elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && r < 0; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (d)
				r = find_in_notes(d, hex, size);
		}
	}
	for (Elf_Scn *s = NULL; r < 0 && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(s, NULL);
		if (d)
			r = find_in_notes(d, hex, size);
	}
out:
	elf_end(e);
	return r;
}

/* The cache's key of a file: device, inode and modification time. */
static uint64_t file_key(const struct stat *st)
{
	uint64_t key[3] = { st->st_dev, st->st_ino,
			    (uint64_t)st->st_mtim.tv_sec * 1000000000ull +
				    (uint64_t)st->st_mtim.tv_nsec };

	return mt_hash64(key, sizeof(key), 0x6275696c64) & ~1ull; /* never MT_MAP64_EMPTY */
}

int mt_buildid_of_file(const char *path, const struct mt_file_id *want, char *hex, size_t size)
{
	struct stat st;
	uint64_t h, *slot;
	char id[64] = "";
	int fd, r;

	/* A file seen before costs one stat (each exec maps the same few libraries). */
	if (stat(path, &st) == 0 && mt_file_id_matches(want, &st) == 0 &&
	    (slot = mt_map64_get(&cache, file_key(&st)))) {
		if (!*slot)
			return -ENOENT;
		mt_strlcpy(hex, ids[*slot - 1], size);
		return 0;
	}
	/* never a FIFO, a device or another file swapped in over the mapped one's path */
	fd = mt_open_regular(path, want);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -ENOENT;
	}
	h = file_key(&st);
	r = read_buildid(fd, id, sizeof(id));
	close(fd);
	if (mt_map64_put(&cache, h, &slot) == 0) {
		*slot = 0;
		if (r == 0 && nids < 1u << 20) {
			if (mt_grow_array(&ids, &ids_cap, nids + 1, sizeof(*ids)) == 0) {
				mt_strlcpy(ids[nids], id, sizeof(ids[nids]));
				*slot = ++nids;
			}
		}
	}
	if (r < 0)
		return r;
	mt_strlcpy(hex, id, size);
	return 0;
}

void mt_buildid_cache_clear(void)
{
	mt_map64_release(&cache);
	free(ids);
	ids = NULL;
	nids = ids_cap = 0;
}
