/* SPDX-License-Identifier: MIT */
/* Syscall names and classes. */
#include "decode/syscalls.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/strutil.h"
#include "decode/path-args.h"

#include "syscall-names.h" /* generated at build time from asm/unistd_64.h */

/* Syscalls newer than Debian 12's header (which stops at 450). */
static const struct {
	unsigned nr;
	const char *name;
} newer[] = {
	{ 451, "cachestat" },	      { 452, "fchmodat2" },	   { 453, "map_shadow_stack" },
	{ 454, "futex_wake" },	      { 455, "futex_wait" },	   { 456, "futex_requeue" },
	{ 457, "statmount" },	      { 458, "listmount" },	   { 459, "lsm_get_self_attr" },
	{ 460, "lsm_set_self_attr" }, { 461, "lsm_list_modules" }, { 462, "mseal" },
	{ 463, "setxattrat" },	      { 464, "getxattrat" },	   { 465, "listxattrat" },
	{ 466, "removexattrat" },     { 467, "open_tree_attr" },   { 468, "file_getattr" },
	{ 469, "file_setattr" },
};

#define NHDR (sizeof(mt_syscall_header_names) / sizeof(mt_syscall_header_names[0]))

const char *mt_syscall_name(unsigned nr, char *buf, size_t size)
{
	if (nr < NHDR && mt_syscall_header_names[nr])
		return mt_syscall_header_names[nr];
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		if (newer[i].nr == nr)
			return newer[i].name;
	snprintf(buf, size, "syscall_%u", nr);
	return buf;
}

int mt_syscall_by_name(const char *name)
{
	for (unsigned nr = 0; nr < NHDR; nr++)
		if (mt_syscall_header_names[nr] && !strcmp(mt_syscall_header_names[nr], name))
			return (int)nr;
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		if (!strcmp(newer[i].name, name))
			return (int)newer[i].nr;
	return -1;
}

int mt_syscall_path_arg(unsigned nr)
{
	return mt_path_arg_of((long)nr) - 1;
}

size_t mt_syscall_closest(const char *name, const char **best, size_t n)
{
	unsigned dist[8];
	size_t count = 0;

	if (n > 8)
		n = 8;
	for (unsigned nr = 0; nr < 1024; nr++) {
		char buf[32];
		const char *cand = mt_syscall_name(nr, buf, sizeof(buf));
		unsigned d;
		size_t at;

		if (cand == buf)
			continue; /* no name */
		d = mt_edit_distance(name, cand);
		at = count;
		while (at > 0 && dist[at - 1] > d)
			at--;
		if (at >= n)
			continue;
		if (count < n)
			count++;
		memmove(best + at + 1, best + at, (count - 1 - at) * sizeof(*best));
		memmove(dist + at + 1, dist + at, (count - 1 - at) * sizeof(*dist));
		best[at] = cand;
		dist[at] = d;
	}
	return count;
}

/* strace's groups (its trace=%file, %desc, ...), for the syscalls they name. */
static const struct {
	const char *name;
	unsigned classes;
} classes[] = {
	{ "open", MT_SC_FILE | MT_SC_DESC },
	{ "openat", MT_SC_FILE | MT_SC_DESC },
	{ "openat2", MT_SC_FILE | MT_SC_DESC },
	{ "creat", MT_SC_FILE | MT_SC_DESC },
	{ "stat", MT_SC_FILE },
	{ "lstat", MT_SC_FILE },
	{ "newfstatat", MT_SC_FILE | MT_SC_DESC },
	{ "statx", MT_SC_FILE | MT_SC_DESC },
	{ "access", MT_SC_FILE },
	{ "faccessat", MT_SC_FILE | MT_SC_DESC },
	{ "faccessat2", MT_SC_FILE | MT_SC_DESC },
	{ "readlink", MT_SC_FILE },
	{ "readlinkat", MT_SC_FILE | MT_SC_DESC },
	{ "execve", MT_SC_FILE | MT_SC_PROCESS },
	{ "execveat", MT_SC_FILE | MT_SC_DESC | MT_SC_PROCESS },
	{ "unlink", MT_SC_FILE },
	{ "unlinkat", MT_SC_FILE | MT_SC_DESC },
	{ "rename", MT_SC_FILE },
	{ "renameat", MT_SC_FILE | MT_SC_DESC },
	{ "renameat2", MT_SC_FILE | MT_SC_DESC },
	{ "mkdir", MT_SC_FILE },
	{ "mkdirat", MT_SC_FILE | MT_SC_DESC },
	{ "rmdir", MT_SC_FILE },
	{ "chdir", MT_SC_FILE },
	{ "chmod", MT_SC_FILE },
	{ "fchmodat", MT_SC_FILE | MT_SC_DESC },
	{ "chown", MT_SC_FILE },
	{ "lchown", MT_SC_FILE },
	{ "fchownat", MT_SC_FILE | MT_SC_DESC },
	{ "truncate", MT_SC_FILE },
	{ "link", MT_SC_FILE },
	{ "linkat", MT_SC_FILE | MT_SC_DESC },
	{ "symlink", MT_SC_FILE },
	{ "symlinkat", MT_SC_FILE | MT_SC_DESC },
	{ "mknod", MT_SC_FILE },
	{ "mknodat", MT_SC_FILE | MT_SC_DESC },
	{ "utimensat", MT_SC_FILE | MT_SC_DESC },
	{ "statfs", MT_SC_FILE },
	{ "getxattr", MT_SC_FILE },
	{ "setxattr", MT_SC_FILE },
	{ "listxattr", MT_SC_FILE },
	{ "read", MT_SC_DESC },
	{ "write", MT_SC_DESC },
	{ "pread64", MT_SC_DESC },
	{ "pwrite64", MT_SC_DESC },
	{ "readv", MT_SC_DESC },
	{ "writev", MT_SC_DESC },
	{ "preadv", MT_SC_DESC },
	{ "pwritev", MT_SC_DESC },
	{ "preadv2", MT_SC_DESC },
	{ "pwritev2", MT_SC_DESC },
	{ "close", MT_SC_DESC },
	{ "close_range", MT_SC_DESC },
	{ "dup", MT_SC_DESC },
	{ "dup2", MT_SC_DESC },
	{ "dup3", MT_SC_DESC },
	{ "fcntl", MT_SC_DESC },
	{ "fstat", MT_SC_DESC },
	{ "fstatfs", MT_SC_DESC },
	{ "lseek", MT_SC_DESC },
	{ "ioctl", MT_SC_DESC },
	{ "poll", MT_SC_DESC },
	{ "ppoll", MT_SC_DESC },
	{ "select", MT_SC_DESC },
	{ "pselect6", MT_SC_DESC },
	{ "epoll_create1", MT_SC_DESC },
	{ "epoll_ctl", MT_SC_DESC },
	{ "epoll_wait", MT_SC_DESC },
	{ "epoll_pwait", MT_SC_DESC },
	{ "fsync", MT_SC_DESC },
	{ "fdatasync", MT_SC_DESC },
	{ "ftruncate", MT_SC_DESC },
	{ "fallocate", MT_SC_DESC },
	{ "getdents64", MT_SC_DESC },
	{ "sendfile", MT_SC_DESC | MT_SC_NETWORK },
	{ "splice", MT_SC_DESC },
	{ "copy_file_range", MT_SC_DESC },
	{ "pipe", MT_SC_DESC },
	{ "pipe2", MT_SC_DESC },
	{ "eventfd2", MT_SC_DESC },
	{ "memfd_create", MT_SC_DESC },
	{ "fchdir", MT_SC_DESC },
	{ "fchmod", MT_SC_DESC },
	{ "fchown", MT_SC_DESC },
	{ "mmap", MT_SC_DESC | MT_SC_MEMORY },
	{ "munmap", MT_SC_MEMORY },
	{ "mprotect", MT_SC_MEMORY },
	{ "madvise", MT_SC_MEMORY },
	{ "process_madvise", MT_SC_MEMORY },
	{ "mremap", MT_SC_MEMORY },
	{ "brk", MT_SC_MEMORY },
	{ "msync", MT_SC_MEMORY },
	{ "mlock", MT_SC_MEMORY },
	{ "mlock2", MT_SC_MEMORY },
	{ "munlock", MT_SC_MEMORY },
	{ "mlockall", MT_SC_MEMORY },
	{ "munlockall", MT_SC_MEMORY },
	{ "mincore", MT_SC_MEMORY },
	{ "remap_file_pages", MT_SC_MEMORY },
	{ "mbind", MT_SC_MEMORY },
	{ "set_mempolicy", MT_SC_MEMORY },
	{ "get_mempolicy", MT_SC_MEMORY },
	{ "migrate_pages", MT_SC_MEMORY },
	{ "move_pages", MT_SC_MEMORY },
	{ "mseal", MT_SC_MEMORY },
	{ "clone", MT_SC_PROCESS },
	{ "clone3", MT_SC_PROCESS },
	{ "fork", MT_SC_PROCESS },
	{ "vfork", MT_SC_PROCESS },
	{ "exit", MT_SC_PROCESS },
	{ "exit_group", MT_SC_PROCESS },
	{ "wait4", MT_SC_PROCESS },
	{ "waitid", MT_SC_PROCESS },
	{ "kill", MT_SC_PROCESS | MT_SC_SIGNAL },
	{ "tkill", MT_SC_PROCESS | MT_SC_SIGNAL },
	{ "tgkill", MT_SC_PROCESS | MT_SC_SIGNAL },
	{ "socket", MT_SC_NETWORK | MT_SC_DESC },
	{ "socketpair", MT_SC_NETWORK | MT_SC_DESC },
	{ "bind", MT_SC_NETWORK | MT_SC_DESC },
	{ "listen", MT_SC_NETWORK | MT_SC_DESC },
	{ "accept", MT_SC_NETWORK | MT_SC_DESC },
	{ "accept4", MT_SC_NETWORK | MT_SC_DESC },
	{ "connect", MT_SC_NETWORK | MT_SC_DESC },
	{ "getsockname", MT_SC_NETWORK | MT_SC_DESC },
	{ "getpeername", MT_SC_NETWORK | MT_SC_DESC },
	{ "sendto", MT_SC_NETWORK | MT_SC_DESC },
	{ "recvfrom", MT_SC_NETWORK | MT_SC_DESC },
	{ "sendmsg", MT_SC_NETWORK | MT_SC_DESC },
	{ "recvmsg", MT_SC_NETWORK | MT_SC_DESC },
	{ "sendmmsg", MT_SC_NETWORK | MT_SC_DESC },
	{ "recvmmsg", MT_SC_NETWORK | MT_SC_DESC },
	{ "shutdown", MT_SC_NETWORK | MT_SC_DESC },
	{ "setsockopt", MT_SC_NETWORK | MT_SC_DESC },
	{ "getsockopt", MT_SC_NETWORK | MT_SC_DESC },
	{ "shmget", MT_SC_IPC },
	{ "shmat", MT_SC_IPC | MT_SC_MEMORY },
	{ "shmdt", MT_SC_IPC | MT_SC_MEMORY },
	{ "shmctl", MT_SC_IPC },
	{ "msgget", MT_SC_IPC },
	{ "msgsnd", MT_SC_IPC },
	{ "msgrcv", MT_SC_IPC },
	{ "msgctl", MT_SC_IPC },
	{ "semget", MT_SC_IPC },
	{ "semop", MT_SC_IPC },
	{ "semctl", MT_SC_IPC },
	{ "semtimedop", MT_SC_IPC },
	{ "rt_sigaction", MT_SC_SIGNAL },
	{ "rt_sigprocmask", MT_SC_SIGNAL },
	{ "rt_sigreturn", MT_SC_SIGNAL },
	{ "rt_sigpending", MT_SC_SIGNAL },
	{ "rt_sigtimedwait", MT_SC_SIGNAL },
	{ "rt_sigqueueinfo", MT_SC_SIGNAL },
	{ "rt_tgsigqueueinfo", MT_SC_SIGNAL },
	{ "rt_sigsuspend", MT_SC_SIGNAL },
	{ "sigaltstack", MT_SC_SIGNAL },
	{ "signalfd4", MT_SC_SIGNAL | MT_SC_DESC },
	{ "pause", MT_SC_SIGNAL },
};

unsigned mt_syscall_classes(unsigned nr)
{
	char buf[32];
	const char *name = mt_syscall_name(nr, buf, sizeof(buf));

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(classes[i].name, name))
			return classes[i].classes;
	return 0;
}

static const char *const class_names[] = { "file",    "desc", "memory", "process",
					   "network", "ipc",  "signal" };

const char *mt_syscall_class_names(void)
{
	return "file, desc, memory, process, network, ipc, signal, all; and summary";
}

int mt_syscall_parse_classes(const char *list, const char **bad)
{
	static char tok[64];
	int bits = 0;

	if (!list || !*list)
		return MT_SC_ALL;
	if (!strcmp(list, "summary"))
		return MT_SC_ALL | MT_SC_SUMMARY;
	while (*list) {
		size_t n = strcspn(list, ","), k;
		int bit = -1;

		if (n == 3 && !strncmp(list, "all", 3))
			bit = MT_SC_ALL;
		if (n == 7 && !strncmp(list, "summary", 7))
			bit = MT_SC_SUMMARY;
		for (k = 0; bit < 0 && k < sizeof(class_names) / sizeof(class_names[0]); k++)
			if (strlen(class_names[k]) == n && !strncmp(class_names[k], list, n))
				bit = 1 << k;
		if (bit < 0) {
			snprintf(tok, sizeof(tok), "%.*s", (int)(n < 60 ? n : 60), list);
			*bad = tok;
			return -1;
		}
		bits |= bit;
		list += n;
		if (*list)
			list++;
	}
	return bits;
}

struct flag {
	uint64_t bit;
	const char *name;
};

static size_t put(char *buf, size_t size, size_t o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t size, size_t o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o >= size)
		return o;
	va_start(ap, fmt);
	n = vsnprintf(buf + o, size - o, fmt, ap);
	va_end(ap);
	return n < 0 ? o : o + (size_t)n;
}

static size_t put_flags(char *buf, size_t size, size_t o, uint64_t v, const struct flag *f,
			size_t n, const char *none)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		if (f[i].bit && (v & f[i].bit) == f[i].bit) {
			o = put(buf, size, o, "%s%s", any ? "|" : "", f[i].name);
			v &= ~f[i].bit;
			any = true;
		}
	if (v || !any)
		o = any ? put(buf, size, o, "|0x%" PRIx64, v)
			: (v ? put(buf, size, o, "0x%" PRIx64, v) : put(buf, size, o, "%s", none));
	return o;
}

static const struct flag prot_flags[] = { { 1, "PROT_READ" },
					  { 2, "PROT_WRITE" },
					  { 4, "PROT_EXEC" } };
static const struct flag map_flags[] = {
	{ 0x01, "MAP_SHARED" },	     { 0x02, "MAP_PRIVATE" },
	{ 0x10, "MAP_FIXED" },	     { 0x20, "MAP_ANONYMOUS" },
	{ 0x100, "MAP_GROWSDOWN" },  { 0x2000, "MAP_LOCKED" },
	{ 0x800, "MAP_DENYWRITE" },  { 0x1000, "MAP_EXECUTABLE" },
	{ 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" }, { 0x20000, "MAP_STACK" },
	{ 0x40000, "MAP_HUGETLB" },  { 0x100000, "MAP_FIXED_NOREPLACE" },
};
static const char *const advice[] = {
	[0] = "MADV_NORMAL",	       [1] = "MADV_RANDOM",	    [2] = "MADV_SEQUENTIAL",
	[3] = "MADV_WILLNEED",	       [4] = "MADV_DONTNEED",	    [8] = "MADV_FREE",
	[9] = "MADV_REMOVE",	       [10] = "MADV_DONTFORK",	    [11] = "MADV_DOFORK",
	[12] = "MADV_MERGEABLE",       [13] = "MADV_UNMERGEABLE",   [14] = "MADV_HUGEPAGE",
	[15] = "MADV_NOHUGEPAGE",      [16] = "MADV_DONTDUMP",	    [17] = "MADV_DODUMP",
	[18] = "MADV_WIPEONFORK",      [19] = "MADV_KEEPONFORK",    [20] = "MADV_COLD",
	[21] = "MADV_PAGEOUT",	       [22] = "MADV_POPULATE_READ", [23] = "MADV_POPULATE_WRITE",
	[24] = "MADV_DONTNEED_LOCKED", [25] = "MADV_COLLAPSE",
};

/* A descriptor argument: its number, and its file where known. */
static size_t put_fd(char *buf, size_t size, size_t o, int fd, mt_fdname_fn fdname, void *ctx)
{
	const char *name = fdname && fd >= 0 ? fdname(ctx, fd) : NULL;

	if (fd == -100)
		return put(buf, size, o, "AT_FDCWD");
	return name ? put(buf, size, o, "%d<%s>", fd, name) : put(buf, size, o, "%d", fd);
}

/* A path, quoted as C would (control bytes and quotes escaped). */
static size_t put_path(char *buf, size_t size, size_t o, const char *p)
{
	o = put(buf, size, o, "\"");
	for (; *p && o < size; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '"' || ch == '\\')
			o = put(buf, size, o, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			o = put(buf, size, o, "\\x%02x", ch);
		else
			o = put(buf, size, o, "%c", ch);
	}
	return put(buf, size, o, "\"");
}

static const struct flag open_flags[] = {
	{ 0100, "O_CREAT" },	   { 0200, "O_EXCL" },	      { 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" },	   { 04000, "O_NONBLOCK" },   { 0200000, "O_DIRECTORY" },
	{ 0400000, "O_NOFOLLOW" }, { 02000000, "O_CLOEXEC" }, { 040000, "O_DIRECT" },
	{ 01000000, "O_NOATIME" }, { 010000000, "O_PATH" },
};

size_t mt_syscall_format_args(unsigned nr, const uint64_t a[6], char *buf, size_t size)
{
	return mt_syscall_format_call(nr, a, NULL, NULL, NULL, buf, size);
}

size_t mt_syscall_format_call(unsigned nr, const uint64_t a[6], const char *path,
			      mt_fdname_fn fdname, void *ctx, char *buf, size_t size)
{
	char nb[32];
	const char *name = mt_syscall_name(nr, nb, sizeof(nb));
	size_t o = 0;

	if (!size)
		return 0;
	buf[0] = 0;
	if (!strcmp(name, "mmap")) {
		o = put(buf, size, o, "0x%" PRIx64 ", %" PRIu64 ", ", a[0], a[1]);
		o = put_flags(buf, size, o, a[2], prot_flags, 3, "PROT_NONE");
		o = put(buf, size, o, ", ");
		o = put_flags(buf, size, o, a[3], map_flags,
			      sizeof(map_flags) / sizeof(map_flags[0]), "0");
		o = put(buf, size, o, ", ");
		o = put_fd(buf, size, o, (int)a[4], fdname, ctx);
		o = put(buf, size, o, ", 0x%" PRIx64, a[5]);
	} else if (!strcmp(name, "mprotect")) {
		o = put(buf, size, o, "0x%" PRIx64 ", %" PRIu64 ", ", a[0], a[1]);
		o = put_flags(buf, size, o, a[2], prot_flags, 3, "PROT_NONE");
	} else if (!strcmp(name, "munmap") || !strcmp(name, "msync") || !strcmp(name, "mlock") ||
		   !strcmp(name, "munlock") || !strcmp(name, "mincore")) {
		o = put(buf, size, o, "0x%" PRIx64 ", %" PRIu64, a[0], a[1]);
	} else if (!strcmp(name, "madvise")) {
		o = put(buf, size, o, "0x%" PRIx64 ", %" PRIu64 ", ", a[0], a[1]);
		if (a[2] < sizeof(advice) / sizeof(advice[0]) && advice[a[2]])
			o = put(buf, size, o, "%s", advice[a[2]]);
		else
			o = put(buf, size, o, "%" PRIu64, a[2]);
	} else if (!strcmp(name, "mremap")) {
		o = put(buf, size, o, "0x%" PRIx64 ", %" PRIu64 ", %" PRIu64 ", 0x%" PRIx64, a[0],
			a[1], a[2], a[3]);
	} else if (!strcmp(name, "brk")) {
		o = put(buf, size, o, "0x%" PRIx64, a[0]);
	} else if (!strcmp(name, "read") || !strcmp(name, "write")) {
		o = put_fd(buf, size, o, (int)a[0], fdname, ctx);
		o = put(buf, size, o, ", 0x%" PRIx64 ", %" PRIu64, a[1], a[2]);
	} else if (!strcmp(name, "pread64") || !strcmp(name, "pwrite64")) {
		o = put_fd(buf, size, o, (int)a[0], fdname, ctx);
		o = put(buf, size, o, ", 0x%" PRIx64 ", %" PRIu64 ", %" PRId64, a[1], a[2],
			(int64_t)a[3]);
	} else if (!strcmp(name, "lseek")) {
		static const char *const wh[] = { "SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
						  "SEEK_HOLE" };

		o = put_fd(buf, size, o, (int)a[0], fdname, ctx);
		o = put(buf, size, o, ", %" PRId64 ", %s", (int64_t)a[1],
			a[2] < 5 ? wh[a[2]] : "?");
	} else if (!strcmp(name, "close") || !strcmp(name, "fsync") || !strcmp(name, "fdatasync") ||
		   !strcmp(name, "fstat") || !strcmp(name, "dup") || !strcmp(name, "fchdir")) {
		o = put_fd(buf, size, o, (int)a[0], fdname, ctx);
	} else if (!strcmp(name, "openat") || !strcmp(name, "open") || !strcmp(name, "creat")) {
		bool at = !strcmp(name, "openat");
		uint64_t fl = at ? a[2] : a[1];

		if (at) {
			o = put_fd(buf, size, o, (int)a[0], fdname, ctx);
			o = put(buf, size, o, ", ");
		}
		o = path ? put_path(buf, size, o, path)
			 : put(buf, size, o, "0x%" PRIx64, at ? a[1] : a[0]);
		if (strcmp(name, "creat")) {
			o = put(buf, size, o, ", %s",
				(fl & 3) == 0	? "O_RDONLY"
				: (fl & 3) == 1 ? "O_WRONLY"
				: (fl & 3) == 2 ? "O_RDWR"
						: "O_ACCMODE");
			if (fl & ~(uint64_t)3) {
				o = put(buf, size, o, "|");
				o = put_flags(buf, size, o, fl & ~(uint64_t)3, open_flags,
					      sizeof(open_flags) / sizeof(open_flags[0]), "");
			}
			if (fl & 0100)
				o = put(buf, size, o, ", 0%" PRIo64, at ? a[3] : a[2]);
		}
	} else if (path && mt_syscall_path_arg(nr) >= 0) {
		/* the path in its place; the other arguments of the first three in hex */
		int k = mt_syscall_path_arg(nr);

		for (int i = 0; i < 3; i++) {
			if (i)
				o = put(buf, size, o, ", ");
			if (i == k)
				o = put_path(buf, size, o, path);
			else if (i == 0 && k == 1)
				o = put_fd(buf, size, o, (int)a[0], fdname, ctx);
			else
				o = put(buf, size, o, "0x%" PRIx64, a[i]);
		}
	} else {
		o = put(buf, size, o, "0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64, a[0], a[1], a[2]);
	}
	return o < size ? o : size - 1;
}
