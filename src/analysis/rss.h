/* SPDX-License-Identifier: MIT */
/* The RSS pass: each process's peak resident memory, by type, and the tree's. */
#ifndef MEMTAP_ANALYSIS_RSS_H
#define MEMTAP_ANALYSIS_RSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_reader;

struct mt_rss_proc {
	uint32_t pid;
	uint64_t peak, peak_ns; /* largest file + anon + shmem, and when (exact) */
	uint64_t max[4], max_ns[4]; /* largest file, anon, shmem, swap, and when */
	uint64_t last; /* file + anon + shmem of its latest record (during the pass) */
	uint64_t events;
	/* memtap's own part (its runtime's region and arena): measured apart, taken out of
	 * every figure above; own[0] anon, own[1] shmem as last measured, own_peak the largest */
	uint64_t own[2], own_peak, own_peak_ns, own_events;
};

/* A peak taken from the kernel's high-water mark (records were lost): its time not known. */
static inline bool mt_rss_peak_untimed(const struct mt_rss_proc *p)
{
	return p->peak && !p->peak_ns;
}

struct mt_rss_stats {
	bool present;
	uint64_t events;
	struct mt_rss_proc *procs;
	size_t nprocs;
	size_t peak_proc; /* index of the process with the largest peak */
	uint64_t tree_peak, tree_peak_ns; /* largest sum of the live processes' latest records */
	uint64_t own_peak; /* memtap's own resident memory, the largest in one process */
	bool own_measured; /* the trace has measurements of memtap's own memory */
};

struct mt_pass;
/* The pass (no events wanted when the trace has no RSS records). */
int mt_rss_pass(struct mt_reader *r, struct mt_rss_stats *st, struct mt_pass *pass);
int mt_rss_analyze(struct mt_reader *r, struct mt_rss_stats *st);
void mt_rss_release(struct mt_rss_stats *st);

#endif
