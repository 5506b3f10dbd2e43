/* SPDX-License-Identifier: MIT */
/* Runtime connections: the hello, the shared region's geometry, labels, draining and closing. */
#include "record/alloc-internal.h"
#include "record/alloc-sites.h"

#include "common/array.h"
#include "alloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/strutil.h"
#include "format/block.h"
#include "format/chunk.h"
#include "format/rt-proto.h"
#include "format/writer.h"
#include "record/inject.h"
#include "record/procfs.h"
#include "record/pagewrites.h"
#include "record/live.h"
#include "record/session.h"

/* ---- connections ---- */

struct proc_rt *mt_ac_proc_get(struct mt_alloc_state *a, pid_t pid, bool create)
{
	for (size_t i = a->nprocs; i-- > 0;)
		if (a->procs[i].pid == pid)
			return &a->procs[i];
	if (!create)
		return NULL;
	if (mt_grow_array(&a->procs, &a->procs_cap, a->nprocs + 1, sizeof(*a->procs)) < 0)
		return NULL;
	memset(&a->procs[a->nprocs], 0, sizeof(a->procs[0]));
	a->procs[a->nprocs].pid = pid;
	return &a->procs[a->nprocs++];
}

static void write_stream_kv(struct mt_session *s, struct conn *c, const struct mt_rt_hello *h)
{
	struct mt_kv kv;

	mt_kv_init(&kv);
	mt_kv_add_u64(&kv, "stream", c->stream);
	mt_kv_add(&kv, "producer", "memtap-rt");
	mt_kv_add_u64(&kv, "pid", h->pid);
	mt_kv_add_u64(&kv, "ppid", h->ppid);
	mt_kv_add_u64(&kv, "start_ns", h->time_ns);
	mt_kv_add(&kv, "time", s->alloc->tsc ? "tsc" : "clock");
	mt_kv_add_u64(&kv, "stack_depth", s->o->stack_depth);
	if (c->region->py_state != MT_RT_PY_NONE) {
		/* the process runs CPython: are its frames in the stacks? */
		char v[16], buf[64];

		mt_rt_py_version_str(c->region->py_version, v);
		snprintf(buf, sizeof(buf), "%s (CPython %s)",
			 mt_rt_py_state_name(c->region->py_state), v);
		mt_kv_add(&kv, "python_frames", buf);
	}
	mt_writer_kv(s->w, MT_CHUNK_STREAM, &kv);
	mt_kv_release(&kv);
}

/* a + b * c <= lim, without overflow. */
static bool fits(uint64_t a, uint64_t b, uint64_t c, uint64_t lim)
{
	uint64_t m, sum;

	return !__builtin_mul_overflow(b, c, &m) && !__builtin_add_overflow(a, m, &sum) &&
	       sum <= lim;
}

/* The region's geometry, checked: every offset and size the recorder will use lies inside
 * the mapping, computed without overflow. */
static bool region_sane(const struct mt_rt_region *h, uint64_t size)
{
	uint64_t bitmap = ((uint64_t)h->nslots + 63) / 64 * 8, slots_end;

	if (h->magic != MT_RT_REGION_MAGIC || h->version != MT_RT_PROTO_VERSION ||
	    h->slot_words == 0 || h->slot_words > (1u << 20) || h->nslots == 0 ||
	    h->nslots > 65536 || h->nodes_cap == 0 || h->nodes_cap > (1ull << 28))
		return false;
	if (h->slot_size < sizeof(struct mt_rt_slot) + (uint64_t)h->slot_words * sizeof(uint64_t) ||
	    h->slot_size > (64ull << 20) || h->slots_off < sizeof(struct mt_rt_region) ||
	    !fits(h->slots_off, h->nslots, h->slot_size, size))
		return false;
	slots_end = h->slots_off + (uint64_t)h->nslots * h->slot_size;
	if (h->nodes_off < slots_end ||
	    !fits(h->nodes_off, h->nodes_cap, sizeof(struct mt_rt_node), size))
		return false;
	return h->ready_off >= sizeof(struct mt_rt_region) && h->ready_off % 8 == 0 &&
	       fits(h->ready_off, 1, bitmap, h->slots_off) &&
	       h->free_off >= sizeof(struct mt_rt_region) && h->free_off % 8 == 0 &&
	       fits(h->free_off, 1, bitmap, h->slots_off);
}

/*
 * Maps and validates a region handed over by a HELLO. The memfd must be sealed against
 * shrinking: a file that shrank under the mapping would kill the recorder with SIGBUS at
 * its next read.
 */
static int conn_map(struct conn *c, int memfd, const struct mt_rt_hello *h, enum refuse *why)
{
	struct stat st;
	struct mt_rt_region hdr;
	int seals = fcntl(memfd, F_GET_SEALS);
	void *p;

	*why = REF_MEMFD;
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(memfd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size < h->region_size)
		return -EINVAL;
	*why = REF_MALFORMED;
	if (h->region_size < sizeof(struct mt_rt_region) || h->region_size > (16ull << 30))
		return -EINVAL;
	p = mmap(NULL, h->region_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(&hdr, p, sizeof(hdr));
	c->region = p;
	c->size = h->region_size;
	/* Everything read later is bounded by these checked copies. */
	if (!region_sane(&hdr, c->size)) {
		munmap(p, c->size);
		c->region = NULL;
		return -EINVAL;
	}
	c->nslots = hdr.nslots;
	c->slot_words = hdr.slot_words;
	c->slots_off = hdr.slots_off;
	c->ready_off = hdr.ready_off;
	c->free_off = hdr.free_off;
	c->slot_size = hdr.slot_size;
	c->nodes_off = hdr.nodes_off;
	c->nodes_cap = hdr.nodes_cap;
	c->nodes_sent = 1;
	mt_map64_init(&c->last_ns);
	mt_map64_init(&c->last_seq);
	mt_map64_init(&c->span_cur);
	c->ready = calloc(c->nslots, sizeof(*c->ready));
	c->evs = calloc(c->slot_words, sizeof(*c->evs));
	if (!c->ready || !c->evs) {
		free(c->ready);
		free(c->evs);
		c->ready = NULL;
		c->evs = NULL;
		munmap(p, c->size);
		c->region = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* memtap's own resident memory in the process from time t (the runtime's exact totals, see
 * struct mt_rt_own): an RSS event of source MEMTAP, which the analysis takes out of the
 * process's figures. */
void mt_ac_own_rss(struct mt_session *s, struct conn *c, uint64_t t, uint64_t anon, uint64_t shmem)
{
	uint64_t row[_MT_F_RSS_MAX] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = row[MT_F_TID] = (uint64_t)c->pid;
	row[MT_F_RSS_ANON] = anon;
	row[MT_F_RSS_SHMEM] = shmem;
	row[MT_F_RSS_PEAK] = anon + shmem;
	row[MT_F_RSS_SOURCE] = MT_RSS_MEMTAP;
	(void)mt_writer_event(s->w, MT_EV_RSS, row);
}

/* memtap's own memory in the process, as mappings of origin MEMTAP: the analysis keeps its
 * faults, samples and resident pages apart from the workload's. */
static void own_maps(struct mt_session *s, struct conn *c, const struct mt_rt_hello *h)
{
	/* The image was mapped by the loader before the greeting: from the runtime's start. */
	const struct {
		uint64_t addr, len, time, flags;
		const char *name;
	} m[3] = { { h->region_addr, h->region_size, h->time_ns, MAP_SHARED, "[memtap-rt region]" },
		   { h->arena_addr, h->arena_size, h->time_ns, MAP_PRIVATE, "[memtap-rt arena]" },
		   { h->image_lo, h->image_hi > h->image_lo ? h->image_hi - h->image_lo : 0,
		     h->own_ns, MAP_PRIVATE, "[memtap-rt image]" } };

	for (int i = 0; i < 3; i++) {
		uint64_t row[MT_MAX_FIELDS] = { 0 };

		if (!m[i].addr || !m[i].len)
			continue;
		row[MT_F_TIME] = m[i].time;
		row[MT_F_PID] = (uint64_t)c->pid;
		row[MT_F_TID] = (uint64_t)c->pid;
		row[MT_F_MMAP_ADDR] = m[i].addr;
		row[MT_F_MMAP_LEN] = m[i].len;
		row[MT_F_MMAP_PROT] = PROT_READ | PROT_WRITE;
		row[MT_F_MMAP_FLAGS] = m[i].flags;
		row[MT_F_MMAP_ORIGIN] = MT_MMAP_MEMTAP;
		row[MT_F_MMAP_PATH] = mt_writer_strn(s->w, m[i].name, strlen(m[i].name));
		(void)mt_writer_event(s->w, MT_EV_MMAP,
				      row); /* in the recorder's stream, as labels */
	}
	/* what the runtime held when it greeted, from the time it started taking memory */
	mt_ac_own_rss(s, c, h->own_ns, h->own_anon, h->own_shmem);
}

void mt_ac_untraced(struct mt_alloc_state *a, pid_t pid, const char *why)
{
	struct proc_rt *pr = mt_ac_proc_get(a, pid, true);
	size_t len = strlen(a->untraced);

	if (pr && pr->counted)
		return;
	if (pr)
		pr->counted = true;
	a->nuntraced++;
	if (len + 200 < sizeof(a->untraced))
		snprintf(a->untraced + len, sizeof(a->untraced) - len, "%s%d: %s", len ? "; " : "",
			 (int)pid, why);
}

void mt_ac_proc_greeted(struct mt_alloc_state *a, pid_t pid, uint64_t t)
{
	struct proc_rt *pr = mt_ac_proc_get(a, pid, true);

	if (!pr)
		return;
	pr->hello_ns = t;
	/* A greeting from before the last exec (read late) is the old image's. */
	if (t >= pr->exec_ns)
		pr->rt_seen = true;
}

/* Constant time: how long a comparison takes says nothing of the key. */
static bool key_ok(const struct mt_alloc_state *a, const uint8_t *k)
{
	uint8_t d = 0;

	for (size_t i = 0; i < MT_RT_KEY_BYTES; i++)
		d |= (uint8_t)(a->key[i] ^ k[i]);
	return d == 0;
}

static void refuse(struct mt_alloc_state *a, struct conn *c, enum refuse why)
{
	a->refused[why]++;
	mt_debug("refused a runtime connection from pid %d (reason %d)", (int)c->pid, (int)why);
	c->closed = true;
}

/*
 * A RESUME greeting: the process's program closed or replaced the runtime's socket, and the
 * runtime connected again. The connection that holds its region (the newest of the pid)
 * takes this socket; this entry is left empty.
 */
static void on_resume(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = a->nconns; i-- > 0;) {
		struct conn *o = &a->conns[i];

		if (o == c || o->pid != c->pid || !o->region)
			continue;
		if (o->fd >= 0 && o->pidfd)
			close(o->fd);
		else if (o->fd >= 0) /* its EOF not read yet: whatever it still holds */
			mt_ac_read_conn(s, o);
		if (o->fd >= 0 && !o->pidfd)
			close(o->fd);
		o->fd = c->fd;
		o->pidfd = false;
		o->closed = false;
		c->fd = -1;
		c->resumed = c->closed = true;
		mt_debug("runtime of %d reconnected (stream %u)", (int)o->pid, o->stream);
		return;
	}
	refuse(a, c, REF_RESUME);
}

/* A process's new image greeted: its earlier regions (before the exec) hold all they will. */
static void close_older(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = 0; i < a->nconns; i++)
		if (&a->conns[i] != c && a->conns[i].pid == c->pid && a->conns[i].region)
			a->conns[i].closed = true;
}

/* The memfd a greeting carries, or -1. */
static int memfd_of(struct msghdr *mh)
{
	int fd = -1;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void hello_read(struct mt_session *s, struct conn *c, const struct mt_rt_hello *hp,
		       ssize_t n, int flags, int memfd)
{
	struct mt_alloc_state *a = s->alloc;
	struct mt_rt_hello h = *hp;
	enum refuse why = REF_MALFORMED;

	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		c->closed = true;
		return;
	}
	if (n < 0)
		return;
	if (n != (ssize_t)sizeof(h) || h.type != MT_RT_MSG_HELLO ||
	    h.version != MT_RT_PROTO_VERSION || !key_ok(a, h.key)) {
		if (memfd >= 0)
			close(memfd);
		refuse(a, c,
		       n == (ssize_t)sizeof(h) && h.type == MT_RT_MSG_HELLO &&
				       h.version == MT_RT_PROTO_VERSION
			       ? REF_KEY
			       : REF_MALFORMED);
		return;
	}
	if (h.flags & MT_RT_HELLO_RESUME) {
		if (memfd >= 0)
			close(memfd);
		on_resume(s, c);
		return;
	}
	if (memfd < 0 && (flags & MSG_CTRUNC)) {
		/* The kernel had no descriptor to give us for the region. */
		char reason[128];

		snprintf(reason, sizeof(reason),
			 "the recorder had no descriptor left for its region (limit %u)",
			 a->fd_limit);
		mt_ac_untraced(a, c->pid, reason);
		refuse(a, c, REF_NOFD);
		return;
	}
	if (memfd < 0 || conn_map(c, memfd, &h, &why) < 0) {
		if (memfd >= 0)
			close(memfd);
		refuse(a, c, memfd < 0 ? REF_MALFORMED : why);
		return;
	}
	close(memfd);
	c->hello_ns = h.time_ns;
	c->stream = a->next_stream++;
	h.pid = (uint32_t)c->pid; /* the kernel's, whatever the greeting said */
	mt_debug("runtime of %d connected: stream %u", (int)c->pid, c->stream);
	close_older(s, c);
	write_stream_kv(s, c, &h);
	own_maps(s, c, &h);
	mt_ac_proc_greeted(a, c->pid, h.time_ns);
	if (h.flags & MT_RT_HELLO_OWN_MALLOC)
		mt_ac_untraced(a, c->pid,
			       "its executable defines malloc: its heap bypasses the runtime "
			       "(mappings and brk are still recorded)");
	else
		a->processes++;
}

void mt_ac_on_hello(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;
	struct mt_rt_hello h;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	/* The reserve descriptor makes room for the memfd, and is taken back after it. */
	if (a->spare >= 0)
		close(a->spare);
	n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	hello_read(s, c, &h, n, mh.msg_flags, memfd_of(&mh));
	a->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* Greetings arrive right after the connection; these many may wait at once. */
#define CONN_PENDING_MAX 256
#define CONN_HELLO_NS 10000000000ull

/* A new connection while CONN_PENDING_MAX wait for their greeting: the oldest goes (a
 * flood of silent connections cannot crowd out the workload's, which greet at once). */
static void evict_pending(struct mt_alloc_state *a)
{
	struct conn *old = NULL;
	size_t pending = 0;

	for (size_t i = 0; i < a->nconns; i++) {
		struct conn *c = &a->conns[i];

		if (c->region || c->closed)
			continue;
		pending++;
		if (!old || c->accepted_ns < old->accepted_ns)
			old = c;
	}
	if (pending >= CONN_PENDING_MAX && old)
		refuse(a, old, REF_SILENT);
}

void mt_ac_conn_accept(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	for (;;) {
		int fd = accept4(a->lsock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred cred;
		socklen_t len = sizeof(cred);
		struct conn *c;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				/* Connections wait in the backlog until a descriptor frees. */
				a->fd_exhausted++;
				a->accept_after = mt_now_ns() + 20000000ull;
			}
			return;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid <= 0 ||
		    mt_grow_array(&a->conns, &a->conns_cap, a->nconns + 1, sizeof(*a->conns)) < 0) {
			close(fd);
			a->refused[REF_MALFORMED]++;
			continue;
		}
		evict_pending(a);
		c = &a->conns[a->nconns++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->pid = cred.pid;
		c->accepted_ns = mt_now_ns();
		mt_ac_on_hello(s, c); /* it is there already, nearly always */
	}
}

/* Slot acquisition order; the workload wrote seq, so it only orders, never indexes. */
static int cmp_seq(const void *a, const void *b)
{
	const struct ready_ent *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void mt_ac_wake_waiters(uint32_t *waiters, uint32_t *gen, unsigned n)
{
	if (!__atomic_load_n(waiters, __ATOMIC_SEQ_CST))
		return;
	__atomic_add_fetch(gen, 1, __ATOMIC_SEQ_CST);
	(void)syscall(SYS_futex, gen, FUTEX_WAKE, n > INT_MAX ? INT_MAX : (int)n, NULL, NULL, 0);
}

/* memtap's own memory as a thread without a slot published it (rt-proto.h, own_now_seq). */
static void own_published(struct mt_session *s, struct conn *c)
{
	struct mt_rt_region *r = c->region;
	uint64_t seq = __atomic_load_n(&r->own_now_seq, __ATOMIC_ACQUIRE);

	if (seq == c->own_seq)
		return;
	c->own_seq = seq;
	mt_ac_own_rss(s, c, __atomic_load_n(&r->own_now_ns, __ATOMIC_RELAXED),
		      __atomic_load_n(&r->own_now_anon, __ATOMIC_RELAXED),
		      __atomic_load_n(&r->own_now_shmem, __ATOMIC_RELAXED));
}

/*
 * Drains the READY slots the ready bitmap names; with all set, every slot holding rows (the
 * process is gone); with dead_tid, also the FILLING slots of that exited thread. Returns the
 * number of slots drained.
 */
/*
 * Rare (a process or thread gone): the rows a thread could not hand over. Only the slots
 * the free bitmap says are taken are looked at: reading a never-used slot's header would
 * make the kernel give the memfd a page for it (a shmem read fault allocates), 1024 pages
 * per process.
 */
static unsigned drain_taken(struct mt_session *s, struct conn *c, bool all, uint32_t dead_tid)
{
	const uint64_t *fb = (const uint64_t *)((char *)c->region + c->free_off);
	unsigned n = 0;

	for (uint32_t w = 0; w < (c->nslots + 63) / 64; w++) {
		uint64_t taken = ~__atomic_load_n(&fb[w], __ATOMIC_ACQUIRE);

		for (; taken; taken &= taken - 1) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(taken);
			struct mt_rt_slot *sl;
			uint32_t st;

			if (i >= c->nslots)
				break;
			sl = mt_ac_slot_at(c, i);
			st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
			/* READY slots are the ready bitmap's, except when the process is gone. */
			if ((st == MT_RT_SLOT_READY && all) ||
			    (st == MT_RT_SLOT_FILLING && (all || sl->tid == dead_tid))) {
				mt_ac_drain_slot(s, c, sl);
				mt_ac_slot_release(c, sl);
				n++;
			}
		}
	}
	return n;
}

/* Takes the READY slots the ready bitmap names into c->ready (after the nready there). */
static uint32_t collect_ready(struct conn *c, uint32_t nready)
{
	uint64_t *bits = (uint64_t *)((char *)c->region + c->ready_off);

	for (uint32_t w = 0; w < (c->nslots + 63) / 64; w++) {
		uint64_t x;

		if (!__atomic_load_n(&bits[w], __ATOMIC_RELAXED))
			continue;
		/* A slot is in the bitmap once per READY: it cannot be set again before we free it. */
		x = __atomic_exchange_n(&bits[w], 0, __ATOMIC_ACQUIRE);
		while (x) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(x);

			x &= x - 1;
			if (i >= c->nslots)
				break;
			if (__atomic_load_n(&mt_ac_slot_at(c, i)->state, __ATOMIC_ACQUIRE) !=
			    MT_RT_SLOT_READY)
				continue; /* the workload scribbled on the bitmap */
			c->ready[nready].seq = mt_ac_slot_at(c, i)->seq;
			c->ready[nready++].idx = i;
		}
	}
	return nready;
}

/* Whether a slot taken (sorted by seq) follows one of its thread's that was neither drained
 * nor taken: its bit was set before this one's, but after the scan passed its word. */
static bool predecessor_left(struct conn *c, uint32_t nready)
{
	for (uint32_t k = 0; k < nready; k++) {
		const struct mt_rt_slot *sl = mt_ac_slot_at(c, c->ready[k].idx);
		uint64_t prev = sl->prev_seq, *last = mt_map64_get(&c->last_seq, sl->tid);
		uint32_t lo = 0, hi = k;

		if (!prev || prev >= sl->seq || (last && prev <= *last))
			continue;
		while (lo < hi) { /* prev among the slots taken before this one */
			uint32_t mid = (lo + hi) / 2;

			if (c->ready[mid].seq < prev)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo >= k || c->ready[lo].seq != prev)
			return true;
	}
	return false;
}

unsigned mt_ac_conn_drain(struct mt_session *s, struct conn *c, bool all, uint32_t dead_tid)
{
	unsigned n = 0;
	uint32_t nready;

	if (!c->region)
		return 0;
	nready = collect_ready(c, 0);
	/* A thread's slots in the order it filled them, each after the one before it: the
	 * bitmap is read word by word, so a thread's slot can be seen set while its previous
	 * one, in a word already read, was set just after (its rows would then come after
	 * newer ones). One more read finds it: it was set before the slot seen. */
	mt_qsort(c->ready, nready, sizeof(*c->ready), cmp_seq);
	if (predecessor_left(c, nready)) {
		nready = collect_ready(c, nready);
		mt_qsort(c->ready, nready, sizeof(*c->ready), cmp_seq);
		c->rescans++;
	}
	for (uint32_t k = 0; k < nready; k++) {
		struct mt_rt_slot *sl = mt_ac_slot_at(c, c->ready[k].idx);
		uint64_t *last;

		if (mt_map64_put(&c->last_seq, sl->tid, &last) == 0)
			*last = sl->seq;
		mt_ac_drain_slot(s, c, sl);
		mt_ac_slot_release(c, sl);
		__atomic_sub_fetch(&c->region->ready_pending, 1, __ATOMIC_RELEASE);
		n++;
	}
	if (n)
		mt_ac_live_feed(s, c);
	if (all || dead_tid)
		n += drain_taken(s, c, all, dead_tid);
	mt_ac_send_nodes(s, c);
	own_published(s, c);
	if (n)
		mt_ac_wake_waiters(&c->region->slot_waiters, &c->region->slot_gen, n);
	return n;
}

void mt_ac_conn_flush(struct mt_session *s, struct conn *c)
{
	for (int b = 0; b < NBLOCKS; b++)
		if (c->blocks[b].count)
			mt_ac_write_block(s, c, b);
	mt_ac_sites_flush(s, c); /* what the fold has ready, so that a cut trace keeps it */
}

void mt_ac_conn_close(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;
	struct mt_rt_region *r = c->region;

	if (r && c->fd >= 0 && !c->pidfd)
		mt_ac_read_conn(s, c); /* its last messages (labels, functions) first */
	if (r) {
		mt_ac_conn_drain(s, c, true, 0);
		mt_ac_conn_flush(s, c);
		mt_ac_sites_close(s, c);
		a->sites_lost += c->sites_lost;
		a->sites_late += c->sites_late;
		if (c->sites_lost)
			mt_emit_lost(s, mt_now_ns(), &s->alloc_coll, c->sites_lost,
				     "--alloc=sites: no memory to fold allocation rows");
		mt_debug("runtime stream %u of %d closed: %llu events", c->stream, (int)c->pid,
			 (unsigned long long)c->events);
		a->events += c->events;
		mt_ac_sum_counters(s, c);
		a->bad_rows += c->bad_rows;
		a->slot_rescans += c->rescans;
		a->times_raised += c->raised;
		munmap(r, c->size);
		c->region = NULL;
	}
	for (int b = 0; b < NBLOCKS; b++)
		mt_block_release(&c->blocks[b]);
	mt_map64_release(&c->last_ns);
	mt_map64_release(&c->last_seq);
	mt_map64_release(&c->span_cur);
	free(c->ready);
	free(c->evs);
	c->ready = NULL;
	c->evs = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* A memtap.h call: a label, an unlabel or a phase, as LABEL and PHASE events. */
static void on_label(struct mt_session *s, struct conn *c, const struct mt_rt_label *h, size_t n)
{
	const char *str = (const char *)(h + 1);
	uint64_t row[MT_MAX_FIELDS] = { 0 };
	struct mt_alloc_state *a = s->alloc;

	if (h->type_len > MT_RT_LABEL_TYPE_MAX || h->name_len > MT_RT_LABEL_NAME_MAX ||
	    n != sizeof(*h) + h->type_len + h->name_len || h->op > MT_RT_WP_RANGE) {
		a->bad_labels++; /* the workload can scribble on anything it sends */
		return;
	}
	row[MT_F_TIME] = h->time_ns;
	row[MT_F_PID] = (uint64_t)c->pid;
	row[MT_F_TID] = h->tid ? h->tid : (uint64_t)c->pid;
	if (h->op == MT_RT_PHASE) {
		row[MT_F_PHASE_NAME] = mt_writer_strn(s->w, str + h->type_len, h->name_len);
		if (mt_writer_event(s->w, MT_EV_PHASE, row) == 0)
			a->labels++;
		return;
	}
	if (h->op == MT_RT_WP_RANGE) {
		row[MT_F_PWR_ADDR] = h->addr;
		row[MT_F_PWR_LEN] = h->len;
		if (h->wp == MT_RT_WP_TRACKED) {
			row[MT_F_PWR_WP] = MT_LABEL_WP_TRACKED;
			mt_pagewrites_track(s, c->pid, h->time_ns);
		} else {
			row[MT_F_PWR_WP] = MT_LABEL_WP_FAILED;
			row[MT_F_PWR_ERRNO] = h->wp < 0 ? (uint64_t) - (int64_t)h->wp : 0;
			mt_pagewrites_failed(s, h->wp < 0 ? -h->wp : 0);
		}
		mt_writer_event(s->w, MT_EV_PW_RANGE, row);
		return;
	}
	row[MT_F_LABEL_OP] = h->op == MT_RT_LABEL ? MT_LABEL_SET : MT_LABEL_UNSET;
	row[MT_F_LABEL_ADDR] = h->addr;
	row[MT_F_LABEL_LEN] = h->op == MT_RT_LABEL ? h->len : 0;
	row[MT_F_LABEL_TYPE] = mt_writer_strn(s->w, str, h->type_len);
	row[MT_F_LABEL_NAME] = mt_writer_strn(s->w, str + h->type_len, h->name_len);
	if (h->op == MT_RT_LABEL && h->wp == MT_RT_WP_TRACKED) {
		row[MT_F_LABEL_WP] = MT_LABEL_WP_TRACKED;
		mt_pagewrites_track(s, c->pid, h->time_ns);
	} else if (h->op == MT_RT_LABEL && h->wp < 0) {
		row[MT_F_LABEL_WP] = MT_LABEL_WP_FAILED;
		row[MT_F_LABEL_WP_ERRNO] = (uint64_t) - (int64_t)h->wp;
		mt_pagewrites_failed(s, -h->wp);
	}
	if (mt_writer_event(s->w, MT_EV_LABEL, row) == 0)
		a->labels++;
}

/* A Python function the runtime met in a stack: a PY_FUNC event. */
static void on_pycode(struct mt_session *s, struct conn *c, const struct mt_rt_pycode *h, size_t n)
{
	const char *str = (const char *)(h + 1);
	uint64_t row[MT_MAX_FIELDS] = { 0 };
	struct mt_alloc_state *a = s->alloc;

	if (h->name_len > MT_RT_PY_NAME_MAX || h->file_len > MT_RT_PY_FILE_MAX ||
	    n != sizeof(*h) + h->name_len + h->file_len || !h->id || h->id > MT_RT_PY_ID_MAX) {
		a->py_bad++;
		return;
	}
	row[MT_F_TIME] = h->time_ns;
	row[MT_F_PID] = (uint64_t)c->pid;
	row[MT_F_TID] = h->tid ? h->tid : (uint64_t)c->pid;
	row[MT_F_PYFN_ID] = h->id;
	row[MT_F_PYFN_FIRST_LINE] = h->first_line;
	row[MT_F_PYFN_NAME] = mt_writer_strn(s->w, str, h->name_len);
	row[MT_F_PYFN_FILE] = mt_writer_strn(s->w, str + h->name_len, h->file_len);
	if (mt_writer_event(s->w, MT_EV_PY_FUNC, row) == 0)
		a->py_funcs++;
	mt_live_pyfunc(s, c->pid, c->stream, h->id, str, h->name_len, str + h->name_len,
		       h->file_len);
}

/* NOTIFY bytes, memtap.h labels, Python functions: reads them all; EOF closes. */
void mt_ac_read_conn(struct mt_session *s, struct conn *c)
{
	if (c->pidfd || c->fd < 0)
		return; /* the socket is gone: nothing to read */
	for (;;) {
		union {
			struct mt_rt_label h;
			struct mt_rt_own own;
			struct mt_rt_pycode py;
			struct mt_rt_pwruns pw;
			char wb[sizeof(struct mt_rt_pwruns) +
				MT_RT_PWRUNS_MAX * sizeof(struct mt_rt_run)];
			char b[sizeof(struct mt_rt_label) + MT_RT_LABEL_TYPE_MAX +
			       MT_RT_LABEL_NAME_MAX + 1];
			char pb[sizeof(struct mt_rt_pycode) + MT_RT_PY_NAME_MAX +
				MT_RT_PY_FILE_MAX + 1];
			struct mt_rt_appev ev;
			char eb[sizeof(struct mt_rt_appev) + MT_RT_APPEV_NAME_MAX +
				MT_RT_APPEV_FIELDS_MAX + 1];
		} buf;
		const struct mt_rt_own *own = &buf.own;
		ssize_t r = recv(c->fd, &buf, sizeof(buf), MSG_DONTWAIT);

		if (r >= (ssize_t)sizeof(buf.h) && buf.h.type == MT_RT_MSG_LABEL)
			on_label(s, c, &buf.h, (size_t)r);
		else if (r == (ssize_t)sizeof(*own) && own->type == MT_RT_MSG_OWN)
			mt_ac_own_rss(s, c, own->time_ns, own->anon, own->shmem);
		else if (r >= (ssize_t)sizeof(buf.py) && buf.py.type == MT_RT_MSG_PYCODE)
			on_pycode(s, c, &buf.py, (size_t)r);
		else if (r >= (ssize_t)sizeof(buf.ev) && buf.ev.type == MT_RT_MSG_APPEV)
			mt_ac_on_appev(s, c, &buf.ev, (size_t)r);
		else if (r >= (ssize_t)sizeof(buf.pw) && buf.pw.type == MT_RT_MSG_PWRUNS &&
			 buf.pw.n <= MT_RT_PWRUNS_MAX &&
			 (size_t)r == sizeof(buf.pw) + buf.pw.n * sizeof(struct mt_rt_run))
			mt_pagewrites_msg(s, c->pid, &buf.pw,
					  (const uint64_t *)(const void *)(&buf.pw + 1));
		if (r > 0)
			continue;
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			c->closed = true;
		break;
	}
}
