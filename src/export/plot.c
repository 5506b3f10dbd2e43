/* SPDX-License-Identifier: MIT */
/* Figures for papers: the data of one or more runs, drawn as SVG here or by gnuplot. */
#include "common/array.h"
#include "export/plot.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/access.h"
#include "analysis/timeline.h"
#include "export/addrmap.h"
#include "export/table.h"
#include "format/reader.h"

static const char *const colors[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7",
				      "#E69F00", "#56B4E9", "#000000", "#F0E442" };

static struct mt_plot_series *new_series(struct mt_plot *p, const char *name, size_t n)
{
	struct mt_plot_series *v = realloc(p->series, (p->nseries + 1) * sizeof(*v)), *s;

	if (!v)
		return NULL;
	p->series = v;
	s = &v[p->nseries];
	*s = (struct mt_plot_series){ .name = strdup(name),
				      .x = malloc((n ? n : 1) * sizeof(double)),
				      .y = malloc((n ? n : 1) * sizeof(double)) };
	if (!s->name || !s->x || !s->y) {
		free(s->name);
		free(s->x);
		free(s->y);
		return NULL;
	}
	p->nseries++;
	return s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Series from the bucketed timeline: rss (largest resident sum per bucket) or faults/s. */
static int add_timeline(struct mt_plot *p, struct mt_reader *r, const char *label)
{
	struct mt_timeline tl;
	struct mt_plot_series *s;
	double bs;
	int rc = mt_timeline_build(r, &tl);

	if (rc < 0)
		return rc;
	bs = (double)tl.bucket_ns / 1e9;
	if ((p->kind == MT_PLOT_RSS && !tl.has_rss) ||
	    (p->kind == MT_PLOT_FAULTS && !tl.has_faults)) {
		mt_timeline_release(&tl);
		return -ENODATA;
	}
	s = new_series(p, label, MT_TL_BUCKETS);
	for (size_t i = 0; s && i < MT_TL_BUCKETS; i++) {
		const struct mt_tl_bucket *b = &tl.b[i];

		if (p->kind == MT_PLOT_RSS) {
			if (!b->rss_seen)
				continue;
			s->x[s->n] = (double)i * bs;
			s->y[s->n++] = (double)b->rss_max;
		} else {
			s->x[s->n] = (double)i * bs;
			s->y[s->n++] = (double)(b->faults_minor + b->faults_major) / bs;
		}
	}
	mt_timeline_release(&tl);
	return s ? 0 : -ENOMEM;
}

/* Names the sampling behind a run's figure in the plot's note: its event and period. */
static void note_sampling(struct mt_plot *p, struct mt_reader *r, const char *label)
{
	for (size_t i = 0; i < mt_reader_ncollectors(r); i++) {
		const struct mt_kvlist *kv = mt_reader_collector(r, i);
		const char *n = mt_kvlist_get(kv, "name"), *ev = mt_kvlist_get(kv, "event");
		const char *per = mt_kvlist_get(kv, "period"),
			   *hz = mt_kvlist_get(kv, "frequency_hz");
		const char *unit = mt_kvlist_get(kv, "weight_unit");
		size_t len = strlen(p->note);

		if (!n || strcmp(n, "access") || (!per && !hz) || len + 2 >= sizeof(p->note))
			continue;
		snprintf(p->note + len, sizeof(p->note) - len, "%s%s: %s samples %s %s %s",
			 len ? "; " : "", label, ev ? ev : "?", per ? "every" : "at",
			 per ? per : hz, per ? (unit ? unit : "") : "Hz");
	}
}

static int add_access(struct mt_plot *p, struct mt_reader *r, const char *label,
		      const struct mt_access_opts *ao, bool split_types)
{
	struct mt_access_opts o = ao ? *ao : (struct mt_access_opts){ 0 };
	struct mt_access_stats st;
	struct mt_addrmap m = { 0 };
	uint64_t lo = 0, hi = 0;
	int rc = 0;

	mt_reader_time_range(r, &lo, &hi);
	note_sampling(p, r, label);
	if (p->kind == MT_PLOT_HEATMAP) {
		rc = mt_addrmap_init(&m, r, 500000); /* binned: 1 in k past that */
		if (rc < 0)
			return rc;
		o.row = mt_addrmap_row;
		o.row_ctx = &m;
	}
	rc = mt_access_analyze(r, &o, &st);
	if (rc < 0) {
		mt_addrmap_release(&m);
		return rc;
	}
	if (p->kind == MT_PLOT_WSS) {
		struct mt_plot_series *s = st.nwss ? new_series(p, label, st.nwss) : NULL;

		rc = !st.nwss ? -ENODATA : s ? 0 : -ENOMEM;
		for (size_t i = 0; s && i < st.nwss; i++) {
			s->x[i] = (double)(st.t0 + st.wss[i].t - lo) / 1e9;
			s->y[i] = (double)st.wss[i].pages * 4096;
		}
		if (s)
			s->n = st.nwss;
	} else if (p->kind == MT_PLOT_RETENTION_CDF) {
		/* regions with a sampled read (a known retention): one CDF, or one per type */
		size_t ngroups = split_types ? st.ntypes : 1;

		rc = -ENODATA;
		for (size_t gi = 0; gi < ngroups; gi++) {
			struct mt_plot_series *s;
			size_t n = 0;

			for (size_t i = 0; i < st.nregions; i++)
				n += st.regions[i].c.read_samples &&
				     (!split_types || st.regions[i].b.type_ix == (int32_t)gi);
			if (!n)
				continue;
			s = new_series(p, split_types ? st.types[gi].name : label, n + 1);
			if (!s) {
				rc = -ENOMEM;
				break;
			}
			s->n = 1; /* the curve starts at 0 at the smallest value */
			for (size_t i = 0; i < st.nregions; i++)
				if (st.regions[i].c.read_samples &&
				    (!split_types || st.regions[i].b.type_ix == (int32_t)gi))
					s->x[s->n++] = st.regions[i].b.retention_s;
			mt_qsort(s->x + 1, n, sizeof(double), cmp_double);
			s->x[0] = s->x[1];
			s->y[0] = 0;
			for (size_t i = 1; i < s->n; i++)
				s->y[i] = (double)i / (double)n;
			rc = 0;
		}
	} else { /* heatmap */
		double span = hi > lo ? (double)(hi - lo) / 1e9 : 1e-9;

		rc = mt_addrmap_segments(&m);
		if (rc == 0 && !m.npts)
			rc = -ENODATA;
		if (rc == 0 && !(p->cells = calloc(MT_PLOT_HX * MT_PLOT_HY, sizeof(double))))
			rc = -ENOMEM;
		for (size_t i = 0; rc == 0 && i < m.npts; i++) {
			double t = (double)(m.pts[i].t - lo) / 1e9 / span;
			size_t x = (size_t)(t * MT_PLOT_HX),
			       y = (size_t)(mt_addrmap_y(&m, i) * MT_PLOT_HY);

			p->cells[(y < MT_PLOT_HY ? y : MT_PLOT_HY - 1) * MT_PLOT_HX +
				 (x < MT_PLOT_HX ? x : MT_PLOT_HX - 1)] += 1;
		}
		p->span_s = span;
		p->points = m.seen;
		p->drawn = m.npts;
		/* the tallest bands get a label */
		for (size_t k = 0; rc == 0 && k < 32 && k < m.nsegs; k++) {
			size_t best = SIZE_MAX;

			for (size_t i = 0; i < m.nsegs; i++)
				if (m.segs[i].h >= 0 &&
				    (best == SIZE_MAX || m.segs[i].h > m.segs[best].h))
					best = i;
			if (best == SIZE_MAX || m.segs[best].h < 0.02)
				break;
			p->bands[p->nbands].y = m.segs[best].y0;
			snprintf(p->bands[p->nbands].label, sizeof(p->bands[0].label),
				 "0x%" PRIx64 " (%" PRIu32 ")", m.segs[best].lo, m.segs[best].pid);
			p->nbands++;
			m.segs[best].h = -1;
		}
	}
	mt_access_release(&st);
	mt_addrmap_release(&m);
	return rc;
}

int mt_plot_add(struct mt_plot *p, struct mt_reader *r, const char *label,
		const struct mt_access_opts *ao, bool split_types)
{
	switch (p->kind) {
	case MT_PLOT_RSS:
		p->xlabel = "time (s)";
		p->ylabel = "resident memory";
		p->bytes = p->steps = true;
		snprintf(p->title, sizeof(p->title), "Resident memory (largest per interval)");
		return add_timeline(p, r, label);
	case MT_PLOT_FAULTS:
		p->xlabel = "time (s)";
		p->ylabel = "page faults per second";
		p->steps = true;
		snprintf(p->title, sizeof(p->title), "Page faults (minor + major)");
		return add_timeline(p, r, label);
	case MT_PLOT_WSS:
		p->xlabel = "time (s)";
		p->ylabel = "working set";
		p->bytes = p->steps = true;
		snprintf(p->title, sizeof(p->title),
			 "Working set: distinct pages touched per window (a lower bound)");
		return add_access(p, r, label, ao, false);
	case MT_PLOT_RETENTION_CDF:
		p->xlabel = "retention (s)";
		p->ylabel = "fraction of regions";
		p->steps = true;
		snprintf(p->title, sizeof(p->title), "Retention of regions with samples (CDF)");
		return add_access(p, r, label, ao, split_types);
	case MT_PLOT_HEATMAP:
		p->xlabel = "time (s)";
		p->ylabel = "address (compacted bands)";
		snprintf(p->title, sizeof(p->title), "Sampled accesses and faults: %s", label);
		return add_access(p, r, label, ao, false);
	}
	return -EINVAL;
}

/* Series q's value at t: the last point at or before t (steps), or interpolated between
 * its neighbours; NaN outside [its first x, its last x] — for steps outside [first, last):
 * a run's last step is its end (its process gone, resident memory 0), not a value it held. */
static double value_at(const struct mt_plot_series *q, double t, bool steps)
{
	size_t lo = 0, hi = q->n;

	if (!q->n || t < q->x[0] || t > q->x[q->n - 1] ||
	    (steps && q->n > 1 && t >= q->x[q->n - 1]))
		return NAN;
	while (hi - lo > 1) { /* the last point with x <= t */
		size_t mid = (lo + hi) / 2;

		if (q->x[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (steps || lo + 1 >= q->n || q->x[lo + 1] == q->x[lo])
		return q->y[lo];
	return q->y[lo] + (q->y[lo + 1] - q->y[lo]) * (t - q->x[lo]) / (q->x[lo + 1] - q->x[lo]);
}

int mt_plot_merge(struct mt_plot *p, size_t from, const char *name)
{
	size_t nx = 0, k = 0, n = p->nseries;
	struct mt_plot_series m = { 0 };
	double *xs;

	if (from >= n)
		return 0;
	for (size_t i = from; i < n; i++)
		nx += p->series[i].n;
	xs = malloc((nx ? nx : 1) * sizeof(*xs));
	m.name = strdup(name);
	m.x = malloc((nx ? nx : 1) * sizeof(double));
	m.y = malloc((nx ? nx : 1) * sizeof(double));
	if (!xs || !m.name || !m.x || !m.y) {
		free(xs);
		free(m.name);
		free(m.x);
		free(m.y);
		return -ENOMEM;
	}
	for (size_t i = from; i < n; i++)
		for (size_t j = 0; j < p->series[i].n; j++)
			xs[k++] = p->series[i].x[j];
	mt_qsort(xs, nx, sizeof(*xs), cmp_double);
	for (size_t i = 0; i < nx; i++) {
		double sum = 0;
		size_t cnt = 0;

		if (i && xs[i] == xs[i - 1])
			continue;
		for (size_t s = from; s < n; s++) {
			double v = value_at(&p->series[s], xs[i], p->steps);

			if (!isnan(v)) {
				sum += v;
				cnt++;
			}
		}
		if (cnt) {
			m.x[m.n] = xs[i];
			m.y[m.n++] = sum / (double)cnt;
		}
	}
	free(xs);
	for (size_t i = from; i < n; i++) {
		free(p->series[i].name);
		free(p->series[i].x);
		free(p->series[i].y);
	}
	p->series[from] = m;
	p->nseries = from + 1;
	return 0;
}

void mt_plot_release(struct mt_plot *p)
{
	for (size_t i = 0; i < p->nseries; i++) {
		free(p->series[i].name);
		free(p->series[i].x);
		free(p->series[i].y);
	}
	free(p->series);
	free(p->cells);
	p->series = NULL;
	p->cells = NULL;
	p->nseries = 0;
}

/* ---- SVG ---- */

/* A step of 1, 2 or 5 times a power of ten giving about n ticks over [0, max]. */
static double nice_step(double max, int n)
{
	double raw = max / n, mag = pow(10, floor(log10(raw > 0 ? raw : 1))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* The unit for a bytes axis whose values reach max. */
static double byte_unit(double max, const char **name)
{
	static const char *const n[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double u = 1;
	int i = 0;

	while (max / u >= 1024 * 2 && i < 4) {
		u *= 1024;
		i++;
	}
	*name = n[i];
	return u;
}

static void fmt_tick(char *b, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(b, n, "%.0f", v);
	else
		snprintf(b, n, "%.3g", v);
}

/* The heatmap's cells (log colour scale), its address bands and its note. */
static void svg_heatmap(const struct mt_plot *p, FILE *f, double L, double T, double pw, double ph,
			int h)
{
	double cmax = 0;

	for (size_t i = 0; p->cells && i < MT_PLOT_HX * MT_PLOT_HY; i++)
		if (p->cells[i] > cmax)
			cmax = p->cells[i];
	for (size_t y = 0; p->cells && y < MT_PLOT_HY; y++)
		for (size_t x = 0; x < MT_PLOT_HX; x++) {
			double c = p->cells[y * MT_PLOT_HX + x], v;
			int rr, gg, bb;

			if (!c)
				continue;
			/* log scale, dark blue to yellow */
			v = log1p(c) / log1p(cmax);
			rr = (int)(68 + v * (253 - 68));
			gg = (int)(1 + v * (231 - 1));
			bb = (int)(84 + v * (37 - 84));
			fprintf(f,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"#%02x%02x%02x\"/>\n",
				L + pw * (double)x / MT_PLOT_HX, T + ph * (double)y / MT_PLOT_HY,
				pw / MT_PLOT_HX + 0.3, ph / MT_PLOT_HY + 0.3, rr, gg, bb);
		}
	for (size_t i = 0; i < p->nbands; i++) {
		fprintf(f,
			"<line x1=\"%g\" x2=\"%g\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#999\" "
			"stroke-dasharray=\"2,3\"/>\n<text x=\"%g\" y=\"%.2f\" font-size=\"9\" "
			"text-anchor=\"end\">",
			L - 4, L + pw, T + ph * p->bands[i].y, T + ph * p->bands[i].y, L - 6,
			T + ph * p->bands[i].y + 9);
		mt_markup_text(f, p->bands[i].label);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"10\" fill=\"#555\">", L, (double)h - 8);
	fprintf(f, "%llu of %llu samples and faults binned; colour: log of the count; ", p->drawn,
		p->points);
	mt_markup_text(f, p->note);
	fputs("</text>\n", f);
}

/* Each series as a path clipped to the plot, with its legend entry. */
static void svg_series(const struct mt_plot *p, FILE *f, double L, double T, double pw, double ph,
		       double xmax, double ymax, double unit)
{
	for (size_t s = 0; s < p->nseries; s++) {
		const struct mt_plot_series *q = &p->series[s];

		if (!q->n)
			continue;
		fprintf(f,
			"<path clip-path=\"url(#plot)\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
			"d=\"",
			colors[s % 8]);
		for (size_t i = 0; i < q->n; i++) {
			double x = L + pw * q->x[i] / xmax,
			       y = T + ph - ph * (q->y[i] / unit) / ymax;

			if (!i)
				fprintf(f, "M%.2f %.2f", x, y);
			else if (p->steps)
				fprintf(f, "H%.2fV%.2f", x, y);
			else
				fprintf(f, "L%.2f %.2f", x, y);
		}
		if (p->kind == MT_PLOT_RETENTION_CDF) /* all regions are below the right edge */
			fprintf(f, "H%.2f", L + pw);
		fputs("\"/>\n", f);
		/* legend */
		fprintf(f,
			"<rect x=\"%g\" y=\"%g\" width=\"14\" height=\"3\" fill=\"%s\"/>\n<text x=\"%g\" "
			"y=\"%g\">",
			L + pw - 170, T + 14 + 16.0 * (double)s, colors[s % 8], L + pw - 150,
			T + 18 + 16.0 * (double)s);
		mt_markup_text(f, q->name);
		fputs("</text>\n", f);
	}
}

void mt_plot_svg(const struct mt_plot *p, FILE *f, int w, int h)
{
	const double L = p->kind == MT_PLOT_HEATMAP ? 160 : 80, R = 20, T = 40, B = 50;
	double pw = w - L - R, ph = h - T - B, xmax = 0, ymax = 0, unit = 1, xs, ys;
	const char *uname = "";
	char b[64];

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
		"%d\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%g\" y=\"22\" "
		"font-size=\"14\">",
		w, h, w, h, L);
	mt_markup_text(f, p->title);
	fputs("</text>\n", f);
	if (p->kind == MT_PLOT_HEATMAP) {
		xmax = p->span_s;
		svg_heatmap(p, f, L, T, pw, ph, h);
	} else {
		if (p->note[0]) {
			fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"10\" fill=\"#555\">", L,
				(double)h - 8);
			mt_markup_text(f, p->note);
			fputs("</text>\n", f);
		}
		for (size_t s = 0; s < p->nseries; s++)
			for (size_t i = 0; i < p->series[s].n; i++) {
				if (p->series[s].x[i] > xmax)
					xmax = p->series[s].x[i];
				if (p->series[s].y[i] > ymax)
					ymax = p->series[s].y[i];
			}
		if (p->kind == MT_PLOT_RETENTION_CDF)
			ymax = 1;
		if (p->bytes)
			unit = byte_unit(ymax, &uname);
	}
	xmax = xmax > 0 ? xmax : 1;
	ymax = ymax > 0 ? ymax / unit * 1.05 : 1;
	xs = nice_step(xmax, 6);
	ys = nice_step(ymax, 5);
	/* axes, grid, ticks */
	fprintf(f, "<g stroke=\"#ccc\" stroke-width=\"0.5\">\n");
	for (double x = 0; x <= xmax * 1.0001; x += xs)
		fprintf(f, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%g\" y2=\"%g\"/>\n",
			L + pw * x / xmax, L + pw * x / xmax, T, T + ph);
	if (p->kind != MT_PLOT_HEATMAP)
		for (double y = 0; y <= ymax * 1.0001; y += ys)
			fprintf(f, "<line x1=\"%g\" x2=\"%g\" y1=\"%.2f\" y2=\"%.2f\"/>\n", L,
				L + pw, T + ph - ph * y / ymax, T + ph - ph * y / ymax);
	fputs("</g>\n", f);
	fprintf(f,
		"<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#333\"/>\n",
		L, T, pw, ph);
	for (double x = 0; x <= xmax * 1.0001; x += xs) {
		fmt_tick(b, sizeof(b), x);
		fprintf(f, "<text x=\"%.2f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
			L + pw * x / xmax, T + ph + 16, b);
	}
	if (p->kind != MT_PLOT_HEATMAP)
		for (double y = 0; y <= ymax * 1.0001; y += ys) {
			fmt_tick(b, sizeof(b), y);
			fprintf(f, "<text x=\"%g\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
				L - 6, T + ph - ph * y / ymax + 4, b);
		}
	fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">", L + pw / 2, T + ph + 34);
	mt_markup_text(f, p->xlabel ? p->xlabel : "");
	fprintf(f,
		"</text>\n<text transform=\"translate(16,%g) rotate(-90)\" text-anchor=\"middle\">",
		T + ph / 2);
	mt_markup_text(f, p->ylabel ? p->ylabel : "");
	if (p->bytes)
		fprintf(f, " (%s)", uname);
	fputs("</text>\n", f);
	/* the series, clipped to the plot */
	fprintf(f,
		"<clipPath id=\"plot\"><rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/></clipPath>\n",
		L, T, pw, ph);
	svg_series(p, f, L, T, pw, ph, xmax, ymax, unit);
	fputs("</svg>\n", f);
}

/* ---- gnuplot ---- */

/* A gnuplot single-quoted string: ' doubled. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

static double gp_unit(const struct mt_plot *p, const char **name)
{
	double ymax = 0;

	*name = "";
	if (!p->bytes)
		return 1;
	for (size_t s = 0; s < p->nseries; s++)
		for (size_t i = 0; i < p->series[s].n; i++)
			if (p->series[s].y[i] > ymax)
				ymax = p->series[s].y[i];
	return byte_unit(ymax, name);
}

void mt_plot_data(const struct mt_plot *p, FILE *f)
{
	const char *uname;
	double unit = gp_unit(p, &uname);

	fprintf(f, "# memtap plot: %s\n", p->title);
	if (p->kind == MT_PLOT_HEATMAP) {
		fputs("# time_s\taxis_position\tcount (rows of one time cell, blank-line separated)\n",
		      f);
		for (size_t x = 0; x < MT_PLOT_HX; x++) {
			for (size_t y = 0; y < MT_PLOT_HY; y++)
				fprintf(f, "%.6g\t%.6g\t%g\n",
					p->span_s * ((double)x + 0.5) / MT_PLOT_HX,
					((double)y + 0.5) / MT_PLOT_HY,
					p->cells ? p->cells[y * MT_PLOT_HX + x] : 0);
			fputc('\n', f);
		}
		return;
	}
	for (size_t s = 0; s < p->nseries; s++) {
		fprintf(f, "# %s\n# %s\t%s%s%s%s\n", p->series[s].name, p->xlabel, p->ylabel,
			*uname ? " (" : "", uname, *uname ? ")" : "");
		for (size_t i = 0; i < p->series[s].n; i++)
			fprintf(f, "%.9g\t%.9g\n", p->series[s].x[i], p->series[s].y[i] / unit);
		fputs("\n\n", f);
	}
}

void mt_plot_script(const struct mt_plot *p, FILE *f, const char *data, const char *out,
		    const char *write_to)
{
	const char *ext = strrchr(out, '.'), *uname;
	char ylabel[256];

	gp_unit(p, &uname); /* the data file's unit, for the axis label */
	fputs("# memtap plot: edit freely, then run: gnuplot THIS_FILE\n", f);
	if (ext && !strcmp(ext, ".png"))
		fputs("set terminal pngcairo size 1000,600 font 'DejaVu Sans,11'\n", f);
	else if (ext && !strcmp(ext, ".pdf"))
		fputs("set terminal pdfcairo size 6in,3.6in font 'DejaVu Sans,9'\n", f);
	else
		fputs("set terminal svg size 1000,600 font 'DejaVu Sans,11' background '#ffffff'\n",
		      f);
	fputs("set output ", f);
	gp_str(f, write_to ? write_to : out);
	fputs("\nset title ", f);
	gp_str(f, p->title);
	if (p->note[0]) { /* the sampling behind the figure */
		fputs("\nset label 99 ", f);
		gp_str(f, p->note);
		fputs(" at screen 0.01, screen 0.015 font ',8'", f);
	}
	fputs("\nset xlabel ", f);
	gp_str(f, p->xlabel ? p->xlabel : "");
	snprintf(ylabel, sizeof(ylabel), "%s%s%s%s", p->ylabel ? p->ylabel : "", *uname ? " (" : "",
		 uname, *uname ? ")" : "");
	fputs("\nset ylabel ", f);
	gp_str(f, ylabel);
	fputs("\nset grid\nset key top left\n", f);
	if (p->kind == MT_PLOT_HEATMAP) {
		fputs("set yrange [1:0]\nset xrange [0:*]\nset cbtics\nset logscale cb\nset ytics (",
		      f);
		for (size_t i = 0; i < p->nbands; i++) {
			fputs(i ? ", " : "", f);
			gp_str(f, p->bands[i].label);
			fprintf(f, " %.6g", p->bands[i].y);
		}
		fputs(p->nbands ? ")\n" : "\"\" 0)\n", f);
		fputs("set palette defined (0 '#440154', 0.5 '#21918c', 1 '#fde725')\n", f);
		fputs("plot ", f);
		gp_str(f, data);
		fputs(" using 1:2:($3 > 0 ? $3 : NaN) with image notitle\n", f);
		return;
	}
	fputs("plot ", f);
	for (size_t s = 0; s < p->nseries; s++) {
		fputs(s ? ", \\\n     " : "", f);
		gp_str(f, data);
		fprintf(f, " index %zu using 1:2 with %s lw 2 title ", s,
			p->steps ? "steps" : "lines");
		gp_str(f, p->series[s].name);
	}
	fputc('\n', f);
}
