/* SPDX-License-Identifier: MIT */
/* memtap top's frames: a live file as read (cmd-top.c) and drawn (top-render.c). */
#ifndef MEMTAP_CLI_TOP_H
#define MEMTAP_CLI_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TOP_SHOWN 16 /* sites and regions a live file lists */

struct top_row {
	int pid, gone;
	uint64_t minor, major, sys, samples, rss[4]; /* file anon shmem swap */
	int64_t wss; /* pages of the last full window, -1: none yet */
	uint64_t unplaced;
	int heap; /* 0: no runtime; 1: exact; 2: a lower bound (a bound was reached) */
	uint64_t heap_live, heap_blocks, heap_calls, heap_bytes;
	char comm[20];
};

struct top_site {
	int pid;
	uint64_t live, nlive, calls, bytes, ip[2];
	char py[256]; /* the innermost Python frame, "" if none */
	char label[256]; /* filled by top-render.c */
};

struct top_region {
	int pid;
	uint64_t samples, bytes;
	char name[256];
};

struct top_snap {
	int recorder, system_wide, have[3]; /* faults, syscalls, samples counted live */
	uint64_t start, now, bytes, lost, wss_ns;
	int wss_partial;
	char command[256], path[512];
	struct top_row *rows; /* in pid order */
	size_t n;
	struct top_site sites[TOP_SHOWN];
	size_t nsites;
	struct top_region regions[TOP_SHOWN];
	size_t nregions;
};

enum top_sort { TOP_RSS, TOP_FAULTS, TOP_SYSCALLS, TOP_SAMPLES, TOP_HEAP };

/* One frame, rows lines at most (tty: the terminal's), cols wide. */
void top_render(FILE *f, struct top_snap *cur, const struct top_snap *prev, int rows, int cols,
		bool tty, enum top_sort sort, const char *sort_name);
/* pid's row in a frame (rows in pid order), or NULL. */
const struct top_row *top_find_row(const struct top_snap *s, int pid);
/* Drops the symbolizer and names kept for the sites. */
void top_render_end(void);

#endif
