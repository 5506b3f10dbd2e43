/* SPDX-License-Identifier: MIT */
/* Compiler attributes and small macros shared by every layer. */
#ifndef MEMTAP_COMMON_COMPILER_H
#define MEMTAP_COMMON_COMPILER_H

#include <stddef.h>

#define MT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define MT_NORETURN __attribute__((noreturn))
#define MT_UNUSED __attribute__((unused))
#define MT_HIDDEN __attribute__((visibility("hidden")))
#define MT_EXPORT __attribute__((visibility("default")))
#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MT_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
