/* SPDX-License-Identifier: MIT */
/* The access pass: sampled accesses joined with the mappings and heap blocks live then. */
#ifndef MEMTAP_ANALYSIS_ACCESS_H
#define MEMTAP_ANALYSIS_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

struct mt_reader;

/* What a region is; an address belongs to the innermost region holding it. */
enum mt_region_type {
	MT_REGION_UNKNOWN, /* no recorded mapping holds the address */
	MT_REGION_HEAP, /* [heap] (brk) outside any live tracked block */
	MT_REGION_ALLOCATION, /* one live heap block of at least MT_ACCESS_BIG_BLOCK bytes */
	MT_REGION_HEAP_OBJECTS, /* the smaller live blocks of one allocation site */
	MT_REGION_STACK, /* [stack] */
	MT_REGION_CODE, /* an executable file mapping */
	MT_REGION_FILE, /* a non-executable file mapping */
	MT_REGION_ANON, /* anonymous memory outside any live tracked block */
	MT_REGION_SPECIAL, /* [vdso], [vvar], ... */
	MT_REGION_LABEL, /* a range the workload named (memtap.h): user_type says what */
	MT_NREGION_TYPES,
};

#define MT_ACCESS_BIG_BLOCK 65536

const char *mt_region_type_name(unsigned type);

/* Sample counts and weighted estimates (Σ weight, in the sampling event's unit). */
struct mt_access_counts {
	uint64_t samples; /* sampled accesses (a read-modify-write sample gives two) */
	uint64_t read_samples, write_samples; /* of which loads, stores */
	uint64_t reads, writes; /* Σ weight of loads, of stores */
	uint64_t first_ns, last_ns;
};

struct mt_access_region {
	uint32_t pid;
	uint8_t type; /* enum mt_region_type */
	uint32_t stream; /* strings (label) and, for heap regions, stack ids */
	uint64_t start, end; /* for HEAP_OBJECTS: the site's blocks span no single range: 0 */
	uint64_t label; /* string id in stream: the mapping's path, a label's name; 0 for none */
	uint64_t user_type; /* LABEL: string id in stream of the workload's region type */
	int64_t site; /* index into sites for ALLOCATION and HEAP_OBJECTS, else -1 */
	uint64_t t_start; /* when the mapping or block appeared */
	struct mt_access_counts c;
	uint64_t faults_minor, faults_major; /* page faults at addresses in it */
};

struct mt_access_site {
	uint32_t stream, pid;
	uint64_t stack;
	uint64_t first_ns; /* first allocation seen (for symbolizing) */
	int64_t objects_region; /* its HEAP_OBJECTS region, or -1 */
	struct mt_access_counts c;
};

struct mt_access_page {
	uint32_t pid;
	uint64_t page; /* 4 KiB page address */
	size_t region; /* region of the page's first sampled access */
	struct mt_access_counts c;
};

/* Page faults of one process. */
struct mt_fault_proc {
	uint32_t pid;
	uint64_t minor, major;
};

struct mt_access_stats {
	bool present; /* the trace has access events */
	bool faults_present; /* the trace has fault events */
	uint64_t labels; /* memtap_label calls that became regions */
	uint64_t labels_invalid; /* ranges not inside one mapping of the process then: ignored */
	uint64_t unlabels_unmatched; /* memtap_unlabel of a start no label had */
	uint64_t faults_minor, faults_major;
	uint64_t faults_in_kernel; /* taken in kernel mode (a syscall touching user memory) */
	uint64_t faults_by_type[MT_NREGION_TYPES][2]; /* [type][enum mt_fault_kind] */
	struct mt_fault_proc *fault_procs;
	size_t nfault_procs;
	uint64_t mech_mask; /* bit m: events of enum mt_access_mech m */
	uint64_t samples, resolved, accesses;
	uint64_t read_samples, write_samples, reads, writes;
	uint64_t unresolved[_MT_UNRES_MAX];
	uint64_t by_how[4]; /* resolved samples by enum mt_access_how */
	uint64_t in_blocks; /* accesses inside a live tracked heap block */
	uint64_t by_type[MT_NREGION_TYPES]; /* accesses by region type */
	uint64_t reads_by_type[MT_NREGION_TYPES], writes_by_type[MT_NREGION_TYPES];
	struct mt_access_region *regions;
	size_t nregions;
	struct mt_access_site *sites;
	size_t nsites;
	struct mt_access_page *pages;
	size_t npages;
};

/* One pass over mappings, allocations, accesses and page faults in time order; every
 * access and fault is attributed to the region holding its address then. -errno on
 * failure. */
int mt_access_analyze(struct mt_reader *r, struct mt_access_stats *st);
void mt_access_release(struct mt_access_stats *st);

#endif
