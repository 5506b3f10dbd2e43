/* SPDX-License-Identifier: MIT */
/* The access collector: per-CPU inherited sampling events, decoded into ACCESS events. */
#include "record/access.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/strutil.h"
#include "decode/insn.h"
#include "decode/sample.h"
#include "format/chunk.h"
#include "format/schema.h"
#include "format/writer.h"
#include "record/calibrate.h"
#include "record/perf.h"
#include "record/probe.h"
#include "record/session.h"
#include "record/sysinfo.h"

/*
 * Software path (regs, timer): ordinary samples carry the user registers; the instruction
 * at the sampled IP and the few before it are decoded (src/decode/insn.c) with code bytes
 * read from the live process (process_vm_readv, cached per page, dropped at exec and on
 * new executable mappings). fs:/gs: operands need the thread's segment base, which no
 * sample carries: it is read with PTRACE_GETREGS at each thread's first ptrace stop and,
 * after an exec (the dynamic loader sets it later), at a PTRACE_INTERRUPT stop requested
 * on the thread's first sample. Precise path (PEBS, IBS): the hardware reports the data
 * address, data source and latency.
 */

#define RING_PAGES 512 /* 2 MiB per CPU: no lost samples at 10 kHz in the prototype */
#define CACHE_PAGES 1024 /* code pages cached, direct-mapped by (pid, page) */
#define PAGE 4096ull
#define FS_RETRY_NS 50000000ull /* re-ask a thread for its fs base at most every 50 ms */

struct code_page {
	pid_t pid;
	uint64_t page; /* address; 0: empty */
	int err; /* 0, or the errno of a failed read (cached too: unmapped stays unmapped) */
	uint8_t bytes[PAGE];
};

struct thread_seg {
	uint64_t fs, gs;
	bool known;
	bool asked;
	uint64_t asked_ns;
};

struct mt_access_state {
	struct mt_perf_ring *rings;
	int nrings;
	int *store_fds; /* PEBS: the mem-stores event of each CPU, writing into its ring */
	bool stores;
	int mech;
	uint64_t sample_type;
	uint64_t regs_mask;
	char event[96];
	const char *unit;
	uint64_t period, freq;
	bool ptrace_seg;
	double cost_ns; /* measured cost of one sample, 0 when not calibrated */
	uint64_t cost_age_ns; /* how long ago it was measured (0: by this recording) */
	const char *rate_from; /* how the rate was chosen */

	uint64_t samples, resolved, unresolved[_MT_UNRES_MAX], accesses;
	uint64_t throttles, unthrottles, lost, malformed;
	uint64_t fs_interrupts, code_reads, code_read_errors;
	uint64_t decode_ns;

	struct mt_map64 seg_ix; /* tid -> index into segs */
	struct thread_seg *segs;
	size_t nsegs, segs_cap;
	struct mt_map64 exec_ns; /* pid -> time of its last exec */
	struct code_page *cache; /* CACHE_PAGES entries */
};

static const char *const mech_names[] = { "pebs", "ibs", "spe", "regs", "timer" };

const char *mt_access_mech_name(int mech)
{
	return mech >= 0 && mech <= MT_MECH_TIMER ? mech_names[mech] : "none";
}

int mt_access_choose(enum mt_access_mode mode, char *why, size_t size)
{
	static const struct {
		enum mt_access_mode mode;
		enum mt_feat feat;
		int mech;
	} order[] = {
		{ MT_ACCESS_MODE_PEBS, MT_FEAT_PEBS, MT_MECH_PEBS },
		{ MT_ACCESS_MODE_IBS, MT_FEAT_IBS, MT_MECH_IBS },
		{ MT_ACCESS_MODE_SPE, MT_FEAT_SPE, MT_MECH_SPE },
		{ MT_ACCESS_MODE_REGS, MT_FEAT_REGS_HW, MT_MECH_REGS },
		{ MT_ACCESS_MODE_TIMER, MT_FEAT_REGS_SW, MT_MECH_TIMER },
	};

	why[0] = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (mode != MT_ACCESS_AUTO && mode != order[i].mode)
			continue;
		/* SPE samples are not decoded by this build (x86-64 only). */
		if (order[i].mech == MT_MECH_SPE) {
#if !defined(__aarch64__)
			if (mode == MT_ACCESS_MODE_SPE)
				snprintf(why, size, "%s", mt_probe(MT_FEAT_SPE)->detail);
			continue;
#endif
		}
		if (mt_feat_ok(order[i].feat))
			return order[i].mech;
		if (mode != MT_ACCESS_AUTO) {
			snprintf(why, size, "%s", mt_probe(order[i].feat)->detail);
			return -1;
		}
	}
	if (!why[0])
		snprintf(why, size, "no sampling mechanism works here: %s",
			 mt_probe(MT_FEAT_REGS_SW)->detail);
	return -1;
}

/*
 * The default rate of decoded samples, the same on every run and machine, so that two runs'
 * sample-based figures (working sets, retention, intervals) compare: 1 kHz per thread of CPU
 * time, a 1 ms cpu-clock period. The calibration (record/calibrate.c) only measures what
 * that costs here, and warns above CAL_BUDGET; --access-freq or --access-period set another
 * rate.
 */
#define DEFAULT_FREQ 1000
#define CAL_BUDGET 0.05

/* Builds the attr of mechanism mech; returns 0 or -ENOTSUP. */
static int make_attr(struct mt_session *s, struct mt_access_state *a, struct perf_event_attr *at)
{
	const struct mt_record_opts *o = s->o;
	uint64_t freq = o->access_freq ? o->access_freq : DEFAULT_FREQ;

	memset(at, 0, sizeof(*at));
	at->size = sizeof(*at);
	at->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	switch (a->mech) {
	case MT_MECH_TIMER:
		at->type = PERF_TYPE_SOFTWARE;
		at->config = PERF_COUNT_SW_CPU_CLOCK;
		/* A fixed period in nanoseconds: every sample stands for the same CPU time. */
		at->sample_period = o->access_period ? o->access_period : 1000000000ull / freq;
		at->sample_type |= PERF_SAMPLE_REGS_USER;
		at->sample_regs_user = MT_PERF_REGS_MASK;
		snprintf(a->event, sizeof(a->event), "cpu-clock");
		a->unit = "ns";
		break;
	case MT_MECH_REGS:
		at->type = PERF_TYPE_HARDWARE;
		at->config = PERF_COUNT_HW_CPU_CYCLES;
		at->sample_type |= PERF_SAMPLE_REGS_USER;
		at->sample_regs_user = MT_PERF_REGS_MASK;
		snprintf(a->event, sizeof(a->event), "cycles");
		a->unit = "cycles";
		break;
	case MT_MECH_PEBS: {
		char ev[128];
		uint64_t config = 0, config1 = 0;

		if (mt_read_line_file("/sys/bus/event_source/devices/cpu/events/mem-loads", ev,
				      sizeof(ev)) < 0)
			return -ENOTSUP;
		at->type = PERF_TYPE_RAW;
		mt_intel_event_parse(ev, &config, &config1);
		at->config = config;
		at->config1 = 30; /* load latency threshold in cycles, as perf mem uses */
		at->precise_ip = 2;
		at->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
				   PERF_SAMPLE_DATA_SRC;
		snprintf(a->event, sizeof(a->event), "mem-loads,ldlat=30+mem-stores");
		a->unit = "loads";
		if (!o->access_period)
			at->sample_period =
				2003; /* perf mem's default is a frequency; fixed is exact */
		break;
	}
	case MT_MECH_IBS: {
		int type = mt_sysctl_int("/sys/bus/event_source/devices/ibs_op/type", -1);

		if (type < 0)
			return -ENOTSUP;
		at->type = (uint32_t)type;
		at->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
		snprintf(a->event, sizeof(a->event), "ibs_op");
		a->unit = "ops";
		if (!o->access_period)
			at->sample_period = 0x10000 * 4; /* IBS needs periods in steps of 16 */
		break;
	}
	default:
		return -ENOTSUP;
	}
	if (o->access_period) {
		at->sample_period = o->access_period;
	} else if (!at->sample_period) {
		at->freq = 1;
		at->sample_freq = freq;
	}
	a->period = at->freq ? 0 : at->sample_period;
	a->freq = at->freq ? at->sample_freq : 0;
	a->sample_type = at->sample_type;
	a->regs_mask = at->sample_regs_user;
	mt_perf_attr_follow(at, RING_PAGES * PAGE / 8);
	at->exclude_kernel = a->mech != MT_MECH_IBS; /* IBS refuses exclude_kernel */
	at->exclude_hv = 1;
	return 0;
}

/*
 * PEBS samples stores with a second event (mem-stores: precise store addresses, no
 * latency), redirected into the loads event's ring so one drain sees both in order. A CPU
 * without it samples loads only; the collector says which.
 */
struct pebs_follow {
	struct mt_access_state *a;
	const struct perf_event_attr *loads;
	pid_t pid;
};

static int open_pebs_stores(void *ctx, int cpu, const struct mt_perf_ring *ring)
{
	struct pebs_follow *pf = ctx;
	struct mt_access_state *a = pf->a;
	struct perf_event_attr at = *pf->loads;
	uint64_t config = 0, config1 = 0;
	char ev[128];
	int fd;

	if (!a->store_fds) {
		a->store_fds = malloc((size_t)a->nrings * sizeof(int));
		if (!a->store_fds)
			return 0;
		for (int i = 0; i < a->nrings; i++)
			a->store_fds[i] = -1;
	}
	if (mt_read_line_file("/sys/bus/event_source/devices/cpu/events/mem-stores", ev,
			      sizeof(ev)) < 0)
		return 0;
	mt_intel_event_parse(ev, &config, &config1);
	at.config = config;
	at.config1 = 0;
	fd = mt_perf_open_follower(&at, pf->pid, cpu, ring);
	if (fd < 0)
		return 0; /* loads only: the collector says so */
	a->store_fds[cpu] = fd;
	a->stores = true;
	return 0;
}

int mt_access_open(struct mt_session *s, int mech)
{
	struct mt_access_state *a = calloc(1, sizeof(*a));
	struct perf_event_attr at;
	struct pebs_follow pebs;
	unsigned pages = RING_PAGES;
	int ncpu = mt_perf_ncpus(), err = 0, opened = 0, r;

	if (!a)
		return -ENOMEM;
	a->mech = mech;
	mt_map64_init(&a->seg_ix);
	mt_map64_init(&a->exec_ns);
	a->cache = calloc(CACHE_PAGES, sizeof(*a->cache));
	a->rings = calloc((size_t)ncpu, sizeof(*a->rings));
	if (!a->cache || !a->rings) {
		err = -ENOMEM;
		goto fail;
	}
	for (int cpu = 0; cpu < ncpu; cpu++)
		a->rings[cpu].fd = -1;
	a->nrings = ncpu;
	r = make_attr(s, a, &at);
	if (r < 0) {
		err = r;
		goto fail;
	}
	a->rate_from = s->o->access_freq || s->o->access_period ? "option" : "default";
	if (mech == MT_MECH_TIMER || mech == MT_MECH_REGS) {
		/* What the rate costs here, said when it is much; the rate itself never moves. */
		a->cost_ns = mt_calibrate_sample(&at, &a->cost_age_ns);
		if (a->cost_ns > 0) {
			double hz = at.freq ? (double)at.sample_freq
					    : 1e9 / (double)at.sample_period;
			double share = a->cost_ns * hz / 1e9;

			if (share > CAL_BUDGET && !s->o->quiet)
				mt_warn("access sampling costs ~%.0f us per sample on this machine: "
					"%.0f%% of the workload's CPU time at %.0f Hz (--access-freq "
					"sets a lower rate)",
					a->cost_ns / 1000, share * 100, hz);
		}
	}
	pebs.a = a;
	pebs.loads = &at;
	pebs.pid = s->root;
	opened = mt_perf_rings_open(&at, s->root, a->rings, ncpu, &pages, RING_PAGES,
				    mech == MT_MECH_PEBS ? open_pebs_stores : NULL, &pebs);
	if (opened <= 0) {
		err = opened < 0 ? opened : -ENODEV;
		goto fail;
	}
	a->ptrace_seg = s->follow == MT_FOLLOW_PTRACE;
	s->access = a;
	snprintf(s->access_coll.mechanism, sizeof(s->access_coll.mechanism), "%s(%.40s)%s",
		 mech_names[mech], a->event,
		 mech == MT_MECH_REGS || mech == MT_MECH_TIMER ? "+decode" : "");
	return 0;
fail:
	for (int i = 0; a->store_fds && i < a->nrings; i++)
		if (a->store_fds[i] >= 0)
			mt_perf_close(a->store_fds[i]);
	free(a->store_fds);
	for (int i = 0; a->rings && i < a->nrings; i++)
		mt_perf_ring_close(&a->rings[i]);
	free(a->rings);
	free(a->cache);
	mt_map64_release(&a->seg_ix);
	mt_map64_release(&a->exec_ns);
	free(a);
	return err;
}

int mt_access_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	return s->access ? mt_perf_rings_pollfds(s->access->rings, s->access->nrings, fds, max) : 0;
}

static struct thread_seg *seg_of(struct mt_access_state *a, pid_t tid, bool create)
{
	uint64_t *ix = mt_map64_get(&a->seg_ix, (uint64_t)tid);

	if (ix)
		return &a->segs[*ix];
	if (!create || mt_grow_array(&a->segs, &a->segs_cap, a->nsegs + 1, sizeof(*a->segs)) < 0 ||
	    mt_map64_put(&a->seg_ix, (uint64_t)tid, &ix) < 0)
		return NULL;
	*ix = a->nsegs;
	memset(&a->segs[a->nsegs], 0, sizeof(a->segs[0]));
	return &a->segs[a->nsegs++];
}

void mt_access_on_stop(struct mt_session *s, pid_t tid)
{
	struct mt_access_state *a = s->access;
	struct user_regs_struct r;
	struct thread_seg *g;

	if (!a || !(g = seg_of(a, tid, true)))
		return;
	g->asked = false;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return;
	g->fs = r.fs_base;
	g->gs = r.gs_base;
	/* Right after an exec the loader has not set up TLS yet: fs base 0 is not an answer. */
	g->known = r.fs_base != 0;
}

static void drop_code(struct mt_access_state *a, pid_t pid)
{
	for (size_t i = 0; i < CACHE_PAGES; i++)
		if (a->cache[i].pid == pid)
			a->cache[i].page = 0;
}

void mt_access_on_code_map(struct mt_session *s, pid_t pid, uint64_t addr, uint64_t len)
{
	struct mt_access_state *a = s->access;

	if (!a)
		return;
	/* New code where cached pages were (dlopen after dlclose, JIT): read it again. */
	for (size_t i = 0; i < CACHE_PAGES; i++)
		if (a->cache[i].pid == pid && a->cache[i].page + PAGE > addr &&
		    a->cache[i].page < addr + len)
			a->cache[i].page = 0;
}

void mt_access_on_exec(struct mt_session *s, pid_t pid, pid_t tid, uint64_t t)
{
	struct mt_access_state *a = s->access;
	struct thread_seg *g;
	uint64_t *v;

	if (!a)
		return;
	/* Samples of the old image still in the rings can no longer be decoded. */
	mt_access_drain(s);
	if (mt_map64_put(&a->exec_ns, (uint64_t)pid, &v) == 0)
		*v = t;
	drop_code(a, pid);
	g = seg_of(a, tid, false);
	if (g) {
		g->known = false;
		g->asked = false;
	}
}

void mt_access_on_exit(struct mt_session *s)
{
	/* The exiting task's memory still exists at its exit stop: decode what is pending. */
	if (s->access)
		mt_access_drain(s);
}

static void ask_segment(struct mt_access_state *a, pid_t tid, uint64_t now)
{
	struct thread_seg *g = seg_of(a, tid, true);

	if (!g || g->known || !a->ptrace_seg)
		return;
	if (g->asked && now - g->asked_ns < FS_RETRY_NS)
		return;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0) {
		g->asked = true;
		g->asked_ns = now;
		a->fs_interrupts++;
	}
}

/* The cached page of pid at address page, read on first use; NULL if unreadable. */
static const uint8_t *code_page(struct mt_access_state *a, pid_t pid, uint64_t page, int *err)
{
	struct code_page *c = &a->cache[mt_hash_u64(page ^ ((uint64_t)pid << 40)) % CACHE_PAGES];

	if (c->page != page || c->pid != pid) {
		struct iovec l = { c->bytes, PAGE }, r = { (void *)(uintptr_t)page, PAGE };
		ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

		a->code_reads++;
		c->pid = pid;
		c->page = page;
		c->err = n == (ssize_t)PAGE ? 0 : n < 0 ? errno : EFAULT;
		if (c->err) {
			a->code_read_errors++;
			if (c->err == ESRCH)
				c->page = 0; /* gone: do not cache */
		}
	}
	*err = c->err;
	return c->err ? NULL : c->bytes;
}

static void emit(struct mt_session *s, const struct mt_perf_sample *ps, unsigned kind,
		 uint64_t addr, uint32_t size, unsigned how, uint64_t insn_ip, unsigned reason,
		 unsigned part)
{
	struct mt_access_state *a = s->access;
	uint64_t row[_MT_F_ACCESS_MAX];

	row[MT_F_TIME] = ps->time;
	row[MT_F_PID] = ps->pid;
	row[MT_F_TID] = ps->tid;
	row[MT_F_ACCESS_KIND] = kind;
	row[MT_F_ACCESS_IP] = ps->has_regs ? ps->regs.r[MT_REG_IP] : ps->ip;
	row[MT_F_ACCESS_ADDR] = addr;
	row[MT_F_ACCESS_SIZE] = size;
	row[MT_F_ACCESS_MECH] = (uint64_t)a->mech;
	row[MT_F_ACCESS_WEIGHT] = ps->period;
	row[MT_F_ACCESS_HOW] = how;
	row[MT_F_ACCESS_INSN_IP] = insn_ip;
	row[MT_F_ACCESS_REASON] = reason;
	row[MT_F_ACCESS_PART] = part;
	row[MT_F_ACCESS_DATA_SRC] = ps->data_src;
	row[MT_F_ACCESS_LATENCY] = ps->latency;
	if (mt_writer_event(s->w, MT_EV_ACCESS, row) == 0)
		s->access_coll.events++;
}

static void unresolved(struct mt_session *s, const struct mt_perf_sample *ps, unsigned reason)
{
	s->access->unresolved[reason]++;
	emit(s, ps, MT_ACCESS_UNRESOLVED, 0, 0, MT_HOW_NONE, 0, reason, 0);
}

static void on_precise(struct mt_session *s, const struct mt_perf_sample *ps)
{
	struct mt_data_src ds;

	mt_data_src_decode(ps->data_src, &ds);
	if (ps->ip >= 0x800000000000ull || ps->addr >= 0x800000000000ull)
		return unresolved(s, ps, MT_UNRES_KERNEL);
	if (!ps->addr || ds.op < 0)
		return unresolved(s, ps, MT_UNRES_NO_MEMOP);
	s->access->resolved++;
	s->access->accesses++;
	/* The hardware does not report the width; 0 says so. */
	emit(s, ps, (unsigned)ds.op, ps->addr, 0, MT_HOW_PRECISE, ps->ip, MT_UNRES_NONE, 0);
}

static void on_regs(struct mt_session *s, struct mt_perf_sample *ps)
{
	struct mt_access_state *a = s->access;
	uint8_t buf[MT_DECODE_BEFORE + MT_DECODE_AFTER];
	const uint8_t *pg;
	uint64_t ip, page, *exec_t;
	size_t before = 0, after = 0;
	struct thread_seg *g;
	struct mt_decoded d;
	int err;

	if (!ps->has_regs)
		return unresolved(s, ps, MT_UNRES_KERNEL);
	ip = ps->regs.r[MT_REG_IP];
	if (ip >= 0x800000000000ull)
		return unresolved(s, ps, MT_UNRES_KERNEL);
	exec_t = mt_map64_get(&a->exec_ns, ps->pid);
	if (exec_t && ps->time < *exec_t)
		return unresolved(s, ps, MT_UNRES_IMAGE_GONE);
	/* Code bytes [ip - BEFORE, ip + AFTER), from at most two pages. */
	page = ip & ~(PAGE - 1);
	pg = code_page(a, (pid_t)ps->pid, page, &err);
	if (!pg)
		return unresolved(s, ps, err == ESRCH ? MT_UNRES_IMAGE_GONE : MT_UNRES_NO_CODE);
	after = (size_t)(page + PAGE - ip);
	if (after > MT_DECODE_AFTER)
		after = MT_DECODE_AFTER;
	before = (size_t)(ip - page);
	if (before > MT_DECODE_BEFORE)
		before = MT_DECODE_BEFORE;
	memcpy(buf + MT_DECODE_BEFORE - before, pg + (ip - page) - before, before + after);
	if (before < MT_DECODE_BEFORE && page >= PAGE) {
		const uint8_t *prev = code_page(a, (pid_t)ps->pid, page - PAGE, &err);
		size_t more = MT_DECODE_BEFORE - before;

		if (prev) {
			memcpy(buf, prev + PAGE - more, more);
			before += more;
		}
	}
	if (after < MT_DECODE_AFTER) {
		const uint8_t *next = code_page(a, (pid_t)ps->pid, page + PAGE, &err);
		size_t more = MT_DECODE_AFTER - after;

		if (next) {
			memcpy(buf + MT_DECODE_BEFORE + after, next, more);
			after += more;
		}
	}
	g = seg_of(a, (pid_t)ps->tid, false);
	if (g && g->known) {
		ps->regs.fs_base = g->fs;
		ps->regs.gs_base = g->gs;
		ps->regs.fs_known = ps->regs.gs_known = true;
	} else {
		ask_segment(a, (pid_t)ps->tid, ps->time);
	}
	if (!mt_decode_sample(buf + MT_DECODE_BEFORE - before, before, after, &ps->regs, &d))
		return unresolved(s, ps, d.reason);
	a->resolved++;
	for (unsigned i = 0; i < d.n; i++) {
		a->accesses++;
		emit(s, ps, d.acc[i].kind, d.acc[i].addr, d.acc[i].size, d.how, d.insn_ip,
		     MT_UNRES_NONE, i);
	}
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct mt_session *s = ctx;
	struct mt_access_state *a = s->access;
	struct mt_perf_sample ps;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (mt_perf_sample_parse(h, h->size, a->sample_type, a->regs_mask, &ps) < 0) {
			a->malformed++;
			return;
		}
		a->samples++;
		if (a->mech == MT_MECH_REGS || a->mech == MT_MECH_TIMER)
			on_regs(s, &ps);
		else
			on_precise(s, &ps);
		break;
	case PERF_RECORD_LOST:
		a->lost += mt_emit_perf_lost(s, h, mt_now_ns(), &s->access_coll,
					     "access samples: perf ring buffer full");
		break;
	case PERF_RECORD_THROTTLE:
		a->throttles++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		a->unthrottles++;
		break;
	default:
		break;
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void mt_access_drain(struct mt_session *s)
{
	struct mt_access_state *a = s->access;
	uint64_t t0;

	if (!a)
		return;
	t0 = cpu_ns();
	a->malformed += mt_perf_rings_drain(a->rings, a->nrings, on_record, s);
	a->decode_ns += cpu_ns() - t0;
}

void mt_access_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_access_state *a = s->access;
	char key[64];

	if (!a)
		return;
	mt_access_drain(s);
	mt_kv_add(kv, "event", a->event);
	mt_kv_add(kv, "weight_unit", a->unit);
	if (a->period)
		mt_kv_add_u64(kv, "period", a->period);
	if (a->freq)
		mt_kv_add_u64(kv, "frequency_hz", a->freq);
	mt_kv_add(kv, "rate", a->rate_from);
	if (a->cost_ns > 0)
		mt_kv_add_u64(kv, "calibrated_ns_per_sample", (uint64_t)a->cost_ns);
	if (a->cost_ns > 0)
		mt_kv_add_u64(kv, "calibrated_ms_ago", a->cost_age_ns / 1000000);
	mt_kv_add_u64(kv, "samples", a->samples);
	mt_kv_add_u64(kv, "resolved", a->resolved);
	mt_kv_add_u64(kv, "accesses", a->accesses);
	for (unsigned r = 1; r < _MT_UNRES_MAX; r++) {
		snprintf(key, sizeof(key), "unresolved.%s",
			 mt_field_enum_name(&mt_type_desc(MT_EV_ACCESS)->fields[MT_F_ACCESS_REASON],
					    r));
		mt_kv_add_u64(kv, key, a->unresolved[r]);
	}
	mt_kv_add_u64(kv, "throttles", a->throttles);
	mt_kv_add_u64(kv, "unthrottles", a->unthrottles);
	mt_kv_add_u64(kv, "malformed", a->malformed);
	mt_kv_add_u64(kv, "fs_base_interrupts", a->fs_interrupts);
	mt_kv_add_u64(kv, "code_page_reads", a->code_reads);
	mt_kv_add_u64(kv, "code_page_read_errors", a->code_read_errors);
	mt_kv_add_u64(kv, "decoder_cpu_ns", a->decode_ns);
	mt_kv_add_u64(kv, "ring_bytes_per_cpu", RING_PAGES * PAGE);
	mt_kv_add_u64(kv, "perf_event_max_sample_rate",
		      (uint64_t)mt_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", 0));
	mt_kv_add_u64(kv, "perf_cpu_time_max_percent",
		      (uint64_t)mt_sysctl_int("/proc/sys/kernel/perf_cpu_time_max_percent", 0));
	mt_kv_add(kv, "segment_bases", a->ptrace_seg ? "ptrace" : "none");
	if (a->mech == MT_MECH_PEBS)
		mt_kv_add(kv, "pebs_stores", a->stores ? "mem-stores" : "none");
	if (a->throttles)
		mt_warn("the kernel throttled access sampling %" PRIu64
			" times (interrupts took too "
			"long; perf_event_max_sample_rate is now %d): fewer samples than asked for",
			a->throttles,
			mt_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", 0));
	s->access_coll.lost = a->lost;
	for (int i = 0; a->store_fds && i < a->nrings; i++)
		if (a->store_fds[i] >= 0)
			mt_perf_close(a->store_fds[i]);
	free(a->store_fds);
	for (int i = 0; i < a->nrings; i++)
		mt_perf_ring_close(&a->rings[i]);
	free(a->rings);
	free(a->cache);
	free(a->segs);
	mt_map64_release(&a->seg_ix);
	mt_map64_release(&a->exec_ns);
	free(a);
	s->access = NULL;
}
