/* SPDX-License-Identifier: MIT */
/*
 * Loading the allocation runtime into a process that runs already (record --pid), as
 * heaptrack's attach does through gdb, with ptrace alone. One thread is held, never the
 * whole process: a thread blocked in a system call that takes no allocator or loader lock
 * (a poll, a read, a sleep — read from /proc/PID/task/TID/syscall before anything is
 * stopped), or else the first thread to enter such a call. Held there, it is made to call
 * dlopen(runtime), dlsym(…, "memtap_rt_attach") and memtap_rt_attach(conf, path) on its own
 * stack below the red zone, each call returning to address 0, where the fault stops it
 * again; then its registers are put back and it is let go. The interrupted call is
 * restarted as after any signal (or returns EINTR where the kernel says so: gdb's attach
 * does the same). The other threads run throughout, so no lock a stopped thread holds can
 * block dlopen. The runtime redirects the process's calls itself (rt/rt-inject.c).
 */
#include "record/attach-rt.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/safeopen.h"
#include "common/strutil.h"

#define CALL_NS 20000000000ull /* one injected call may take this long (dlopen: ms) */
#define SAFE_WAIT_NS 3000000000ull /* for a thread to enter a call that holds no lock */

/* System calls a thread may be held in: none that allocator or loader code makes while it
 * holds a lock of its own (mmap, brk, …), none that waits for a lock (futex), none that
 * ends or forks the process. */
static bool safe_call(long nr)
{
	switch (nr) {
	case SYS_mmap:
	case SYS_mprotect:
	case SYS_munmap:
	case SYS_brk:
	case SYS_mremap:
	case SYS_madvise:
	case SYS_futex:
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
	case SYS_execve:
	case SYS_execveat:
	case SYS_exit:
	case SYS_exit_group:
	case SYS_rt_sigreturn:
	case SYS_set_robust_list:
	case SYS_rseq:
		return false;
	default:
		return nr >= 0;
	}
}

/* The call thread tid is blocked in, from /proc (-1: running, or not in a call). */
static long blocked_in(pid_t pid, pid_t tid)
{
	char path[96], buf[256];
	long nr;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	if (mt_read_line_file(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%ld", &nr) != 1)
		return -1;
	return nr;
}

/* The thread to hold: the leader when it waits in a safe call, else another that does,
 * else the leader (held at its next safe call). */
static pid_t pick_thread(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	pid_t any = 0;

	if (safe_call(blocked_in(pid, pid)))
		return pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return pid;
	while (!any && (e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && tid != pid && safe_call(blocked_in(pid, tid)))
			any = tid;
	}
	closedir(d);
	return any ? any : pid;
}

/* ---- the target's libc ---- */

struct libc_syms {
	uint64_t dlopen, dlsym, dlerror;
};

/* The value of each named dynamic symbol of the ELF file fd (0: absent), and the virtual
 * address of its first loadable segment. */
static int elf_syms(int fd, const char *const *names, uint64_t *vals, int n, uint64_t *first_vaddr)
{
	int found = 0;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t nph = 0;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	*first_vaddr = 0;
	if (e && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				*first_vaddr = ph.p_vaddr & ~4095ull;
				break;
			}
		}
	}
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			for (int k = 0; k < n; k++) {
				if (!vals[k] && !strcmp(name, names[k])) {
					vals[k] = sym.st_value;
					found++;
				}
			}
		}
	}
	if (e)
		elf_end(e);
	return found;
}

/* The object of pid's mappings that match() accepts: the run-time addresses of the named
 * dynamic symbols it defines in addr[] (0: absent), the count found, or -ENOENT. */
static int object_syms(pid_t pid, bool (*match)(const char *file, const void *arg), const void *arg,
		       const char *const *names, uint64_t *addr, int n)
{
	char path[96], line[4096 + 128], file[4096], lib[4096 + 32];
	uint64_t lo = 0, hi = 0, off, first = 0;
	struct mt_file_id id = { 0, 0, 0 };
	bool have = false;
	FILE *f;
	int found, fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (!have && fgets(line, sizeof(line), f))
		have = sscanf(line,
			      "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64 " %4095s",
			      &lo, &hi, &off, &id.maj, &id.min, &id.ino, file) == 7 &&
		       !off && match(file, arg);
	fclose(f);
	if (!have)
		return -ENOENT;
	/* The mapped file itself (its path in the process's root may be another file by now,
	 * a FIFO or a device its owner put there); the path only where map_files is closed. */
	snprintf(lib, sizeof(lib), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, lo, hi);
	if ((fd = mt_open_regular(lib, &id)) < 0) {
		snprintf(lib, sizeof(lib), "/proc/%d/root%s", (int)pid, file);
		if ((fd = mt_open_regular(lib, &id)) < 0)
			return fd;
	}
	memset(addr, 0, (size_t)n * sizeof(*addr));
	found = elf_syms(fd, names, addr, n, &first);
	close(fd);
	for (int i = 0; i < n; i++)
		if (addr[i])
			addr[i] += lo - first;
	return found;
}

static bool is_libc(const char *file, const void *arg)
{
	const char *base = strrchr(file, '/');

	(void)arg;
	return base && (!strcmp(base, "/libc.so.6") || !strncmp(base, "/libc-2.", 8));
}

static bool is_file(const char *file, const void *arg)
{
	return !strcmp(file, (const char *)arg);
}

/* dlopen, dlsym and dlerror in the target: glibc 2.34 and later define them in libc. */
static int find_libc(pid_t pid, struct libc_syms *out, char *why, size_t wlen)
{
	static const char *const names[] = { "dlopen", "dlsym", "dlerror" };
	uint64_t v[3];
	int r = object_syms(pid, is_libc, NULL, names, v, 3);

	if (r == -ENOENT)
		snprintf(why, wlen,
			 "no libc.so.6 in its mappings (a static program, or not glibc's)");
	else if (r < 0)
		snprintf(why, wlen, "cannot read /proc/%d/maps: %s", (int)pid, strerror(-r));
	else if (r < 3)
		snprintf(why, wlen,
			 "its libc does not define dlopen, dlsym and dlerror (glibc "
			 "before 2.34)");
	if (r < 3)
		return r < 0 ? r : -ENOEXEC;
	out->dlopen = v[0];
	out->dlsym = v[1];
	out->dlerror = v[2];
	return 0;
}

/* ---- holding a thread ---- */

/* The next stop of tid within the deadline: 1 with *status, 0 at the deadline, -errno. */
static int wait_stop(pid_t tid, int *status, uint64_t deadline)
{
	struct timespec nap = { 0, 200000 };

	for (;;) {
		pid_t r = waitpid(tid, status, __WALL | WNOHANG);

		if (r == tid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (mt_now_ns() >= deadline)
			return 0;
		nanosleep(&nap, NULL);
	}
}

/* Lets tid run until it enters a safe call (its registers then in *regs, *entry set), within
 * SAFE_WAIT_NS; signals it receives meanwhile are delivered. */
static int run_to_safe_call(pid_t tid, struct user_regs_struct *regs, char *why, size_t wlen)
{
	uint64_t deadline = mt_now_ns() + SAFE_WAIT_NS;
	int st, sig = 0, r;

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, tid, 0, (void *)(long)sig) < 0)
			return -errno;
		sig = 0;
		r = wait_stop(tid, &st, deadline);
		if (r <= 0) {
			if (r == 0) {
				(void)ptrace(PTRACE_INTERRUPT, tid, 0, 0);
				(void)wait_stop(tid, &st, mt_now_ns() + 1000000000ull);
			}
			snprintf(why, wlen,
				 "its thread %d made no system call outside memory "
				 "management in %.0f s: no safe moment to load the runtime",
				 (int)tid, SAFE_WAIT_NS / 1e9);
			return -ETIMEDOUT;
		}
		if (!WIFSTOPPED(st)) {
			snprintf(why, wlen, "the process exited");
			return -ESRCH;
		}
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GETREGS, tid, 0, regs) < 0)
				return -errno;
			/* an entry: the call is not made yet, rax holds -ENOSYS */
			if ((long)regs->rax == -ENOSYS && safe_call((long)regs->orig_rax))
				return 1;
		} else if (WSTOPSIG(st) != SIGTRAP && (st >> 16) == 0) {
			sig = WSTOPSIG(st); /* a signal for the program: it gets it */
		}
	}
}

/* Holds tid at a safe call: 0 (in a blocking call, interrupted) or 1 (at a call's entry,
 * which runs after the injection), the registers to restore in *saved. */
static int hold(pid_t tid, struct user_regs_struct *saved, char *why, size_t wlen)
{
	int st, r;

	if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACESYSGOOD) < 0) {
		r = -errno;
		snprintf(why, wlen, "cannot trace thread %d: %s%s", (int)tid, strerror(errno),
			 errno == EPERM ? " (traced by another process, or not permitted)" : "");
		return r;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0 ||
	    wait_stop(tid, &st, mt_now_ns() + 2000000000ull) != 1 || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_GETREGS, tid, 0, saved) < 0) {
		snprintf(why, wlen, "thread %d did not stop", (int)tid);
		return -ESRCH;
	}
	if ((long)saved->orig_rax >= 0 && safe_call((long)saved->orig_rax))
		return 0;
	r = run_to_safe_call(tid, saved, why, wlen);
	if (r < 0)
		return r;
	/* Restored as it is, the call would never run: make it run again from its
	 * instruction (syscall is 0f 05) once the thread is let go. */
	saved->rip -= 2;
	saved->rax = saved->orig_rax;
	saved->orig_rax = (unsigned long long)-1;
	return 1;
}

/* fn(a0, a1, a2) in the held thread, on its stack under sp: its return value in *ret. */
static int call(pid_t tid, const struct user_regs_struct *saved, uint64_t sp, uint64_t fn,
		uint64_t a0, uint64_t a1, uint64_t a2, uint64_t *ret, char *why, size_t wlen)
{
	struct user_regs_struct regs = *saved;
	uint64_t deadline = mt_now_ns() + CALL_NS, zero = 0;
	struct iovec lv = { &zero, 8 }, rv = { (void *)(sp - 8), 8 };
	int st, sig = 0, r;

	/* a return address of 0, and rsp as just after a call: 16-aligned plus 8 */
	if (process_vm_writev(tid, &lv, 1, &rv, 1, 0) != 8)
		return -errno;
	regs.rsp = sp - 8;
	regs.rip = fn;
	regs.rdi = a0;
	regs.rsi = a1;
	regs.rdx = a2;
	regs.rax = 0;
	regs.orig_rax = (unsigned long long)-1; /* no system call to restart around it */
	if (ptrace(PTRACE_SETREGS, tid, 0, &regs) < 0)
		return -errno;
	for (;;) {
		if (ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig) < 0)
			return -errno;
		sig = 0;
		r = wait_stop(tid, &st, deadline);
		if (r == 0) {
			snprintf(why, wlen, "the call in thread %d did not return in %.0f s",
				 (int)tid, CALL_NS / 1e9);
			return -ETIMEDOUT;
		}
		if (r < 0 || !WIFSTOPPED(st)) {
			snprintf(why, wlen, "the process exited during the call");
			return -ESRCH;
		}
		if (WSTOPSIG(st) == SIGSEGV && (st >> 16) == 0) {
			if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
				return -errno;
			if (regs.rip == 0) {
				*ret = regs.rax;
				return 0;
			}
			snprintf(why, wlen, "the call faulted at %#llx in thread %d", regs.rip,
				 (int)tid);
			return -EFAULT;
		}
		if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st); /* a signal for the program: its handler runs now */
	}
}

/* Writes the strings below the red zone; their addresses in at[]; the new stack top. */
static int put_strings(pid_t tid, uint64_t rsp, const char *const *s, int n, uint64_t *at,
		       uint64_t *sp)
{
	uint64_t top = (rsp - 1024) & ~15ull, len = 0;

	for (int i = 0; i < n; i++)
		len += strlen(s[i]) + 1;
	top = (top - len) & ~15ull;
	*sp = top;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(s[i]) + 1;
		struct iovec lv = { (void *)s[i], l }, rv = { (void *)top, l };

		if (process_vm_writev(tid, &lv, 1, &rv, 1, 0) != (ssize_t)l)
			return -errno;
		at[i] = top;
		top += l;
	}
	return 0;
}

static void read_string(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	struct iovec lv = { buf, size - 1 }, rv = { (void *)addr, size - 1 };
	ssize_t n = addr ? process_vm_readv(tid, &lv, 1, &rv, 1, 0) : -1;

	buf[n > 0 ? (size_t)n : 0] = 0;
}

/* The three calls; *ret is memtap_rt_attach's result. */
static int load(pid_t tid, const struct user_regs_struct *saved, const struct libc_syms *lc,
		const char *lib, const char *conf, long *ret, char *why, size_t wlen)
{
	const char *strs[] = { lib, "memtap_rt_attach", conf };
	uint64_t at[3], sp, handle = 0, fn = 0, r = 0;
	int e = put_strings(tid, saved->rsp, strs, 3, at, &sp);

	if (e < 0) {
		snprintf(why, wlen, "cannot write to its stack: %s", strerror(-e));
		return e;
	}
	if ((e = call(tid, saved, sp, lc->dlopen, at[0], RTLD_NOW, 0, &handle, why, wlen)) < 0)
		return e;
	if (!handle) {
		uint64_t msg = 0;
		char text[256];

		if (call(tid, saved, sp, lc->dlerror, 0, 0, 0, &msg, why, wlen) == 0) {
			read_string(tid, msg, text, sizeof(text));
			snprintf(why, wlen, "dlopen failed in the process: %s", text);
		}
		return -ENOEXEC;
	}
	if ((e = call(tid, saved, sp, lc->dlsym, handle, at[1], 0, &fn, why, wlen)) < 0)
		return e;
	if (!fn) {
		snprintf(why, wlen, "the loaded runtime has no memtap_rt_attach");
		return -ENOEXEC;
	}
	if ((e = call(tid, saved, sp, fn, at[2], at[0], 0, &r, why, wlen)) < 0)
		return e;
	*ret = (long)(int)r;
	return 0;
}

/* Is pid's program a 64-bit ELF (the runtime's class)? */
static bool is_64bit(pid_t pid)
{
	char path[64];
	unsigned char id[EI_NIDENT];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return true; /* unreadable: let the loading say what fails */
	ok = read(fd, id, sizeof(id)) != (ssize_t)sizeof(id) || id[EI_CLASS] == ELFCLASS64;
	close(fd);
	return ok;
}

int mt_attach_rt(pid_t pid, const char *lib, const char *conf, struct mt_attach_rt *out, char *why,
		 size_t wlen)
{
	struct libc_syms lc;
	struct user_regs_struct saved;
	long ret = 0;
	int r, held;

	memset(out, 0, sizeof(*out));
	if (!is_64bit(pid)) {
		snprintf(why, wlen, "it is not a 64-bit program (the runtime is)");
		return -ENOEXEC;
	}
	if ((r = find_libc(pid, &lc, why, wlen)) < 0)
		return r;
	out->tid = pick_thread(pid);
	out->from_ns = mt_now_ns();
	held = hold(out->tid, &saved, why, wlen);
	if (held < 0) {
		(void)ptrace(PTRACE_DETACH, out->tid, 0, 0);
		return held;
	}
	out->held_ns = mt_now_ns();
	r = load(out->tid, &saved, &lc, lib, conf, &ret, why, wlen);
	out->to_ns = mt_now_ns();
	if (r != -ESRCH) {
		(void)ptrace(PTRACE_SETREGS, out->tid, 0, &saved);
		(void)ptrace(PTRACE_DETACH, out->tid, 0, 0);
	}
	if (r < 0)
		return r;
	if (ret < 0) {
		static const char *const what[] = {
			"",
			"the runtime refused the configuration (another memtap version?)",
			"the process records already (a memtap runtime runs in it)",
			"the runtime could not find itself in the process",
			"the runtime could not reach the recorder",
			"the runtime found no definition of malloc and its family",
		};

		snprintf(why, wlen, "%s", -ret < 6 ? what[-ret] : "the runtime failed");
		return -EPROTO;
	}
	out->slots = (unsigned)ret;
	return 0;
}

int mt_detach_rt(pid_t pid, const char *lib, int *restored, char *why, size_t wlen)
{
	static const char *const names[] = { "memtap_rt_detach" };
	char real[4096];
	struct user_regs_struct saved;
	uint64_t fn = 0, ret = 0, sp;
	pid_t tid;
	int r;

	if (!realpath(lib, real) || object_syms(pid, is_file, real, names, &fn, 1) < 1) {
		snprintf(why, wlen, "the runtime is not among its mappings any more");
		return -ENOENT;
	}
	tid = pick_thread(pid);
	if ((r = hold(tid, &saved, why, wlen)) < 0) {
		(void)ptrace(PTRACE_DETACH, tid, 0, 0);
		return r;
	}
	sp = ((saved.rsp - 1024) & ~15ull);
	r = call(tid, &saved, sp, fn, 0, 0, 0, &ret, why, wlen);
	if (r != -ESRCH) {
		(void)ptrace(PTRACE_SETREGS, tid, 0, &saved);
		(void)ptrace(PTRACE_DETACH, tid, 0, 0);
	}
	*restored = (int)ret;
	return r;
}
