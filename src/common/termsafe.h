/* SPDX-License-Identifier: MIT */
/*
 * Text for people, safe for their terminals: a trace carries strings its workload chose
 * (argv, paths, labels, thread names), and a shared trace must not be able to rewrite the
 * reader's terminal. Control characters are shown escaped: \e (ESC), \r, \n, \t, \b, \a,
 * and \xHH for the others, DEL and the C1 controls (U+0080..U+009F) included, as is any
 * byte that is not UTF-8 (a raw 0x9B is a CSI to some terminals); the bidirectional controls
 * (U+202E RIGHT-TO-LEFT OVERRIDE and its kin, which make a name read as another) as \uHHHH.
 */
#ifndef MEMTAP_COMMON_TERMSAFE_H
#define MEMTAP_COMMON_TERMSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s with every control character escaped, into buf (truncated to size); returns buf. */
char *mt_escape_ctl(const char *s, char *buf, size_t size);
/* The length of the UTF-8 sequence at p (n bytes there), its code point in *cp: 1 to 4;
 * 0 when p does not start a valid sequence (a stray or overlong byte, a surrogate, beyond
 * U+10FFFF); -1 when the n bytes are a valid sequence's beginning, cut short. */
int mt_utf8_at(const unsigned char *p, size_t n, uint32_t *cp);
/* Characters that change how a terminal shows what follows them: the C0 and C1 controls
 * and DEL, and the bidirectional controls. */
bool mt_is_ctl(uint32_t c);
/* Whether s holds a control character (then mt_escape_ctl changes it). */
int mt_has_ctl(const char *s);

/*
 * A stream writing to `to` with every control character but '\n' escaped: the last guard
 * of a human-readable output (text, Markdown), whatever string reaches it. fclose() it to
 * flush; `to` stays open. NULL (errno set) when it cannot be made.
 */
FILE *mt_ctl_stream(FILE *to);

#endif
