/* SPDX-License-Identifier: MIT */
/* memtap runs stat and compare: means, deviations and bootstrap intervals over runs. */
#include "exp/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/hash.h"

static const char *const fig_names[MT_NFIGS] = {
	[MT_FIG_WALL] = "wall_s",
	[MT_FIG_RSS] = "peak_rss_bytes",
	[MT_FIG_HEAP] = "peak_heap_bytes",
	[MT_FIG_FAULTS] = "faults",
	[MT_FIG_WSS] = "working_set_peak_pages",
	[MT_FIG_RECORDER_CPU] = "recorder_cpu_s",
	[MT_FIG_DATA_READ] = "data_read_bytes",
	[MT_FIG_REREAD] = "reread_bytes",
};

const char *mt_exp_fig_name(int f)
{
	return f >= 0 && f < MT_NFIGS ? fig_names[f] : "?";
}

static double opt(int64_t v)
{
	return v < 0 ? NAN : (double)v;
}

double mt_exp_fig(const struct mt_exp_index_row *r, int f)
{
	bool traced = !strcmp(r->kind, "traced");

	switch (f) {
	case MT_FIG_WALL:
		return (double)r->wall_ns / 1e9;
	case MT_FIG_RSS:
		return traced ? opt(r->peak_rss) : (double)r->max_rss_bytes;
	case MT_FIG_HEAP:
		return opt(r->peak_heap);
	case MT_FIG_FAULTS:
		return r->faults_minor < 0 ? NAN : (double)(r->faults_minor + r->faults_major);
	case MT_FIG_WSS:
		return opt(r->wss_peak_pages);
	case MT_FIG_RECORDER_CPU:
		return r->recorder_cpu_ns < 0 ? NAN : (double)r->recorder_cpu_ns / 1e9;
	case MT_FIG_DATA_READ:
		return opt(r->data_read_bytes);
	case MT_FIG_REREAD:
		return opt(r->reread_bytes);
	default:
		return NAN;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(q / (double)(n - 1)) : NAN;
}

/* The ratio of means' 95 % percentile interval over resamples of both sides (seeded: the
 * same runs give the same interval). */
static void bootstrap(const double *t, size_t nt, const double *b, size_t nb, double *lo,
		      double *hi)
{
	enum { B = 2000 };
	double *r;
	uint64_t s = 1;
	size_t k = 0;

	*lo = *hi = NAN;
	if (!nt || !nb || !(r = malloc(B * sizeof(*r))))
		return;
	for (int i = 0; i < B; i++) {
		double st = 0, sb = 0;

		for (size_t j = 0; j < nt; j++)
			st += t[mt_splitmix64(&s) % nt];
		for (size_t j = 0; j < nb; j++)
			sb += b[mt_splitmix64(&s) % nb];
		if (sb != 0)
			r[k++] = (st / (double)nt) / (sb / (double)nb);
	}
	if (k == B) { /* a resample of zeros: no interval */
		mt_qsort(r, B, sizeof(*r), cmp_double);
		*lo = r[(int)(0.025 * B)];
		*hi = r[(int)(0.975 * B) - 1];
	}
	free(r);
}

static bool counts(const struct mt_exp_index_row *r, bool with_contaminated)
{
	return !strcmp(r->status, "ok") &&
	       (with_contaminated || !r->validity || strcmp(r->validity, "contaminated"));
}

/* Figure f of the counted runs of (w, c, kind) into v; returns how many have it. */
static size_t gather(const struct mt_exp_index_row *rows, size_t n, const char *w, const char *c,
		     const char *kind, bool with_contaminated, int f, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double x;

		if (strcmp(rows[i].workload, w) || strcmp(rows[i].config, c) ||
		    strcmp(rows[i].kind, kind) || !counts(&rows[i], with_contaminated))
			continue;
		x = mt_exp_fig(&rows[i], f);
		if (!isnan(x))
			v[k++] = x;
	}
	return k;
}

static void stat_group(const struct mt_exp_index_row *rows, size_t n, bool wc,
		       struct mt_exp_stat *st, double *v, double *u)
{
	double sd;
	size_t nb;

	for (size_t i = 0; i < n; i++) {
		const struct mt_exp_index_row *r = &rows[i];

		if (strcmp(r->workload, st->workload) || strcmp(r->config, st->config) ||
		    !strcmp(r->kind, "warmup"))
			continue;
		if (strcmp(r->status, "ok")) {
			st->failed++;
		} else if (!counts(r, wc)) {
			st->contaminated++;
		} else {
			st->traced += !strcmp(r->kind, "traced");
			st->baseline += !strcmp(r->kind, "baseline");
			st->marginal += r->validity && !strcmp(r->validity, "marginal");
		}
	}
	st->kind = st->traced ? "traced" : "baseline";
	for (int f = 0; f < MT_NFIGS; f++) {
		st->count[f] = gather(rows, n, st->workload, st->config, st->kind, wc, f, v);
		mean_sd(v, st->count[f], &st->mean[f], &st->sd[f]);
	}
	nb = gather(rows, n, st->workload, st->config, "baseline", wc, MT_FIG_RSS, v);
	mean_sd(v, nb, &st->base_rss_mean, &sd);
	nb = gather(rows, n, st->workload, st->config, "baseline", wc, MT_FIG_WALL, u);
	mean_sd(u, nb, &st->base_mean_s, &st->base_sd_s);
	st->observer = st->observer_lo = st->observer_hi = NAN;
	if (st->traced && nb) {
		size_t nt = gather(rows, n, st->workload, st->config, "traced", wc, MT_FIG_WALL, v);

		st->observer = st->mean[MT_FIG_WALL] / st->base_mean_s;
		bootstrap(v, nt, u, nb, &st->observer_lo, &st->observer_hi);
	}
}

int mt_exp_stats(const struct mt_exp_index_row *rows, size_t n, bool with_contaminated,
		 struct mt_exp_stat **stats, size_t *nstats)
{
	double *buf = malloc(2 * (n ? n : 1) * sizeof(*buf));
	struct mt_exp_stat *v = NULL;
	size_t nv = 0, cap = 0;

	*stats = NULL;
	*nstats = 0;
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!strcmp(rows[i].kind, "warmup"))
			continue;
		for (k = 0; k < nv; k++)
			if (!strcmp(v[k].workload, rows[i].workload) &&
			    !strcmp(v[k].config, rows[i].config))
				break;
		if (k < nv)
			continue;
		if (mt_grow_array(&v, &cap, nv + 1, sizeof(*v)) < 0) {
			free(buf);
			free(v);
			return -ENOMEM;
		}
		memset(&v[nv], 0, sizeof(v[nv]));
		v[nv].workload = rows[i].workload;
		v[nv].config = rows[i].config;
		stat_group(rows, n, with_contaminated, &v[nv++], buf, buf + n);
	}
	free(buf);
	*stats = v;
	*nstats = nv;
	return 0;
}

static void compare_one(const struct mt_exp_index_row *rows, size_t n, const char *a, const char *b,
			const char *kind, bool wc, struct mt_exp_cmp *c, double *va, double *vb)
{
	for (int f = 0; f < MT_NFIGS; f++) {
		size_t na = gather(rows, n, c->workload, a, kind, wc, f, va);
		size_t nb = gather(rows, n, c->workload, b, kind, wc, f, vb);
		double sd;

		if (f == MT_FIG_WALL) {
			c->na = na;
			c->nb = nb;
		}
		mean_sd(va, na, &c->a[f], &sd);
		mean_sd(vb, nb, &c->b[f], &sd);
		c->ratio[f] = na && nb && c->a[f] != 0 ? c->b[f] / c->a[f] : NAN;
		c->lo[f] = c->hi[f] = NAN;
		if (!isnan(c->ratio[f]))
			bootstrap(vb, nb, va, na, &c->lo[f], &c->hi[f]);
	}
}

int mt_exp_compare(const struct mt_exp_index_row *rows, size_t n, const char *a, const char *b,
		   const char *kind, bool with_contaminated, struct mt_exp_cmp **out, size_t *nout)
{
	double *buf = malloc(2 * (n ? n : 1) * sizeof(*buf));
	struct mt_exp_cmp *v = NULL;
	size_t nv = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *w = rows[i].workload;
		bool seen = false;

		if (strcmp(rows[i].config, a) || strcmp(rows[i].kind, kind))
			continue;
		for (size_t k = 0; k < nv && !seen; k++)
			seen = !strcmp(v[k].workload, w);
		if (seen || !gather(rows, n, w, b, kind, with_contaminated, MT_FIG_WALL, buf) ||
		    !gather(rows, n, w, a, kind, with_contaminated, MT_FIG_WALL, buf))
			continue;
		if (mt_grow_array(&v, &cap, nv + 1, sizeof(*v)) < 0) {
			free(buf);
			free(v);
			return -ENOMEM;
		}
		memset(&v[nv], 0, sizeof(v[nv]));
		v[nv].workload = w;
		compare_one(rows, n, a, b, kind, with_contaminated, &v[nv++], buf, buf + n);
	}
	free(buf);
	*out = v;
	*nout = nv;
	return 0;
}
