/* SPDX-License-Identifier: MIT */
/* memtap plot: figures of one or more runs, as SVG written here, or through gnuplot. */
#ifndef MEMTAP_EXPORT_PLOT_H
#define MEMTAP_EXPORT_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mt_reader;
struct mt_access_opts;

enum mt_plot_kind {
	MT_PLOT_HEATMAP, /* sampled accesses and faults: time x compacted address, counts */
	MT_PLOT_RSS, /* resident memory over time, one line per run */
	MT_PLOT_WSS, /* working set per window over time, one line per run */
	MT_PLOT_FAULTS, /* page faults per second over time, one line per run */
	MT_PLOT_RETENTION_CDF, /* CDF of region retention: per run, or per type of one run */
};

struct mt_plot_series {
	char *name;
	double *x, *y;
	size_t n;
};

#define MT_PLOT_HX 240 /* heatmap cells in time */
#define MT_PLOT_HY 160 /* heatmap cells in address */

struct mt_plot {
	enum mt_plot_kind kind;
	char title[512];
	const char *xlabel, *ylabel;
	bool bytes; /* y values are bytes */
	bool steps; /* y holds until the next x */
	struct mt_plot_series *series;
	size_t nseries;
	/* heatmap */
	double *cells; /* [y * MT_PLOT_HX + x], counts */
	double span_s; /* x runs over [0, span_s] */
	struct {
		double y; /* 0..1 from the top */
		char label[64];
	} bands[32]; /* the address bands' starts, largest first (at most 32) */
	size_t nbands;
	unsigned long long points, drawn;
	char note[512]; /* the sampling behind sample-based figures, per run */
};

/* Adds run r (label: its name in the legend) to the figure. A heatmap takes
 * one run; a retention CDF of one run is split by region type. 0 or -errno (-ENODATA: the
 * trace holds nothing for this kind). */
int mt_plot_add(struct mt_plot *p, struct mt_reader *r, const char *label,
		const struct mt_access_opts *ao, bool split_types);
/* Replaces series [from, nseries) by one named name: their mean at every time any of them
 * has a point, over the series that span that time (a series holds its value until its next
 * point when p->steps, and ends at its last; else is interpolated). 0 or -ENOMEM. */
int mt_plot_merge(struct mt_plot *p, size_t from, const char *name);
void mt_plot_release(struct mt_plot *p);

/* The figure as SVG (w x h pixels). */
void mt_plot_svg(const struct mt_plot *p, FILE *f, int w, int h);
/* The figure's data as gnuplot reads it, and an editable gnuplot script that draws it into
 * out (its terminal from out's extension: .svg, .png, .pdf). */
void mt_plot_data(const struct mt_plot *p, FILE *f);
/* The terminal follows out's extension; the figure goes to write_to (NULL: out). */
void mt_plot_script(const struct mt_plot *p, FILE *f, const char *data, const char *out,
		    const char *write_to);

#endif
