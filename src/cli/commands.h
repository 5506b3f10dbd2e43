/* SPDX-License-Identifier: MIT */
/* The subcommands of memtap. */
#ifndef MEMTAP_CLI_COMMANDS_H
#define MEMTAP_CLI_COMMANDS_H

#include "cli/options.h"

/*
 * How to add a command (git's builtin.h checklist):
 *  1. write src/cli/cmd-NAME.c with `const struct mt_command_spec mt_NAME_spec` (its option
 *     table) and `int cmd_NAME(int argc, char **argv)`; argv[0] is "NAME". The return value
 *     is the exit status: 0 success, 1 failure, 2 usage error (see mt_usage_error()).
 *  2. declare both below and add a row to commands[] in memtap.c;
 *  3. add the source to src/cli/CMakeLists.txt;
 *  4. write docs/man/memtap-NAME.md with the exact `memtap NAME -h` output in its Synopsis
 *     block (tests/cli/check-docs.sh compares them);
 *  5. add golden tests under tests/cli/.
 * Commands print data on stdout and diagnostics on stderr, and never exit() themselves.
 */

#define MT_COMMAND(name)                                      \
	extern const struct mt_command_spec mt_##name##_spec; \
	int cmd_##name(int argc, char **argv)

MT_COMMAND(record);
MT_COMMAND(info);
MT_COMMAND(dump);
MT_COMMAND(report);
MT_COMMAND(probe);
MT_COMMAND(export);
MT_COMMAND(view);
MT_COMMAND(plot);
MT_COMMAND(syscalls);
MT_COMMAND(events);
MT_COMMAND(diff);
MT_COMMAND(top);
MT_COMMAND(rules);
MT_COMMAND(check_schema);
MT_COMMAND(validate);
MT_COMMAND(plan);
MT_COMMAND(run);
MT_COMMAND(runs);

#endif
