/* SPDX-License-Identifier: MIT */
/* Feature probes: each is a tiny real attempt (an event opened, a child seized), cached. */
#include "probe.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/strutil.h"
#include "record/perf.h"
#include "record/sysinfo.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

typedef void (*probe_fn)(struct mt_probe_result *res);

struct feat_def {
	const char *id;
	const char *name;
	probe_fn fn; /* NULL: attr_probes[] holds the probe */
	enum mt_feat depends; /* _MT_FEAT_MAX for none */
};

static void set(struct mt_probe_result *res, bool ok, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct mt_probe_result *res, bool ok, const char *hint, const char *fmt, ...)
{
	va_list ap;

	res->available = ok;
	va_start(ap, fmt);
	vsnprintf(res->detail, sizeof(res->detail), fmt, ap);
	va_end(ap);
	mt_strlcpy(res->hint, hint ? hint : "", sizeof(res->hint));
}

static const char *perf_hint(int err)
{
	if (err == -EACCES || err == -EPERM)
		return "run as root, grant CAP_PERFMON, or lower kernel.perf_event_paranoid";
	return NULL;
}

/* Why a perf_event_open failed, in the user's terms. */
static void perf_fail(struct mt_probe_result *res, const char *what, int err)
{
	int paranoid = mt_sysctl_int("/proc/sys/kernel/perf_event_paranoid", 99);

	if (err == -EACCES || err == -EPERM)
		set(res, false, perf_hint(err), "%s denied: %s (perf_event_paranoid=%d)", what,
		    strerror(-err), paranoid);
	else if (err == -ENOSYS)
		set(res, false, NULL, "%s: the kernel has no perf events (CONFIG_PERF_EVENTS)",
		    what);
	else
		set(res, false, NULL, "%s failed: %s", what, strerror(-err));
}

static void dummy_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
}

static int try_open(struct perf_event_attr *a, int cpu)
{
	int fd = mt_perf_open(a, 0, cpu, -1);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/*
 * A tracepoint's probe event is held open (disabled) until mt_probe_release(): closing the
 * last event of a tracepoint unregisters it, which waits for RCU grace periods (30-60 ms
 * in this VM), and the collector that asked opens the same tracepoint right after. Closed
 * once the collectors hold their own, the release costs nothing.
 */
static int held[16];
static unsigned nheld;

static int try_open_held(struct perf_event_attr *a)
{
	int fd = mt_perf_open(a, 0, -1, -1);

	if (fd < 0)
		return fd;
	if (nheld < sizeof(held) / sizeof(held[0]))
		held[nheld++] = fd;
	else
		close(fd);
	return 0;
}

void mt_probe_release(void)
{
	while (nheld)
		close(held[--nheld]);
}

static void probe_perf(struct mt_probe_result *res)
{
	struct perf_event_attr a;
	int r;

	dummy_attr(&a);
	r = try_open(&a, -1);
	if (r < 0)
		return perf_fail(res, "perf_event_open", r);
	set(res, true, NULL, "software events on own processes (perf_event_paranoid=%d)",
	    mt_sysctl_int("/proc/sys/kernel/perf_event_paranoid", 99));
}

static void probe_perf_ring(struct mt_probe_result *res)
{
	struct perf_event_attr a;
	struct mt_perf_ring ring;
	int fd, r;

	dummy_attr(&a);
	a.inherit = 1;
	a.mmap = 1;
	fd = mt_perf_open(&a, getpid(), 0, -1);
	if (fd < 0)
		return perf_fail(res, "per-CPU inherited event", fd);
	r = mt_perf_ring_open(&ring, fd, 8);
	if (r < 0)
		return set(res, false, "raise kernel.perf_event_mlock_kb",
			   "mmap of a perf ring buffer failed: %s", strerror(-r));
	mt_perf_ring_close(&ring);
	set(res, true, NULL, "per-CPU inherited events with mmap rings (%d CPUs)", mt_perf_ncpus());
}

static bool have_pmu(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", name);
	return stat(path, &st) == 0;
}

/* The explanation of a missing hardware PMU, shared by several probes. */
static void no_hw_pmu(struct mt_probe_result *res, const char *what, int err)
{
	if (!have_pmu("cpu") && !have_pmu("cpu_core") && !have_pmu("armv8_pmuv3_0"))
		set(res, false,
		    "cpu-clock sampling needs no PMU; hardware counters appear on bare metal or "
		    "with a virtual PMU (e.g. KVM -cpu host, cloud instance types with a vPMU)",
		    "%s: no hardware PMU is exposed to this machine (no "
		    "/sys/bus/event_source/devices/cpu%s)",
		    what, mt_sys_is_virtual() ? "; it runs under a hypervisor" : "");
	else
		perf_fail(res, what, err);
}

static uint64_t user_regs_mask(void)
{
#if defined(__x86_64__)
	uint64_t m = 0;

	for (int r = PERF_REG_X86_AX; r <= PERF_REG_X86_FLAGS; r++)
		m |= 1ull << r;
	for (int r = PERF_REG_X86_R8; r <= PERF_REG_X86_R15; r++)
		m |= 1ull << r;
	/* IP, SP and flags are inside AX..FLAGS; CS/SS and the segment bases are refused. */
	m &= ~((1ull << PERF_REG_X86_CS) | (1ull << PERF_REG_X86_SS));
	return m;
#elif defined(__aarch64__)
	return (1ull << PERF_REG_ARM64_MAX) - 1;
#else
	return 0;
#endif
}

/*
 * The probes that open one event for the calling process: a base event with the attribute
 * bits under test added. On failure, either fixed words around the error (fail_pre, fail_post)
 * or the generic explanation (perf_fail; no_hw_pmu for a hardware base).
 */
enum attr_base { BASE_DUMMY, BASE_CYCLES, BASE_CPU_CLOCK };
enum { BIT_CLOCKID = 1, BIT_MMAP2 = 2, BIT_BUILD_ID = 4, BIT_REGS = 8 };

struct attr_probe {
	enum attr_base base;
	unsigned bits;
	const char *what;
	const char *fail_hint, *fail_pre, *fail_post;
	const char *ok;
};

static void attr_of(const struct attr_probe *p, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = p->base == BASE_CYCLES ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a->config = p->base == BASE_CYCLES	? PERF_COUNT_HW_CPU_CYCLES
		    : p->base == BASE_CPU_CLOCK ? PERF_COUNT_SW_CPU_CLOCK
						: PERF_COUNT_SW_DUMMY;
	if (p->base != BASE_DUMMY) {
		a->sample_period = p->base == BASE_CYCLES ? 1000000 : 100000;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	}
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
	if (p->bits & BIT_CLOCKID) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	if (p->bits & (BIT_MMAP2 | BIT_BUILD_ID)) {
		a->mmap = 1;
		a->mmap2 = 1;
	}
	if (p->bits & BIT_MMAP2) {
		a->mmap_data = 1;
		a->comm = 1;
		a->task = 1;
	}
	a->build_id = !!(p->bits & BIT_BUILD_ID);
	if (p->bits & BIT_REGS) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = user_regs_mask();
	}
}

static void run_attr_probe(const struct attr_probe *p, struct mt_probe_result *res)
{
	struct perf_event_attr a;
	int r;

	attr_of(p, &a);
	r = try_open(&a, -1);
	if (r >= 0)
		set(res, true, NULL, "%s", p->ok);
	else if (p->fail_pre)
		set(res, false, p->fail_hint, "%s%s%s", p->fail_pre, strerror(-r), p->fail_post);
	else if (p->base == BASE_CYCLES)
		no_hw_pmu(res, p->what, r);
	else
		perf_fail(res, p->what, r);
}

static const struct attr_probe attr_probes[_MT_FEAT_MAX] = {
	[MT_FEAT_CLOCKID] = { BASE_DUMMY, BIT_CLOCKID, NULL, "a kernel >= 4.1 is needed",
			      "use_clockid=CLOCK_MONOTONIC rejected: ", "",
			      "perf timestamps on CLOCK_MONOTONIC, comparable with the workload's" },
	[MT_FEAT_MMAP2] = { BASE_DUMMY, BIT_MMAP2, "MMAP2/COMM/TASK records", NULL, NULL, NULL,
			    "PERF_RECORD_MMAP2 for code and data mappings, COMM and FORK/EXIT" },
	[MT_FEAT_BUILD_ID] = { BASE_DUMMY, BIT_BUILD_ID, NULL, NULL, "build_id in MMAP2 rejected: ",
			       " (Linux < 5.12); memtap reads build-ids from the mapped files "
			       "instead",
			       "the kernel puts GNU build-ids into MMAP2 records" },
	[MT_FEAT_HW_SAMPLING] = { BASE_CYCLES, 0, "cycles sampling", NULL, NULL, NULL,
				  "cycles and instructions can be sampled" },
	[MT_FEAT_REGS_HW] = { BASE_CYCLES, BIT_REGS, "cycles sampling with user registers", NULL,
			      NULL, NULL,
			      "cycles samples carry the user registers (software data addresses)" },
	[MT_FEAT_REGS_SW] = { BASE_CPU_CLOCK, BIT_REGS, "cpu-clock sampling with user registers",
			      NULL, NULL, NULL,
			      "cpu-clock samples carry the user registers (software data "
			      "addresses)" },
};

/* Parses "event=0xcd,umask=0x1,ldlat=3" (Intel's sysfs event syntax). */
void mt_intel_event_parse(const char *s, uint64_t *config, uint64_t *config1)
{
	const char *p = s;

	*config = 0;
	*config1 = 0;
	while (*p) {
		unsigned long long v = 0;
		const char *eq = strchr(p, '=');

		if (!eq)
			break;
		v = strtoull(eq + 1, NULL, 0);
		if (!strncmp(p, "event=", 6))
			*config |= v & 0xff;
		else if (!strncmp(p, "umask=", 6))
			*config |= (v & 0xff) << 8;
		else if (!strncmp(p, "ldlat=", 6))
			*config1 = v;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
}

static void probe_pebs(struct mt_probe_result *res)
{
	char ev[128], vendor[64];
	struct perf_event_attr a;
	uint64_t config, config1;
	int r;

	mt_sys_cpu_vendor(vendor, sizeof(vendor));
	if (strcmp(vendor, "GenuineIntel"))
		return set(res, false, NULL, "not an Intel CPU (%s)", vendor);
	if (!have_pmu("cpu") && !have_pmu("cpu_core"))
		return set(
			res, false,
			"software data-address sampling (user registers in ordinary samples) needs no PEBS/IBS",
			"Intel CPU, but its PMU is not exposed to this machine (no "
			"/sys/bus/event_source/devices/cpu%s), so PEBS cannot be used",
			mt_sys_is_virtual() ? "; typical of virtual machines" : "");
	if (mt_read_line_file("/sys/bus/event_source/devices/cpu/events/mem-loads", ev,
			      sizeof(ev)) < 0)
		return set(
			res, false,
			"software data-address sampling (user registers in ordinary samples) needs no PEBS/IBS",
			"the CPU PMU has no mem-loads event (no PEBS load latency on this model "
			"or hypervisor)");
	mt_intel_event_parse(ev, &config, &config1);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.config = config;
	a.config1 = config1 ? config1 : 3;
	a.sample_period = 10007;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_WEIGHT;
	a.precise_ip = 2;
	a.exclude_kernel = 1;
	a.disabled = 1;
	r = try_open(&a, -1);
	if (r < 0)
		return perf_fail(res, "PEBS mem-loads (precise_ip=2)", r);
	set(res, true, NULL, "PEBS load-latency sampling (%s)", ev);
}

static void probe_ibs(struct mt_probe_result *res)
{
	char vendor[64];
	struct perf_event_attr a;
	int type, r;

	mt_sys_cpu_vendor(vendor, sizeof(vendor));
	if (strcmp(vendor, "AuthenticAMD"))
		return set(res, false, NULL, "not an AMD CPU (%s)", vendor);
	type = mt_sysctl_int("/sys/bus/event_source/devices/ibs_op/type", -1);
	if (type < 0)
		return set(
			res, false,
			"software data-address sampling (user registers in ordinary samples) needs no PEBS/IBS",
			"AMD CPU, but no ibs_op PMU is exposed%s",
			mt_sys_is_virtual() ? " (virtual machine)" : "");
	memset(&a, 0, sizeof(a));
	a.type = (uint32_t)type;
	a.sample_period = 100003;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	a.exclude_kernel = 1;
	a.disabled = 1;
	r = try_open(&a, -1);
	if (r < 0)
		return perf_fail(res, "IBS op sampling", r);
	set(res, true, NULL, "IBS op sampling with data addresses (PMU type %d)", type);
}

static void probe_spe(struct mt_probe_result *res)
{
#if defined(__aarch64__)
	int type = mt_sysctl_int("/sys/bus/event_source/devices/arm_spe_0/type", -1);
	struct perf_event_attr a;
	int r;

	if (type < 0)
		return set(
			res, false,
			"software data-address sampling (user registers in ordinary samples) needs no PEBS/IBS",
			"no arm_spe_0 PMU (the CPU or hypervisor does not expose SPE)");
	memset(&a, 0, sizeof(a));
	a.type = (uint32_t)type;
	a.sample_period = 4096;
	a.exclude_kernel = 1;
	a.disabled = 1;
	r = try_open(&a, -1);
	if (r < 0)
		return perf_fail(res, "SPE sampling", r);
	set(res, true, NULL, "ARM SPE sampling (PMU type %d)", type);
#else
	set(res, false, NULL, "not an ARM64 machine");
#endif
}

static void probe_sw_faults(struct mt_probe_result *res)
{
	struct perf_event_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	a.exclude_kernel = 1;
	a.disabled = 1;
	r = try_open(&a, -1);
	if (r < 0)
		return perf_fail(res, "page-fault events", r);
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	r = try_open(&a, -1);
	if (r < 0)
		return perf_fail(res, "minor page-fault events", r);
	set(res, true, NULL, "minor and major page faults with their data addresses");
}

/* Where tracefs is mounted (from /proc/self/mounts), whether readable or not. */
static bool tracefs_mount(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[1024], dev[256], dir[256], type[64];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "tracefs")) {
			snprintf(buf, size, "%s", dir);
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

static void probe_tracefs(struct mt_probe_result *res)
{
	char path[256];

	if (mt_tracefs_path(path, sizeof(path)) < 0) {
		char mnt[256];

		/* Mounted, but its events unreadable (tracefs is 0700 root by default)? */
		if (tracefs_mount(mnt, sizeof(mnt)))
			return set(
				res, false,
				"run as root, or let this user read it (mount -o remount,mode=755 "
				"and the events' permissions)",
				"tracefs is mounted at %s but %s cannot read its events", mnt,
				geteuid() ? "this user" : "memtap");
		if (geteuid() != 0)
			return set(res, false,
				   "mount it: mount -t tracefs nodev /sys/kernel/tracing",
				   "tracefs is not mounted and memtap is not root");
		return set(res, false, NULL,
			   "tracefs is not available (not built into the kernel?)");
	}
	set(res, true, NULL, "tracefs at %s", path);
}

static void probe_tracepoints(struct mt_probe_result *res, const char *const *tps, size_t n)
{
	char list[256] = "";
	size_t len = 0;

	if (!mt_feat_ok(MT_FEAT_TRACEFS))
		return set(res, false, mt_probe(MT_FEAT_TRACEFS)->hint, "%s",
			   mt_probe(MT_FEAT_TRACEFS)->detail);
	for (size_t i = 0; i < n; i++) {
		struct perf_event_attr a;
		int id = mt_tracepoint_id(tps[i]), r;

		if (id < 0)
			return set(res, false, NULL, "tracepoint %s does not exist in this kernel",
				   tps[i]);
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (uint64_t)id;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		a.disabled = 1;
		r = try_open_held(&a);
		if (r < 0) {
			char what[96];

			snprintf(what, sizeof(what), "tracepoint %s", tps[i]);
			return perf_fail(res, what, r);
		}
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					tps[i]);
		if (len >= sizeof(list))
			len = sizeof(list) - 1;
	}
	set(res, true, NULL, "%s", list);
}

static void probe_tp_syscalls(struct mt_probe_result *res)
{
	static const char *const tps[] = { "raw_syscalls/sys_enter", "raw_syscalls/sys_exit" };

	probe_tracepoints(res, tps, 2);
}

static void probe_tp_rss(struct mt_probe_result *res)
{
	static const char *const tps[] = { "kmem/rss_stat" };

	probe_tracepoints(res, tps, 1);
}

static void probe_tp_sched(struct mt_probe_result *res)
{
	static const char *const tps[] = { "sched/sched_process_fork", "sched/sched_process_exec",
					   "sched/sched_process_exit" };

	probe_tracepoints(res, tps, 3);
}

static void probe_tp_faults(struct mt_probe_result *res)
{
	static const char *const tps[] = { "exceptions/page_fault_user" };

	probe_tracepoints(res, tps, 1);
}

/* A child that waits to be killed, for the ptrace and process_vm_readv probes. */
static volatile uint64_t probe_word = 0x6d656d746170ULL;

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

static void probe_ptrace(struct mt_probe_result *res)
{
	pid_t pid = spawn_sleeper();
	int scope = mt_sysctl_int("/proc/sys/kernel/yama/ptrace_scope", -1);

	if (pid < 0)
		return set(res, false, NULL, "fork failed: %s", strerror(errno));
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC) < 0) {
		int e = errno;

		reap(pid);
		if (e == EPERM && scope >= 2)
			return set(res, false, "set kernel.yama.ptrace_scope to 0 or 1",
				   "PTRACE_SEIZE denied: %s (kernel.yama.ptrace_scope=%d)",
				   strerror(e), scope);
		return set(res, false, "seccomp or a container may forbid ptrace",
			   "PTRACE_SEIZE denied: %s", strerror(e));
	}
	reap(pid);
	if (scope >= 0)
		set(res, true, NULL,
		    "PTRACE_SEIZE with fork/clone/exec/exit event stops "
		    "(yama ptrace_scope=%d)",
		    scope);
	else
		set(res, true, NULL, "PTRACE_SEIZE with fork/clone/exec/exit event stops");
}

static void probe_vm_readv(struct mt_probe_result *res)
{
	pid_t pid = spawn_sleeper();
	uint64_t v = 0;
	struct iovec local = { &v, sizeof(v) }, remote = { (void *)&probe_word, sizeof(v) };
	ssize_t n;

	if (pid < 0)
		return set(res, false, NULL, "fork failed: %s", strerror(errno));
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	reap(pid);
	if (n != (ssize_t)sizeof(v) || v != probe_word)
		return set(res, false, "needs the same ptrace access as PTRACE_SEIZE",
			   "process_vm_readv of a child failed: %s",
			   n < 0 ? strerror(errno) : "short read");
	set(res, true, NULL, "reading the workload's code bytes with process_vm_readv");
}

static int uffd_open(uint64_t *features)
{
	struct uffdio_api api = { .api = UFFD_API };
	long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);

	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (ioctl((int)fd, UFFDIO_API, &api) < 0) {
		int e = -errno;

		close((int)fd);
		return e;
	}
	*features = api.features;
	close((int)fd);
	return 0;
}

static void probe_uffd(struct mt_probe_result *res)
{
	uint64_t features = 0;
	int r = uffd_open(&features);

	if (r == -ENOSYS)
		return set(res, false, NULL, "the kernel has no userfaultfd (CONFIG_USERFAULTFD)");
	if (r < 0)
		return set(res, false, "set vm.unprivileged_userfaultfd=1 or run as root",
			   "userfaultfd failed: %s (vm.unprivileged_userfaultfd=%d)", strerror(-r),
			   mt_sysctl_int("/proc/sys/vm/unprivileged_userfaultfd", -1));
	set(res, true, NULL, "userfaultfd (features 0x%llx)", (unsigned long long)features);
}

static void probe_uffd_wp_async(struct mt_probe_result *res)
{
	uint64_t features = 0;
	int r = uffd_open(&features);

	if (r < 0)
		return set(res, false, NULL, "%s", mt_probe(MT_FEAT_UFFD)->detail);
	if (!(features & UFFD_FEATURE_WP_ASYNC))
		return set(res, false, "a kernel >= 6.7 has it",
			   "userfaultfd lacks asynchronous write-protect (UFFD_FEATURE_WP_ASYNC)");
	set(res, true, NULL,
	    "asynchronous write-protect: exact written-page sets with PAGEMAP_SCAN");
}

static void probe_bpf(struct mt_probe_result *res)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(uintptr_t) "GPL";
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0) {
		int e = errno;

		if (e == EPERM || e == EACCES)
			return set(res, false, "run as root or grant CAP_BPF and CAP_PERFMON",
				   "loading BPF programs denied: %s "
				   "(kernel.unprivileged_bpf_disabled=%d)",
				   strerror(e),
				   mt_sysctl_int("/proc/sys/kernel/unprivileged_bpf_disabled", -1));
		return set(res, false, NULL, "BPF_PROG_LOAD failed: %s", strerror(e));
	}
	close((int)fd);
	set(res, true, NULL, "BPF programs load");
}

static void probe_btf(struct mt_probe_result *res)
{
	struct stat st;

	if (stat("/sys/kernel/btf/vmlinux", &st) < 0)
		return set(res, false, "a kernel built with CONFIG_DEBUG_INFO_BTF is needed",
			   "no /sys/kernel/btf/vmlinux");
	set(res, true, NULL, "kernel BTF at /sys/kernel/btf/vmlinux (%lld KiB)",
	    (long long)st.st_size / 1024);
}

#define NONE _MT_FEAT_MAX
static const struct feat_def feats[_MT_FEAT_MAX] = {
	[MT_FEAT_PERF] = { "perf", "perf_event_open for the workload", probe_perf, NONE },
	[MT_FEAT_PERF_RING] = { "perf-ring", "per-CPU inherited perf rings", probe_perf_ring,
				MT_FEAT_PERF },
	[MT_FEAT_CLOCKID] = { "clockid", "perf timestamps on CLOCK_MONOTONIC", NULL, MT_FEAT_PERF },
	[MT_FEAT_MMAP2] = { "mmap2", "mapping records (PERF_RECORD_MMAP2)", NULL, MT_FEAT_PERF },
	[MT_FEAT_BUILD_ID] = { "build-id", "build-ids in mapping records", NULL, MT_FEAT_MMAP2 },
	[MT_FEAT_HW_SAMPLING] = { "hw-sampling", "hardware counter sampling (cycles)", NULL,
				  MT_FEAT_PERF },
	[MT_FEAT_REGS_HW] = { "regs-hw", "user registers in cycles samples", NULL, MT_FEAT_PERF },
	[MT_FEAT_REGS_SW] = { "regs-sw", "user registers in cpu-clock samples", NULL,
			      MT_FEAT_PERF },
	[MT_FEAT_PEBS] = { "pebs", "precise memory sampling: Intel PEBS", probe_pebs,
			   MT_FEAT_PERF },
	[MT_FEAT_IBS] = { "ibs", "precise memory sampling: AMD IBS", probe_ibs, MT_FEAT_PERF },
	[MT_FEAT_SPE] = { "spe", "precise memory sampling: ARM SPE", probe_spe, MT_FEAT_PERF },
	[MT_FEAT_SW_FAULTS] = { "sw-faults", "page-fault events with addresses", probe_sw_faults,
				MT_FEAT_PERF },
	[MT_FEAT_TRACEFS] = { "tracefs", "tracefs", probe_tracefs, NONE },
	[MT_FEAT_TP_SYSCALLS] = { "tp-syscalls", "tracepoints: raw_syscalls", probe_tp_syscalls,
				  MT_FEAT_PERF },
	[MT_FEAT_TP_RSS] = { "tp-rss", "tracepoints: kmem:rss_stat", probe_tp_rss, MT_FEAT_PERF },
	[MT_FEAT_TP_SCHED] = { "tp-sched", "tracepoints: sched process events", probe_tp_sched,
			       MT_FEAT_PERF },
	[MT_FEAT_TP_FAULTS] = { "tp-faults", "tracepoints: exceptions:page_fault_user",
				probe_tp_faults, MT_FEAT_PERF },
	[MT_FEAT_PTRACE] = { "ptrace", "ptrace of the process tree", probe_ptrace, NONE },
	[MT_FEAT_VM_READV] = { "vm-readv", "reading workload memory (process_vm_readv)",
			       probe_vm_readv, NONE },
	[MT_FEAT_UFFD] = { "uffd", "userfaultfd", probe_uffd, NONE },
	[MT_FEAT_UFFD_WP_ASYNC] = { "uffd-wp-async", "userfaultfd async write-protect",
				    probe_uffd_wp_async, MT_FEAT_UFFD },
	[MT_FEAT_BPF] = { "bpf", "BPF programs", probe_bpf, NONE },
	[MT_FEAT_BTF] = { "btf", "kernel BTF", probe_btf, NONE },
};

const char *mt_feat_id(enum mt_feat f)
{
	return f < _MT_FEAT_MAX ? feats[f].id : "?";
}

const char *mt_feat_name(enum mt_feat f)
{
	return f < _MT_FEAT_MAX ? feats[f].name : "?";
}

bool mt_feat_disabled(enum mt_feat f)
{
	const char *env = getenv("MEMTAP_DISABLE_FEAT");

	return env && mt_list_has(env, feats[f].id);
}

const struct mt_probe_result *mt_probe(enum mt_feat f)
{
	static struct mt_probe_result results[_MT_FEAT_MAX];
	static bool probed[_MT_FEAT_MAX];
	struct mt_probe_result *res;

	if (f >= _MT_FEAT_MAX)
		abort();
	res = &results[f];
	if (probed[f])
		return res;
	probed[f] = true;
	if (mt_feat_disabled(f)) {
		set(res, false, NULL, "disabled by MEMTAP_DISABLE_FEAT");
	} else if (feats[f].depends != NONE && !mt_feat_ok(feats[f].depends)) {
		const struct mt_probe_result *dep = mt_probe(feats[f].depends);

		set(res, false, dep->hint, "needs %s: %s", feats[feats[f].depends].id, dep->detail);
	} else if (feats[f].fn) {
		feats[f].fn(res);
	} else {
		run_attr_probe(&attr_probes[f], res);
	}
	return res;
}
