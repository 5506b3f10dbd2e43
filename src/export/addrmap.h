/* SPDX-License-Identifier: MIT */
/* The address x time picture of a trace: its sampled accesses and faults (1 in stride), on a
 * compacted address axis (for memtap view and memtap plot --kind heatmap). */
#ifndef MEMTAP_EXPORT_ADDRMAP_H
#define MEMTAP_EXPORT_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

struct mt_reader;
struct mt_access_row;

enum { MT_PT_LOAD, MT_PT_STORE, MT_PT_FAULT_MINOR, MT_PT_FAULT_MAJOR };

struct mt_addr_pt {
	uint64_t t, addr;
	uint32_t pid, region;
	uint8_t kind;
};

/* A band of the axis: one process's touched addresses [lo, hi), no gap over 16 MiB inside. */
struct mt_addr_seg {
	uint32_t pid;
	uint64_t lo, hi;
	uint64_t points;
	double y0, h; /* on the axis, 0..1 from the top */
};

struct mt_addrmap {
	struct mt_addr_pt *pts;
	size_t npts, max;
	uint64_t seen; /* samples with an address, and faults, offered */
	uint64_t stride; /* 1 in stride kept */
	struct mt_addr_seg *segs;
	size_t nsegs;
	uint32_t *seg_of; /* per point */
};

/* Ready for at most max points of trace r: the stride comes from its event counts. */
int mt_addrmap_init(struct mt_addrmap *m, struct mt_reader *r, size_t max);
/* The analysis pass's row callback (struct mt_access_opts.row), ctx the map. */
void mt_addrmap_row(void *ctx, const struct mt_access_row *r);
/* After the pass: the bands, and each point's. 0 or -ENOMEM. */
int mt_addrmap_segments(struct mt_addrmap *m);
/* Point i's place on the axis (0..1 from the top). */
double mt_addrmap_y(const struct mt_addrmap *m, size_t i);
void mt_addrmap_release(struct mt_addrmap *m);

#endif
