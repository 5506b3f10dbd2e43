/* SPDX-License-Identifier: MIT */
/* The allocation collector: accepts runtime connections, drains their shared slots. */
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
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
#include "record/session.h"

#define RT_VERSION "memtap-rt " MEMTAP_VERSION " proto 2"

/* The event types a runtime connection produces, one block each. */
enum { B_ALLOC, B_MMAP, B_MUNMAP, B_MREMAP, B_BRK, NBLOCKS };
static const unsigned block_type[NBLOCKS] = { MT_EV_ALLOC, MT_EV_MMAP, MT_EV_MUNMAP, MT_EV_MREMAP,
					      MT_EV_BRK };

/* A row of a slot being drained: where it starts, its time (0 until interpolated). */
struct row_ref {
	uint32_t pos;
	uint64_t t;
};

struct ready_ent {
	uint64_t seq; /* copied once: the workload could change it while we sort */
	uint32_t idx;
};

struct conn {
	int fd;
	pid_t pid;
	uint32_t stream;
	bool closed;
	/* A private copy of the region's geometry, validated once: the workload can scribble
	 * on the shared header, never on these. */
	struct mt_rt_region *region;
	size_t size;
	uint32_t nslots, slot_words;
	uint64_t slots_off, slot_size, nodes_off, nodes_cap, ready_off, free_off;
	uint64_t nodes_sent; /* nodes with smaller ids are in the trace */
	uint64_t region_addr, arena_addr; /* memtap's own memory, in the workload */

	struct mt_block blocks[NBLOCKS];
	uint64_t events, bad_rows;
	/* Each thread's last event time: converting TSC values of slots drained at different
	 * calibration points may step back by nanoseconds; a thread's events never do. */
	struct mt_map64 last_ns;
	struct ready_ent *ready; /* scratch: the READY slots of one round, nslots entries */
	struct row_ref *evs; /* scratch: the rows of the slot being drained */
};

/* Per-process record of whether the runtime came up after the last exec. */
struct proc_rt {
	pid_t pid;
	bool exec_seen;
	bool rt_seen;
	uint64_t exec_ns; /* CLOCK_MONOTONIC of the last exec */
	char reason[96];
};

struct mt_alloc_state {
	int lsock;
	char sockname[64];
	char lib[PATH_MAX];
	char env_preload[PATH_MAX * 2];
	char env_conf[256];
	struct conn *conns;
	size_t nconns, conns_cap;
	uint32_t next_stream;
	/* TSC calibration pairs taken by the recorder. */
	bool tsc;
	struct cal {
		uint64_t tsc, ns;
	} * cal;
	size_t ncal, cal_cap;
	uint64_t cal_gen; /* changes with every pair taken or moved */
	/* the segment last used by tsc_to_ns: [seg_tsc, seg_end) at seg_rate ns per tick */
	uint64_t seg_tsc, seg_end, seg_ns;
	double seg_rate;
	uint64_t seg_gen; /* cal_gen when the segment was chosen */
	struct proc_rt *procs;
	size_t nprocs, procs_cap;
	/* totals over closed connections */
	uint64_t processes, events, stalls, stall_ns, dropped, guard, truncated, depth_limited,
		rule_misses, unsupported, trie_full, memo_hits, walked, reused, nodes, bad_rows,
		trie_resets, node_waits, trunc[MT_RT_TRUNC_MAX], own_lost, own_outside, notifies,
		labels, labels_dropped, bad_labels;
	char untraced[1024];
	uint64_t nuntraced;
	unsigned interval_ms; /* the next collection round, while connections are open */
	uint64_t time_est; /* rows whose time was interpolated */
};

/* ---- the runtime library ---- */

/* Reads the runtime's exported version string with libelf, without loading the library. */
static int rt_lib_version(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -ENOENT;
	Elf *e;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			Elf_Scn *ds;
			GElf_Shdr dsh;
			Elf_Data *dd;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, "memtap_rt_version") || !sym.st_shndx)
				continue;
			ds = elf_getscn(e, sym.st_shndx);
			if (!ds || !gelf_getshdr(ds, &dsh) || !(dd = elf_getdata(ds, NULL)))
				break;
			if (sym.st_value < dsh.sh_addr ||
			    sym.st_value - dsh.sh_addr + sym.st_size > dd->d_size)
				break;
			snprintf(buf, size, "%.*s", (int)sym.st_size,
				 (const char *)dd->d_buf + (sym.st_value - dsh.sh_addr));
			r = 0;
			break;
		}
		break;
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

static int find_rt_lib(char *path, size_t size)
{
	const char *env = getenv("MEMTAP_RT_LIB");
	char exe[PATH_MAX - 64], *slash;
	ssize_t n;

	if (env && *env) {
		mt_strlcpy(path, env, size);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	/* Next to the binary (the build tree), then the installed layout. */
	snprintf(path, size, "%s/libmemtap-rt.so", exe);
	if (access(path, R_OK) == 0)
		return 0;
	snprintf(path, size, "%s/../lib/memtap/libmemtap-rt.so", exe);
	if (access(path, R_OK) == 0)
		return 0;
	snprintf(path, size, "%s/libmemtap-rt.so", exe);
	return -ENOENT;
}

static bool tsc_usable(void)
{
	char cs[64], flags[4096];
	FILE *f;
	bool constant = false, nonstop = false;

	if (mt_read_line_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			      cs, sizeof(cs)) < 0 ||
	    strcmp(cs, "tsc"))
		return false;
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(flags, sizeof(flags), f)) {
		if (strncmp(flags, "flags", 5))
			continue;
		constant = strstr(flags, " constant_tsc") != NULL;
		nonstop = strstr(flags, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	return constant && nonstop;
}

int mt_alloc_open(struct mt_session *s)
{
	struct mt_alloc_state *a = calloc(1, sizeof(*a));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char ver[128] = "";
	uint8_t rnd[8] = { 0 };
	const char *orig;
	int r;

	if (!a)
		return -ENOMEM;
	a->lsock = -1;
	s->alloc = a;
	r = find_rt_lib(a->lib, sizeof(a->lib));
	if (r < 0 || access(a->lib, R_OK) < 0) {
		mt_err("cannot find the allocation runtime '%s' (hint: set MEMTAP_RT_LIB, or record "
		       "with --no-alloc)",
		       a->lib);
		return -ENOENT;
	}
	if (rt_lib_version(a->lib, ver, sizeof(ver)) < 0 || strcmp(ver, RT_VERSION)) {
		mt_err("the allocation runtime '%s' is %s, not '%s' (hint: use the runtime built with "
		       "this memtap, or record with --no-alloc)",
		       a->lib, ver[0] ? ver : "not a memtap runtime", RT_VERSION);
		return -EINVAL;
	}
	a->tsc = tsc_usable();
	(void)!getrandom(rnd, sizeof(rnd), GRND_NONBLOCK);
	snprintf(a->sockname, sizeof(a->sockname), "memtap-%d-%02x%02x%02x%02x%02x%02x",
		 (int)getpid(), rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
	a->lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->lsock < 0)
		return mt_err_code(-errno, "cannot create the runtime socket");
	memcpy(sa.sun_path + 1, a->sockname, strlen(a->sockname));
	if (bind(a->lsock, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a->sockname))) <
		    0 ||
	    listen(a->lsock, 512) < 0)
		return mt_err_code(-errno, "cannot listen for the runtime");
	orig = getenv("LD_PRELOAD");
	/* Ours first, so that a user-preloaded allocator is reached through memtap's hooks. */
	if (orig && *orig)
		snprintf(a->env_preload, sizeof(a->env_preload), "%s:%s", a->lib, orig);
	else
		mt_strlcpy(a->env_preload, a->lib, sizeof(a->env_preload));
	/* With ptrace the runtime hides its variables from the program, and the recorder puts
	 * them back into every exec'd image; without it they must stay visible to be inherited. */
	snprintf(a->env_conf, sizeof(a->env_conf),
		 "v=%d;sock=%s;depth=%u;time=%s;tevery=%u;slots=%u;hide=%d;pw=%d",
		 MT_RT_PROTO_VERSION, a->sockname, s->o->stack_depth, a->tsc ? "tsc" : "clock",
		 s->o->time_every, s->o->rt_slots, s->follow == MT_FOLLOW_PTRACE,
		 s->pagewrites != NULL);
	/* Tests shrink the runtime's tables to exercise their full paths (tbits=N;nodes=N). */
	if (getenv("MEMTAP_RT_TEST")) {
		size_t len = strlen(a->env_conf);

		snprintf(a->env_conf + len, sizeof(a->env_conf) - len, ";%s",
			 getenv("MEMTAP_RT_TEST"));
	}
	a->next_stream = 1;
	mt_alloc_calibrate(s);
	return 0;
}

const char *mt_alloc_rt_path(const struct mt_session *s)
{
	return s->alloc ? s->alloc->lib : NULL;
}

void mt_alloc_child_env(struct mt_session *s)
{
	setenv("LD_PRELOAD", s->alloc->env_preload, 1);
	setenv(MT_RT_ENV, s->alloc->env_conf, 1);
}

/* ---- time ---- */

/*
 * A calibration pair: the TSC around one CLOCK_MONOTONIC reading, the narrowest of three
 * tries (a pair is as exact as it is narrow: ~20 ns here). Pairs stay at least 50 ms apart
 * in the history; the newest one slides forward at every collection round instead, so
 * that every row drained was stamped before the last pair and is converted by
 * interpolation between two measured pairs, never by extrapolating a rate.
 */
static void calibrate(struct mt_alloc_state *a)
{
	struct cal best = { 0, 0 };
	uint64_t width = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = __rdtsc(), ns = mt_now_ns(), t1 = __rdtsc();

		if (t1 - t0 < width) {
			width = t1 - t0;
			best = (struct cal){ .tsc = t0 + (t1 - t0) / 2, .ns = ns };
		}
	}
	a->cal_gen++;
	if (a->ncal >= 2 && a->cal[a->ncal - 1].ns - a->cal[a->ncal - 2].ns < 50000000ull) {
		a->cal[a->ncal - 1] = best;
		return;
	}
	if (mt_grow_array(&a->cal, &a->cal_cap, a->ncal + 1, sizeof(*a->cal)) < 0)
		return;
	a->cal[a->ncal++] = best;
}

void mt_alloc_calibrate(struct mt_session *s)
{
	if (s->alloc && s->alloc->tsc)
		calibrate(s->alloc);
}

/* TSC to CLOCK_MONOTONIC: linear between the bracketing calibration pairs. A time past the
 * last pair (a row drained before the round's calibration) gets a new pair first: every
 * row's time is in the past, so it then lies between two pairs. */
#define RT_SEG_OK(a, t) ((a)->seg_gen == (a)->cal_gen && (t) >= (a)->seg_tsc && (t) < (a)->seg_end)
static uint64_t tsc_to_ns_slow(struct mt_alloc_state *a, uint64_t t);

static inline uint64_t tsc_to_ns(struct mt_alloc_state *a, uint64_t t)
{
	/* Rows come in time order per thread: the last segment almost always fits. */
	if (RT_SEG_OK(a, t))
		return a->seg_ns +
		       (uint64_t)(int64_t)((double)(int64_t)(t - a->seg_tsc) * a->seg_rate);
	return tsc_to_ns_slow(a, t);
}

static uint64_t tsc_to_ns_slow(struct mt_alloc_state *a, uint64_t t)
{
	size_t lo = 0, hi;
	double rate;

	if (a->ncal < 2 || t >= a->cal[a->ncal - 1].tsc)
		calibrate(a);
	if (a->ncal < 2) /* no memory for a second pair */
		return a->ncal ? a->cal[0].ns : mt_now_ns();
	hi = a->ncal;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (a->cal[mid].tsc <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (lo + 1 >= a->ncal)
		lo = a->ncal - 2;
	rate = (double)(a->cal[lo + 1].ns - a->cal[lo].ns) /
	       (double)(a->cal[lo + 1].tsc - a->cal[lo].tsc);
	a->seg_tsc = a->cal[lo].tsc;
	a->seg_ns = a->cal[lo].ns;
	a->seg_rate = rate;
	/* The last segment ends at its pair too: later times take a new one. A time before the
	 * first pair (rows stamped as the recording began) extends the first segment back. */
	a->seg_end = a->cal[lo + 1].tsc;
	a->seg_gen = a->cal_gen;
	return a->cal[lo].ns + (uint64_t)(int64_t)((double)(int64_t)(t - a->cal[lo].tsc) * rate);
}

/* ---- connections ---- */

static struct proc_rt *proc_get(struct mt_alloc_state *a, pid_t pid, bool create)
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
	mt_writer_kv(s->w, MT_CHUNK_STREAM, &kv);
	mt_kv_release(&kv);
}

/* Maps and validates a region handed over by a HELLO. */
static int conn_map(struct conn *c, int memfd, const struct mt_rt_hello *h)
{
	struct stat st;
	struct mt_rt_region hdr;
	void *p;

	if (fstat(memfd, &st) < 0 || (uint64_t)st.st_size < h->region_size ||
	    h->region_size < sizeof(struct mt_rt_region) || h->region_size > (16ull << 30))
		return -EINVAL;
	p = mmap(NULL, h->region_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(&hdr, p, sizeof(hdr));
	c->region = p;
	c->size = h->region_size;
	/* Everything read later is bounded by these checked copies. */
	if (hdr.magic != MT_RT_REGION_MAGIC || hdr.version != MT_RT_PROTO_VERSION ||
	    hdr.slot_words == 0 || hdr.slot_words > (1u << 20) ||
	    hdr.slot_size <
		    sizeof(struct mt_rt_slot) + (uint64_t)hdr.slot_words * sizeof(uint64_t) ||
	    hdr.slots_off < sizeof(struct mt_rt_region) || hdr.nslots == 0 || hdr.nslots > 65536 ||
	    hdr.slots_off + (uint64_t)hdr.nslots * hdr.slot_size > c->size || hdr.nodes_cap == 0 ||
	    hdr.nodes_cap > (1ull << 28) ||
	    hdr.nodes_off + hdr.nodes_cap * sizeof(struct mt_rt_node) > c->size ||
	    hdr.nodes_off < hdr.slots_off + (uint64_t)hdr.nslots * hdr.slot_size ||
	    hdr.ready_off < sizeof(struct mt_rt_region) || hdr.ready_off % 8 ||
	    hdr.ready_off + ((uint64_t)hdr.nslots + 63) / 64 * 8 > hdr.slots_off ||
	    hdr.free_off < sizeof(struct mt_rt_region) || hdr.free_off % 8 ||
	    hdr.free_off + ((uint64_t)hdr.nslots + 63) / 64 * 8 > hdr.slots_off) {
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
static void own_rss(struct mt_session *s, struct conn *c, uint64_t t, uint64_t anon, uint64_t shmem)
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
	own_rss(s, c, h->own_ns, h->own_anon, h->own_shmem);
}

static void on_hello(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;
	struct mt_rt_hello h;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	struct proc_rt *pr;
	int memfd = -1;
	ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		c->closed = true;
		return;
	}
	if (n < 0)
		return;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&memfd, CMSG_DATA(cm), sizeof(int));
	if (n != (ssize_t)sizeof(h) || h.type != MT_RT_MSG_HELLO ||
	    h.version != MT_RT_PROTO_VERSION || memfd < 0 || conn_map(c, memfd, &h) < 0) {
		mt_warn("a process sent a malformed runtime greeting; ignoring its allocations");
		if (memfd >= 0)
			close(memfd);
		c->closed = true;
		return;
	}
	close(memfd);
	c->pid = (pid_t)h.pid;
	c->stream = a->next_stream++;
	mt_debug("runtime of %d connected: stream %u", (int)c->pid, c->stream);
	write_stream_kv(s, c, &h);
	own_maps(s, c, &h);
	a->processes++;
	pr = proc_get(a, c->pid, true);
	/* A greeting from before the last exec (read late) is the old image's. */
	if (pr && h.time_ns >= pr->exec_ns)
		pr->rt_seen = true;
}

static void conn_accept(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	for (;;) {
		int fd = accept4(a->lsock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0)
			return;
		if (mt_grow_array(&a->conns, &a->conns_cap, a->nconns + 1, sizeof(*a->conns)) < 0) {
			close(fd);
			return;
		}
		c = &a->conns[a->nconns++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
	}
}

/* ---- draining ---- */

static struct mt_rt_slot *slot_at(struct conn *c, uint32_t i)
{
	return (struct mt_rt_slot *)((char *)c->region + c->slots_off + (uint64_t)i * c->slot_size);
}

static void emit(struct mt_session *s, struct conn *c, int b, const uint64_t *row)
{
	struct mt_block *blk = &c->blocks[b];

	if (!blk->cap && mt_block_init(blk, block_type[b], 16384) < 0)
		return;
	if (blk->count == blk->cap)
		mt_writer_block(s->w, c->stream, blk);
	mt_block_add(blk, row);
	c->events++;
	s->alloc_coll.events++;
}

/* Makes room for one row in the connection's alloc block; true when it cannot. */
static bool alloc_block_full(struct mt_session *s, struct conn *c, struct mt_block *blk)
{
	if (!blk->cap && mt_block_init(blk, MT_EV_ALLOC, 16384) < 0)
		return true;
	if (blk->count == blk->cap)
		mt_writer_block(s->w, c->stream, blk);
	return blk->count == blk->cap;
}

#define RT_UNLIKELY_BLK(blk) \
	(__builtin_expect((blk)->count >= (blk)->cap, 0) && alloc_block_full(s, c, (blk)))

/*
 * Fills in the times of rows the runtime did not time (it reads the clock on every Nth
 * event of a busy thread): linearly between the timed rows around them, the slot's end
 * time closing the last span. Returns how many were interpolated.
 */
static uint32_t slot_times(struct row_ref *ev, uint32_t n, uint64_t end)
{
	uint32_t a = 0, est = 0; /* a: the last timed row */

	if (!n)
		return 0;
	if (!ev[0].t) {
		/* Cannot happen with a well-behaved runtime: take the first time seen. */
		for (uint32_t i = 1; i < n && !ev[0].t; i++)
			ev[0].t = ev[i].t;
		if (!ev[0].t)
			ev[0].t = end;
	}
	for (uint32_t i = 1; i <= n; i++) {
		uint64_t tb = i < n ? ev[i].t : end;

		if (!tb)
			continue;
		if (i - a > 1) {
			uint64_t ta = ev[a].t, span = tb > ta ? tb - ta : 0;

			for (uint32_t k = a + 1; k < i; k++)
				ev[k].t = ta + (uint64_t)((double)span * (k - a) / (double)(i - a));
			est += i - a - 1;
		}
		if (i < n)
			a = i;
	}
	/* Trailing rows of a slot never handed over (the process was killed): the last time. */
	for (uint32_t k = a + 1; k < n; k++) {
		if (ev[k].t)
			continue;
		ev[k].t = ev[a].t;
		est++;
	}
	return est;
}

static void drain_slot(struct mt_session *s, struct conn *c, struct mt_rt_slot *sl)
{
	struct mt_alloc_state *a = s->alloc;
	uint32_t count = __atomic_load_n(&sl->count, __ATOMIC_ACQUIRE), tid = sl->tid, n = 0;
	const uint64_t *w = sl->words;
	uint64_t *last;

	if (count > c->slot_words) {
		c->bad_rows += count - c->slot_words;
		count = c->slot_words;
	}
	/* The rows: where each starts, and its time if the runtime read the clock. */
	for (uint32_t pos = 0; pos < count;) {
		uint64_t w0 = w[pos];
		unsigned len = mt_rt_row_words(w0);

		if (!len || pos + len > count) {
			c->bad_rows++; /* a row we cannot delimit: the rest of the slot is lost */
			break;
		}
		c->evs[n].pos = pos;
		c->evs[n++].t = (w0 & MT_RT_W0_TIME) ? w[pos + 1] : 0;
		pos += len;
	}
	a->time_est += slot_times(c->evs, n, sl->end_time);
	if (mt_map64_put(&c->last_ns, tid, &last) < 0) {
		c->bad_rows += n;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pos = c->evs[i].pos;
		uint64_t w0 = w[pos], addr = w0 & MT_RT_W0_ADDR, row[MT_MAX_FIELDS];
		unsigned kind = mt_rt_w0_kind(w0), flags = mt_rt_w0_flags(w0);
		const uint64_t *x = &w[pos + 1 + ((w0 & MT_RT_W0_TIME) ? 1 : 0)]; /* the rest */
		uint64_t t = a->tsc ? tsc_to_ns(a, c->evs[i].t) : c->evs[i].t;
		unsigned est = (w0 & MT_RT_W0_TIME) ? 0 : MT_ALLOC_F_TIME_EST;

		if (t < *last)
			t = *last;
		*last = t;
		if (kind <= MT_RT_FREE) {
			/* The hot case, millions per second: straight into the block's columns. */
			struct mt_block *blk = &c->blocks[B_ALLOC];
			uint32_t k;
			bool re = kind == MT_RT_REALLOC || kind == MT_RT_REALLOCARRAY;

			if (RT_UNLIKELY_BLK(blk))
				continue;
			k = blk->count++;
			blk->col[MT_F_TIME][k] = t;
			blk->col[MT_F_PID][k] = (uint64_t)c->pid;
			blk->col[MT_F_TID][k] = tid;
			blk->col[MT_F_ALLOC_KIND][k] = kind;
			blk->col[MT_F_ALLOC_ADDR][k] = addr;
			if (kind == MT_RT_FREE) {
				blk->col[MT_F_ALLOC_SIZE][k] = 0;
				blk->col[MT_F_ALLOC_USABLE][k] = 0;
				blk->col[MT_F_ALLOC_STACK][k] = 0;
			} else {
				blk->col[MT_F_ALLOC_SIZE][k] = x[0];
				blk->col[MT_F_ALLOC_USABLE][k] = addr ? x[0] + (x[1] >> 32) : 0;
				blk->col[MT_F_ALLOC_STACK][k] = x[1] & 0xffffffffu;
			}
			blk->col[MT_F_ALLOC_OLD][k] = re ? x[2] : 0;
			blk->col[MT_F_ALLOC_FLAGS][k] = flags | est;
			c->events++;
			s->alloc_coll.events++;
			continue;
		}
		memset(row, 0, sizeof(row));
		row[MT_F_TIME] = t;
		row[MT_F_PID] = (uint64_t)c->pid;
		row[MT_F_TID] = tid;
		switch (kind) {
		case MT_RT_MMAP:
			row[MT_F_MMAP_ADDR] = addr;
			row[MT_F_MMAP_LEN] = x[0];
			row[MT_F_MMAP_PGOFF] = (x[2] >> 32) & 0x20 /* MAP_ANONYMOUS */ ? 0 : x[1];
			row[MT_F_MMAP_PROT] = x[2] & 0xffffffffu;
			row[MT_F_MMAP_FLAGS] = x[2] >> 32;
			row[MT_F_MMAP_ORIGIN] = MT_MMAP_RT;
			row[MT_F_MMAP_STACK] = x[3] & 0xffffffffu;
			emit(s, c, B_MMAP, row);
			break;
		case MT_RT_MUNMAP:
			row[MT_F_MUNMAP_ADDR] = addr;
			row[MT_F_MUNMAP_LEN] = x[0];
			row[MT_F_MUNMAP_STACK] = x[1] & 0xffffffffu;
			emit(s, c, B_MUNMAP, row);
			break;
		case MT_RT_MREMAP:
			row[MT_F_MREMAP_ADDR] = addr;
			row[MT_F_MREMAP_LEN] = x[0];
			row[MT_F_MREMAP_OLD_ADDR] = x[1];
			row[MT_F_MREMAP_OLD_LEN] = x[2] & ((1ull << 48) - 1);
			row[MT_F_MREMAP_FLAGS] = x[2] >> 48;
			row[MT_F_MREMAP_STACK] = x[3] & 0xffffffffu;
			emit(s, c, B_MREMAP, row);
			break;
		case MT_RT_BRK:
			row[MT_F_BRK_NEW] = addr;
			row[MT_F_BRK_OLD] = x[0];
			row[MT_F_BRK_STACK] = x[1] & 0xffffffffu;
			emit(s, c, B_BRK, row);
			break;
		case MT_RT_OWN:
			/* memtap's own resident memory from t: the runtime's exact totals */
			own_rss(s, c, t, x[0], x[1]);
			break;
		default:
			c->bad_rows++;
			break;
		}
	}
}

/* New stack nodes, in id order up to the first one not yet written. */
static void send_nodes(struct mt_session *s, struct conn *c)
{
	const struct mt_rt_node *nodes = (const void *)((char *)c->region + c->nodes_off);
	uint64_t first = c->nodes_sent, id = first;
	uint64_t parents[4096], ips[4096];
	size_t n = 0;

	/* A ring: id's node is at id % cap once its id field says so (stored last). */
	for (;;) {
		const struct mt_rt_node *nd = &nodes[id % c->nodes_cap];
		uint32_t parent;

		if (id > UINT32_MAX || __atomic_load_n(&nd->id, __ATOMIC_ACQUIRE) != (uint32_t)id)
			break;
		parent = nd->parent;
		if (parent >= id)
			parent =
				0; /* corrupt: make it a root rather than break the format's rule */
		parents[n] = parent;
		ips[n++] = nd->ip;
		id++;
		if (n == 4096) {
			mt_writer_stacks(s->w, c->stream, first, n, parents, ips);
			s->alloc->nodes += n;
			first = id;
			n = 0;
			/* The writer holds its copy: the runtime may reuse these places. */
			__atomic_store_n(&c->region->nodes_done, id, __ATOMIC_RELEASE);
		}
	}
	if (n) {
		mt_writer_stacks(s->w, c->stream, first, n, parents, ips);
		s->alloc->nodes += n;
	}
	c->nodes_sent = id;
	__atomic_store_n(&c->region->nodes_done, id, __ATOMIC_RELEASE);
}

/* Slot acquisition order; the workload wrote seq, so it only orders, never indexes. */
static int cmp_seq(const void *a, const void *b)
{
	const struct ready_ent *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void slot_release(struct conn *c, struct mt_rt_slot *sl)
{
	uint64_t *fb = (uint64_t *)((char *)c->region + c->free_off);
	uint32_t i = (uint32_t)(((char *)sl - ((char *)c->region + c->slots_off)) / c->slot_size);

	__atomic_store_n(&sl->count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sl->state, MT_RT_SLOT_FREE, __ATOMIC_RELEASE);
	__atomic_or_fetch(&fb[i / 64], 1ull << (i % 64), __ATOMIC_RELEASE);
}

/*
 * Drains the READY slots the ready bitmap names; with all set, every slot holding rows (the
 * process is gone); with dead_tid, also the FILLING slots of that exited thread. Returns the
 * number of slots drained.
 */
static unsigned conn_drain(struct mt_session *s, struct conn *c, bool all, uint32_t dead_tid)
{
	uint64_t *bits;
	unsigned n = 0;
	uint32_t nready = 0;

	if (!c->region)
		return 0;
	bits = (uint64_t *)((char *)c->region + c->ready_off);
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
			if (__atomic_load_n(&slot_at(c, i)->state, __ATOMIC_ACQUIRE) !=
			    MT_RT_SLOT_READY)
				continue; /* the workload scribbled on the bitmap */
			c->ready[nready].seq = slot_at(c, i)->seq;
			c->ready[nready++].idx = i;
		}
	}
	/* A thread's slots in the order it filled them. */
	qsort(c->ready, nready, sizeof(*c->ready), cmp_seq);
	for (uint32_t k = 0; k < nready; k++) {
		struct mt_rt_slot *sl = slot_at(c, c->ready[k].idx);

		drain_slot(s, c, sl);
		slot_release(c, sl);
		__atomic_sub_fetch(&c->region->ready_pending, 1, __ATOMIC_RELEASE);
		n++;
	}
	if (all || dead_tid) {
		/* Rare: scan every slot for rows a thread could not hand over. */
		for (uint32_t i = 0; i < c->nslots; i++) {
			struct mt_rt_slot *sl = slot_at(c, i);
			uint32_t st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);

			/* READY slots are the bitmap's, except when the process is gone. */
			if ((st == MT_RT_SLOT_READY && all) ||
			    (st == MT_RT_SLOT_FILLING && (all || sl->tid == dead_tid))) {
				drain_slot(s, c, sl);
				slot_release(c, sl);
				n++;
			}
		}
	}
	send_nodes(s, c);
	return n;
}

static void conn_flush(struct mt_session *s, struct conn *c)
{
	for (int b = 0; b < NBLOCKS; b++)
		if (c->blocks[b].count)
			mt_writer_block(s->w, c->stream, &c->blocks[b]);
}

static void conn_close(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;
	struct mt_rt_region *r = c->region;

	if (r) {
		conn_drain(s, c, true, 0);
		conn_flush(s, c);
		mt_debug("runtime stream %u of %d closed: %llu events", c->stream, (int)c->pid,
			 (unsigned long long)c->events);
		a->events += c->events;
		a->stalls += r->stalls;
		a->stall_ns += r->stall_ns;
		a->notifies += r->notifies;
		a->dropped += r->dropped;
		a->labels_dropped += r->labels_dropped;
		if (r->labels_dropped)
			mt_emit_lost(s, mt_now_ns(), &s->alloc_coll, r->labels_dropped,
				     "memtap.h labels: the runtime's socket stayed full");
		a->guard += r->guard_events;
		a->truncated += r->truncated;
		a->depth_limited += r->depth_limited;
		a->rule_misses += r->rule_misses;
		a->unsupported += r->unsupported;
		a->trie_full += r->trie_full;
		a->trie_resets += r->trie_resets;
		a->own_lost += r->own_reports_lost;
		a->own_outside += r->own_outside;
		a->node_waits += r->node_waits;
		for (int k = 0; k < MT_RT_TRUNC_MAX; k++)
			a->trunc[k] += r->trunc[k];
		a->memo_hits += r->memo_hits;
		a->walked += r->frames_walked;
		a->reused += r->frames_reused;
		a->bad_rows += c->bad_rows;
		if (r->dropped)
			mt_emit_lost(
				s, mt_now_ns(), &s->alloc_coll, r->dropped,
				"runtime found no free slot for a second, or a nested hook overflowed");
		munmap(r, c->size);
		c->region = NULL;
	}
	for (int b = 0; b < NBLOCKS; b++)
		mt_block_release(&c->blocks[b]);
	mt_map64_release(&c->last_ns);
	free(c->ready);
	free(c->evs);
	c->ready = NULL;
	c->evs = NULL;
	close(c->fd);
	c->fd = -1;
}

int mt_alloc_npollfds(struct mt_session *s)
{
	return s->alloc ? 1 + (int)s->alloc->nconns : 0;
}

int mt_alloc_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	struct mt_alloc_state *a = s->alloc;
	int n = 0;

	if (!a || max < 1)
		return 0;
	fds[n++] = (struct pollfd){ .fd = a->lsock, .events = POLLIN };
	for (size_t i = 0; i < a->nconns && n < max; i++)
		fds[n++] = (struct pollfd){ .fd = a->conns[i].fd, .events = POLLIN };
	return n;
}

/* A memtap.h call: a label, an unlabel or a phase, as LABEL and PHASE events. */
static void on_label(struct mt_session *s, struct conn *c, const struct mt_rt_label *h, size_t n)
{
	const char *str = (const char *)(h + 1);
	uint64_t row[MT_MAX_FIELDS] = { 0 };
	struct mt_alloc_state *a = s->alloc;

	if (h->type_len > MT_RT_LABEL_TYPE_MAX || h->name_len > MT_RT_LABEL_NAME_MAX ||
	    n != sizeof(*h) + h->type_len + h->name_len || h->op > MT_RT_PHASE) {
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

/* NOTIFY bytes and memtap.h labels: reads them all; EOF closes. */
static void read_conn(struct mt_session *s, struct conn *c)
{
	for (;;) {
		union {
			struct mt_rt_label h;
			struct mt_rt_own own;
			char b[sizeof(struct mt_rt_label) + MT_RT_LABEL_TYPE_MAX +
			       MT_RT_LABEL_NAME_MAX + 1];
		} buf;
		const struct mt_rt_own *own = &buf.own;
		ssize_t r = recv(c->fd, &buf, sizeof(buf), MSG_DONTWAIT);

		if (r >= (ssize_t)sizeof(buf.h) && buf.h.type == MT_RT_MSG_LABEL)
			on_label(s, c, &buf.h, (size_t)r);
		else if (r == (ssize_t)sizeof(*own) && own->type == MT_RT_MSG_OWN)
			own_rss(s, c, own->time_ns, own->anon, own->shmem);
		if (r > 0)
			continue;
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			c->closed = true;
		break;
	}
}

void mt_alloc_handle(struct mt_session *s, const struct pollfd *fds, int n)
{
	struct mt_alloc_state *a = s->alloc;
	size_t nconns;

	if (!a || n < 1)
		return;
	nconns = a->nconns;
	for (int k = 1; k < n && (size_t)(k - 1) < nconns; k++) {
		struct conn *c = &a->conns[k - 1];

		if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (!c->region) {
			on_hello(s, c);
			continue;
		}
		read_conn(s, c);
	}
	if (fds[0].revents & POLLIN)
		conn_accept(s);
	mt_alloc_drain(s);
}

void mt_alloc_drain(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;
	unsigned drained = 0;
	size_t j = 0;

	if (!a)
		return;
	for (size_t i = 0; i < a->nconns; i++) {
		struct conn *c = &a->conns[i];

		if (c->closed) {
			conn_close(s, c);
			continue;
		}
		drained += conn_drain(s, c, false, 0);
		a->conns[j++] = *c;
	}
	a->nconns = j;
	/* Collect often while slots fill, back off while the processes are quiet. */
	if (drained)
		a->interval_ms = 1;
	else if (a->interval_ms < 64)
		a->interval_ms = a->interval_ms ? a->interval_ms * 2 : 1;
}

int mt_alloc_timeout_ms(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	return a && a->nconns ? (int)a->interval_ms : -1;
}

void mt_alloc_flush(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = 0; a && i < a->nconns; i++)
		conn_flush(s, &a->conns[i]);
}

/* ---- lifecycle ---- */

/* Why an exec'd image cannot carry the runtime, from its ELF headers and file mode. */
static void untraceable_reason(pid_t pid, char *buf, size_t size)
{
	char path[64];
	struct stat st;
	int fd;
	Elf *e;
	size_t n;
	bool interp = false;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		buf[0] = 0;
		return;
	}
	if (fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) &&
	    (st.st_uid != getuid() || st.st_gid != getgid())) {
		mt_strlcpy(buf, "setuid/setgid program: the loader ignores LD_PRELOAD", size);
		close(fd);
		return;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && (gelf_getclass(e) != ELFCLASS64)) {
		mt_strlcpy(buf, "32-bit program: the 64-bit runtime cannot be loaded into it",
			   size);
	} else if (e && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				interp = true;
		}
		mt_strlcpy(buf, interp ? "" : "static binary: nothing can be preloaded", size);
	} else {
		mt_strlcpy(buf, "not an ELF executable", size);
	}
	if (e)
		elf_end(e);
	close(fd);
}

void mt_alloc_on_exec(struct mt_session *s, pid_t pid)
{
	struct proc_rt *p;

	if (!s->alloc)
		return;
	p = proc_get(s->alloc, pid, true);
	if (!p)
		return;
	p->exec_seen = true;
	p->rt_seen = false;
	p->exec_ns = mt_now_ns();
	/* The process is stopped at its exec: the image is in place, nothing has run yet. */
	untraceable_reason(pid, p->reason, sizeof(p->reason));
	if (!p->reason[0] && s->follow == MT_FOLLOW_PTRACE) {
		int r = mt_inject_env(pid, s->alloc->lib, s->alloc->env_conf);

		mt_debug("exec of %d: runtime environment %s (%d)", (int)pid,
			 r < 0 ? "not added" : "added", r);

		if (r < 0 && r != -ENOEXEC)
			snprintf(p->reason, sizeof(p->reason),
				 "could not give it the runtime's environment (%s)", strerror(-r));
	}
}

void mt_alloc_on_thread_exit(struct mt_session *s, pid_t pid, pid_t tid)
{
	struct mt_alloc_state *a = s->alloc;

	for (size_t i = 0; a && i < a->nconns; i++)
		if (a->conns[i].pid == pid && a->conns[i].region)
			conn_drain(s, &a->conns[i], false, (uint32_t)tid);
}

/*
 * Greetings that may still wait in the socket: a short-lived process can connect, run and
 * exit before the recorder's loop gets to new connections. Once it has exited, its
 * greeting is there.
 */
static void accept_pending(struct mt_session *s)
{
	struct mt_alloc_state *a = s->alloc;

	conn_accept(s);
	for (size_t i = 0; i < a->nconns; i++)
		if (!a->conns[i].region && !a->conns[i].closed)
			on_hello(s, &a->conns[i]);
}

void mt_alloc_read_messages(struct mt_session *s, pid_t pid)
{
	struct mt_alloc_state *a = s->alloc;

	if (!a)
		return;
	accept_pending(s);
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].pid == pid && a->conns[i].region && !a->conns[i].closed)
			read_conn(s, &a->conns[i]);
}

void mt_alloc_on_process_exit(struct mt_session *s, pid_t pid)
{
	struct mt_alloc_state *a = s->alloc;
	struct proc_rt *p;
	size_t len;

	if (!a)
		return;
	accept_pending(s);
	if (!(p = proc_get(a, pid, false)))
		return;
	if (p->exec_seen && !p->rt_seen) {
		a->nuntraced++;
		len = strlen(a->untraced);
		if (len + 120 < sizeof(a->untraced))
			snprintf(a->untraced + len, sizeof(a->untraced) - len, "%s%d: %s",
				 len ? "; " : "", (int)pid,
				 p->reason[0] ? p->reason : "the runtime did not load");
	}
	p->pid = -1; /* the pid may be reused */
}

void mt_alloc_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_alloc_state *a = s->alloc;
	char buf[64];

	if (!a)
		return;
	accept_pending(s);
	/* memtap.h messages still queued when the workload ended are the workload's too. */
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].region && !a->conns[i].closed)
			read_conn(s, &a->conns[i]);
	mt_alloc_drain(s);
	for (size_t i = 0; i < a->nconns; i++)
		conn_close(s, &a->conns[i]);
	a->nconns = 0;
	if (!a->processes && a->nuntraced) {
		/* Nothing could take the runtime (a static binary, setuid): say so, never
		 * "active" with no events. */
		mt_strlcpy(s->alloc_coll.status, "unavailable", sizeof(s->alloc_coll.status));
		size_t n = mt_strlcpy(s->alloc_coll.reason,
				      "the runtime could not be preloaded into any process: ",
				      sizeof(s->alloc_coll.reason));

		if (n < sizeof(s->alloc_coll.reason))
			mt_strlcpy(s->alloc_coll.reason + n, a->untraced,
				   sizeof(s->alloc_coll.reason) - n);
	}
	if (kv) {
		mt_kv_add(kv, "runtime", a->lib);
		mt_kv_add(kv, "time",
			  a->tsc ? "tsc (converted to CLOCK_MONOTONIC by the recorder)"
				 : "CLOCK_MONOTONIC");
		mt_kv_add_u64(kv, "stack_depth", s->o->stack_depth);
		mt_kv_add_u64(kv, "processes_traced", a->processes);
		mt_kv_add_u64(kv, "processes_untraced", a->nuntraced);
		if (a->untraced[0])
			mt_kv_add(kv, "untraced", a->untraced);
		mt_kv_add_u64(kv, "stack_nodes", a->nodes);
		mt_kv_add_u64(kv, "labels", a->labels); /* memtap.h labels and phases */
		mt_kv_add_u64(kv, "labels_dropped", a->labels_dropped);
		mt_kv_add_u64(kv, "labels_malformed", a->bad_labels);
		mt_kv_add_u64(kv, "stacks_truncated", a->truncated);
		mt_kv_add_u64(kv, "stacks_depth_limited", a->depth_limited);
		mt_kv_add_u64(kv, "events_without_stack_nested", a->guard);
		mt_kv_add_u64(kv, "unwind_rule_misses", a->rule_misses);
		mt_kv_add_u64(kv, "unwind_unsupported", a->unsupported);
		for (int k = 0; k < MT_RT_TRUNC_MAX; k++) {
			char key[64];

			snprintf(key, sizeof(key), "stacks_truncated_%s",
				 mt_rt_trunc_name((unsigned)k));
			mt_kv_add_u64(kv, key, a->trunc[k]);
		}
		mt_kv_add_u64(kv, "unwind_trie_full", a->trie_full);
		mt_kv_add_u64(kv, "unwind_trie_resets", a->trie_resets);
		mt_kv_add_u64(kv, "unwind_node_waits", a->node_waits);
		/* memtap's own memory: its reports the socket lost (their times only), and bytes
		 * the runtime had to map outside its arena (not identified as memtap's) */
		mt_kv_add_u64(kv, "own_memory_reports_lost", a->own_lost);
		mt_kv_add_u64(kv, "own_memory_outside_arena", a->own_outside);
		mt_kv_add_u64(kv, "unwind_frames_walked", a->walked);
		mt_kv_add_u64(kv, "unwind_frames_reused", a->reused);
		mt_kv_add_u64(kv, "unwind_memo_hits", a->memo_hits);
		mt_kv_add_u64(kv, "time_every", s->o->time_every);
		mt_kv_add_u64(kv, "events_time_interpolated", a->time_est);
		mt_kv_add_u64(kv, "runtime_stalls", a->stalls);
		mt_kv_add_u64(kv, "runtime_wakeups", a->notifies);
		snprintf(buf, sizeof(buf), "%.3f", (double)a->stall_ns / 1e6);
		mt_kv_add(kv, "runtime_stall_ms", buf);
		mt_kv_add_u64(kv, "malformed_rows", a->bad_rows);
	}
	if (a->lsock >= 0)
		close(a->lsock);
	a->lsock = -1;
	free(a->conns);
	free(a->cal);
	free(a->procs);
	free(a);
	s->alloc = NULL;
}
