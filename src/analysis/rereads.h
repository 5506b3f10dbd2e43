/* SPDX-License-Identifier: MIT */
/* Re-read detection: per file, the byte ranges read more than once, through read/pread
 * offsets and through page faults on file-backed mappings. */
#ifndef MEMTAP_ANALYSIS_REREADS_H
#define MEMTAP_ANALYSIS_REREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_reader;

struct mt_reread_seg {
	uint64_t start, end; /* bytes [start, end) of the file */
	uint64_t times; /* how often they were read */
};

/* What a file is to the workload: only its data files' re-reads are its own doing. */
enum mt_reread_kind {
	MT_RR_DATA, /* a file the workload reads or maps for its data */
	MT_RR_CODE, /* a loaded object (mapped executable): the loader's and the page cache's */
	MT_RR_SYSTEM, /* the loader's cache, locale data: libc reads them for every program */
	MT_RR_MEMTAP, /* memtap's own: its preload runtime, its shared memory */
	MT_RR_NKINDS,
};

const char *mt_reread_kind_name(unsigned kind);

struct mt_reread_file {
	const char *path;
	size_t len;
	unsigned char kind; /* enum mt_reread_kind */
	bool exec; /* mapped executable by some process */
	uint64_t reads, faults; /* read-type calls and page faults that read it */
	uint64_t bytes_read; /* summed over calls and fault windows (a re-read counts again) */
	uint64_t reread_bytes; /* bytes read more than once, each counted once */
	struct mt_reread_seg *segs; /* coverage: disjoint, sorted, adjacent equal counts merged */
	size_t nsegs, cap;
};

struct mt_rereads {
	struct mt_reread_file *files; /* most re-read bytes first */
	size_t nfiles;
	uint64_t reads_unknown_fd; /* reads of descriptors with no known file (no path capture,
				    * pipes, sockets, inherited descriptors) */
	uint64_t fault_window; /* bytes one fault stands for: its page */
	uint64_t files_by_kind[MT_RR_NKINDS];
};

/* The pass over syscall, task_new, mmap and fault events (in time order); pid: only one
 * process, or 0. */
struct mt_pass;
int mt_rereads_pass(struct mt_reader *r, uint32_t pid, struct mt_rereads *out,
		    struct mt_pass *pass);
int mt_rereads_analyze(struct mt_reader *r, uint32_t pid, struct mt_rereads *out);
void mt_rereads_release(struct mt_rereads *rr);

/* Adds one read of bytes [a, b) to f's coverage (segs, bytes_read). 0 or -ENOMEM. */
int mt_reread_cover(struct mt_reread_file *f, uint64_t a, uint64_t b);

#endif
