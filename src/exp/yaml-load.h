/* SPDX-License-Identifier: MIT */
/* Reading an experiment file's YAML nodes (libyaml's document model) with placed errors. */
#ifndef MEMTAP_EXP_YAML_LOAD_H
#define MEMTAP_EXP_YAML_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "exp/experiment.h"

#define MT_YL_MAX_ITEMS 10000 /* workloads, configurations, arguments... per list */
#define MT_YL_MAX_DEPTH 16 /* nesting: the bundled experiments use up to 6 levels */

/* A document being loaded: messages name the file, the line and the column. */
struct mt_yl {
	const char *file;
	yaml_document_t doc;
	char *err;
	size_t errsize;
};

/* err = "FILE:LINE:COL: message" at n (or "FILE: message" without n); returns -EINVAL. */
int mt_yl_fail(struct mt_yl *l, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
yaml_node_t *mt_yl_node(struct mt_yl *l, int i);
struct mt_exp_mark mt_yl_mark(const yaml_node_t *n);
/* A scalar's text; NULL for any other node. */
const char *mt_yl_scalar(const yaml_node_t *n);

/* The value of key, checked and converted (each fails with a placed message). */
int mt_yl_str(struct mt_yl *l, const yaml_node_t *n, const char *key, char **out);
int mt_yl_name(struct mt_yl *l, const yaml_node_t *n, const char *key, char **out);
int mt_yl_u64(struct mt_yl *l, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
	      uint64_t *out);
int mt_yl_seconds(struct mt_yl *l, const yaml_node_t *n, const char *key, double *out);
int mt_yl_bool(struct mt_yl *l, const yaml_node_t *n, const char *key, bool *out);
/* One of choices (NULL-terminated): *out points into choices. */
int mt_yl_choice(struct mt_yl *l, const yaml_node_t *n, const char *key, const char *const *choices,
		 const char **out);
int mt_yl_push(char ***v, size_t *n, size_t *cap, const char *s);
/* A list of strings into a NULL-terminated vector; empty strings only after the first when
 * args (a command's arguments). */
int mt_yl_strlist(struct mt_yl *l, const yaml_node_t *n, const char *key, char ***v, size_t *nv,
		  bool args);
/* A command: a list (argv) or a string (run by /bin/sh -c). */
int mt_yl_cmd(struct mt_yl *l, const yaml_node_t *n, const char *key, struct mt_exp_cmd *c);

/* Calls f(l, key, key node, value node, ctx) for each pair of a mapping; a key given twice
 * or not a string fails. */
typedef int (*mt_yl_pair_fn)(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v,
			     void *ctx);
int mt_yl_each_pair(struct mt_yl *l, const yaml_node_t *n, const char *what, mt_yl_pair_fn f,
		    void *ctx);
/* "unknown key 'KEY' in WHAT (known: KNOWN)" at k. */
int mt_yl_unknown(struct mt_yl *l, const yaml_node_t *k, const char *key, const char *what,
		  const char *known);

#endif
