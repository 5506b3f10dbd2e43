/* SPDX-License-Identifier: MIT */
/* String, number and small-file helpers. */
#ifndef MEMTAP_COMMON_STRUTIL_H
#define MEMTAP_COMMON_STRUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t mt_strlcpy(char *dst, const char *src, size_t size);

/* Parses a whole decimal (or 0x hex) unsigned number; -EINVAL or -ERANGE on failure. */
int mt_parse_u64(const char *s, uint64_t *ret);
/* Like mt_parse_u64 but accepts a K/M/G/T suffix (powers of 1024) and an optional 'B'/'iB'. */
int mt_parse_size(const char *s, uint64_t *ret);

/*
 * Reads a whole (small, typically /proc or /sys) file into buf, at most size-1 bytes, and
 * terminates it. Returns the number of bytes read or -errno. Trailing newlines are kept.
 */
long mt_read_small_file(const char *path, char *buf, size_t size);
/* Reads the first line of a file without its newline. */
int mt_read_line_file(const char *path, char *buf, size_t size);

bool mt_str_has_prefix(const char *s, const char *prefix);
/* Does the comma-separated list name name, or "all"? */
bool mt_list_has(const char *list, const char *name);

/* Formats n bytes as "123 B", "4.0 KiB", "1.5 MiB", ... into buf. Returns buf. */
const char *mt_fmt_bytes(uint64_t n, char *buf, size_t size);
/* Formats nanoseconds as "850 ns", "12.3 us", "4.56 ms", "7.890 s". Returns buf. */
const char *mt_fmt_duration(uint64_t ns, char *buf, size_t size);
/* Formats an integer with thousands separators: 1234567 -> "1,234,567". Returns buf. */
const char *mt_fmt_count(uint64_t n, char *buf, size_t size);

/* NUL-separated arguments joined with spaces, shell-quoted where needed. Returns buf. */
const char *mt_fmt_argv(const char *argv, size_t len, char *buf, size_t size);
/* The "8-4-4-4-12" hex form of a 16-byte id (a run id). */
const char *mt_fmt_uuid(const uint8_t id[16], char *buf, size_t size);

/* Levenshtein distance between a and b (case-sensitive); strings longer than 255 bytes
 * compare as far as their 255th byte. For "did you mean" suggestions. */
unsigned mt_edit_distance(const char *a, const char *b);

/* A CLOCK_REALTIME time in ns as "YYYY-MM-DD HH:MM:SS.mmm UTC". */
const char *mt_fmt_realtime(uint64_t ns, char *buf, size_t size);

/* mkdir -p: every directory of path made as needed (0755). 0 or -errno. */
int mt_mkdir_p(const char *path);

/* s as one word of a POSIX shell command: bare when it has only safe characters, else in
 * single quotes ('\'' for each quote inside). */
void mt_fputs_sh(FILE *f, const char *s);

#endif
