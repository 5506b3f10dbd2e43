/* SPDX-License-Identifier: MIT */
/* The access pass: sampled accesses joined with the mappings and heap blocks live then. */
#ifndef MEMTAP_ANALYSIS_ACCESS_H
#define MEMTAP_ANALYSIS_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memtap/trace-format.h>

#include "analysis/behaviour.h"
#include "analysis/mrm.h"
#include "analysis/quantile.h"
#include "analysis/survival.h"
#include "analysis/tiers.h"

struct mt_reader;
struct mt_rule;

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
	MT_REGION_MEMTAP, /* memtap's own memory in the process: never the workload's figures */
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

/* How a region's write-once ratio is known. */
enum mt_wo_basis {
	MT_WO_NONE, /* not known: samples cannot prove that memory is never rewritten */
	MT_WO_READONLY, /* mapped without PROT_WRITE: written only when it appeared */
	MT_WO_PAGE_WRITES, /* exact per page and epoch (the pagewrites collector) */
};

/* Memory-behaviour metrics of one region (see docs/metrics.md). */
struct mt_region_behavior {
	/* freed, unmapped or unlabelled then, or its process exited or exec'd (with_image);
	 * 0: alive at the end of the recording */
	uint64_t end_ns;
	bool with_image; /* it ended with its process's image, not by the program's own call */
	uint64_t first_write_ns, last_write_ns, first_read_ns, last_read_ns; /* 0: none seen */
	bool readonly; /* in a mapping without PROT_WRITE */
	uint8_t wp; /* enum mt_label_wp of its label */
	int32_t type_ix; /* index into mt_access_stats.types, -1 until known */
	uint64_t wp_pages; /* whole pages under page-write tracking */
	uint64_t wp_lo, wp_hi; /* those pages: [wp_lo, wp_hi) */
	uint64_t pages_written, pages_rewritten; /* of which written in >= 1, >= 2 epochs */
	uint64_t page_epochs; /* Σ epochs its written pages were written in */
	/* of pages_written, settled: found written in a second epoch and left unprotected (the
	 * recorder's default), so their epochs are a lower bound and their later writes unseen */
	uint64_t pages_settled;
	/* Σ over its written pages of when each was first written, from the region's start:
	 * where its pages were filled in its life (exact with settling too) */
	double first_write_sum;
	/* of wp_pages, the most one scan found on transparent huge pages (never protected, so
	 * without write epochs: page_track huge), and that scan's time */
	uint64_t wp_huge_pages, wp_huge_cur, wp_huge_t;
	bool wp_ended; /* tracking ended while it lived (huge pages asked for): epochs missing */
	uint64_t wp_faults; /* page-write tracking's own faults in it (MT_F_FAULT_TRACKING) */
	uint32_t refresh_ix; /* + 1: its rewrites for the retention windows (mt_access_stats) */
	uint64_t last_addr, strides, same_page; /* locality between consecutive samples */
	struct mt_qs stride; /* |address - previous address| in bytes, while the region lives */
	double stride_mean, stride_median; /* settled when it ends (its store freed) */
	bool stride_settled;
	uint64_t cur_window, cur_pages, wss_peak_pages; /* distinct pages per window */
	/* Derived at the end; a double is NaN when nothing backs it (docs/metrics.md). */
	uint64_t retention_ns, lifetime_ns;
	double retention_s; /* from its sampled reads: NaN without one */
	double lifetime_s; /* NaN when its start is unknown */
	double read_fraction; /* NaN without samples */
	double same_page_fraction; /* NaN without two samples */
	double write_once; /* ratio; < 0 when not known */
	uint8_t wo_basis; /* enum mt_wo_basis */
	uint8_t mrm; /* enum mt_mrm */
	uint8_t mrm_by; /* MT_MRM_BY_*: what decided it */
	uint8_t mrm_open; /* MT_MRM_NEEDS_*: thresholds its censored retention left open */
	const struct mt_rule *typed_by; /* the rule (file or profile) that gave its type */
	uint8_t behaviour; /* enum mt_behaviour: typed by its site's behaviour at the end */
	float behaviour_confidence;
};

/*
 * Right-censored (docs/metrics.md, "Censored lifetimes"): the program never ended it — it
 * was alive at the end of the recording or lasted until its process exited or exec'd — so
 * its lifetime and retention are lower bounds.
 */
static inline bool mt_region_censored(const struct mt_region_behavior *b)
{
	return !b->end_ns || b->with_image;
}

/* The metrics of one region type (a workload's label type, or a built-in one). */
struct mt_type_metrics {
	char *name;
	uint64_t regions, samples, read_samples, write_samples, reads, writes;
	/* ns, one value per region, censored for a region alive at the end (survival.h) */
	struct mt_surv retention, lifetime;
	struct mt_surv life_read; /* lifetimes of the regions in retention: its upper bound */
	uint64_t life_max_ns; /* the longest lifetime (the run's for an unknown one): a bound */
	bool life_max_censored; /* that longest is a censored one: no bound */
	struct mt_qs iai; /* ns between accesses to the same exact address */
	struct mt_qs reuse; /* sampled reuse distance in 64-byte lines (SHARDS, scaled) */
	uint64_t reuse_cold, reuse_far; /* first sample of a line; reuse beyond the window */
	double stride_mean_sum, stride_median_sum, same_page_sum; /* over regions with samples */
	uint64_t locality_regions;
	uint64_t wo_pages, wo_once_pages, wo_regions; /* regions whose write-once is known */
	uint64_t cur_pages, wss_peak_pages, wss_windows;
	double wss_sum;
	uint64_t retention_regions; /* regions with a sampled read (the retention's) */
	uint64_t lifetime_regions; /* regions whose lifetime is known */
	uint64_t kernel_regions; /* kernel-provided mappings: no MRM candidates */
	uint64_t behaviour_regions; /* typed by behaviour at the end (docs/metrics.md) */
	uint64_t touches; /* samples, faults and written pages: the working set's evidence */
	double write_once; /* pages-weighted over wo_regions; < 0 when none */
	uint8_t mrm, mrm_by; /* enum mt_mrm, MT_MRM_BY_* */
	/* Settled at the end, for every output (docs/metrics.md); NaN when nothing backs the
	 * figure (no sample, no interval, no region with a read). */
	double read_fraction, reads_per_write;
	double retention_s[3], lifetime_s[3]; /* p50, p90, p99 */
	/* the first of p50, p90, p99 that is only a lower bound (censoring), 3 for none */
	uint8_t retention_lower_from, lifetime_lower_from;
	uint8_t mrm_open; /* MT_MRM_NEEDS_*: thresholds a censored retention left open */
	double stride_mean, stride_median, same_page_fraction; /* means over its regions */
	double iai_ns[3], reuse_lines[3]; /* p50, p90, p99 */
	double iai_mean_ns, wss_mean_pages;
};

/* One phase (memtap_phase), over all processes that entered it. */
struct mt_phase_stats {
	char *name; /* "" for time outside any phase */
	bool by_rule; /* samples were put in it by a --rules phase rule */
	uint64_t visits, ns; /* times entered; time spent in it, summed over processes */
	uint64_t samples, reads, writes, faults, pages_written;
	uint64_t cur_pages, wss_peak_pages, wss_windows;
	double wss_sum;
	/* The phase's own working-set windows start when it is entered (a phase shorter than a
	 * window is one window, wherever it falls): the open one's start and id (0: none). */
	uint64_t win_start, win_id;
};

struct mt_wss_point {
	uint64_t t; /* window start, ns since the first event */
	uint64_t pages;
};

struct mt_access_region {
	uint32_t pid;
	uint8_t type; /* enum mt_region_type */
	uint8_t prot; /* a mapping's PROT_* bits when it appeared (0 for other regions) */
	uint32_t stream; /* strings (label) and, for heap regions, stack ids */
	uint64_t start, end; /* for HEAP_OBJECTS: the site's blocks span no single range: 0 */
	uint64_t label; /* string id in stream: the mapping's path, a label's name; 0 for none */
	uint64_t user_type; /* LABEL: string id in stream of the workload's region type */
	int64_t site; /* index into sites for ALLOCATION and HEAP_OBJECTS, else -1 */
	uint64_t t_start; /* when the mapping or block appeared */
	struct mt_access_counts c;
	uint64_t spin_samples; /* of c.samples, loads of a spin-wait (docs/metrics.md) */
	uint64_t faults_minor, faults_major; /* page faults at addresses in it */
	struct mt_region_behavior b;
};

struct mt_access_site {
	uint32_t stream, pid;
	uint64_t stack;
	uint64_t first_ns; /* first allocation seen (for symbolizing) */
	int64_t objects_region; /* its HEAP_OBJECTS region, or -1 */
	uint64_t faults; /* page faults inside its live blocks */
	uint64_t tracking_faults; /* page-write tracking's faults there (not in faults) */
	uint64_t pages; /* distinct pages first touched (sample, fault, write) in its blocks */
	const struct mt_rule *rule; /* the symbol rule its stack matched, or NULL */
	bool rule_checked;
	struct mt_access_counts c;
	struct mt_site_behaviour beh; /* what its blocks did: typing by behaviour */
};

#define MT_PW_SETTLED_BIT 0x80000000u

struct mt_access_page {
	uint32_t pid;
	uint32_t spin_samples; /* of c.samples, loads of a spin-wait */
	uint64_t page; /* 4 KiB page address */
	size_t region; /* region of the page's first sampled access */
	struct mt_access_counts c;
	uint64_t last_window; /* + 1: the last window it was counted in */
	uint32_t last_reg; /* + 1: the region it was counted for then */
	uint64_t last_phase_window; /* + 1, and last_phase: for the phases' working sets */
	uint32_t last_phase;
	int32_t site; /* allocation site of the block it was first touched in, or -1 */
	uint32_t pw_region; /* page writes: the region the epochs below belong to */
	uint32_t pw_epochs; /* | MT_PW_SETTLED_BIT when the page settled (a lower bound) */
	uint64_t pw_since, pw_t; /* its latest written epoch there: written in (since, t] */
};

/*
 * What a retention window R would have cost a tracked region (docs/metrics.md, "What-if
 * placement"): for each page, the data of each of its writes lasts until its next write or
 * the region's end, and needs floor(age / R) rewrites. Pages, per window: with the epochs'
 * midpoints as the write times, and the least and most the epochs' bounds allow.
 */
struct mt_refresh {
	uint64_t est[MT_TIERS_MAX_R], lo[MT_TIERS_MAX_R], hi[MT_TIERS_MAX_R];
};

/* Page faults of one process. */
struct mt_fault_proc {
	uint32_t pid;
	uint64_t minor, major;
	uint64_t tracking; /* page-write tracking's faults (memtap's): in neither */
};

/*
 * A spin-wait: a thread sampled again and again (MT_SPIN_RUN times or more in a row) at one
 * instruction (within 16 bytes of code) loading one 64-byte line: a wait loop on a flag
 * (thread-pool barriers, spin locks), not data traffic. Its samples are counted apart.
 */
#define MT_SPIN_RUN 8
#define MT_SPIN_SITES 32
struct mt_spin_site {
	uint32_t pid;
	uint64_t ip; /* the first sampled instruction of its first run */
	uint64_t samples, runs, lines; /* lines: runs on a line other than its last run's */
	uint64_t last_line;
	uint32_t region; /* of its latest run */
	uint64_t first_ns;
};

struct mt_access_stats {
	bool present; /* the trace has access events */
	bool faults_present; /* the trace has fault events */
	uint64_t labels; /* memtap_label calls that became regions */
	uint64_t labels_invalid; /* ranges not inside one mapping of the process then: ignored */
	uint64_t unlabels_unmatched; /* memtap_unlabel of a start no label had */
	uint64_t faults_minor, faults_major;
	uint64_t faults_in_kernel; /* taken in kernel mode (a syscall touching user memory) */
	/* memtap's own memory (its runtime's region and arena): kept out of every other figure */
	uint64_t memtap_faults_minor, memtap_faults_major, memtap_accesses;
	/* page-write tracking's write-protect faults (memtap's, each fault event says:
	 * MT_F_FAULT_TRACKING): in no workload figure; tracking_uncertain of them decided inside
	 * the scan that protected their page; basis: enum mt_fault_tracking_basis */
	uint64_t tracking_faults, tracking_uncertain;
	unsigned tracking_basis;
	uint64_t faults_by_type[MT_NREGION_TYPES][2]; /* [type][enum mt_fault_kind] */
	struct mt_fault_proc *fault_procs;
	size_t nfault_procs;
	uint64_t mech_mask; /* bit m: events of enum mt_access_mech m */
	uint64_t samples, resolved, accesses;
	uint64_t read_samples, write_samples, reads, writes;
	uint64_t unresolved[_MT_UNRES_MAX];
	uint64_t by_how[4]; /* resolved samples by enum mt_access_how */
	uint64_t in_blocks; /* accesses inside a live tracked heap block */
	uint64_t spin_samples; /* of accesses: loads of spin-waits */
	struct mt_spin_site spin[MT_SPIN_SITES]; /* by samples, the first ones met */
	size_t nspin;
	uint64_t spin_other; /* spin samples of sites beyond MT_SPIN_SITES */
	uint64_t by_type[MT_NREGION_TYPES]; /* accesses by region type */
	uint64_t reads_by_type[MT_NREGION_TYPES], writes_by_type[MT_NREGION_TYPES];
	struct mt_access_region *regions;
	size_t nregions;
	struct mt_access_site *sites;
	size_t nsites;
	struct mt_access_page *pages;
	size_t npages;
	/* Memory behaviour. */
	uint64_t window_ns; /* working-set window */
	struct mt_mrm_rule mrm_rule; /* the thresholds in use */
	uint64_t t0, t_end; /* first and last event */
	struct mt_type_metrics *types;
	size_t ntypes;
	struct mt_phase_stats *phases; /* phases[0]: outside any phase */
	size_t nphases;
	struct mt_wss_point *wss; /* distinct pages per window, windows with any */
	size_t nwss;
	uint64_t wss_peak_pages;
	uint64_t page_write_events, page_write_pages, page_writes_unattributed;
	uint64_t page_write_settled; /* of page_write_pages, settled (left unprotected) */
	uint64_t page_writes_incomplete; /* tracked regions of processes with an unseen epoch */
	/* ranges the runtime tracked without a label (--page-writes-min): tracked, failed, and
	 * tracked ones that matched no block or mapping */
	uint64_t pw_ranges, pw_ranges_failed, pw_ranges_unplaced;
	unsigned iai_rate_shift; /* IAI followed 1 address in 2^this (0: every address) */
	uint64_t rule_regions; /* regions whose type a --rules rule gave */
	uint64_t reuse_resets; /* the sampled lines' table filled up and started afresh */
	bool page_writes_present;
	/* the retention windows of the tier model's retention-limited tiers, and the rewrites
	 * they would have needed, per tracked region (b.refresh_ix); incomplete: out of memory */
	uint64_t retention_ns[MT_TIERS_MAX_R];
	unsigned nretention;
	struct mt_refresh *refresh;
	size_t nrefresh, refresh_cap;
	bool refresh_incomplete;
};

struct mt_rules;
struct mt_symbolizer;

/* One access sample or page fault with the region that held its address then (for the
 * trace table of exports); names valid during the call. */
struct mt_access_row {
	uint64_t time_ns, addr, ip, weight;
	uint32_t pid, tid;
	const char *op; /* "load", "store", "fault_minor", "fault_major", or the allocation
			 * function ("malloc", ..., "free") */
	uint64_t size; /* allocations: bytes (usable); else 0 */
	bool has_region; /* allocation rows have none (and no ip) */
	uint64_t region_id;
	const char *region_type;
	int64_t site; /* allocation site, or -1 */
	const char *phase; /* "" outside any phase */
};

struct mt_access_opts {
	uint64_t window_ns; /* 0: 100 ms */
	struct mt_mrm_rule mrm; /* used when mrm_set; else the seed's 0.8/10 s and 0.5/1 s */
	bool mrm_set;
	/* the tier model of what-if placement: its retention windows are counted in the pass
	 * (NULL: the built-in one, mt_tiers_default) */
	const struct mt_tiers *tiers;
	const struct mt_rules *rules; /* region-type rules (--rules), or NULL */
	struct mt_symbolizer *sym; /* for the rules' symbol regexes, or NULL */
	void (*row)(void *ctx, const struct mt_access_row *r); /* every row, in time order */
	void *row_ctx;
};

const char *mt_mrm_name(unsigned m);
const char *mt_wo_basis_name(unsigned b);

struct mt_pass;
/* The access pass (o, its rules and symbolizer must live until the run is over). */
int mt_access_pass(struct mt_reader *r, const struct mt_access_opts *o, struct mt_access_stats *st,
		   struct mt_pass *pass);
/* One pass over mappings, allocations, accesses and page faults in time order; every
 * access and fault is attributed to the region holding its address then. -errno on
 * failure. */
int mt_access_analyze(struct mt_reader *r, const struct mt_access_opts *o,
		      struct mt_access_stats *st);
void mt_access_release(struct mt_access_stats *st);

#endif
