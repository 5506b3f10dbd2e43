/* SPDX-License-Identifier: MIT */
/*
 * Which system calls the dynamic loader makes for memtap's preload runtime: they are
 * memtap's cost, not the workload's (strace on the bare program never sees them). Shared by
 * the BPF summary program (src/record/bpf/) and the recorder's per-call records. Plain C, no
 * includes (x86-64 numbers).
 *
 * After an exec the loader opens the runtime first (the recorder puts it first in
 * LD_PRELOAD), reads its ELF header, stats it, reserves its address range with one mmap of
 * the file, maps its segments (and its .bss, anonymous) over that range, closes the file and
 * write-protects its RELRO page: exactly the open of the runtime's path, the calls on that
 * descriptor until its close, and the mmap/mprotect/munmap calls inside the range. The
 * watch ends with the runtime's first own call (its constructor runs after the loader is
 * done), or at the next exec.
 */
#ifndef MEMTAP_DECODE_RT_LOAD_H
#define MEMTAP_DECODE_RT_LOAD_H

enum { MT_RTLOAD_IDLE = 0, MT_RTLOAD_WATCH = 1 };

struct mt_rtload {
	int state; /* MT_RTLOAD_* */
	int fd; /* the runtime file's descriptor while open, else -1 */
	unsigned long long lo, hi; /* the range the loader reserved for it */
};

/* After a successful exec: watch the new image's loader. */
static inline void mt_rtload_exec(struct mt_rtload *s)
{
	s->state = MT_RTLOAD_WATCH;
	s->fd = -1;
	s->lo = s->hi = 0;
}

/*
 * One completed call of a watched thread: 1 when it is the loader's work for the runtime.
 * rt_path: the call opened the runtime's file (its path argument is the runtime's path).
 * own: the call is the runtime's own (marked in r12): the loader is done.
 */
static inline int mt_rtload_call(struct mt_rtload *s, long nr, const unsigned long long *a,
				 long long ret, int rt_path, int own)
{
	if (s->state != MT_RTLOAD_WATCH)
		return 0;
	if (own) {
		s->state = MT_RTLOAD_IDLE;
		return 0;
	}
	switch (nr) {
	case 2: /* open */
	case 257: /* openat */
		if (!rt_path || ret < 0)
			return 0;
		s->fd = (int)ret;
		return 1;
	case 0: /* read */
	case 17: /* pread64 */
	case 5: /* fstat */
	case 262: /* newfstatat(fd, "", ..., AT_EMPTY_PATH) */
		return s->fd >= 0 && (int)a[0] == s->fd;
	case 3: /* close */
		if (s->fd < 0 || (int)a[0] != s->fd)
			return 0;
		s->fd = -1;
		return 1;
	case 9: /* mmap */
		if (s->fd >= 0 && (int)a[4] == s->fd) {
			if (!(a[3] & 0x10) && !s->lo &&
			    ret > 0) { /* not MAP_FIXED: the reservation */
				s->lo = (unsigned long long)ret;
				s->hi = (unsigned long long)ret + a[1];
			}
			return 1;
		}
		return (a[3] & 0x10) && a[0] >= s->lo && a[0] < s->hi; /* its .bss */
	case 10: /* mprotect */
	case 11: /* munmap */
		return a[0] >= s->lo && a[0] < s->hi;
	default:
		return 0;
	}
}

#endif
