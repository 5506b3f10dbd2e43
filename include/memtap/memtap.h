/* SPDX-License-Identifier: MIT */
/*
 * memtap.h: let a program name its memory and its phases for `memtap record`.
 *
 *   memtap_label(ptr, len, "kv_cache", "layer3.block17");  // a range gets a region type
 *   memtap_unlabel(ptr);                                   // the name no longer holds
 *   memtap_phase("generation");                            // a phase begins (NULL: ends)
 *   memtap_span_begin("score", "{\"probe\":\"p1\",\"view_id\":\"v2\"}");  // a call of yours
 *   ...                                                    // its memory is measured
 *   memtap_span_end();                                     // (`memtap events TRACE.mtap`)
 *   memtap_event("cache_miss", "{\"key\":42}");              // a point in time
 *
 * Include this header; nothing to link. The functions are weak references to memtap's
 * preload runtime: under `memtap record` they send the name to the recorder (one small
 * message, with the time and thread); otherwise they are a load and a branch, and do nothing.
 * Region types are up to 63 bytes, names up to 255 (longer ones are cut). The recorder keeps
 * what it is told; the analysis checks each range against the process's mappings and counts
 * the ones that do not fit instead of trusting them.
 *
 * Spans nest per thread (up to 510 open at once); memtap_span_end ends the thread's innermost
 * one. Fields are one JSON object, up to 4096 bytes (a longer one is left out and counted);
 * memtap stores them as given and `memtap events` reads them as it reads JSON lines.
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
extern int memtap__event(const char *name, const char *json_fields) __attribute__((weak));
extern int memtap__span_begin(const char *name, const char *json_fields) __attribute__((weak));
extern int memtap__span_end(void) __attribute__((weak));

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

/* A point event called name with fields (a JSON object's text, or NULL). 0 when recorded. */
static inline int memtap_event(const char *name, const char *json_fields)
{
	return memtap__event ? memtap__event(name, json_fields) : -1;
}

/* Begins a span of this thread (a call, a request) called name with fields (a JSON
 * object's text, or NULL): the memory it allocates, frees and faults in until
 * memtap_span_end() is attributed to it. 0 when recorded. */
static inline int memtap_span_begin(const char *name, const char *json_fields)
{
	return memtap__span_begin ? memtap__span_begin(name, json_fields) : -1;
}

/* Ends this thread's innermost open span. 0 when recorded. */
static inline int memtap_span_end(void)
{
	return memtap__span_end ? memtap__span_end() : -1;
}

#ifdef __cplusplus
}
#endif

#endif
