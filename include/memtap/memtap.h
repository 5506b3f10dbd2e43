/* SPDX-License-Identifier: MIT */
/*
 * memtap.h: let a program name its memory and its phases for `memtap record`.
 *
 *   memtap_label(ptr, len, "kv_cache", "layer3.block17");  // a range gets a region type
 *   memtap_unlabel(ptr);                                   // the name no longer holds
 *   memtap_phase("generation");                            // a phase begins (NULL: ends)
 *
 * Include this header; nothing to link. The functions are weak references to memtap's
 * preload runtime: under `memtap record` they send the name to the recorder (one small
 * message, with the time and thread); otherwise they are a load and a branch, and do nothing.
 * Region types are up to 63 bytes, names up to 255 (longer ones are cut). The recorder keeps
 * what it is told; the analysis checks each range against the process's mappings and counts
 * the ones that do not fit instead of trusting them.
 */
#ifndef MEMTAP_MEMTAP_H
#define MEMTAP_MEMTAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libmemtap-rt.so; absent (NULL) when the program runs without memtap. */
extern int memtap__label(const void *addr, size_t len, const char *region_type, const char *name)
	__attribute__((weak));
extern int memtap__unlabel(const void *addr) __attribute__((weak));
extern int memtap__phase(const char *name) __attribute__((weak));

/* Names [addr, addr + len) as an object of region_type (e.g. "weight", "kv_cache",
 * "activation") called name (may be NULL). Returns 0 when recorded, -1 otherwise. */
static inline int memtap_label(const void *addr, size_t len, const char *region_type,
			       const char *name)
{
	return memtap__label ? memtap__label(addr, len, region_type, name) : -1;
}

/* Ends the label that starts at addr (e.g. before the memory is freed or reused). */
static inline int memtap_unlabel(const void *addr)
{
	return memtap__unlabel ? memtap__unlabel(addr) : -1;
}

/* Enters phase name (e.g. "weight_load", "generation"); NULL ends the current phase. */
static inline int memtap_phase(const char *name)
{
	return memtap__phase ? memtap__phase(name) : -1;
}

#ifdef __cplusplus
}
#endif

#endif
