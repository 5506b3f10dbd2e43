/* SPDX-License-Identifier: MIT */
/* What appev.c (the sway schema) shares with appev-group.c (--group-by and friends). */
#ifndef MEMTAP_ANALYSIS_APPEV_INTERNAL_H
#define MEMTAP_ANALYSIS_APPEV_INTERNAL_H

#include "analysis/appev.h"
#include "decode/jsonl.h"

/* A string of the line being read: its bytes (not NUL-terminated) and length. */
struct mt_ae_sv {
	const char *s;
	size_t len;
};

/* Python's float(x), int(x), str(x), bool(x) of a JSON value; false where Python raises. */
bool mt_ae_py_float(const struct mt_jv *v, double dflt, double *out);
bool mt_ae_py_str(const struct mt_jv *v, const char *dflt, char *tmp, size_t size,
		  struct mt_ae_sv *out);
bool mt_ae_py_truth(const struct mt_jv *v);

/* The group identified by (raw, id) with key shown, opened at line if new; NULL: no memory. */
struct mt_appev_group *mt_ae_group(struct mt_appev_groups *g, bool raw, const char *id,
				   size_t idlen, struct mt_ae_sv key, uint64_t line);
void mt_ae_skip(struct mt_appev *a, unsigned why, uint64_t line);
/* Would e be kept among the slowest? */
bool mt_ae_would_keep(const struct mt_appev *a, const struct mt_appev_event *e);
/* Keeps e among the slowest (taking its strings) or frees them. */
void mt_ae_keep_slow(struct mt_appev *a, struct mt_appev_event *e);
void mt_ae_mem_add(struct mt_appev_mem *to, const struct mt_appev_mem *m, uint64_t *rss_spans);
char *mt_ae_dup(struct mt_ae_sv v);

/* appev-group.c: one event by the caller's schema (v by a->keys). 0 or -ENOMEM. */
int mt_ae_add_generic(struct mt_appev *a, struct mt_jv *v, uint64_t lineno,
		      const struct mt_appev_span *sp);
/* The groups' percentiles, once every event is in. */
void mt_ae_group_finish(struct mt_appev *a);

#endif
