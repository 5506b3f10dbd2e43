/* SPDX-License-Identifier: MIT */
/* Shell completion: `memtap __complete CWORD WORD...` (cli/complete.c). */
#ifndef MEMTAP_CLI_COMPLETE_H
#define MEMTAP_CLI_COMPLETE_H

#include <stddef.h>

#include "cli/options.h"

#define MT_COMPLETE_MAX_WORDS 1024

/* Prints the candidates for word CWORD (argv[0]) of the words argv[1..] (argv[1] is memtap),
 * one per line; "@files" and "@commands" ask for the shell's own. 0, or 2 for bad input. */
int mt_complete(const struct mt_command_spec *const *specs, size_t nspecs, int argc, char **argv);

#endif
