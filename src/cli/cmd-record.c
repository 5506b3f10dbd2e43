/* SPDX-License-Identifier: MIT */
/* memtap record: run a command and record how it uses memory. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/cpulist.h"
#include "common/log.h"
#include "common/strutil.h"
#include "decode/syscalls.h"
#include "record/tracepoints.h"
#include "record/access.h"
#include "record/alloc.h"
#include "record/budget.h"
#include "record/attach.h"
#include "record/perf.h"
#include "record/record.h"

static struct {
	const char *output;
	bool force, quiet, live, mmaps, all;
	int follow;
	uint64_t ring_pages, flush_ms, stack_depth, rt_slots, zstd_level, time_every;
	const char *syscalls;
	struct mt_optlist events;
	bool syscall_stacks;
	bool python_frames;
	int alloc; /* index into alloc_choices; -1: --no-alloc */
	int access;
	uint64_t access_period, access_freq;
	bool faults, rss;
	uint64_t rss_interval_ms;
	uint64_t page_writes_ms, page_writes_min;
	int page_writes; /* index into page_writes_choices */
	const char *cpus, *numa_node, *heap, *mode, *pid, *duration, *max_size;
} o = { .output = "memtap.mtap",
	.mmaps = true,
	.live = true,
	.ring_pages = 64,
	.flush_ms = 1000,
	.stack_depth = 128,
	.rt_slots = 1024,
	.time_every = 1,
	.alloc = 0,
	.python_frames = true,
	.faults = true,
	.rss = true,
	.rss_interval_ms = 1,
	.page_writes_min = 1 << 20,
	.page_writes_ms = 100,
	.zstd_level = 1 };

static const char *const alloc_choices[] = { "events", "sites", NULL };
static const char *const follow_choices[] = { "auto", "ptrace", "perf", "none", NULL };
static const char *const page_writes_choices[] = { "settle", "full", NULL };
/* In enum mt_access_mode order. */
static const char *const access_choices[] = { "auto", "pebs",  "ibs", "spe",
					      "regs", "timer", "off", NULL };

static const struct mt_option options[] = {
	{ "output", 'o', MT_OPT_STRING, &o.output, "FILE",
	  "write the trace to FILE (default memtap.mtap)" },
	{ "force", 'f', MT_OPT_FLAG, &o.force, NULL,
	  "replace FILE if it exists (a symlink there is replaced, never followed)" },
	{ "mode", 0, MT_OPT_STRING, &o.mode, "OCTAL",
	  "FILE's permissions before the umask (default 0600: a trace holds argv, paths and "
	  "the address layout)" },
	{ "quiet", 'q', MT_OPT_FLAG, &o.quiet, NULL, "print no summary at the end" },
	{ "live", 0, MT_OPT_FLAG, &o.live, NULL,
	  "publish live figures for memtap top twice a second (default on)", NULL,
	  MT_OPTF_NEGATABLE },
	{ "follow", 0, MT_OPT_CHOICE, &o.follow, "HOW", "how to follow the process tree",
	  follow_choices },
	{ "mmaps", 0, MT_OPT_FLAG, &o.mmaps, NULL,
	  "record every mapping from the kernel's MMAP2 records (default on)", NULL,
	  MT_OPTF_NEGATABLE },
	{ "ring-pages", 0, MT_OPT_U64, &o.ring_pages, "N",
	  "data pages per per-CPU perf ring, a power of two (default 64)" },
	{ "flush-ms", 0, MT_OPT_U64, &o.flush_ms, "MS",
	  "write buffered events at least every MS milliseconds (default 1000)" },
	{ "alloc", 0, MT_OPT_CHOICE, &o.alloc, "HOW",
	  "trace heap allocations through the preload runtime: events records every call "
	  "(time, address, size, stack); sites keeps per-site counts and bytes by size class "
	  "and the heap every 10 ms, no addresses or per-call times (the report says which "
	  "figures that cannot give); --no-alloc: not at all",
	  alloc_choices, MT_OPTF_OPTIONAL_ARG | MT_OPTF_NEGATABLE },
	{ "stack-depth", 0, MT_OPT_U64, &o.stack_depth, "N",
	  "frames per allocation stack, at most 256; 0 records no stacks (default 128)" },
	{ "python-frames", 0, MT_OPT_FLAG, &o.python_frames, NULL,
	  "put the Python frames (function, file:line) of CPython 3.11 processes into their "
	  "allocation stacks, in place of the interpreter's eval loop (default on)",
	  NULL, MT_OPTF_NEGATABLE },
	{ "time-every", 0, MT_OPT_U64, &o.time_every, "N",
	  "read the clock on every Nth allocation event of a busy thread, 1 to 256 (default 1: "
	  "every event, within 10 us of its call); above 1 the others are interpolated, and an "
	  "idle gap makes their times wrong by up to the gap" },
	{ "rt-slots", 0, MT_OPT_U64, &o.rt_slots, "N",
	  "64 KiB shared-memory slots per traced process (default 1024)" },
	{ "zstd-level", 0, MT_OPT_U64, &o.zstd_level, "N",
	  "compression level of the trace, 1 (fast) to 19 (small) (default 1)" },
	{ "access", 0, MT_OPT_CHOICE, &o.access, "HOW",
	  "sample memory accesses with data addresses: auto picks the best mechanism memtap "
	  "probe finds (precise PEBS/IBS, else decoded samples of a hardware counter (regs), "
	  "else of cpu-clock (timer))",
	  access_choices },
	{ "access-freq", 0, MT_OPT_U64, &o.access_freq, "HZ",
	  "access samples per second of CPU time per thread (default: for decoded samples, "
	  "1000, the same on every run; the cost it has here is measured and said when above 5%)" },
	{ "access-period", 0, MT_OPT_U64, &o.access_period, "N",
	  "sample every N events instead (ns for timer, cycles for regs, loads for pebs, ops "
	  "for ibs)" },
	{ "faults", 0, MT_OPT_FLAG, &o.faults, NULL,
	  "record every page fault (minor and major) with its address (default on)", NULL,
	  MT_OPTF_NEGATABLE },
	{ "rss", 0, MT_OPT_FLAG, &o.rss, NULL,
	  "record each process's resident memory (file, anon, shmem, swap) over time (default on)",
	  NULL, MT_OPTF_NEGATABLE },
	{ "rss-interval-ms", 0, MT_OPT_U64, &o.rss_interval_ms, "MS",
	  "at most one RSS record per process every MS milliseconds; the peak stays exact "
	  "(default 1; polling without the tracepoint: at least 10)" },
	{ "page-writes-ms", 0, MT_OPT_U64, &o.page_writes_ms, "MS",
	  "track writes page by page, exactly, in epochs of MS milliseconds, to the ranges the "
	  "workload labels (memtap.h) and to large heap blocks and writable anonymous mappings "
	  "(userfaultfd write-protect + PAGEMAP_SCAN; 0: off; default 100)" },
	{ "page-writes", 0, MT_OPT_CHOICE, &o.page_writes, "HOW",
	  "settle: a page found written in two epochs is known rewritten and not protected "
	  "again (its later writes are not seen; the workload pays at most two tracking faults "
	  "per page); full: every epoch's written pages, one tracking fault per page per epoch "
	  "it is written in",
	  page_writes_choices },
	{ "page-writes-min", 0, MT_OPT_U64, &o.page_writes_min, "BYTES",
	  "heap blocks and writable anonymous mappings of at least BYTES are page-write tracked "
	  "from their allocation on, so are blocks of 64 KiB or more of an allocation stack whose "
	  "such blocks have added up to BYTES, and the program's and libraries' writable "
	  "segments of BYTES or more (0: labelled ranges only; default 1048576)" },
	{ "syscalls", 0, MT_OPT_STRING, &o.syscalls, "CLASSES",
	  "record every system call (of these classes: file, desc, memory, process, network, "
	  "ipc, signal, all; default all) with its result and duration",
	  NULL, MT_OPTF_OPTIONAL_ARG },
	{ "syscall-stacks", 0, MT_OPT_FLAG, &o.syscall_stacks, NULL,
	  "with each recorded system call, the user stack at its entry (8 KiB copied, unwound "
	  "with the files' CFI; implies --syscalls)" },
	{ "event", 'e', MT_OPT_LIST, &o.events, "SUBSYS:NAME",
	  "record every hit of this tracepoint in the tree, its fields decoded (e.g. "
	  "skb:kfree_skb)" },
	{ "cpus", 0, MT_OPT_STRING, &o.cpus, "LIST",
	  "run the command on these CPUs (e.g. 0-3,6; memtap itself keeps its own)" },
	{ "heap", 0, MT_OPT_STRING, &o.heap, "WHERE",
	  "place the command's heap: pmem:DIR (a file in a PMEM/DAX directory) or numa:N "
	  "(NUMA node N), through libmemkind (libmemtap-heap.so)" },
	{ "numa-node", 0, MT_OPT_STRING, &o.numa_node, "N",
	  "run the command on NUMA node N: its CPUs (unless --cpus) and its memory "
	  "(set_mempolicy MPOL_BIND)" },
	{ "pid", 'p', MT_OPT_STRING, &o.pid, "PID[,PID...]",
	  "attach to running processes (and the children they start) instead of running a "
	  "command: faults, RSS, syscalls, tracepoints, access samples and mappings from now "
	  "on, allocations from the moment memtap's runtime is loaded into each (ptrace)" },
	{ "all", 'a', MT_OPT_FLAG, &o.all, NULL,
	  "record every process on the machine but memtap's (faults, RSS, syscalls, "
	  "tracepoints, access samples, mappings, processes) until Ctrl-C, --duration or a "
	  "line END on standard input" },
	{ "duration", 0, MT_OPT_STRING, &o.duration, "SECONDS",
	  "with --pid or -a: stop after this long (default: at Ctrl-C, or the process's exit)" },
	{ "max-size", 0, MT_OPT_STRING, &o.max_size, "SIZE",
	  "keep the trace within SIZE bytes (K, M, G: powers of 1024; at least 4M): once half "
	  "of it is written, allocations below 64 KiB are counted by site (calls, bytes, frees "
	  "and the heap exact; no rows, so no lifetimes) while larger blocks and the blocks "
	  "already live keep their rows; at seven eighths the recording ends (--pid, -a: "
	  "detaching; a command runs on to its exit, unrecorded); the report states each step "
	  "(default: no limit)" },
	{ NULL },
};

const struct mt_command_spec mt_record_spec = {
	.name = "record",
	.usage = "[options] [--] CMD [ARGS...]  |  [options] --pid PID[,PID...]  |  [options] -a",
	.summary = "run a command and record how it uses memory",
	.description =
		"Runs CMD and follows its whole process tree (fork, vfork, clone, exec),\n"
		"recording process lifecycles and every memory mapping into one trace file.\n"
		"The command's output, environment and exit status are left unchanged: memtap\n"
		"exits with the command's status (128+N when signal N killed it; 127 or 126\n"
		"when it cannot be run). SIGINT, SIGTERM and SIGHUP sent to memtap are passed\n"
		"on to the command; the recording ends when every process of the tree has\n"
		"exited. If the trace cannot be written completely, memtap says so and exits\n"
		"non-zero even when the command succeeded.\n"
		"\n"
		"With --pid, memtap attaches to processes that run already and records until\n"
		"Ctrl-C (SIGINT, SIGTERM, SIGHUP: never passed on), --duration or their exit;\n"
		"it then detaches, the processes running on, and exits 0. To trace their\n"
		"allocations it loads its runtime into each, holding one thread a moment with\n"
		"ptrace (--no-alloc: nothing is stopped or changed). What happened before the\n"
		"attach is not seen: the trace says from when its figures hold. With -a, the\n"
		"same for every process on the machine but memtap's (allocations not traced);\n"
		"a line END on standard input also stops it.\n",
	.opts = options,
	.flags = MT_CMD_STOP_AT_ARG,
	.min_args = 0,
	.max_args = -1,
};

/* --heap pmem:DIR or numa:N, checked against this machine. */
static int heap(struct mt_record_opts *ro)
{
	static char lib[4096];
	struct stat st;
	cpu_set_t node;
	char *end;
	long n;

	if (!strncmp(o.heap, "pmem:", 5) && o.heap[5]) {
		if (stat(o.heap + 5, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    access(o.heap + 5, W_OK) < 0)
			return mt_usage_error(&mt_record_spec,
					      "--heap %s: not a directory memtap can write to",
					      o.heap);
	} else if (!strncmp(o.heap, "numa:", 5)) {
		n = strtol(o.heap + 5, &end, 10);
		if (end == o.heap + 5 || *end || n < 0 || n > 1023 ||
		    mt_numa_node_cpus((int)n, &node) < 0)
			return mt_usage_error(&mt_record_spec,
					      "--heap %s: not a NUMA node of this machine "
					      "(/sys/devices/system/node)",
					      o.heap);
	} else {
		return mt_usage_error(&mt_record_spec, "--heap '%s': pmem:DIR or numa:N", o.heap);
	}
	if (mt_find_lib("libmemtap-heap.so", lib, sizeof(lib)) < 0) {
		mt_err("--heap: %s is missing: this memtap was built without libmemkind "
		       "(Debian: libmemkind-dev)",
		       lib);
		return 2;
	}
	ro->heap = o.heap;
	ro->heap_lib = lib;
	return 0;
}

/* --cpus and --numa-node, checked against this machine. */
static int placement(struct mt_record_opts *ro, cpu_set_t *cpus)
{
	cpu_set_t node;
	char *end;
	long n;

	ro->numa_node = -1;
	if (o.cpus) {
		if (mt_cpulist_parse(o.cpus, cpus) < 0)
			return mt_usage_error(&mt_record_spec,
					      "--cpus '%s': not a CPU list like 0-3,6", o.cpus);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, cpus) && c >= sysconf(_SC_NPROCESSORS_CONF))
				return mt_usage_error(&mt_record_spec,
						      "--cpus '%s': this machine has no CPU %d",
						      o.cpus, c);
		ro->cpus = cpus;
	}
	if (o.numa_node) {
		n = strtol(o.numa_node, &end, 10);
		if (end == o.numa_node || *end || n < 0 || n > 1023)
			return mt_usage_error(&mt_record_spec,
					      "--numa-node '%s': not a node number", o.numa_node);
		if (mt_numa_node_cpus((int)n, &node) < 0)
			return mt_usage_error(&mt_record_spec,
					      "--numa-node %ld: this machine has no such node "
					      "(/sys/devices/system/node)",
					      n);
		ro->numa_node = (int)n;
	}
	return o.heap ? heap(ro) : 0;
}

/* --pid or -a, and --duration; the options that only make sense for a launched command refused. */
/* --pid A,B,C: each a process id, none twice. */
static int parse_pids(struct mt_record_opts *ro)
{
	const char *p = o.pid;

	if (!*p) /* nothing to attach to: never a launch of no command */
		return mt_usage_error(&mt_record_spec, "--pid '': not a process id");
	while (*p) {
		char *end = NULL;
		long pid = strtol(p, &end, 10);

		if (end == p || (*end && *end != ',') || pid <= 0 || pid > 0x3fffffff)
			return mt_usage_error(&mt_record_spec, "--pid '%s': not a process id",
					      o.pid);
		for (unsigned i = 0; i < ro->nattach; i++)
			if (ro->attach_pids[i] == (pid_t)pid)
				return mt_usage_error(&mt_record_spec,
						      "--pid '%s': %ld is given twice", o.pid, pid);
		if (ro->nattach >= MT_MAX_ATTACH)
			return mt_usage_error(&mt_record_spec, "--pid '%s': at most %d processes",
					      o.pid, MT_MAX_ATTACH);
		ro->attach_pids[ro->nattach++] = (pid_t)pid;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return mt_usage_error(&mt_record_spec, "--pid '%s': not a process id",
					      o.pid);
	}
	return 0;
}

static int attach_opts(struct mt_record_opts *ro)
{
	char *end = NULL;
	double sec;
	int r;

	if (o.pid && (r = parse_pids(ro)) != 0)
		return r;
	if (o.cpus || o.numa_node || o.heap)
		return mt_usage_error(&mt_record_spec,
				      "--cpus, --numa-node and --heap place a launched command; "
				      "%s records running ones",
				      o.all ? "-a" : "--pid");
	for (unsigned i = 0; i < ro->nattach; i++)
		if (mt_attach_check(ro->attach_pids[i]) < 0)
			return 2; /* said in one line */
	if (o.all && mt_attach_check_system() < 0)
		return 2; /* said in one line */
	ro->system_wide = o.all;
	ro->attach_pid = ro->nattach ? ro->attach_pids[0] : 0;
	if (o.duration) {
		sec = strtod(o.duration, &end);
		if (end == o.duration || *end || !(sec > 0) || sec > 31 * 86400.0)
			return mt_usage_error(&mt_record_spec,
					      "--duration '%s': seconds, more than 0", o.duration);
		ro->duration_ns = (uint64_t)(sec * 1e9);
	}
	for (unsigned i = 0; ro->alloc && i < ro->nattach; i++)
		if (mt_attach_traced(ro->attach_pids[i]) < 0)
			return 2; /* said in one line */
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct mt_record_opts ro;
	unsigned mode = 0;
	uint64_t max_size = 0;
	cpu_set_t cpus;
	int nargs, r;

	r = mt_opts_parse(&mt_record_spec, argc, argv, &nargs);
	if (r)
		return r == 1 ? 0 : r;
	if (!nargs && !o.pid && !o.all)
		return mt_usage_error(&mt_record_spec, "missing argument");
	if (nargs && (o.pid || o.all))
		return mt_usage_error(&mt_record_spec, "%s: give no command",
				      o.all ? "-a records the running system"
					    : "--pid attaches to a running process");
	if (o.pid && o.all)
		return mt_usage_error(&mt_record_spec, "--pid and -a exclude each other");
	if (o.duration && !o.pid && !o.all)
		return mt_usage_error(&mt_record_spec,
				      "--duration needs --pid or -a (a command is recorded until "
				      "it exits)");
	if (!o.ring_pages || (o.ring_pages & (o.ring_pages - 1)) || o.ring_pages > 65536)
		return mt_usage_error(&mt_record_spec,
				      "--ring-pages must be a power of two up to 65536");
	if (!o.flush_ms || o.flush_ms > 3600000)
		return mt_usage_error(&mt_record_spec, "--flush-ms must be between 1 and 3600000");
	if (o.stack_depth > 256)
		return mt_usage_error(&mt_record_spec, "--stack-depth must be at most 256");
	if (o.rt_slots < 4 || o.rt_slots > 65536)
		return mt_usage_error(&mt_record_spec, "--rt-slots must be between 4 and 65536");
	if (!o.time_every || o.time_every > 256)
		return mt_usage_error(&mt_record_spec, "--time-every must be between 1 and 256");
	if (o.mode) {
		char *end;
		unsigned long m = strtoul(o.mode, &end, 8);

		if (!*o.mode || *end || m > 0777 || (m & 0600) != 0600)
			return mt_usage_error(&mt_record_spec,
					      "--mode must be octal permissions from 0600 to 0777 "
					      "(the owner reads and writes)");
		mode = (unsigned)m;
	}
	if (o.max_size && (mt_parse_size(o.max_size, &max_size) < 0 || max_size < MT_BUDGET_MIN))
		return mt_usage_error(&mt_record_spec,
				      "--max-size '%s': a size of at least 4M (K, M, G suffixes)",
				      o.max_size);
	if (!o.zstd_level || o.zstd_level > 19)
		return mt_usage_error(&mt_record_spec, "--zstd-level must be between 1 and 19");
	if (o.syscalls) {
		const char *bad = NULL;

		if (mt_syscall_parse_classes(o.syscalls, &bad) < 0) {
			mt_err("unknown syscall class '%s' (classes: %s)", bad,
			       mt_syscall_class_names());
			return 2;
		}
	}
	for (unsigned i = 0; i < o.events.n; i++) {
		char msg[600];

		for (unsigned j = 0; j < i; j++)
			if (!strcmp(o.events.v[i], o.events.v[j]))
				return mt_usage_error(&mt_record_spec, "--event '%s' given twice",
						      o.events.v[i]);
		if (mt_tracepoint_check(o.events.v[i], msg, sizeof(msg)) < 0) {
			mt_err("%s", msg);
			return 2;
		}
	}
	if (!o.rss_interval_ms || o.rss_interval_ms > 60000)
		return mt_usage_error(&mt_record_spec,
				      "--rss-interval-ms must be between 1 and 60000");
	if (o.page_writes_ms > 600000)
		return mt_usage_error(&mt_record_spec, "--page-writes-ms must be at most 600000");
	if (o.access_freq > 1000000)
		return mt_usage_error(&mt_record_spec, "--access-freq must be at most 1000000");
	if (o.access != MT_ACCESS_AUTO && o.access != MT_ACCESS_OFF) {
		char why[400], alt[400];
		int mech = mt_access_choose((enum mt_access_mode)o.access, why, sizeof(why));

		if (mech < 0) {
			int a = mt_access_choose(MT_ACCESS_AUTO, alt, sizeof(alt));

			mt_err("--access=%s is not available here: %s (--access=auto would use %s)",
			       access_choices[o.access], why,
			       a < 0 ? "nothing" : mt_access_mech_name(a));
			return 2;
		}
	}
	mt_record_opts_init(&ro);
	ro.mode = mode;
	ro.output = o.output;
	ro.force = o.force;
	ro.quiet = o.quiet;
	ro.live = o.live;
	ro.argv = argv;
	ro.follow = (enum mt_follow)o.follow;
	ro.mmaps = o.mmaps;
	ro.ring_pages = (unsigned)o.ring_pages;
	ro.flush_ns = o.flush_ms * 1000000ull;
	ro.syscalls = o.syscalls;
	ro.syscall_stacks = o.syscall_stacks;
	if (o.syscall_stacks && !o.syscalls)
		ro.syscalls = "";
	if (o.syscall_stacks && o.syscalls && strstr(o.syscalls, "summary"))
		return mt_usage_error(&mt_record_spec,
				      "--syscall-stacks needs every call recorded, not "
				      "--syscalls=summary");
	ro.events = o.events.v;
	ro.nevents = o.events.n;
	ro.alloc = o.alloc >= 0;
	ro.alloc_sites = o.alloc == 1;
	ro.stack_depth = (unsigned)o.stack_depth;
	ro.python_frames = o.python_frames;
	ro.rt_slots = (unsigned)o.rt_slots;
	ro.time_every = (unsigned)o.time_every;
	ro.zstd_level = (int)o.zstd_level;
	ro.access = o.access;
	ro.faults = o.faults;
	ro.rss = o.rss;
	ro.rss_interval_ns = o.rss_interval_ms * 1000000ull;
	ro.page_writes_ns = o.page_writes_ms * 1000000ull;
	ro.page_writes_min = o.page_writes_min;
	ro.page_writes_full = o.page_writes == 1;
	ro.max_size = max_size;
	ro.access_period = o.access_period;
	ro.access_freq = o.access_freq;
	if ((r = placement(&ro, &cpus)) != 0)
		return r;
	if ((o.pid || o.all) && (r = attach_opts(&ro)) != 0)
		return r;
	mt_perf_defer_closes(true); /* the kernel's teardown of the events off the clock */
	r = mt_record(&ro);
	mt_perf_reap_deferred();
	return r < 0 ? 1 : r;
}
