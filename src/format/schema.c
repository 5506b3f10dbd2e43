/* SPDX-License-Identifier: MIT */
/* The event-type table: one row per type, one entry per field, in field-id order. */
#include "schema.h"

#include <string.h>
#include <sys/mman.h>

#define COMMON_FIELDS                                                     \
	{ "time_ns", MT_FK_U64, NULL, 0, "CLOCK_MONOTONIC nanoseconds" }, \
		{ "pid", MT_FK_U64, NULL, 0, "process id" },              \
	{                                                                 \
		"tid", MT_FK_U64, NULL, 0, "thread id"                    \
	}

static const char *const task_kinds[] = { "process", "vfork", "thread" };
static const char *const mmap_origins[] = { "procfs", "perf", "rt", "memtap" };

static const struct mt_field_desc task_new_fields[] = {
	COMMON_FIELDS,
	{ "ppid", MT_FK_U64, NULL, 0, "pid of the creating process" },
	{ "ptid", MT_FK_U64, NULL, 0, "tid of the creating thread" },
	{ "kind", MT_FK_ENUM, task_kinds, 3, "process, vfork or thread" },
};

static const struct mt_field_desc task_exec_fields[] = {
	COMMON_FIELDS,
	{ "exe", MT_FK_STR, NULL, 0, "executable after the exec" },
	{ "argv", MT_FK_ARGV, NULL, 0, "arguments" },
	{ "comm", MT_FK_STR, NULL, 0, "command name" },
	{ "old_tid", MT_FK_U64, NULL, 0, "thread that called execve" },
	{ "cgroup", MT_FK_STR, NULL, 0, "its cgroup v2 path then (\"\": unknown)" },
};

static const struct mt_field_desc task_comm_fields[] = {
	COMMON_FIELDS,
	{ "comm", MT_FK_STR, NULL, 0, "new thread name" },
};

static const struct mt_field_desc task_exit_fields[] = {
	COMMON_FIELDS,
	{ "kind", MT_FK_ENUM, task_kinds, 3, "process (the whole process) or thread" },
	{ "exit_code", MT_FK_I64, NULL, 0, "exit code, -1 if killed by a signal" },
	{ "signal", MT_FK_U64, NULL, 0, "terminating signal, 0 if none" },
	{ "core_dumped", MT_FK_U64, NULL, 0, "1 if a core was dumped" },
	{ "status_known", MT_FK_U64, NULL, 0, "1 if the exit status was observed" },
};

static const struct mt_field_desc mmap_fields[] = {
	COMMON_FIELDS,
	{ "addr", MT_FK_HEX, NULL, 0, "start address" },
	{ "len", MT_FK_U64, NULL, 0, "length in bytes" },
	{ "pgoff", MT_FK_HEX, NULL, 0, "file offset in bytes" },
	{ "prot", MT_FK_PROT, NULL, 0, "protection" },
	{ "flags", MT_FK_HEX, NULL, 0, "MAP_* flags" },
	{ "maj", MT_FK_U64, NULL, 0, "device major" },
	{ "min", MT_FK_U64, NULL, 0, "device minor" },
	{ "ino", MT_FK_U64, NULL, 0, "inode" },
	{ "build_id", MT_FK_STR, NULL, 0, "GNU build-id (hex)" },
	{ "path", MT_FK_STR, NULL, 0, "file path or [heap]/[stack]/...; empty if anonymous" },
	{ "origin", MT_FK_ENUM, mmap_origins, 4,
	  "procfs snapshot, perf MMAP2 record, runtime hook, or memtap's own memory" },
	{ "stack", MT_FK_STACK, NULL, 0, "call stack of the mmap call (runtime hook only)" },
};

static const char *const alloc_kinds[] = { "malloc",	   "calloc",	     "realloc",
					   "reallocarray", "posix_memalign", "aligned_alloc",
					   "memalign",	   "valloc",	     "pvalloc",
					   "free" };

static const struct mt_field_desc alloc_fields[] = {
	COMMON_FIELDS,
	{ "kind", MT_FK_ENUM, alloc_kinds, 10, "the function called" },
	{ "addr", MT_FK_HEX, NULL, 0, "block returned, or freed" },
	{ "size", MT_FK_U64, NULL, 0, "requested bytes" },
	{ "usable", MT_FK_U64, NULL, 0, "usable bytes of the block (malloc_usable_size)" },
	{ "old_addr", MT_FK_HEX, NULL, 0, "realloc: the block passed in" },
	{ "stack", MT_FK_STACK, NULL, 0, "call stack" },
	{ "flags", MT_FK_U64, NULL, 0, "1: nested in another hook, no stack; 2: stack truncated" },
	{ "span", MT_FK_U64, NULL, 0, "the span open on the thread (memtap_span_begin), 0: none" },
};

static const struct mt_field_desc munmap_fields[] = {
	COMMON_FIELDS,
	{ "addr", MT_FK_HEX, NULL, 0, "start address" },
	{ "len", MT_FK_U64, NULL, 0, "length in bytes" },
	{ "stack", MT_FK_STACK, NULL, 0, "call stack" },
};

static const struct mt_field_desc mremap_fields[] = {
	COMMON_FIELDS,
	{ "old_addr", MT_FK_HEX, NULL, 0, "old start address" },
	{ "old_len", MT_FK_U64, NULL, 0, "old length" },
	{ "addr", MT_FK_HEX, NULL, 0, "new start address" },
	{ "len", MT_FK_U64, NULL, 0, "new length" },
	{ "flags", MT_FK_HEX, NULL, 0, "MREMAP_* flags" },
	{ "stack", MT_FK_STACK, NULL, 0, "call stack" },
};

static const struct mt_field_desc brk_fields[] = {
	COMMON_FIELDS,
	{ "old_brk", MT_FK_HEX, NULL, 0, "program break before" },
	{ "new_brk", MT_FK_HEX, NULL, 0, "program break after" },
	{ "stack", MT_FK_STACK, NULL, 0, "call stack" },
};

static const char *const access_kinds[] = { "load", "store", "unresolved" };
static const char *const access_mechs[] = { "pebs", "ibs", "spe", "regs", "timer" };
static const char *const access_hows[] = { "none", "at_ip", "previous", "precise" };
static const char *const unresolved_reasons[_MT_UNRES_MAX] = {
	"resolved",	     "kernel",	      "no_code",     "undecodable",
	"no_memory_operand", "pointer_chase", "branch",	     "vector_index",
	"no_fs_base",	     "image_gone",    "string_done", "clobbered",
};

static const struct mt_field_desc access_fields[] = {
	COMMON_FIELDS,
	{ "kind", MT_FK_ENUM, access_kinds, 3, "load, store, or unresolved" },
	{ "ip", MT_FK_HEX, NULL, 0, "sampled user IP" },
	{ "addr", MT_FK_HEX, NULL, 0, "data address (0: unresolved)" },
	{ "size", MT_FK_U64, NULL, 0, "bytes accessed" },
	{ "mechanism", MT_FK_ENUM, access_mechs, 5, "pebs, ibs, spe, regs or timer" },
	{ "weight", MT_FK_U64, NULL, 0, "sampling period the sample stands for" },
	{ "how", MT_FK_ENUM, access_hows, 4, "at_ip, previous (skid) or precise" },
	{ "insn_ip", MT_FK_HEX, NULL, 0, "instruction that made the access" },
	{ "reason", MT_FK_ENUM, unresolved_reasons, _MT_UNRES_MAX, "why unresolved" },
	{ "part", MT_FK_U64, NULL, 0, "0: the sample's first access; 1..: further ones" },
	{ "data_src", MT_FK_HEX, NULL, 0, "precise: perf_mem_data_src word" },
	{ "latency", MT_FK_U64, NULL, 0, "precise: load latency in cycles" },
};

static const char *const fault_kinds[] = { "minor", "major" };

static const struct mt_field_desc fault_fields[] = {
	COMMON_FIELDS,
	{ "kind", MT_FK_ENUM, fault_kinds, 2, "minor or major (needed I/O)" },
	{ "ip", MT_FK_HEX, NULL, 0, "faulting instruction" },
	{ "addr", MT_FK_HEX, NULL, 0, "faulting data address" },
	{ "tracking", MT_FK_U64, NULL, 0,
	  "1: page-write tracking caused it (memtap's); +2: decided inside a scan" },
};

static const char *const rss_sources[] = { "kmem:rss_stat", "statm", "memtap" };

static const struct mt_field_desc rss_fields[] = {
	COMMON_FIELDS,
	{ "file", MT_FK_U64, NULL, 0, "resident file-backed bytes" },
	{ "anon", MT_FK_U64, NULL, 0, "resident anonymous bytes" },
	{ "shmem", MT_FK_U64, NULL, 0, "resident shared-memory bytes" },
	{ "swap", MT_FK_U64, NULL, 0, "swapped-out bytes" },
	{ "peak", MT_FK_U64, NULL, 0, "largest file+anon+shmem since the previous event" },
	{ "source", MT_FK_ENUM, rss_sources, 3,
	  "kmem:rss_stat tracepoint, statm polling, or memtap: memtap's own part (pagemap)" },
};

static const struct mt_field_desc syscall_fields[] = {
	COMMON_FIELDS,
	{ "nr", MT_FK_U64, NULL, 0, "syscall number (x86-64)" },
	{ "ret", MT_FK_I64, NULL, 0, "result; -4095..-1 is -errno" },
	{ "duration_ns", MT_FK_U64, NULL, 0, "entry to exit, tracing overhead included" },
	{ "a0", MT_FK_HEX, NULL, 0, "argument 1" },
	{ "a1", MT_FK_HEX, NULL, 0, "argument 2" },
	{ "a2", MT_FK_HEX, NULL, 0, "argument 3" },
	{ "a3", MT_FK_HEX, NULL, 0, "argument 4" },
	{ "a4", MT_FK_HEX, NULL, 0, "argument 5" },
	{ "a5", MT_FK_HEX, NULL, 0, "argument 6" },
	{ "flags", MT_FK_U64, NULL, 0,
	  "1: no exit seen; 2: no entry seen; 4: memtap's runtime's own call" },
	{ "path", MT_FK_STR, NULL, 0, "the path argument, copied at entry" },
	{ "stack", MT_FK_STACK, NULL, 0, "user stack at entry (--syscall-stacks)" },
};

static const struct mt_field_desc syssum_fields[] = {
	COMMON_FIELDS,
	{ "nr", MT_FK_U64, NULL, 0, "syscall number (x86-64)" },
	{ "calls", MT_FK_U64, NULL, 0, "calls that returned" },
	{ "errors", MT_FK_U64, NULL, 0, "of which failed (-4095..-1)" },
	{ "total_ns", MT_FK_U64, NULL, 0, "entry to exit, summed" },
	{ "runtime", MT_FK_U64, NULL, 0, "1: memtap's runtime's own calls" },
};

static const struct mt_field_desc lost_fields[] = {
	COMMON_FIELDS,
	{ "collector", MT_FK_STR, NULL, 0, "collector that lost events" },
	{ "count", MT_FK_U64, NULL, 0, "events lost" },
	{ "reason", MT_FK_STR, NULL, 0, "why" },
};

#define TPV(n)                                                                             \
	{                                                                                  \
		"f" #n, MT_FK_U64, NULL, 0, "the tracepoint's field n (see the collector)" \
	}
static const struct mt_field_desc tp_fields[] = {
	COMMON_FIELDS, { "event", MT_FK_STR, NULL, 0, "the tracepoint, SUBSYS:NAME" },
	TPV(0),	       TPV(1),
	TPV(2),	       TPV(3),
	TPV(4),	       TPV(5),
	TPV(6),	       TPV(7),
	TPV(8),	       TPV(9),
	TPV(10),       TPV(11),
	TPV(12),       TPV(13),
	TPV(14),       TPV(15),
	TPV(16),       TPV(17),
	TPV(18),       TPV(19),
	TPV(20),       TPV(21),
	TPV(22),       TPV(23),
	TPV(24),       TPV(25),
	TPV(26),       TPV(27),
};
#undef TPV

static const char *const label_ops[] = { "label", "unlabel" };
static const char *const label_wp[] = { "off", "tracked", "failed" };

static const struct mt_field_desc label_fields[] = {
	COMMON_FIELDS,
	{ "op", MT_FK_ENUM, label_ops, 2, "label or unlabel" },
	{ "addr", MT_FK_HEX, NULL, 0, "start of the range" },
	{ "len", MT_FK_U64, NULL, 0, "bytes (0 for unlabel)" },
	{ "region_type", MT_FK_STR, NULL, 0, "region type given by the workload" },
	{ "name", MT_FK_STR, NULL, 0, "object name given by the workload" },
	{ "page_writes", MT_FK_ENUM, label_wp, 3, "page-write tracking of the range" },
	{ "page_writes_errno", MT_FK_U64, NULL, 0, "why tracking failed (errno)" },
};

static const struct mt_field_desc phase_fields[] = {
	COMMON_FIELDS,
	{ "name", MT_FK_STR, NULL, 0, "phase entered; empty when it ends" },
};

static const struct mt_field_desc page_write_fields[] = {
	COMMON_FIELDS,
	{ "addr", MT_FK_HEX, NULL, 0, "first page written" },
	{ "len", MT_FK_U64, NULL, 0, "bytes written to (whole pages)" },
	{ "since", MT_FK_U64, NULL, 0, "start of the epoch: the previous scan (ns)" },
	{ "scan_ns", MT_FK_U64, NULL, 0, "the scan's ioctl took this long from its time" },
	{ "settled", MT_FK_U64, NULL, 0,
	  "1: written in an earlier epoch too; left unprotected, later writes unseen" },
};

static const char *const page_track_ops[] = { "armed", "huge", "zapped", "released",
					      "untracked_huge" };

static const struct mt_field_desc page_track_fields[] = {
	COMMON_FIELDS,
	{ "addr", MT_FK_HEX, NULL, 0, "first page" },
	{ "len", MT_FK_U64, NULL, 0, "bytes (whole pages)" },
	{ "op", MT_FK_ENUM, page_track_ops, 5, "what tracking did to the pages" },
};

static const struct mt_field_desc py_func_fields[] = {
	COMMON_FIELDS,
	{ "id", MT_FK_U64, NULL, 0, "the code object's id: Python frames name it" },
	{ "first_line", MT_FK_U64, NULL, 0, "the line its definition starts at" },
	{ "name", MT_FK_STR, NULL, 0, "qualified name" },
	{ "file", MT_FK_STR, NULL, 0, "source file" },
};

static const struct mt_field_desc pw_range_fields[] = {
	COMMON_FIELDS,
	{ "addr", MT_FK_HEX, NULL, 0, "first whole page of the block or mapping" },
	{ "len", MT_FK_U64, NULL, 0, "bytes: its whole pages" },
	{ "page_writes", MT_FK_ENUM, label_wp, 3, "page-write tracking of the range" },
	{ "page_writes_errno", MT_FK_U64, NULL, 0, "why tracking failed (errno)" },
};

static const char *const app_ops[] = { "event", "begin", "end" };

static const struct mt_field_desc app_fields[] = {
	COMMON_FIELDS,
	{ "op", MT_FK_ENUM, app_ops, 3, "an event, or a span's begin or end" },
	{ "id", MT_FK_U64, NULL, 0, "the span (the process's own id); 0 for an event" },
	{ "parent", MT_FK_U64, NULL, 0, "the span enclosing it on the thread, 0: none" },
	{ "name", MT_FK_STR, NULL, 0, "the name given by the workload" },
	{ "fields", MT_FK_STR, NULL, 0, "the JSON object given by the workload" },
};

static const struct mt_field_desc alloc_site_fields[] = {
	COMMON_FIELDS,
	{ "since", MT_FK_U64, NULL, 0, "the window's first event" },
	{ "stack", MT_FK_STACK, NULL, 0, "call stack" },
	{ "kind", MT_FK_ENUM, alloc_kinds, 10, "the allocation function" },
	{ "size_class", MT_FK_U64, NULL, 0, "0: 0 bytes; k: 2^(k-1) to 2^k-1 bytes" },
	{ "calls", MT_FK_U64, NULL, 0, "successful allocation calls" },
	{ "bytes", MT_FK_U64, NULL, 0, "their requested bytes" },
	{ "slack", MT_FK_U64, NULL, 0, "their usable minus requested bytes" },
	{ "frees", MT_FK_U64, NULL, 0, "blocks of this key released" },
	{ "freed_bytes", MT_FK_U64, NULL, 0, "their requested bytes" },
};

static const struct mt_field_desc heap_window_fields[] = {
	COMMON_FIELDS,
	{ "since", MT_FK_U64, NULL, 0, "the window's first event" },
	{ "live_bytes", MT_FK_U64, NULL, 0, "requested bytes live at the window's last event" },
	{ "live_blocks", MT_FK_U64, NULL, 0, "blocks live then" },
	{ "peak_bytes", MT_FK_U64, NULL, 0, "the largest live bytes in the window" },
	{ "peak_ns", MT_FK_U64, NULL, 0, "when it was reached" },
	{ "calls", MT_FK_U64, NULL, 0, "allocation calls" },
	{ "frees", MT_FK_U64, NULL, 0, "free() calls and realloc(p, 0)" },
	{ "untracked_frees", MT_FK_U64, NULL, 0, "releases of blocks never seen allocated" },
	{ "reordered_frees", MT_FK_U64, NULL, 0,
	  "frees folded after their address was allocated again" },
	{ "events", MT_FK_U64, NULL, 0, "allocation rows folded" },
};

#define TYPE(t, n, f, d) [t] = { n, MT_ARRAY_SIZE_(f), f, d }
#define MT_ARRAY_SIZE_(a) (sizeof(a) / sizeof((a)[0]))

static const struct mt_type_desc types[_MT_EV_MAX] = {
	TYPE(MT_EV_TASK_NEW, "task_new", task_new_fields, "a process or thread was created"),
	TYPE(MT_EV_TASK_EXEC, "task_exec", task_exec_fields, "a process replaced its image"),
	TYPE(MT_EV_TASK_COMM, "task_comm", task_comm_fields, "a thread changed its name"),
	TYPE(MT_EV_TASK_EXIT, "task_exit", task_exit_fields, "a thread or process ended"),
	TYPE(MT_EV_MMAP, "mmap", mmap_fields, "a memory mapping"),
	TYPE(MT_EV_LOST, "lost", lost_fields, "a collector lost events"),
	TYPE(MT_EV_ALLOC, "alloc", alloc_fields, "a heap allocation or free"),
	TYPE(MT_EV_MUNMAP, "munmap", munmap_fields, "a range was unmapped"),
	TYPE(MT_EV_MREMAP, "mremap", mremap_fields, "a mapping was resized or moved"),
	TYPE(MT_EV_BRK, "brk", brk_fields, "the program break moved"),
	TYPE(MT_EV_ACCESS, "access", access_fields, "a sampled memory access"),
	TYPE(MT_EV_FAULT, "fault", fault_fields, "a page fault"),
	TYPE(MT_EV_RSS, "rss", rss_fields, "a process's resident memory"),
	TYPE(MT_EV_SYSCALL, "syscall", syscall_fields, "a system call"),
	TYPE(MT_EV_SYSCALL_SUM, "syscall_sum", syssum_fields, "in-kernel totals of a syscall"),
	TYPE(MT_EV_TRACEPOINT, "tracepoint", tp_fields, "a tracepoint hit (--event)"),
	TYPE(MT_EV_LABEL, "label", label_fields, "the workload named a range (memtap.h)"),
	TYPE(MT_EV_PHASE, "phase", phase_fields, "the workload entered or left a phase"),
	TYPE(MT_EV_PAGE_WRITE, "page_write", page_write_fields,
	     "pages of a tracked range written in one epoch"),
	TYPE(MT_EV_PY_FUNC, "py_func", py_func_fields,
	     "a Python function named by Python frames of the stacks"),
	TYPE(MT_EV_PW_RANGE, "page_write_range", pw_range_fields,
	     "a large block or writable mapping under page-write tracking"),
	TYPE(MT_EV_APP, "app", app_fields, "the workload's own event or span (memtap.h)"),
	TYPE(MT_EV_ALLOC_SITE, "alloc_site", alloc_site_fields,
	     "--alloc=sites: a site's allocations and frees in a window"),
	TYPE(MT_EV_HEAP_WINDOW, "heap_window", heap_window_fields,
	     "--alloc=sites: a process's heap over a window"),
	TYPE(MT_EV_PAGE_TRACK, "page_track", page_track_fields,
	     "what page-write tracking did to a range's protection"),
};

_Static_assert(MT_ARRAY_SIZE_(page_track_fields) == _MT_F_PT_MAX, "page_track fields");
_Static_assert(MT_ARRAY_SIZE_(alloc_site_fields) == _MT_F_ASITE_MAX, "alloc_site fields");
_Static_assert(MT_ARRAY_SIZE_(heap_window_fields) == _MT_F_HWIN_MAX, "heap_window fields");

_Static_assert(MT_ARRAY_SIZE_(task_new_fields) == _MT_F_NEW_MAX, "task_new fields");
_Static_assert(MT_ARRAY_SIZE_(task_exec_fields) == _MT_F_EXEC_MAX, "task_exec fields");
_Static_assert(MT_ARRAY_SIZE_(task_comm_fields) == _MT_F_COMM_MAX, "task_comm fields");
_Static_assert(MT_ARRAY_SIZE_(task_exit_fields) == _MT_F_EXIT_MAX, "task_exit fields");
_Static_assert(MT_ARRAY_SIZE_(mmap_fields) == _MT_F_MMAP_MAX, "mmap fields");
_Static_assert(MT_ARRAY_SIZE_(lost_fields) == _MT_F_LOST_MAX, "lost fields");
_Static_assert(MT_ARRAY_SIZE_(alloc_fields) == _MT_F_ALLOC_MAX, "alloc fields");
_Static_assert(MT_ARRAY_SIZE_(munmap_fields) == _MT_F_MUNMAP_MAX, "munmap fields");
_Static_assert(MT_ARRAY_SIZE_(mremap_fields) == _MT_F_MREMAP_MAX, "mremap fields");
_Static_assert(MT_ARRAY_SIZE_(brk_fields) == _MT_F_BRK_MAX, "brk fields");
_Static_assert(MT_ARRAY_SIZE_(access_fields) == _MT_F_ACCESS_MAX, "access fields");
_Static_assert(MT_ARRAY_SIZE_(fault_fields) == _MT_F_FAULT_MAX, "fault fields");
_Static_assert(MT_ARRAY_SIZE_(rss_fields) == _MT_F_RSS_MAX, "rss fields");
_Static_assert(MT_ARRAY_SIZE_(syscall_fields) == _MT_F_SYSCALL_MAX, "syscall fields");
_Static_assert(MT_ARRAY_SIZE_(syssum_fields) == _MT_F_SYSSUM_MAX, "syscall_sum fields");
_Static_assert(MT_ARRAY_SIZE_(tp_fields) == _MT_F_TP_MAX, "tracepoint fields");
_Static_assert(_MT_F_TP_MAX <= MT_MAX_FIELDS, "tracepoint fields within the limit");
_Static_assert(MT_ARRAY_SIZE_(label_fields) == _MT_F_LABEL_MAX, "label fields");
_Static_assert(MT_ARRAY_SIZE_(phase_fields) == _MT_F_PHASE_MAX, "phase fields");
_Static_assert(MT_ARRAY_SIZE_(page_write_fields) == _MT_F_PW_MAX, "page_write fields");
_Static_assert(MT_ARRAY_SIZE_(py_func_fields) == _MT_F_PYFN_MAX, "py_func fields");
_Static_assert(MT_ARRAY_SIZE_(pw_range_fields) == _MT_F_PWR_MAX, "page_write_range fields");
_Static_assert(MT_ARRAY_SIZE_(app_fields) == _MT_F_APP_MAX, "app fields");

const struct mt_type_desc *mt_type_desc(unsigned type)
{
	if (type >= _MT_EV_MAX || !types[type].name)
		return NULL;
	return &types[type];
}

int mt_type_by_name(const char *name)
{
	for (unsigned t = 0; t < _MT_EV_MAX; t++)
		if (types[t].name && !strcmp(types[t].name, name))
			return (int)t;
	return -1;
}

const char *mt_field_enum_name(const struct mt_field_desc *f, uint64_t v)
{
	if (f->kind != MT_FK_ENUM || v >= f->n_enum)
		return "?";
	return f->enum_names[v];
}

const char *mt_prot_str(uint64_t prot, char buf[4])
{
	buf[0] = prot & PROT_READ ? 'r' : '-';
	buf[1] = prot & PROT_WRITE ? 'w' : '-';
	buf[2] = prot & PROT_EXEC ? 'x' : '-';
	buf[3] = 0;
	return buf;
}
