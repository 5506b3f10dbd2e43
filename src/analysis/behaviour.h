/* SPDX-License-Identifier: MIT */
/*
 * Typing by behaviour (docs/metrics.md, "Typing by behaviour"): an allocation site no rule
 * or label typed is called KV-like, weight-like or activation-like from what its blocks did
 * — how their sizes followed each other, whether they outlived the site's next blocks,
 * whether they lived to the end, were written only early and read to the end — never from
 * a name. Each verdict carries its evidence and a confidence.
 */
#ifndef MEMTAP_ANALYSIS_BEHAVIOUR_H
#define MEMTAP_ANALYSIS_BEHAVIOUR_H

#include <stddef.h>
#include <stdint.h>

enum mt_behaviour {
	MT_BEH_NONE,
	MT_BEH_KV_GROWN, /* kv_cache: replaced by a larger copy step after step (torch.cat) */
	MT_BEH_KV_IN_PLACE, /* kv_cache: preallocated, lasting, filled to the end, mostly once */
	MT_BEH_WEIGHT, /* weight: lasting, written once early, read to the end */
	MT_BEH_ACTIVATION, /* activation: many short-lived blocks, each gone before the next */
	MT_BEH_SCRATCH, /* activation: lasting, its pages rewritten to the end (compute buffers) */
	/* the same two when page writes settled (record's default): a settled page's epochs
	 * are a lower bound, so where its pages were first written in its life decides */
	MT_BEH_KV_FILLED, /* kv_cache: lasting, its pages first written over its life */
	MT_BEH_SCRATCH_SETTLED, /* activation: lasting, rewritten from the start, written late */
};

/* What the access pass gathers per site from its allocation calls. */
struct mt_site_behaviour {
	uint64_t allocs, frees; /* calls seen; of their blocks, freed */
	uint64_t size_up, size_down; /* consecutive allocations larger, smaller than the last */
	uint64_t size_up_step; /* of size_up, by at most a quarter (a context grown by rows) */
	uint64_t last_size;
	uint64_t outlived; /* freed blocks that outlived a later block of their site's */
	uint64_t successors; /* Σ later allocations of the site while each freed block lived */
	/* settled at the end, over its big blocks' regions */
	/* lasting: alive to its process's end, or gone only in the last third of its time there */
	uint64_t big, lasting, read, read_late, written_late;
	/* Σ over the read blocks of 1 - 2^-k (k: its read samples): how many of them would have
	 * their last sample in the second half of their lives if each were read all along (a
	 * block sampled once lands in either half as often) */
	double read_late_expected;
	uint64_t wo_pages, wo_once_pages; /* of its regions with an exact basis */
	uint64_t pages_written, page_epochs; /* their written pages; Σ epochs each was written in */
	uint64_t pages_settled; /* of pages_written, settled (their epochs a lower bound) */
	/* Σ over the written pages of when each was first written, as a share of its block's
	 * life (0: at its start, 1: at its end) */
	double first_write_pos;
	uint8_t verdict; /* enum mt_behaviour */
	float confidence;
};

/* An allocation of size bytes from the site; returns the count to remember with the block. */
uint64_t mt_beh_alloc(struct mt_site_behaviour *b, uint64_t size);
/* A block of the site made when its count was `at` is freed. */
void mt_beh_free(struct mt_site_behaviour *b, uint64_t at);
/* Decides the site's verdict from what was gathered (the regions' part already added). */
void mt_beh_settle(struct mt_site_behaviour *b);
/* "kv_cache", "weight", "activation", or NULL. */
const char *mt_beh_type(unsigned verdict);
/* "blocks grow step by step and outlive the next ones", ... */
const char *mt_beh_evidence(unsigned verdict);

#endif
