/* SPDX-License-Identifier: MIT */
/*
 * The runtime's channel to the recorder: the greeting, every datagram after it, and what
 * happens when the program takes the descriptor away.
 *
 * The program owns its descriptor table: a daemon closes every descriptor from 3 up, and
 * the number the runtime's socket had is handed out again by its next open() or socket().
 * So the socket lives at a high number (new descriptors take the lowest free one), its
 * inode is checked before every send (a number reused by the program is never written
 * to, never closed), and a lost socket is replaced by a new connection (a HELLO with
 * MT_RT_HELLO_RESUME: the recorder keeps draining the region meanwhile, so no slot is
 * lost). Every send is non-blocking with a bounded wait; what could not be sent is counted
 * in the region, which the recorder reads whatever happened to the socket.
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt-internal.h"

int rt_sock RT_HIDDEN = -1;
static uint64_t sock_dev, sock_ino; /* the socket's identity, checked before each use */
static int chan_lock; /* one reconnection at a time */
static unsigned resumes; /* reconnections made by this process */

/* The runtime's own image, from its ELF header to the end of its .bss (hidden: ours, not
 * the program's symbols of the same names). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern char _end[] __attribute__((visibility("hidden")));

#define RESUMES_MAX 32
#define CONNECT_TRIES 200 /* a full listen backlog is retried for 200 x 5 ms at most */

/* Is fd still the socket the runtime connected? One fstat, no side effect on the fd. */
static bool fd_is_ours(int fd)
{
	struct stat st;

	if (fd < 0 || rt_sys_failed(rt_sys2(SYS_fstat, fd, &st)))
		return false;
	return S_ISSOCK(st.st_mode) && (uint64_t)st.st_dev == sock_dev &&
	       (uint64_t)st.st_ino == sock_ino;
}

/* The socket moved to a number below the soft limit's top (at most 1024): the program's
 * own descriptors come from the bottom. */
static int move_high(int fd)
{
	struct rlimit rl;
	long lim = 1024, hi;

	if (!rt_sys_failed(rt_sys2(SYS_getrlimit, RLIMIT_NOFILE, &rl)) && rl.rlim_cur < 1024)
		lim = (long)rl.rlim_cur;
	if (lim < 128)
		return fd;
	hi = rt_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, lim - 40);
	if (rt_sys_failed(hi))
		return fd;
	(void)rt_sys1(SYS_close, fd);
	return (int)hi;
}

static void fill_hello(struct mt_rt_hello *h, uint32_t flags)
{
	h->time_ns = rt_mono_ns();
	h->pid = (uint32_t)rt_pid;
	h->ppid = (uint32_t)rt_sys0(SYS_getppid);
	memcpy(h->key, rt_cfg.key, sizeof(h->key));
	h->flags = flags | (rt_foreign_malloc ? MT_RT_HELLO_OWN_MALLOC : 0);
	if (flags & MT_RT_HELLO_RESUME)
		return;
	h->region_size = rt_region_size;
	h->region_addr = (uint64_t)rt_region;
	h->arena_addr = (uint64_t)rt_arena;
	h->arena_size = rt_arena ? RT_ARENA_SIZE : 0;
	h->own_anon = __atomic_load_n(&rt_own_anon, __ATOMIC_RELAXED);
	h->own_shmem = rt_own_shmem();
	h->own_ns = rt_arena_ns ? rt_arena_ns : h->time_ns;
	h->image_lo = (uint64_t)__ehdr_start;
	h->image_hi = ((uint64_t)_end + 4095) & ~4095ull;
}

/* A connected socket that has sent its greeting (with memfd unless resuming), or -errno. */
static int chan_connect(int memfd, uint32_t flags)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mt_rt_hello hello = { .type = MT_RT_MSG_HELLO, .version = MT_RT_PROTO_VERSION };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &hello, sizeof(hello) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct timespec nap = { 0, 5000000 };
	size_t n = strlen(rt_cfg.sock);
	struct stat st;
	long s, rc = -EAGAIN;

	s = rt_sys3(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (rt_sys_failed(s))
		return (int)s;
	/* An abstract name: a leading NUL, no file to clean up. Never blocks: a listen backlog
	 * filled by someone else is retried a while, then the process goes unrecorded. */
	memcpy(sa.sun_path + 1, rt_cfg.sock, n);
	for (int i = 0; i < CONNECT_TRIES && rc == -EAGAIN; i++) {
		rc = rt_sys3(SYS_connect, s, &sa, offsetof(struct sockaddr_un, sun_path) + 1 + n);
		if (rc == -EAGAIN)
			(void)rt_sys2(SYS_nanosleep, &nap, NULL);
	}
	if (rt_sys_failed(rc)) {
		(void)rt_sys1(SYS_close, s);
		return (int)rc;
	}
	fill_hello(&hello, flags);
	if (memfd >= 0) {
		struct cmsghdr *cm;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &memfd, sizeof(int));
	}
	rc = rt_sys3(SYS_sendmsg, s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (rc != (long)sizeof(hello)) {
		(void)rt_sys1(SYS_close, s);
		return rt_sys_failed(rc) ? (int)rc : -EIO;
	}
	s = move_high((int)s);
	if (rt_sys_failed(rt_sys2(SYS_fstat, s, &st))) {
		(void)rt_sys1(SYS_close, s);
		return -EBADF;
	}
	sock_dev = (uint64_t)st.st_dev;
	sock_ino = (uint64_t)st.st_ino;
	return (int)s;
}

/* Creates this process's region and connects; on failure the process goes passive. */
void rt_attach(void)
{
	int memfd, s;

	rt_pid = (pid_t)rt_sys0(SYS_getpid);
	memfd = rt_region_create();
	if (memfd < 0) {
		rt_debug("cannot create the shared region; not recording");
		__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
		return;
	}
	s = chan_connect(memfd, 0);
	(void)rt_sys1(SYS_close, memfd); /* the recorder holds its own reference now */
	if (s < 0) {
		rt_debug("cannot reach the recorder; not recording");
		(void)rt_sys2(SYS_munmap, rt_region, rt_region_size);
		rt_region = NULL;
		__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
		return;
	}
	resumes = 0;
	rt_sock = s;
	__atomic_store_n(&rt_state, RT_READY, __ATOMIC_RELEASE);
	{
		static uint32_t epochs = 1;

		epochs += 2; /* odd: never 0 (not recording) nor 2 (a thread's "none") */
		__atomic_store_n(&rt_live, epochs, __ATOMIC_RELEASE);
	}
}

/* The recorder is gone: stop recording, keep forwarding. */
void rt_go_passive(void)
{
	__atomic_store_n(&rt_live, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&rt_state, RT_PASSIVE, __ATOMIC_RELEASE);
	rt_debug("lost the recorder; recording stops");
}

/*
 * The socket is usable: it is still the runtime's, or it was taken away by the program
 * and a new connection replaced it. A descriptor that is no longer the runtime's is
 * forgotten, never closed (it is the program's now).
 */
static bool chan_ok(void)
{
	int fd = __atomic_load_n(&rt_sock, __ATOMIC_ACQUIRE), s;
	bool ok;

	if (fd >= 0 && fd_is_ours(fd))
		return true;
	if (!rt_region || __atomic_exchange_n(&chan_lock, 1, __ATOMIC_ACQUIRE))
		return false; /* another thread reconnects: this message counts as lost */
	fd = __atomic_load_n(&rt_sock, __ATOMIC_ACQUIRE);
	ok = fd >= 0 && fd_is_ours(fd);
	if (!ok && fd >= 0) {
		__atomic_store_n(&rt_sock, -1, __ATOMIC_RELEASE);
		__atomic_add_fetch(&rt_region->chan_lost, 1, __ATOMIC_RELAXED);
		rt_debug("the program closed or replaced the runtime's socket; reconnecting");
	}
	if (!ok && resumes < RESUMES_MAX) {
		resumes++;
		s = chan_connect(-1, MT_RT_HELLO_RESUME);
		if (s >= 0) {
			__atomic_store_n(&rt_sock, s, __ATOMIC_RELEASE);
			__atomic_add_fetch(&rt_region->chan_resumed, 1, __ATOMIC_RELAXED);
			ok = true;
		} else if (s == -ECONNREFUSED || s == -ENOENT) {
			rt_go_passive(); /* nobody listens: the recorder is gone */
		}
	}
	__atomic_store_n(&chan_lock, 0, __ATOMIC_RELEASE);
	return ok;
}

/*
 * One datagram to the recorder. A full socket is retried for up to wait_us; the result is
 * the byte count or -errno, and the caller counts a failure as a lost message. An error on
 * the runtime's own socket means the recorder closed it (it exited, or refused this
 * process): recording stops.
 */
long rt_send(const void *m, size_t n, unsigned wait_us)
{
	uint64_t t0 = 0, waited = 0;
	long r;
	int fd;

	if (!chan_ok())
		return -ENOTCONN;
	fd = __atomic_load_n(&rt_sock, __ATOMIC_ACQUIRE);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		struct timespec left;

		r = mt_rt_sys(SYS_sendto, fd, (long)m, (long)n, MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
		if (r != -EAGAIN && r != -ENOBUFS)
			break;
		if (!t0) {
			t0 = rt_mono_ns();
			__atomic_add_fetch(&rt_region->stalls, 1, __ATOMIC_RELAXED);
		}
		waited = rt_mono_ns() - t0;
		if (waited >= (uint64_t)wait_us * 1000)
			break;
		/* asleep until the recorder makes room (never a nap-and-retry: hundreds of
		 * threads retrying would leave the recorder no CPU to make it) */
		left.tv_sec = (time_t)(((uint64_t)wait_us * 1000 - waited) / 1000000000u);
		left.tv_nsec = (long)(((uint64_t)wait_us * 1000 - waited) % 1000000000u);
		(void)mt_rt_sys(SYS_ppoll, (long)&p, 1, (long)&left, 0, 0, 0);
	}
	if (t0)
		__atomic_add_fetch(&rt_region->stall_ns, rt_mono_ns() - t0, __ATOMIC_RELAXED);
	if (r == -EPIPE || r == -ECONNRESET || r == -ENOTCONN) {
		if (fd_is_ours(fd)) {
			(void)rt_sys1(SYS_close, fd);
			__atomic_store_n(&rt_sock, -1, __ATOMIC_RELEASE);
			rt_go_passive();
		}
	}
	return r;
}

/* After fork, in the child: the parent's socket is the parent's; closed only if this
 * number still holds it (the program may have reused it). */
void rt_chan_fork_child(void)
{
	int fd = rt_sock;

	if (fd >= 0 && fd_is_ours(fd))
		(void)rt_sys1(SYS_close, fd);
	rt_sock = -1;
	chan_lock = 0;
	resumes = 0;
}
