/* SPDX-License-Identifier: MIT */
/* The preload runtime's protocol with the recorder: environment, socket messages, shared memory. */
#ifndef MEMTAP_FORMAT_RT_PROTO_H
#define MEMTAP_FORMAT_RT_PROTO_H

#include <stdint.h>

#include <memtap/trace-format.h>

/*
 * How the runtime reaches the recorder:
 *
 *  1. `memtap record` listens on an abstract unix socket (SOCK_SEQPACKET) and starts the
 *     workload with LD_PRELOAD=<libmemtap-rt.so>[:<the user's LD_PRELOAD>] and
 *     MEMTAP_RT="v=1;sock=NAME;depth=N;time=tsc|clock;slots=N".
 *  2. In every process, the runtime creates a memfd region (header, slots, stack-trie nodes),
 *     connects, and sends a HELLO message with the memfd attached (SCM_RIGHTS). The recorder
 *     maps the region and gives the connection a trace stream.
 *  3. A thread takes the lowest FREE slot by clearing its bit in the free bitmap (one CAS
 *     per slot), appends rows to it (no lock, no syscall per event) and commits
 *     them by storing the slot's word count with release semantics. A full slot becomes READY:
 *     its bit is set in the region's ready bitmap. The recorder collects READY slots on its
 *     own schedule (every few milliseconds while data flows), encodes their rows into EVENTS
 *     chunks and marks the slots FREE. Waking the recorder costs the workload a cross-CPU
 *     interrupt (tens of microseconds in a VM), so a thread sends a one-byte NOTIFY only when
 *     the READY slots pile up to wake_at, or when it has to wait for a free slot.
 *  4. When the process exits, execs or is killed, every slot still FILLING is drained
 *     too: nothing a process wrote to its region is lost, even on SIGKILL. Slots of threads
 *     that exited earlier are drained when the recorder sees the thread's exit. The
 *     connection's EOF alone ends nothing: a program that closes its descriptors (every
 *     daemon) closes the runtime's socket, and the recorder goes on draining the region
 *     until the process itself is gone (a pidfd says when); the runtime checks the socket
 *     is still its own before every send (its inode) and reconnects (HELLO with
 *     MT_RT_HELLO_RESUME) rather than ever write to a descriptor the program reused.
 */

#define MT_RT_ENV "MEMTAP_RT"
#define MT_RT_PROTO_VERSION 5
#define MT_RT_PROTO_STR "5" /* in memtap_rt_version, which the recorder checks */
#define MT_RT_KEY_BYTES 16 /* the recording's secret, in MEMTAP_RT as 32 hex digits */
#define MT_RT_REGION_MAGIC 0x6d745254u /* "TRtm" */

enum mt_rt_msg {
	MT_RT_MSG_HELLO = 1, /* struct mt_rt_hello + the region's memfd */
	MT_RT_MSG_NOTIFY = 2, /* one byte: a slot became READY */
	MT_RT_MSG_LABEL = 3, /* struct mt_rt_label + the strings: memtap.h's calls */
	MT_RT_MSG_OWN = 4, /* struct mt_rt_own: memtap's own resident memory changed */
	MT_RT_MSG_PYCODE = 5, /* struct mt_rt_pycode + the strings: a Python function seen */
	MT_RT_MSG_PWRUNS = 6, /* struct mt_rt_pwruns + runs: a tracked range's last writes */
	MT_RT_MSG_APPEV = 7, /* struct mt_rt_appev + the strings: memtap_event, memtap_span_* */
};

/*
 * memtap_event / memtap_span_begin / memtap_span_end (include/memtap/memtap.h): one datagram
 * each, followed by name_len bytes of name and fields_len of the JSON object given. A span's
 * begin and end also put an MT_RT_MARK row in the thread's slot, in order with its
 * allocations: the recorder knows exactly which span each allocation was made in.
 */
struct mt_rt_appev {
	uint32_t type; /* MT_RT_MSG_APPEV */
	uint32_t op; /* enum mt_app_op (include/memtap/trace-format.h) */
	uint64_t time_ns; /* CLOCK_MONOTONIC, read in the call */
	uint64_t id, parent; /* the span (0 for an event), and the one enclosing it */
	uint32_t tid;
	uint16_t name_len, fields_len;
};

#define MT_RT_APPEV_NAME_MAX 255
#define MT_RT_APPEV_FIELDS_MAX 4096
#define MT_RT_SPAN_DEPTH 510 /* spans open at once on one thread */

/* memtap_label / memtap_unlabel / memtap_phase from the workload (include/memtap/memtap.h),
 * one datagram each, followed by type_len bytes of region type and name_len of name. */
enum mt_rt_label_op {
	MT_RT_LABEL = 0,
	MT_RT_UNLABEL = 1,
	MT_RT_PHASE = 2,
	/* a large block or writable mapping put under page-write tracking without a label
	 * (--page-writes-min): addr, len are its whole pages, wp the result; no strings */
	MT_RT_WP_RANGE = 3,
};

#define MT_RT_LABEL_TYPE_MAX 63
#define MT_RT_LABEL_NAME_MAX 255

struct mt_rt_label {
	uint32_t type; /* MT_RT_MSG_LABEL */
	uint32_t op; /* enum mt_rt_label_op */
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint32_t tid;
	uint16_t type_len, name_len;
	uint64_t addr, len;
	/* LABEL with page-write tracking on ("pw=1"): MT_RT_WP_TRACKED when the range's pages
	 * are now write-protected in async mode (userfaultfd) for the recorder's PAGEMAP_SCAN,
	 * -errno when that failed; 0 when not attempted. */
	int32_t wp;
	uint32_t reserved;
};

#define MT_RT_WP_TRACKED 1

/*
 * What the runtime did to a tracked range's protection, with the runs it concerns (the
 * kernel's struct page_region): the writes a scan of its own found before the range goes or
 * is discarded, the present pages it protected as it registered the range, or the range's
 * end. The recorder writes PAGE_WRITE and PAGE_TRACK events from them.
 */
struct mt_rt_run {
	uint64_t start, end, categories;
};

#define MT_RT_PWRUNS_MAX 64

enum mt_rt_pw_kind {
	MT_RT_PW_WRITTEN = 0, /* runs written since the last scan; then RELEASED or ZAPPED */
	MT_RT_PW_ARMED = 1, /* runs of present pages protected as [lo, hi) was registered */
	MT_RT_PW_RELEASED = 2, /* [lo, hi) unregistered: it went; no runs */
	MT_RT_PW_ZAPPED = 3, /* [lo, hi) discarded by the workload's madvise; no runs */
	MT_RT_PW_UNTRACKED_HUGE = 4, /* [lo, hi) unregistered: huge pages asked for; no runs */
};

struct mt_rt_pwruns {
	uint32_t type; /* MT_RT_MSG_PWRUNS */
	uint32_t n;
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint32_t tid;
	uint32_t kind; /* enum mt_rt_pw_kind */
	uint64_t lo, hi; /* the range concerned */
};

/*
 * memtap's own resident memory in the process, exact: the runtime populates every page it
 * takes for itself (a new slot, a new stretch of the node ring, an arena block) as it takes
 * it, and gives pages back only by whole blocks, so its resident part is the sum of what it
 * holds. Sent with the time of each change; totals, so a message lost costs only a time.
 */
struct mt_rt_own {
	uint32_t type; /* MT_RT_MSG_OWN */
	uint32_t reserved;
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint64_t anon, shmem; /* bytes: the arena's blocks, the shared region's taken part */
};

/*
 * A Python code object (a function) the runtime met in a thread's frame chain, sent once
 * before the first stack frame that names it is interned: Python frames are trie nodes
 * whose ip is MT_RT_PY_IP(id, line) (bit 63 set; no code address has it). Followed by
 * name_len bytes of qualified name and file_len of file name, UTF-8.
 */
struct mt_rt_pycode {
	uint32_t type; /* MT_RT_MSG_PYCODE */
	uint32_t tid;
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint64_t id; /* the process's code id, from 1 */
	uint32_t first_line;
	uint16_t name_len, file_len;
};

#define MT_RT_PY_NAME_MAX 255
#define MT_RT_PY_FILE_MAX 1023
#define MT_RT_PY_BIT MT_PY_FRAME_BIT /* include/memtap/trace-format.h */
#define MT_RT_PY_LINE_BITS MT_PY_FRAME_LINE_BITS
#define MT_RT_PY_ID_MAX ((1ull << (62 - MT_RT_PY_LINE_BITS)) - 1) /* bit 62: MT_STACK_REF_TAG */
#define MT_RT_PY_IP(id, line)                                  \
	(MT_RT_PY_BIT | (uint64_t)(id) << MT_RT_PY_LINE_BITS | \
	 ((uint64_t)(line) & ((1ull << MT_RT_PY_LINE_BITS) - 1)))

static inline uint64_t mt_rt_py_id(uint64_t ip)
{
	return (ip & ~MT_RT_PY_BIT) >> MT_RT_PY_LINE_BITS;
}

static inline unsigned mt_rt_py_line(uint64_t ip)
{
	return (unsigned)(ip & ((1ull << MT_RT_PY_LINE_BITS) - 1));
}

/* What the runtime does about Python frames in this process (mt_rt_region.py_state). */
enum mt_rt_py_state {
	MT_RT_PY_NONE = 0, /* no CPython in the process */
	MT_RT_PY_ON = 1, /* CPython 3.11: its frames are in the stacks */
	MT_RT_PY_UNSUPPORTED = 2, /* a CPython whose frame layout this runtime does not know */
	MT_RT_PY_OFF = 3, /* turned off (--no-python-frames) */
};

/* "3.11.2" from a PY_VERSION_HEX. */
static inline void mt_rt_py_version_str(uint32_t hex, char buf[16])
{
	unsigned a = hex >> 24, b = (hex >> 16) & 0xff, c = (hex >> 8) & 0xff, i = 0;
	unsigned v[3] = { a, b, c };

	for (int k = 0; k < 3; k++) {
		if (k)
			buf[i++] = '.';
		if (v[k] >= 100)
			buf[i++] = (char)('0' + v[k] / 100);
		if (v[k] >= 10)
			buf[i++] = (char)('0' + v[k] / 10 % 10);
		buf[i++] = (char)('0' + v[k] % 10);
	}
	buf[i] = 0;
}

static inline const char *mt_rt_py_state_name(uint32_t state)
{
	static const char *const n[] = { "none", "on", "unsupported", "off" };

	return state < 4 ? n[state] : "?";
}

/*
 * The greeting. The recorder believes none of its identity: the pid is the kernel's
 * (SO_PEERCRED), the key must be the recording's secret (only the workload's environment
 * has it), and the memfd must be sealed against shrinking. With MT_RT_HELLO_RESUME the
 * process reconnects after its program closed or replaced the runtime's descriptor: no
 * memfd, the recorder goes on with the region it already maps for that pid.
 */
enum {
	MT_RT_HELLO_RESUME = 1,
	/* the program's malloc is not the runtime's (its executable defines one): its heap
	 * allocations bypass the hooks (mappings and brk are still seen) */
	MT_RT_HELLO_OWN_MALLOC = 2,
};

struct mt_rt_hello {
	uint32_t type; /* MT_RT_MSG_HELLO */
	uint32_t version;
	uint32_t pid; /* informative only */
	uint32_t ppid;
	uint8_t key[MT_RT_KEY_BYTES];
	uint32_t flags; /* MT_RT_HELLO_* */
	uint32_t reserved;
	uint64_t region_size;
	uint64_t time_ns; /* CLOCK_MONOTONIC when the runtime started in this process */
	/* memtap's own memory in the process: the shared region, and the arena every private
	 * table of the runtime comes from (reserved, touched as used) */
	uint64_t region_addr;
	uint64_t arena_addr, arena_size;
	/* memtap's own resident memory as the greeting leaves (mincore), and the time the
	 * runtime started using memory (its arena): the analysis counts it out from then on */
	uint64_t own_anon, own_shmem, own_ns;
	uint64_t image_lo, image_hi; /* the runtime library itself: its code, data and .bss */
};

enum mt_rt_slot_state {
	MT_RT_SLOT_FREE = 0,
	MT_RT_SLOT_FILLING = 1,
	MT_RT_SLOT_READY = 2,
};

enum mt_rt_time_source {
	MT_RT_TIME_CLOCK = 0, /* rows hold CLOCK_MONOTONIC ns */
	MT_RT_TIME_TSC = 1, /* rows hold raw TSC values; the recorder converts */
};

/* Row kinds. Allocation kinds share their numbers with enum mt_alloc_kind. */
enum mt_rt_kind {
	MT_RT_MALLOC = 0,
	MT_RT_CALLOC = 1,
	MT_RT_REALLOC = 2,
	MT_RT_REALLOCARRAY = 3,
	MT_RT_POSIX_MEMALIGN = 4,
	MT_RT_ALIGNED_ALLOC = 5,
	MT_RT_MEMALIGN = 6,
	MT_RT_VALLOC = 7,
	MT_RT_PVALLOC = 8,
	MT_RT_FREE = 9,
	MT_RT_MMAP = 16,
	MT_RT_MUNMAP = 17,
	MT_RT_MREMAP = 18,
	MT_RT_BRK = 19,
	MT_RT_OWN = 20, /* memtap's own resident memory now (struct mt_rt_own's totals) */
	MT_RT_MARK = 21, /* the thread's open span changed: the address bits hold its id */
};

/*
 * A slot holds rows of 64-bit words, written in order by its thread. Word 0 of a row:
 *   bits 0-55  the address (the block, the mapping, the new program break)
 *   bits 56-60 the kind (enum mt_rt_kind)
 *   bit  61    MT_RT_W0_TIME: a time word follows (TSC or CLOCK_MONOTONIC ns); rows
 *              without one get their time interpolated by the recorder between the timed
 *              rows around them (a slot's first row is always timed, and the slot's
 *              end_time closes the last span)
 *   bits 62-63 flags (MT_RT_ROW_*)
 * then, by kind:
 *   MALLOC..PVALLOC  size, stack | slack << 32   (slack = usable - size, saturated)
 *   REALLOC(ARRAY)   size, stack | slack << 32, old address
 *   FREE             nothing
 *   MMAP             length, file offset, prot | flags << 32, stack
 *   MUNMAP           length, stack
 *   MREMAP           new length, old address, old length | flags << 48, stack
 *   BRK              old break, stack
 *   OWN              anon bytes, shmem bytes (always timed)
 *   MARK             nothing (always timed): allocations after it are in span w0's address
 * A busy free is one word, a malloc three: half the bytes of fixed-size rows.
 */
#define MT_RT_W0_ADDR ((1ull << 56) - 1)
#define MT_RT_W0_TIME (1ull << 61)
#define MT_RT_ROW_MAX_WORDS 6

static inline unsigned mt_rt_w0_kind(uint64_t w0)
{
	return (unsigned)(w0 >> 56) & 31;
}

static inline unsigned mt_rt_w0_flags(uint64_t w0)
{
	return (unsigned)(w0 >> 62);
}

/* Words of the row that starts with w0, or 0 for a kind that does not exist. */
static inline unsigned mt_rt_row_words(uint64_t w0)
{
	unsigned k = mt_rt_w0_kind(w0), t = (w0 & MT_RT_W0_TIME) ? 1 : 0;

	if (k <= MT_RT_PVALLOC)
		return 1 + t + ((k == MT_RT_REALLOC || k == MT_RT_REALLOCARRAY) ? 3 : 2);
	switch (k) {
	case MT_RT_FREE:
	case MT_RT_MARK:
		return 1 + t;
	case MT_RT_MMAP:
	case MT_RT_MREMAP:
		return 1 + t + 4;
	case MT_RT_MUNMAP:
	case MT_RT_BRK:
	case MT_RT_OWN:
		return 1 + t + 2;
	default:
		return 0;
	}
}

enum {
	MT_RT_ROW_NOSTACK_GUARD =
		1 << 0, /* recorded inside another hook (a signal handler): no stack */
	MT_RT_ROW_TRUNCATED = 1 << 1, /* the stack walk stopped early (see the header's counters) */
};

struct mt_rt_slot {
	uint32_t state; /* enum mt_rt_slot_state */
	uint32_t tid; /* owner */
	uint32_t count; /* committed words, store-release by the owner */
	uint32_t pad;
	uint64_t seq; /* acquisition order, for tie-breaking */
	uint64_t end_time; /* clock when the slot was handed over (0: not handed over) */
	/* the seq of the owner's slot before this one in this region (0: its first): the
	 * recorder drains a thread's slots in their order, whenever it sees their bits */
	uint64_t prev_seq;
	uint8_t reserved[24];
	uint64_t words[]; /* count of them committed */
};

/*
 * A stack-trie node: ip of a frame and the id of the node of its caller (0 for a root).
 * Nodes live in a ring: id i at index i % nodes_cap. The runtime writes a node only when
 * the recorder has taken the one cap ids before it (i - nodes_done < nodes_cap), and
 * publishes it by storing its id last, with release.
 */
struct mt_rt_node {
	uint64_t ip;
	uint32_t parent;
	uint32_t id; /* stored last: the node at this index is id's once it equals id */
};

/* Why a stack walk stopped before the outermost frame; the frames walked are kept. */
enum mt_rt_trunc {
	MT_RT_TRUNC_NO_CFI, /* code without unwind information (no FDE covers the pc) */
	MT_RT_TRUNC_NOT_IN_OBJECT, /* a return address in no loaded object: JIT code, or bad */
	MT_RT_TRUNC_CFI_UNSUPPORTED, /* CFI the walker cannot follow (CFA expressions, DRAP) */
	MT_RT_TRUNC_BAD_CFA, /* a CFA or saved register outside the thread's stack */
	MT_RT_TRUNC_SIGNAL_FRAME, /* a signal frame whose context lies outside the stack */
	MT_RT_TRUNC_OFF_STACK, /* the hook ran on another stack (a fiber, sigaltstack) */
	MT_RT_TRUNC_TABLE_FULL, /* the node ring stayed full for a second (recorder stuck) */
	MT_RT_TRUNC_MAX,
};

/* The reasons' names, as the trace's collector keys (stacks_truncated_NAME) and reports say. */
static inline const char *mt_rt_trunc_name(unsigned why)
{
	static const char *const n[MT_RT_TRUNC_MAX] = {
		"no_cfi",	"not_in_object", "cfi_unsupported", "bad_cfa",
		"signal_frame", "off_stack",	 "table_full",
	};

	return why < MT_RT_TRUNC_MAX ? n[why] : "?";
}

struct mt_rt_region {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;
	uint32_t time_source;
	uint64_t size;
	uint32_t nslots;
	uint32_t slot_words;
	uint64_t slots_off; /* offset of slot 0; slot i at slots_off + i * slot_size */
	uint64_t slot_size;
	uint64_t nodes_off;
	uint64_t nodes_cap;
	uint64_t nodes_next; /* next node id to hand out (ids start at 1) */
	uint64_t slot_seq;
	/* Counters the runtime keeps for the report: each is touched rarely, never per event. */
	uint64_t stalls; /* times a thread waited for a free slot */
	uint64_t stall_ns;
	uint64_t dropped; /* events not recorded, e.g. nested beyond the side buffer */
	uint64_t guard_events; /* events recorded without a stack because they nested */
	uint64_t truncated; /* stacks cut short (unsupported frame, bounds, depth) */
	uint64_t depth_limited; /* stacks cut at --stack-depth */
	uint64_t rule_misses; /* CFA rules computed from .eh_frame */
	uint64_t unsupported; /* frames whose CFI the fast walker cannot follow */
	uint64_t trie_full; /* stacks not interned because the trie was full */
	uint64_t memo_hits; /* walks that reused the previous stack */
	uint64_t frames_walked;
	uint64_t frames_reused;
	uint64_t events; /* words committed, for cross-checking */
	uint64_t ready_off; /* offset of the ready bitmap: nslots bits in 64-bit words */
	uint32_t ready_pending; /* READY slots the recorder has not collected yet */
	uint32_t wake_at; /* a thread sends NOTIFY when ready_pending reaches this */
	uint64_t notifies; /* NOTIFY messages sent */
	uint64_t free_off; /* offset of the free bitmap: a set bit is a FREE slot */
	uint64_t labels_dropped; /* memtap.h calls the socket had no room for */
	uint64_t wp_ranges; /* labelled ranges put under page-write tracking */
	uint64_t wp_failed; /* labelled ranges that could not be (the label says why) */
	uint64_t nodes_done; /* the recorder has written every node below this id */
	uint64_t trie_resets; /* times the runtime's trie index was full and started afresh */
	uint64_t node_waits; /* times a thread waited for room in the node ring */
	uint64_t trunc[MT_RT_TRUNC_MAX]; /* truncated stacks by reason */
	uint64_t arena_used; /* bytes of the arena handed out (its touched part lies below) */
	uint64_t slots_hwm; /* slots ever used: the region's touched part */
	uint64_t own_outside; /* bytes the runtime had to map outside the arena (it was full) */
	uint64_t own_reports_lost; /* own-memory messages the socket had no room for */
	/* Python frames (rt-python.c): the state, the interpreter's PY_VERSION_HEX, code
	 * objects registered and their messages lost, stacks that got Python frames, Python
	 * frames that had no eval frame among the captured native ones */
	uint32_t py_state; /* enum mt_rt_py_state */
	uint32_t py_version;
	uint64_t py_codes, py_codes_lost, py_stacks, py_unplaced;
	/* the channel: times the program closed or replaced the runtime's descriptor, times
	 * the runtime reconnected, events dropped at once (no wait) after a slot wait timed out */
	uint64_t chan_lost, chan_resumed, starved_drops;
	/* memtap_event and memtap_span_*: calls whose message the socket had no room for,
	 * fields left out for their length, ends without an open span, begins beyond
	 * MT_RT_SPAN_DEPTH (refused) */
	uint64_t appev_dropped, appev_fields_dropped, spans_unmatched, spans_too_deep;
	/* unwind tables (unwind-file.c): 16 KiB chunks read from objects' files; objects whose
	 * tables were read in place, and rules read in place because a file read failed */
	uint64_t unwind_chunk_reads, unwind_in_memory;
	/* Waiting without taking the recorder's CPU: a thread that finds no free slot (no room
	 * in the node ring) counts itself in slot_waiters (node_waiters) and sleeps on the
	 * futex slot_gen (node_gen), a shared one: the recorder bumps the word and wakes that
	 * many sleepers when it frees slots (writes nodes). */
	uint32_t slot_waiters, slot_gen, node_waiters, node_gen;
	/* memtap's own memory, when the thread that changed it had no slot for the row: the
	 * newest totals and their time (CLOCK_MONOTONIC), then the sequence number bumped; the
	 * recorder writes a row at its next round when the number moved. A report never waits
	 * for the socket. */
	uint64_t own_now_seq, own_now_ns, own_now_anon, own_now_shmem;
	uint8_t reserved[4096 - 240 - 24 - 8 * MT_RT_TRUNC_MAX - 32 - 40 - 24 - 32 - 16 - 16 - 32];
};

_Static_assert(sizeof(struct mt_rt_slot) == 64, "slot header size");
_Static_assert(sizeof(struct mt_rt_region) == 4096, "region header size");

#endif
