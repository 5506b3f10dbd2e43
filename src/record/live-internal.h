/* SPDX-License-Identifier: MIT */
/* The live figures' state, shared by record/live.c (processes, the file), live-heap.c (heap
 * in use and allocation sites) and live-regions.c (hottest regions, working sets). */
#ifndef MEMTAP_RECORD_LIVE_INTERNAL_H
#define MEMTAP_RECORD_LIVE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/hash.h"
#include "record/addr-table.h"

/*
 * Bounds on what the live figures keep, whatever the workload does: a recording's memory
 * stays flat. Past a bound the figure it feeds is published as a lower bound, never
 * silently short.
 */
#define LIVE_BLOCKS_MAX (1u << 20) /* heap blocks followed, all processes (tables <= 32 MiB) */
#define LIVE_SITES_MAX (1u << 16) /* allocation sites, all processes */
#define LIVE_NODES_MAX (1u << 20) /* stack nodes kept to name the sites (12 MiB) */
#define LIVE_PYSTR_MAX (4u << 20) /* bytes of Python function names kept */
#define LIVE_REGIONS_MAX (1u << 14) /* mappings that took samples */
#define LIVE_WSS_MAX (1u << 20) /* distinct pages of one working-set window */
#define LIVE_WSS_NS 1000000000ull /* the working-set window */
#define LIVE_MAPS_EVERY_NS 1000000000ull /* /proc/PID/maps is read again at most this often */

/* One allocation site of a process: a stack id of its runtime connection's stream. */
struct live_site {
	uint32_t stack;
	uint64_t calls, bytes, live, nlive;
};

/* A process's heap as its runtime reports it (NULL until the first allocation event). */
struct live_heap {
	uint32_t stream; /* the connection these ids and blocks belong to (a new one on exec) */
	struct mt_addr_table blocks; /* live: address -> site << 40 | usable bytes */
	uint32_t *site_by_stack; /* stack id -> site index + 1 (0: none yet), ids below
				  * LIVE_NODES_MAX */
	size_t sbs_cap;
	struct mt_map64 site_ix; /* larger stack ids -> site index */
	struct live_site *sites;
	size_t nsites, sites_cap;
	uint32_t *parent; /* stack nodes by id - 1: the caller's node */
	uint64_t *ip;
	size_t nnodes, nodes_cap;
	struct mt_map64 pyfn; /* Python function id -> offset + 1 in pystr ("name\0file\0") */
	char *pystr;
	size_t pylen, pycap;
	uint64_t live, nlive, calls, bytes;
	bool partial; /* a bound was reached: live and the sites' figures are lower bounds */
};

/* A process's mappings as last read from /proc/PID/maps, in address order. */
struct live_range {
	uint64_t lo, hi;
	uint32_t region; /* index + 1 into the regions, 0: none took a sample yet */
	uint32_t name; /* offset in names */
};

struct live_maps {
	struct live_range *v;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	uint64_t read_ns; /* 0: never read */
};

#define LIVE_OWN_MAX 4 /* the greeting names three: region, arena, image */

struct live_proc {
	pid_t pid;
	char comm[20];
	uint64_t minor, major, syscalls, samples, rss[4]; /* file anon shmem swap */
	int gone;
	bool comm_stale; /* comm is read again when next published */
	uint64_t gone_ns; /* when it exited: shown so a while (GONE_SHOWN_NS), then dropped */
	uint64_t wss_cur, wss_last; /* distinct pages of this window, of the last full one */
	bool wss_seen; /* a full window passed since its first page */
	uint64_t unplaced; /* samples with an address no mapping read held */
	struct live_heap *heap;
	struct live_maps *maps;
	/* memtap's own memory in it (its runtime's region, arena and image: the mappings of
	 * origin MEMTAP), left out of every figure, as the report leaves it (analysis/own.h) */
	struct live_own {
		uint64_t lo, hi;
	} own[LIVE_OWN_MAX];
	unsigned nown;
};

/* A region that took samples: a process's mappings of one name, or one anonymous one. */
struct live_region {
	pid_t pid;
	uint64_t bytes, samples; /* bytes: its ranges' sizes at the last reading */
	char name[96];
};

struct mt_live {
	char path[4096];
	struct live_proc *v;
	size_t n, cap;
	struct mt_map64 ix; /* pid -> index */
	struct mt_pwf *pwf; /* which faults page-write tracking caused (NULL: none tracked) */
	uint64_t last;
	/* heap */
	size_t blocks, sites, nodes, pystr; /* totals against the LIVE_*_MAX bounds */
	/* regions and working sets */
	struct live_region *regions;
	size_t nregions, regions_cap;
	struct mt_map64 region_ix; /* hash(pid, name) -> index + 1 */
	struct mt_map64 wss; /* pid << 36 | page -> 1, this window */
	uint64_t wss_start; /* the window's start */
	bool wss_partial; /* this window reached LIVE_WSS_MAX */
	bool wss_partial_last;
};

struct live_proc *mt_live_proc(struct mt_live *l, pid_t pid);

/* live-heap.c */
void mt_live_heap_free(struct mt_live *l, struct live_heap *h);
void mt_live_heap_print(struct mt_live *l, FILE *f);
/* live-regions.c */
void mt_live_touch(struct mt_live *l, struct live_proc *p, uint64_t addr, uint64_t t);
void mt_live_sample(struct mt_live *l, struct live_proc *p, uint64_t addr, uint64_t now);
void mt_live_wss_roll(struct mt_live *l, uint64_t now);
void mt_live_maps_free(struct live_maps *m);
void mt_live_regions_print(struct mt_live *l, FILE *f);
void mt_live_regions_forget(struct mt_live *l, pid_t pid);
void mt_live_regions_release(struct mt_live *l);

#endif
