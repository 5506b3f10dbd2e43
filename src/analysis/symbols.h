/* SPDX-License-Identifier: MIT */
/* Offline symbolization of recorded code addresses: mappings + build-ids -> libdw. */
#ifndef MEMTAP_ANALYSIS_SYMBOLS_H
#define MEMTAP_ANALYSIS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

struct mt_reader;
struct mt_symbolizer;

/* One source-level frame; a machine frame becomes several when calls were inlined into it. */
struct mt_frame {
	uint64_t ip; /* as recorded */
	const char *function; /* demangled; NULL when unknown */
	const char *file; /* source file; NULL when unknown */
	unsigned line; /* 0 when unknown */
	const char *module; /* the mapped file, NULL when no mapping holds ip */
	uint64_t offset; /* ip's offset in the module's file */
	bool inlined; /* inlined into the next frame (same machine frame) */
};

/* A Python frame (CPython's, placed by the runtime in place of the eval loop's native
 * frame): function is its qualified name, file and line its source; module is NULL. */
static inline bool mt_frame_is_python(const struct mt_frame *f)
{
	return (f->ip & MT_PY_FRAME_BIT) != 0;
}

/* Why addresses stayed unresolved, counted once per distinct (process, address). */
struct mt_sym_stats {
	uint64_t addresses; /* distinct addresses looked up */
	uint64_t resolved; /* with a function name */
	uint64_t with_line; /* with a source line too */
	uint64_t no_mapping; /* no recorded file mapping holds the address */
	uint64_t no_file; /* the mapped file cannot be read now */
	uint64_t build_id_mismatch; /* the file on disk is not the one that was mapped */
	uint64_t no_symbol; /* the file has no symbol for it (stripped, JIT, ...) */
};

/* Indexes the trace's file mappings (MMAP events). */
int mt_sym_open(struct mt_reader *r, struct mt_symbolizer **ret);
void mt_sym_close(struct mt_symbolizer *s);
struct mt_pass;
/* The same index built by a pass of a shared read: *ret is usable once the run is over (NULL
 * when it failed). */
int mt_sym_pass(struct mt_reader *r, struct mt_symbolizer **ret, struct mt_pass *pass);
/* A symbolizer of running processes (memtap top): no trace; its mappings are added one by
 * one, as /proc/PID/maps lists them now (no build-id to check: the files are the mapped
 * ones, unless replaced since). NULL when out of memory. */
struct mt_symbolizer *mt_sym_new_live(void);
int mt_sym_add_map(struct mt_symbolizer *s, uint32_t pid, uint64_t addr, uint64_t len,
		   uint64_t pgoff, const char *path);
/* A second symbolizer over the same index, with its own cache and counts. */
int mt_sym_clone(const struct mt_symbolizer *s, struct mt_symbolizer **ret);

/*
 * The source frames of code address ip in process pid at time t, innermost first (inlined
 * callees before their caller). ret: ip is a return address (look up ip - 1, the call).
 * Returns the count (at least 1) with *frames valid until the next call (copy them; the
 * strings they point to live until mt_sym_close()), or -ENOMEM.
 */
int mt_sym_resolve(struct mt_symbolizer *s, uint32_t pid, uint64_t t, uint64_t ip, bool ret,
		   const struct mt_frame **frames);

const struct mt_sym_stats *mt_sym_stats(const struct mt_symbolizer *s);

/* A Python frame as tables show it, "function (basename:line)", into buf. */
const char *mt_frame_py_name(const struct mt_frame *f, char *buf, size_t size);

/* "function (file:line)" or "module+0xoff" or "0xip": a short display name into buf. */
const char *mt_frame_name(const struct mt_frame *f, char *buf, size_t size);

#endif
