/* SPDX-License-Identifier: MIT */
/* The syscalls whose path argument memtap copies, and where it is: shared by the BPF
 * programs (src/record/bpf/) and the decoder. Plain C, no includes. */
#ifndef MEMTAP_DECODE_PATH_ARGS_H
#define MEMTAP_DECODE_PATH_ARGS_H

/* 1: the first argument holds a path, 2: the second, 0: no path (x86-64 numbers). */
static inline int mt_path_arg_of(long id)
{
	switch (id) {
	case 2: /* open */
	case 4: /* stat */
	case 6: /* lstat */
	case 21: /* access */
	case 59: /* execve */
	case 76: /* truncate */
	case 80: /* chdir */
	case 82: /* rename */
	case 83: /* mkdir */
	case 84: /* rmdir */
	case 85: /* creat */
	case 87: /* unlink */
	case 89: /* readlink */
	case 90: /* chmod */
	case 92: /* chown */
		return 1;
	case 257: /* openat */
	case 258: /* mkdirat */
	case 260: /* fchownat */
	case 262: /* newfstatat */
	case 263: /* unlinkat */
	case 264: /* renameat */
	case 267: /* readlinkat */
	case 268: /* fchmodat */
	case 269: /* faccessat */
	case 316: /* renameat2 */
	case 322: /* execveat */
	case 332: /* statx */
	case 437: /* openat2 */
	case 439: /* faccessat2 */
		return 2;
	default:
		return 0;
	}
}

#endif
