/* SPDX-License-Identifier: MIT */
/* Adding the runtime's environment to a process stopped at its exec, before its loader runs. */
#include "inject.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

/*
 * At PTRACE_EVENT_EXEC the new image is mapped and its initial stack built, but not one of
 * its instructions has run: rsp points at argc, then argv[], NULL, envp[], NULL, auxv[].
 * The dynamic loader will read LD_PRELOAD from that envp. We write a new argc/argv/envp/auxv
 * block (and the two new strings) below rsp, in the part of the stack mapping the kernel
 * reserves under the arguments (128 KiB), and point rsp at it. argv and auxv are copied as
 * they are; the old strings stay where they are, so AT_EXECFN, AT_RANDOM and
 * /proc/PID/environ and cmdline are unchanged. The runtime then removes the variables from
 * environ before the program runs, so the program sees exactly the environment it was given.
 */

#define READ_MAX (256u << 10)
#define MAX_ENV 16384

static ssize_t peek(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

static int poke(pid_t pid, uint64_t addr, const void *buf, size_t n)
{
	struct iovec local = { (void *)buf, n }, remote = { (void *)addr, n };
	ssize_t w = process_vm_writev(pid, &local, 1, &remote, 1, 0);

	return w == (ssize_t)n ? 0 : (w < 0 ? -errno : -EFAULT);
}

/* A string of the child's stack, from the snapshot when it lies inside, else read. */
static int child_str(pid_t pid, const uint8_t *snap, size_t snap_len, uint64_t base, uint64_t addr,
		     char *out, size_t size)
{
	if (addr >= base && addr < base + snap_len) {
		size_t off = addr - base, n = strnlen((const char *)snap + off, snap_len - off);

		if (n < snap_len - off && n < size) {
			memcpy(out, snap + off, n + 1);
			return 0;
		}
	}
	if (peek(pid, addr, out, size - 1) <= 0)
		return -EFAULT;
	out[size - 1] = 0;
	return 0;
}

/* The initial stack's layout in a snapshot of it: argc, argv[] NULL, envp[] NULL, auxv[]
 * up to AT_NULL (counted in *nauxv). -EINVAL or -E2BIG when the snapshot does not hold it. */
static int parse_stack(uint8_t *snap, size_t snap_len, uint64_t *argc, uint64_t **envp,
		       uint64_t *nenv, uint64_t **auxv, uint64_t *nauxv)
{
	uint64_t *p = (uint64_t *)snap, *end = (uint64_t *)(snap + (snap_len & ~7ul));

	*argc = *p++;
	if (*argc > (uint64_t)(end - p) || p[*argc] != 0)
		return -EINVAL;
	p += *argc + 1;
	*envp = p;
	while (p < end && *p)
		p++;
	if (p >= end)
		return -E2BIG;
	*nenv = (uint64_t)(p - *envp);
	*auxv = ++p;
	while (p + 1 < end && p[0] != AT_NULL)
		p += 2;
	if (p + 1 >= end || *nenv > MAX_ENV)
		return -E2BIG;
	*nauxv = (uint64_t)(p - *auxv) / 2 + 1;
	return 0;
}

/* Whether the environment string s is one of memtap's: MEMTAP_RT, or an LD_PRELOAD that
 * names the runtime first (*rest then points past it and its separators). */
static bool ours(const char *s, const char *preload_lib, const char **rest)
{
	size_t l = strlen(preload_lib);

	*rest = NULL;
	if (!strncmp(s, "MEMTAP_RT=", 10))
		return true;
	if (strncmp(s, "LD_PRELOAD=", 11) || strncmp(s + 11, preload_lib, l) ||
	    (s[11 + l] && s[11 + l] != ':' && s[11 + l] != ' '))
		return false;
	*rest = s + 11 + l + strspn(s + 11 + l, ": ");
	return true;
}

/* AT_SECURE of an auxv of n pairs: the loader runs the image in secure-execution mode
 * (setuid, setgid, file capabilities, an LSM's say) and ignores LD_PRELOAD paths. */
static bool secure_exec(const uint64_t *auxv, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (auxv[2 * i] == AT_SECURE)
			return auxv[2 * i + 1] != 0;
	return false;
}

int mt_inject_env(pid_t pid, const char *preload_lib, const char *conf_value)
{
	struct user_regs_struct regs;
	uint8_t *snap = NULL;
	uint64_t argc, *envp, *auxv, *newblk = NULL;
	uint64_t nenv = 0, nauxv = 0, keep = 0;
	char *strs = NULL, *old_preload = NULL, *buf = NULL;
	size_t snap_len, strs_len, blk_len, l = 0;
	uint64_t strs_at, blk_at;
	bool have_conf = false, have_preload = false, any = false, secure;
	ssize_t got;
	int r = 0;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
		return -errno;
	if (regs.cs != 0x33)
		return -ENOEXEC; /* not a 64-bit image: this runtime cannot be loaded into it */
	snap = malloc(READ_MAX);
	buf = malloc(MT_INJECT_STR_MAX);
	if (!snap || !buf) {
		r = -ENOMEM;
		goto out;
	}
	got = peek(pid, regs.rsp, snap, READ_MAX);
	if (got < 64) {
		r = -EFAULT;
		goto out;
	}
	snap_len = (size_t)got;
	r = parse_stack(snap, snap_len, &argc, &envp, &nenv, &auxv, &nauxv);
	if (r < 0)
		goto out;
	secure = secure_exec(auxv, nauxv);
	/* Which of our variables are already there, and right? */
	for (uint64_t i = 0; i < nenv; i++) {
		const char *rest;

		if (child_str(pid, snap, snap_len, regs.rsp, envp[i], buf, MT_INJECT_STR_MAX) < 0)
			continue;
		if (!strncmp(buf, "MEMTAP_RT=", 10))
			have_conf = !strcmp(buf + 10, conf_value);
		if (!strncmp(buf, "LD_PRELOAD=", 11)) {
			have_preload = ours(buf, preload_lib, &rest);
			free(old_preload);
			old_preload = strdup(have_preload ? rest : buf + 11);
		}
		any |= ours(buf, preload_lib, &rest);
	}
	/* A secure-execution image gets none of memtap's variables (its loader would not load
	 * the runtime, and the socket's name and key are not its business): they go. */
	if (secure ? !any : have_conf && have_preload) {
		r = secure ? -EPERM : 0;
		goto out; /* nothing to do */
	}
	/* The new strings, then the block: argc, argv[] NULL, envp[] NULL, auxv[]. */
	strs_len = 11 + strlen(preload_lib) + 1 + (old_preload ? strlen(old_preload) + 1 : 0) + 10 +
		   strlen(conf_value) + 1 + 1;
	strs = calloc(1, strs_len);
	newblk = calloc(1 + argc + 1 + nenv + 2 + 1 + 2 * nauxv, sizeof(uint64_t));
	if (!strs || !newblk) {
		r = -ENOMEM;
		goto out;
	}
	if (secure) /* what the program's own LD_PRELOAD held after ours, if anything */
		snprintf(strs, strs_len, "LD_PRELOAD=%s", old_preload ? old_preload : "");
	else if (old_preload && *old_preload)
		snprintf(strs, strs_len, "LD_PRELOAD=%s:%s", preload_lib, old_preload);
	else
		snprintf(strs, strs_len, "LD_PRELOAD=%s", preload_lib);
	l = strlen(strs) + 1;
	if (secure)
		strs_len = old_preload && *old_preload ? l : 0;
	else
		strs_len = l +
			   (size_t)snprintf(strs + l, strs_len - l, "MEMTAP_RT=%s", conf_value) + 1;
	strs_at = (regs.rsp - strs_len) & ~15ull;
	newblk[0] = argc;
	memcpy(&newblk[1], (uint64_t *)snap + 1, (argc + 1) * sizeof(uint64_t));
	keep = 1 + argc + 1;
	for (uint64_t i = 0; i < nenv; i++) {
		if (child_str(pid, snap, snap_len, regs.rsp, envp[i], buf, MT_INJECT_STR_MAX) ==
			    0 &&
		    (!strncmp(buf, "MEMTAP_RT=", 10) || !strncmp(buf, "LD_PRELOAD=", 11)))
			continue;
		newblk[keep++] = envp[i];
	}
	if (strs_len)
		newblk[keep++] = strs_at;
	if (!secure)
		newblk[keep++] = strs_at + l;
	newblk[keep++] = 0;
	memcpy(&newblk[keep], auxv, 2 * nauxv * sizeof(uint64_t));
	keep += 2 * nauxv;
	blk_len = keep * sizeof(uint64_t);
	blk_at = (strs_at - blk_len) & ~15ull; /* the ABI wants rsp 16-byte aligned at entry */
	r = strs_len ? poke(pid, strs_at, strs, strs_len) : 0;
	if (r == 0)
		r = poke(pid, blk_at, newblk, blk_len);
	if (r == 0) {
		regs.rsp = blk_at;
		if (ptrace(PTRACE_SETREGS, pid, 0, &regs) < 0)
			r = -errno;
		else
			r = secure ? -EPERM : 1;
	}
out:
	free(snap);
	free(buf);
	free(strs);
	free(newblk);
	free(old_preload);
	return r;
}
