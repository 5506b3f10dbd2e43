/* SPDX-License-Identifier: MIT */
/* Giving an exec'd process the preload runtime's environment from the outside. */
#ifndef MEMTAP_RECORD_INJECT_H
#define MEMTAP_RECORD_INJECT_H

#include <sys/types.h>

#define MT_INJECT_STR_MAX 65536

/*
 * For a 64-bit process stopped at PTRACE_EVENT_EXEC: makes its initial environment hold
 * LD_PRELOAD=<preload_lib>[:<its own LD_PRELOAD>] and MEMTAP_RT=<conf_value>, rewriting the
 * argc/argv/envp/auxv block below the stack pointer. Returns 1 when it rewrote the stack,
 * 0 when both were already there, or -errno (-ENOEXEC: not a 64-bit image). An image in
 * secure-execution mode (AT_SECURE: setuid, setgid, file capabilities) gets neither: what
 * it inherited of them is taken out (the rest of its LD_PRELOAD kept), and the answer is
 * -EPERM.
 */
int mt_inject_env(pid_t pid, const char *preload_lib, const char *conf_value);

#endif
