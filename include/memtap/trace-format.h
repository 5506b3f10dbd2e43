/* SPDX-License-Identifier: MIT */
/* The .mtap trace format: constants, chunk types, event types and their field ids. */
#ifndef MEMTAP_TRACE_FORMAT_H
#define MEMTAP_TRACE_FORMAT_H

#include <stdint.h>

/*
 * docs/trace-format.md is the specification; this header is its machine-readable half.
 * All multi-byte fixed-width integers are little-endian. Event payloads use LEB128 varints.
 *
 * Compatibility rule: a reader refuses a file whose major version differs from its own and
 * reads any minor version. Minor versions may only add: new chunk types, new event types,
 * new fields (columns) at the end of a type, new keys in key/value chunks. Readers skip
 * what they do not know. Field ids and type numbers are never reused.
 */

#define MT_FORMAT_MAJOR 1
#define MT_FORMAT_MINOR \
	5 /* 1: app events (MT_EV_APP), the alloc span field; 2: HEAP_ADDR; \
			    * 3: --alloc=sites (MT_EV_ALLOC_SITE, MT_EV_HEAP_WINDOW); \
			    * 4: MT_EV_PAGE_TRACK, the page_write scan_ns and fault tracking fields; \
			    * 5: the page_write settled field */

/* File header: 96 bytes at offset 0. */
#define MT_FILE_MAGIC "\x89MTAP\r\n\x1a"
#define MT_FILE_MAGIC_LEN 8
#define MT_FILE_HEADER_SIZE 96
#define MT_FILE_HDR_OFF_SIZE 8 /* u32 header size (>= 96; newer minors may grow it) */
#define MT_FILE_HDR_OFF_MAJOR 12 /* u16 */
#define MT_FILE_HDR_OFF_MINOR 14 /* u16 */
#define MT_FILE_HDR_OFF_FLAGS 16 /* u32, 0 */
#define MT_FILE_HDR_OFF_RUN_ID 24 /* u8[16], random per recording */
#define MT_FILE_HDR_OFF_REALTIME 40 /* u64 CLOCK_REALTIME ns at the start of the recording */
#define MT_FILE_HDR_OFF_MONOTONIC 48 /* u64 CLOCK_MONOTONIC ns at the same instant */
#define MT_FILE_HDR_OFF_WRITER 56 /* char[32], NUL-padded, e.g. "memtap 0.1.0" */
#define MT_FILE_HDR_WRITER_LEN 32
/* The last 4 bytes of the header hold the CRC-32C of all bytes before them. */

/* Chunk header: 56 bytes, followed by payload_size bytes of payload. */
#define MT_CHUNK_MAGIC 0x4843544dU /* "MTCH" in file byte order */
#define MT_CHUNK_HEADER_SIZE 56

enum mt_chunk_type {
	MT_CHUNK_META = 1, /* key/value: machine and run metadata */
	MT_CHUNK_STRINGS = 2, /* string table entries of one stream */
	MT_CHUNK_STACKS = 3, /* stack trie nodes of one stream */
	MT_CHUNK_EVENTS = 4, /* a columnar block of events of one type (the subtype) */
	MT_CHUNK_COLLECTOR = 5, /* key/value: one collector's mechanism, settings and totals */
	MT_CHUNK_STREAM = 6, /* key/value: declares a producer stream */
	MT_CHUNK_END = 7, /* key/value: the recording ended cleanly; always last */
	MT_CHUNK_STACKS2 = 8, /* stack trie nodes, ips delta-coded per kind (1.2) */
};

enum mt_compression {
	MT_COMP_NONE = 0,
	MT_COMP_ZSTD = 1,
};

/* Column encodings inside an EVENTS payload. */
enum mt_col_encoding {
	MT_ENC_CONST = 0, /* one varint, the value of every row */
	MT_ENC_VARINT = 1, /* one varint per row */
	MT_ENC_ZIGZAG = 2, /* one zigzag varint per row (the value as a signed 64-bit integer) */
	MT_ENC_DELTA = 3, /* varint first value, then zigzag varints of row-to-row differences */
	MT_ENC_HEAP_ADDR = 4, /* ALLOC's addr only: varint codes of an allocator model (1.2) */
};

/* Hard limits every reader enforces before allocating. */
#define MT_MAX_CHUNK_PAYLOAD (64u << 20)
#define MT_MAX_CHUNK_RAW (64u << 20)
#define MT_MAX_BLOCK_EVENTS (1u << 17)
#define MT_MAX_STRING (16u << 20)
#define MT_MAX_FIELDS 32

/* Event types (the subtype of an EVENTS chunk). */
enum mt_ev_type {
	MT_EV_TASK_NEW = 1, /* a process or thread was created */
	MT_EV_TASK_EXEC = 2, /* a process replaced its image */
	MT_EV_TASK_COMM = 3, /* a thread changed its name */
	MT_EV_TASK_EXIT = 4, /* a thread or a whole process ended */
	MT_EV_MMAP = 5, /* a memory mapping exists from this time on */
	MT_EV_LOST = 6, /* a collector lost events */
	MT_EV_ALLOC = 7, /* a heap allocation function was called, or free */
	MT_EV_MUNMAP = 8, /* a range was unmapped */
	MT_EV_MREMAP = 9, /* a mapping was resized or moved */
	MT_EV_BRK = 10, /* the program break moved */
	MT_EV_ACCESS = 11, /* a sampled memory access, or a sample that gave none */
	MT_EV_FAULT = 12, /* a page fault */
	MT_EV_RSS = 13, /* a process's resident memory, by type */
	MT_EV_SYSCALL = 14, /* a system call, at its entry, with its result and duration */
	MT_EV_SYSCALL_SUM = 15, /* in-kernel totals of one syscall over the whole tree */
	MT_EV_TRACEPOINT = 16, /* a tracepoint hit (--event SUBSYS:NAME), its fields as values */
	MT_EV_LABEL = 17, /* the workload named a range (memtap_label) or dropped the name */
	MT_EV_PHASE = 18, /* the workload entered a phase (memtap_phase), or left it */
	MT_EV_PAGE_WRITE = 19, /* pages of a tracked range written since the previous scan */
	MT_EV_PY_FUNC = 20, /* a Python function that frames of this process's stacks name */
	MT_EV_PW_RANGE = 21, /* a large block or writable mapping put under page-write tracking */
	MT_EV_APP = 22, /* the workload's own event, or a span's begin or end (memtap_span_*) */
	MT_EV_ALLOC_SITE = 23, /* --alloc=sites: one site's allocations and frees in a window */
	MT_EV_HEAP_WINDOW = 24, /* --alloc=sites: one process's heap over a window */
	MT_EV_PAGE_TRACK = 25, /* what page-write tracking did to a range's protection */
	_MT_EV_MAX,
};

/* Fields every event type has, in every block. */
enum {
	MT_F_TIME = 0, /* CLOCK_MONOTONIC ns */
	MT_F_PID = 1, /* process id (thread group id) */
	MT_F_TID = 2, /* thread id */
	MT_F_COMMON_MAX = 3,
};

enum mt_task_kind {
	MT_TASK_PROCESS = 0, /* fork(), or clone() without CLONE_THREAD/CLONE_VFORK */
	MT_TASK_VFORK = 1,
	MT_TASK_THREAD = 2,
};

/* MT_EV_TASK_NEW: pid/tid are the new task's. */
enum {
	MT_F_NEW_PPID = 3, /* pid of the creating process */
	MT_F_NEW_PTID, /* tid of the creating thread */
	MT_F_NEW_KIND, /* enum mt_task_kind */
	_MT_F_NEW_MAX,
};

/* MT_EV_TASK_EXEC */
enum {
	MT_F_EXEC_EXE = 3, /* string: /proc/PID/exe after the exec */
	MT_F_EXEC_ARGV, /* string: the arguments, each followed by a NUL */
	MT_F_EXEC_COMM, /* string */
	MT_F_EXEC_OLD_TID, /* the thread that called execve (a non-leader's tid vanishes) */
	MT_F_EXEC_CGROUP, /* string: its cgroup (v2 path) then; "" unknown (format 1.1 traces) */
	_MT_F_EXEC_MAX,
};

/* MT_EV_TASK_COMM */
enum {
	MT_F_COMM_COMM = 3, /* string */
	_MT_F_COMM_MAX,
};

/* MT_EV_TASK_EXIT: kind is MT_TASK_PROCESS when the whole process is gone. */
enum {
	MT_F_EXIT_KIND = 3, /* enum mt_task_kind: PROCESS or THREAD */
	MT_F_EXIT_CODE, /* signed: the exit code, or -1 when killed by a signal */
	MT_F_EXIT_SIGNAL, /* the terminating signal, or 0 */
	MT_F_EXIT_CORE, /* 1 if a core was dumped */
	MT_F_EXIT_KNOWN, /* 1 if the status was observed; 0: the mechanism cannot see it */
	_MT_F_EXIT_MAX,
};

enum mt_mmap_origin {
	MT_MMAP_PROCFS = 0, /* a /proc/PID/maps snapshot taken at the event's time */
	MT_MMAP_PERF = 1, /* the kernel's PERF_RECORD_MMAP2 */
	MT_MMAP_RT = 2, /* the preload runtime's mmap hook */
	MT_MMAP_MEMTAP = 3, /* memtap's own memory in the process (its runtime's region, arena) */
};

/* MT_EV_MMAP */
enum {
	MT_F_MMAP_ADDR = 3,
	MT_F_MMAP_LEN,
	MT_F_MMAP_PGOFF, /* file offset in bytes */
	MT_F_MMAP_PROT, /* PROT_* bits */
	MT_F_MMAP_FLAGS, /* MAP_* bits (MAP_SHARED or MAP_PRIVATE at least) */
	MT_F_MMAP_MAJ, /* device major of the file, 0 if unknown */
	MT_F_MMAP_MIN, /* device minor */
	MT_F_MMAP_INO, /* inode number, 0 if unknown */
	MT_F_MMAP_BUILD_ID, /* string: lowercase hex GNU build-id, "" if none */
	MT_F_MMAP_PATH, /* string: file path, "" for anonymous, or "[heap]", "[stack]", ... */
	MT_F_MMAP_ORIGIN, /* enum mt_mmap_origin */
	MT_F_MMAP_STACK, /* stack id of the call (origin rt), 0 if none */
	_MT_F_MMAP_MAX,
};

/* MT_EV_ALLOC flags. */
enum mt_alloc_flag {
	MT_ALLOC_F_NESTED = 1, /* recorded inside another hook (a signal handler): no stack */
	MT_ALLOC_F_TRUNCATED = 2, /* the stack walk stopped before the outermost frame */
	MT_ALLOC_F_TIME_EST = 4, /* time interpolated between stamped neighbours of the thread */
};

/* Which function an MT_EV_ALLOC event records. */
enum mt_alloc_kind {
	MT_ALLOC_MALLOC = 0,
	MT_ALLOC_CALLOC = 1,
	MT_ALLOC_REALLOC = 2,
	MT_ALLOC_REALLOCARRAY = 3,
	MT_ALLOC_POSIX_MEMALIGN = 4,
	MT_ALLOC_ALIGNED_ALLOC = 5,
	MT_ALLOC_MEMALIGN = 6,
	MT_ALLOC_VALLOC = 7,
	MT_ALLOC_PVALLOC = 8,
	MT_ALLOC_FREE = 9,
};

/*
 * MT_EV_ALLOC. A successful allocation has addr != 0; realloc also carries old_addr (which
 * it freed, unless equal to addr); realloc(p, 0) that frees p has addr 0. free(NULL) is
 * not recorded. Calls that fail (return NULL or an error) are not recorded.
 */
enum {
	MT_F_ALLOC_KIND = 3, /* enum mt_alloc_kind */
	MT_F_ALLOC_ADDR, /* the block returned, or freed */
	MT_F_ALLOC_SIZE, /* requested bytes (calloc: n * size) */
	MT_F_ALLOC_USABLE, /* malloc_usable_size() of the block, >= size */
	MT_F_ALLOC_OLD, /* realloc: the block passed in */
	MT_F_ALLOC_STACK, /* stack id, 0 if none */
	MT_F_ALLOC_FLAGS, /* enum mt_alloc_flag */
	MT_F_ALLOC_SPAN, /* the span open on the thread at the call (memtap_span_begin), 0: none */
	_MT_F_ALLOC_MAX,
};

/* MT_EV_MUNMAP */
enum {
	MT_F_MUNMAP_ADDR = 3,
	MT_F_MUNMAP_LEN,
	MT_F_MUNMAP_STACK,
	_MT_F_MUNMAP_MAX,
};

/* MT_EV_MREMAP */
enum {
	MT_F_MREMAP_OLD_ADDR = 3,
	MT_F_MREMAP_OLD_LEN,
	MT_F_MREMAP_ADDR,
	MT_F_MREMAP_LEN,
	MT_F_MREMAP_FLAGS,
	MT_F_MREMAP_STACK,
	_MT_F_MREMAP_MAX,
};

/* MT_EV_BRK */
enum {
	MT_F_BRK_OLD = 3,
	MT_F_BRK_NEW,
	MT_F_BRK_STACK,
	_MT_F_BRK_MAX,
};

/* MT_EV_ACCESS: what a sampled access was. */
enum mt_access_kind { MT_ACCESS_LOAD = 0, MT_ACCESS_STORE = 1, MT_ACCESS_UNRESOLVED = 2 };

/* The sampling mechanism that produced an MT_EV_ACCESS event. */
enum mt_access_mech {
	MT_MECH_PEBS = 0, /* Intel PEBS: the hardware reports address, data source, latency */
	MT_MECH_IBS = 1, /* AMD IBS op sampling, likewise */
	MT_MECH_SPE = 2, /* ARM statistical profiling extension, likewise */
	MT_MECH_REGS = 3, /* a hardware counter's samples with user registers, decoded */
	MT_MECH_TIMER = 4, /* cpu-clock (hrtimer) samples with user registers, decoded */
};

/* How the address was found. */
enum mt_access_how {
	MT_HOW_NONE = 0, /* unresolved */
	MT_HOW_AT_IP = 1, /* decoded from the instruction at the IP (about to run) */
	MT_HOW_PREVIOUS = 2, /* from an instruction before the IP (skid), registers undone */
	MT_HOW_PRECISE = 3, /* reported by the hardware */
};

/* Why a sample gave no data address. */
enum mt_unresolved {
	MT_UNRES_NONE = 0,
	MT_UNRES_KERNEL = 1, /* no user registers, or a kernel IP */
	MT_UNRES_NO_CODE = 2, /* the code bytes could not be read */
	MT_UNRES_UNDECODABLE = 3, /* no valid instruction at the IP */
	MT_UNRES_NO_MEMOP = 4, /* no instruction near the IP touches memory (or only hints) */
	MT_UNRES_POINTER_CHASE = 5, /* the access overwrote its own address register (p = *p) */
	MT_UNRES_BRANCH = 6, /* a branch lies before the IP, or the IP is a branch target */
	MT_UNRES_VECTOR_INDEX = 7, /* a gather/scatter: per-lane indexes are not sampled */
	MT_UNRES_NO_FS_BASE = 8, /* an fs:/gs: operand with the thread's segment base unknown */
	MT_UNRES_IMAGE_GONE = 9, /* the process exited or exec'd before its code was read */
	MT_UNRES_STRING_DONE = 10, /* a rep string instruction with nothing left to do */
	MT_UNRES_CLOBBERED = 11, /* an address register was overwritten after the access */
	_MT_UNRES_MAX,
};

/*
 * MT_EV_ACCESS. One event per access a sample yields (a read-modify-write or movs gives
 * two, with part 0 and 1), or one unresolved event (kind MT_ACCESS_UNRESOLVED) per sample
 * that yields none. Every event of a sample carries the sample's weight.
 */
enum {
	MT_F_ACCESS_KIND = 3, /* enum mt_access_kind */
	MT_F_ACCESS_IP, /* the sampled user IP */
	MT_F_ACCESS_ADDR, /* data address, 0 when unresolved */
	MT_F_ACCESS_SIZE, /* bytes accessed */
	MT_F_ACCESS_MECH, /* enum mt_access_mech */
	MT_F_ACCESS_WEIGHT, /* the period the sample stands for, in the event's unit */
	MT_F_ACCESS_HOW, /* enum mt_access_how */
	MT_F_ACCESS_INSN_IP, /* the instruction that accessed (≠ ip after skid) */
	MT_F_ACCESS_REASON, /* enum mt_unresolved */
	MT_F_ACCESS_PART, /* 0 for a sample's first event, 1.. for further accesses */
	MT_F_ACCESS_DATA_SRC, /* precise: the perf_mem_data_src word; 0 otherwise */
	MT_F_ACCESS_LATENCY, /* precise: cycles from issue to data; 0 otherwise */
	_MT_F_ACCESS_MAX,
};

/* MT_EV_FAULT: every page fault of the traced tree (perf software events). */
enum mt_fault_kind { MT_FAULT_MINOR = 0, MT_FAULT_MAJOR = 1 };

enum {
	MT_F_FAULT_KIND = 3, /* enum mt_fault_kind */
	MT_F_FAULT_IP, /* the faulting instruction (a kernel address: a fault in a syscall) */
	MT_F_FAULT_ADDR, /* the faulting data address */
	/* 1.4, enum mt_fault_tracking: whether page-write tracking's write protection caused
	 * it. Never stored (0 in the file): the reader's cursor derives it from the page-write
	 * events (format/pwfault.h) when the trace has them. */
	MT_F_FAULT_TRACKING,
	_MT_F_FAULT_MAX,
};

/* MT_F_FAULT_TRACKING bits. */
enum mt_fault_tracking {
	MT_FAULT_TRACKING = 1, /* memtap's: the first write to a page it had protected */
	/* decided inside the walk that protected the page again, so the rule, not the order of
	 * the two, decided it (docs/trace-format.md, "Which faults are tracking's") */
	MT_FAULT_TRACKING_UNCERTAIN = 2,
};

/* MT_EV_RSS: a process's resident set at this time, in bytes (kernel counters). */
enum {
	MT_F_RSS_FILE = 3, /* file-backed pages */
	MT_F_RSS_ANON, /* anonymous pages */
	MT_F_RSS_SHMEM, /* shared memory */
	MT_F_RSS_SWAP, /* swapped-out entries */
	MT_F_RSS_PEAK, /* the largest file + anon + shmem since the previous event, this one's incl. */
	MT_F_RSS_SOURCE, /* enum mt_rss_source */
	_MT_F_RSS_MAX,
};

/* MT_RSS_MEMTAP: not the process's total but the part of it that is memtap's own (its
 * runtime's region as shmem, its arena as anon), measured from /proc/PID/pagemap.
 * MT_RSS_HWM: at the process's exit, its values then and as peak the kernel's high-water
 * mark (VmHWM), when records were lost or polled: the peak is exact, its time unknown. */
enum mt_rss_source { MT_RSS_TRACEPOINT = 0, MT_RSS_STATM = 1, MT_RSS_MEMTAP = 2, MT_RSS_HWM = 3 };

/* MT_EV_SYSCALL: one per call (raw_syscalls enter + exit paired by thread); the time is
 * the entry's. */
enum mt_syscall_flag {
	MT_SYSCALL_NO_EXIT = 1, /* no exit seen (exit, exit_group, execve that failed late...) */
	MT_SYSCALL_NO_ENTRY = 2, /* no entry seen (entered before tracing began: execve) */
	MT_SYSCALL_RUNTIME = 4, /* made by memtap's preload runtime for itself, not the workload */
	MT_SYSCALL_RT_LOADER = 8, /* the dynamic loader's work loading the runtime (also RUNTIME) */
};

enum {
	MT_F_SYSCALL_NR = 3, /* x86-64 syscall number */
	MT_F_SYSCALL_RET, /* signed: the result; -4095..-1 is -errno */
	MT_F_SYSCALL_DURATION, /* ns from entry to exit, tracing overhead included */
	MT_F_SYSCALL_A0,
	MT_F_SYSCALL_A1,
	MT_F_SYSCALL_A2,
	MT_F_SYSCALL_A3,
	MT_F_SYSCALL_A4,
	MT_F_SYSCALL_A5,
	MT_F_SYSCALL_FLAGS, /* enum mt_syscall_flag */
	MT_F_SYSCALL_PATH, /* string: the path argument as read at entry (BPF), or none */
	MT_F_SYSCALL_STACK, /* stack id in the recorder's stream (--syscall-stacks), 0: none */
	_MT_F_SYSCALL_MAX,
};

/* MT_EV_SYSCALL_SUM: written once per syscall number at the end of a --syscalls=summary
 * recording (counted in the kernel); pid is the command's, for the whole tree. */
enum {
	MT_F_SYSSUM_NR = 3,
	MT_F_SYSSUM_CALLS, /* calls that returned */
	MT_F_SYSSUM_ERRORS, /* of which returned -4095..-1 */
	MT_F_SYSSUM_NS, /* entry to exit, summed */
	MT_F_SYSSUM_RUNTIME, /* 1: the preload runtime's own calls (MT_SYSCALL_RUNTIME) */
	_MT_F_SYSSUM_MAX,
};

/* MT_EV_TRACEPOINT: the tracepoint's own fields in value columns f0..f27, in the order and
 * with the names, kinds and value names of the "events" collector's keys event.N.fields and
 * event.N.symbols.FIELD (see docs/trace-format.md); string fields hold string ids. */
enum {
	MT_F_TP_EVENT = 3, /* string: SUBSYS:NAME */
	MT_F_TP_V0, /* the first field's value */
	_MT_F_TP_MAX = MT_F_TP_V0 + 28,
};

/* MT_EV_LABEL: from include/memtap/memtap.h through the preload runtime. */
enum mt_label_op { MT_LABEL_SET = 0, MT_LABEL_UNSET = 1 };
enum mt_label_wp { MT_LABEL_WP_OFF = 0, MT_LABEL_WP_TRACKED = 1, MT_LABEL_WP_FAILED = 2 };

enum {
	MT_F_LABEL_OP = 3, /* enum mt_label_op */
	MT_F_LABEL_ADDR, /* the range's start (unset: the start given to memtap_label) */
	MT_F_LABEL_LEN, /* bytes (0 for unset) */
	MT_F_LABEL_TYPE, /* string: region type, e.g. "weight", "kv_cache" */
	MT_F_LABEL_NAME, /* string: the object's name */
	MT_F_LABEL_WP, /* enum mt_label_wp: is the range under page-write tracking? */
	MT_F_LABEL_WP_ERRNO, /* MT_LABEL_WP_FAILED: why (errno) */
	_MT_F_LABEL_MAX,
};

/* MT_EV_PHASE */
enum {
	MT_F_PHASE_NAME = 3, /* string: the phase entered; "" when the phase ends */
	_MT_F_PHASE_MAX,
};

/* MT_EV_PAGE_WRITE: one run of consecutive pages that the workload wrote in (since, time],
 * found by the pagewrites collector's PAGEMAP_SCAN (userfaultfd write-protect, async). */
enum {
	MT_F_PW_ADDR = 3, /* first page */
	MT_F_PW_LEN, /* bytes (whole pages) */
	MT_F_PW_SINCE, /* the previous scan of the process (or when tracking began) */
	/* 1.4: the recorder's scans: the event's time is the start of the ioctl that found the
	 * run, and it returned scan_ns later; every page of the run was protected again in
	 * between. 0: a scan of the runtime's (a range that goes or is discarded). */
	MT_F_PW_SCAN_NS,
	/* 1.5: 1: the run's pages were written in an earlier epoch too and were not protected
	 * again (record's default settling; --page-writes=full never settles): their writes from
	 * now until their range goes, is discarded or is registered anew are not seen */
	MT_F_PW_SETTLED,
	_MT_F_PW_MAX,
};

/*
 * MT_EV_PAGE_TRACK (1.4): what page-write tracking did to a tracked range's pages, beyond
 * the scans of MT_EV_PAGE_WRITE; with those, enough to tell which faults the tracking caused.
 */
enum mt_page_track_op {
	/* present pages write-protected as the range was registered: each takes one fault at
	 * its next write (a page not present then is not protected: its first touch is the
	 * workload's own fault, as without memtap) */
	MT_PT_ARMED = 0,
	/* pages on transparent huge pages: never protected, so they stay whole; not tracked */
	MT_PT_HUGE = 1,
	/* the workload discarded the pages (madvise): neither present nor protected now */
	MT_PT_ZAPPED = 2,
	/* the range went (free, realloc, munmap, mremap, mmap over it): unregistered */
	MT_PT_RELEASED = 3,
	/* the workload asked for huge pages over the range (madvise MADV_HUGEPAGE,
	 * MADV_COLLAPSE): unregistered, so that its page size is what it would be bare */
	MT_PT_UNTRACKED_HUGE = 4,
};

enum {
	MT_F_PT_ADDR = 3, /* first page */
	MT_F_PT_LEN, /* bytes (whole pages) */
	MT_F_PT_OP, /* enum mt_page_track_op */
	_MT_F_PT_MAX,
};

/*
 * MT_EV_PY_FUNC: what a Python frame of the process's stacks means. A stack frame whose ip
 * has bit 63 set is a Python frame: bits 24-61 are this event's id, bits 0-23 the line
 * (0: unknown). Ids are the process's own; a fork child also uses its parent's ids given
 * before the fork.
 *
 * A stack node whose ip has bits 63 and 62 set (1.2) stands for several frames: the
 * innermost count (bits 0-23) frames of the stack whose node id is bits 24-55 — the native
 * frames the innermost Python call made, shared by every Python stack above them. The
 * reader expands it (mt_reader_stack); it is never a frame of its own.
 */
enum {
	MT_F_PYFN_ID = 3, /* the code object's id in the process */
	MT_F_PYFN_FIRST_LINE, /* the line its definition starts at */
	MT_F_PYFN_NAME, /* string: qualified name (co_qualname) */
	MT_F_PYFN_FILE, /* string: file (co_filename) */
	_MT_F_PYFN_MAX,
};

#define MT_PY_FRAME_BIT (1ull << 63)
#define MT_PY_FRAME_LINE_BITS 24
#define MT_STACK_REF_TAG (3ull << 62)
#define MT_STACK_REF(node, count) \
	(MT_STACK_REF_TAG | ((uint64_t)(node)&0xffffffffu) << 24 | ((uint64_t)(count)&0xffffff))
#define MT_STACK_REF_NODE(ip) (((ip) >> 24) & 0xffffffffu)
#define MT_STACK_REF_COUNT(ip) ((unsigned)((ip)&0xffffff))
static inline int mt_stack_is_ref(uint64_t ip)
{
	return (ip & MT_STACK_REF_TAG) == MT_STACK_REF_TAG;
}

/* MT_EV_PW_RANGE: the runtime registered a heap block or writable anonymous mapping of at
 * least --page-writes-min bytes for page-write tracking at its allocation (no label). */
enum {
	MT_F_PWR_ADDR = 3, /* first whole page of the block or mapping */
	MT_F_PWR_LEN, /* bytes: its whole pages */
	MT_F_PWR_WP, /* enum mt_label_wp: tracked or failed */
	MT_F_PWR_ERRNO, /* failed: why (errno) */
	_MT_F_PWR_MAX,
};

/*
 * MT_EV_APP: memtap_event, memtap_span_begin and memtap_span_end (include/memtap/memtap.h).
 * Time is the workload's own CLOCK_MONOTONIC reading in the call, so kernel events of the
 * thread (faults, samples) order exactly against it; the allocations a span made carry its
 * id (MT_F_ALLOC_SPAN, set by the recorder from the thread's own row stream: exact whatever
 * the times). Span ids are the process's own, from 1.
 */
enum mt_app_op { MT_APP_EVENT = 0, MT_APP_BEGIN = 1, MT_APP_END = 2 };

enum {
	MT_F_APP_OP = 3, /* enum mt_app_op */
	MT_F_APP_ID, /* the span begun or ended; 0 for an event */
	MT_F_APP_PARENT, /* the span enclosing it on the thread (an event: the open one), 0: none */
	MT_F_APP_NAME, /* string: the name given (an end repeats its begin's) */
	MT_F_APP_FIELDS, /* string: the JSON object given, "" when none (an end: "") */
	_MT_F_APP_MAX,
};

/*
 * --alloc=sites (compact allocation recording): the recorder folds each process's
 * allocation rows into windows of about MT_SITES_WINDOW_NS of event time instead of writing
 * them. Rows of a process are folded in the order the recorder drains them: each thread's
 * in call order, threads interleaved by the hand-over of their buffers. A window ends at
 * the first row whose time is MT_SITES_WINDOW_NS or more past the window's first; the time
 * of both types is the window's last event, `since` its first: every event a row counts
 * lies in [since, time].
 *
 * MT_EV_ALLOC_SITE: per (stack, function, size class) that had an allocation, or whose
 * blocks were released, in the window. Releases (free, realloc's move, realloc(p, 0)) count
 * under the key of the block's allocation, so per key calls - frees is what is live.
 */
#define MT_SITES_WINDOW_NS 10000000ull
enum {
	MT_F_ASITE_SINCE = 3, /* the window's first event */
	MT_F_ASITE_STACK, /* stack id, 0 if none */
	MT_F_ASITE_KIND, /* enum mt_alloc_kind of the allocations (not FREE) */
	MT_F_ASITE_SIZE_CLASS, /* 0: 0 bytes; k: 2^(k-1) to 2^k - 1 bytes requested */
	MT_F_ASITE_CALLS, /* successful allocation calls */
	MT_F_ASITE_BYTES, /* their requested bytes */
	MT_F_ASITE_SLACK, /* their usable - requested bytes */
	MT_F_ASITE_FREES, /* blocks of this key released */
	MT_F_ASITE_FREED_BYTES, /* their requested bytes */
	_MT_F_ASITE_MAX,
};

/* MT_EV_HEAP_WINDOW: the process's heap (requested bytes of live blocks) over the window. */
enum {
	MT_F_HWIN_SINCE = 3, /* the window's first event */
	MT_F_HWIN_LIVE_BYTES, /* at its last event */
	MT_F_HWIN_LIVE_BLOCKS,
	MT_F_HWIN_PEAK_BYTES, /* the largest value live bytes took in the window */
	MT_F_HWIN_PEAK_NS, /* the time of the event that made it */
	MT_F_HWIN_CALLS, /* allocation calls */
	MT_F_HWIN_FREES, /* free() calls and realloc(p, 0) */
	MT_F_HWIN_UNTRACKED, /* releases of blocks the recorder never saw allocated */
	MT_F_HWIN_REORDERED, /* frees folded after their address was allocated again */
	MT_F_HWIN_EVENTS, /* allocation rows folded, frees included */
	_MT_F_HWIN_MAX,
};

/* MT_EV_LOST */
enum {
	MT_F_LOST_COLLECTOR = 3, /* string: the collector's name */
	MT_F_LOST_COUNT, /* events lost */
	MT_F_LOST_REASON, /* string */
	_MT_F_LOST_MAX,
};

#endif
