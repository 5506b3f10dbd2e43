/* SPDX-License-Identifier: MIT */
/*
 * Text for people, safe for their terminals: a trace carries strings its workload chose
 * (argv, paths, labels, thread names), and a shared trace must not be able to rewrite the
 * reader's terminal. Control characters are shown escaped: \e (ESC), \r, \n, \t, \b, \a,
 * and \xHH for the others, DEL and the C1 controls (U+0080..U+009F) included.
 */
#ifndef MEMTAP_COMMON_TERMSAFE_H
#define MEMTAP_COMMON_TERMSAFE_H

#include <stddef.h>
#include <stdio.h>

/* s with every control character escaped, into buf (truncated to size); returns buf. */
char *mt_escape_ctl(const char *s, char *buf, size_t size);
/* Whether s holds a control character (then mt_escape_ctl changes it). */
int mt_has_ctl(const char *s);

/*
 * A stream writing to `to` with every control character but '\n' escaped: the last guard
 * of a human-readable output (text, Markdown), whatever string reaches it. fclose() it to
 * flush; `to` stays open. NULL (errno set) when it cannot be made.
 */
FILE *mt_ctl_stream(FILE *to);

#endif
