/* SPDX-License-Identifier: MIT */
/* Reading an experiment file's YAML nodes, each problem one line placed in the file. */
#include "exp/yaml-load.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

int mt_yl_fail(struct mt_yl *l, const yaml_node_t *n, const char *fmt, ...)
{
	int k = n ? snprintf(l->err, l->errsize, "%s:%zu:%zu: ", l->file, n->start_mark.line + 1,
			     n->start_mark.column + 1)
		  : snprintf(l->err, l->errsize, "%s: ", l->file);
	va_list ap;

	if (k > 0 && (size_t)k < l->errsize) {
		va_start(ap, fmt);
		vsnprintf(l->err + k, l->errsize - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

yaml_node_t *mt_yl_node(struct mt_yl *l, int i)
{
	return yaml_document_get_node(&l->doc, i);
}

struct mt_exp_mark mt_yl_mark(const yaml_node_t *n)
{
	return (struct mt_exp_mark){ (unsigned)n->start_mark.line + 1,
				     (unsigned)n->start_mark.column + 1 };
}

const char *mt_yl_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

int mt_yl_str(struct mt_yl *l, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = mt_yl_scalar(n);

	if (!s || !*s)
		return mt_yl_fail(l, n, "'%s' must be a non-empty string", key);
	free(*out);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

/* Names become directory names (workload=NAME): letters, digits, '.', '_', '-'. */
int mt_yl_name(struct mt_yl *l, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = mt_yl_scalar(n);

	if (!s || !*s || strlen(s) > 64 || s[0] == '.' ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(s))
		return mt_yl_fail(
			l, n,
			"'%s' must be 1 to 64 of letters, digits, '.', '_', '-' (it names a "
			"directory)",
			key);
	return mt_yl_str(l, n, key, out);
}

int mt_yl_u64(struct mt_yl *l, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
	      uint64_t *out)
{
	const char *s = mt_yl_scalar(n);
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return mt_yl_fail(l, n, "'%s' must be a whole number from %llu to %llu", key,
				  (unsigned long long)min, (unsigned long long)max);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return mt_yl_fail(l, n, "'%s' must be a whole number from %llu to %llu", key,
				  (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int mt_yl_seconds(struct mt_yl *l, const yaml_node_t *n, const char *key, double *out)
{
	const char *s = mt_yl_scalar(n);
	char *end;
	double v;

	if (!s || !*s)
		return mt_yl_fail(l, n, "'%s' must be a number of seconds, more than 0", key);
	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 86400 * 30)
		return mt_yl_fail(l, n, "'%s' must be a number of seconds, more than 0", key);
	*out = v;
	return 0;
}

int mt_yl_bool(struct mt_yl *l, const yaml_node_t *n, const char *key, bool *out)
{
	const char *s = mt_yl_scalar(n);

	if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
		*out = true;
	else if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
		*out = false;
	else
		return mt_yl_fail(l, n, "'%s' must be true or false", key);
	return 0;
}

/* One of choices (NULL-terminated): *out points into choices. */
int mt_yl_choice(struct mt_yl *l, const yaml_node_t *n, const char *key, const char *const *choices,
		 const char **out)
{
	const char *s = mt_yl_scalar(n);
	char list[256] = "";
	size_t k = 0;

	for (size_t i = 0; choices[i]; i++) {
		if (s && !strcmp(s, choices[i])) {
			*out = choices[i];
			return 0;
		}
		k += (size_t)snprintf(list + k, k < sizeof(list) ? sizeof(list) - k : 0, "%s%s",
				      i ? ", " : "", choices[i]);
	}
	return mt_yl_fail(l, n, "'%s' must be one of %s", key, list);
}

int mt_yl_push(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (mt_grow_array(v, cap, *n + 2, sizeof(**v)) < 0 || !((*v)[*n] = strdup(s)))
		return -ENOMEM;
	(*v)[++*n] = NULL;
	return 0;
}

/* A list of strings into a NULL-terminated vector; empty strings only after the first when
 * args (a command's arguments). */
int mt_yl_strlist(struct mt_yl *l, const yaml_node_t *n, const char *key, char ***v, size_t *nv,
		  bool args)
{
	size_t cap = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return mt_yl_fail(l, n, "'%s' must be a list of strings", key);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = mt_yl_node(l, *it);
		int rc;

		if (!mt_yl_scalar(e) || (!*mt_yl_scalar(e) && (!args || !*nv)))
			return mt_yl_fail(l, e, "'%s' must be a list of %sstrings", key,
					  args ? "arguments, the program first and not empty: "
					       : "non-empty ");
		if (*nv >= MT_YL_MAX_ITEMS)
			return mt_yl_fail(l, e, "'%s' has more than %u items", key,
					  MT_YL_MAX_ITEMS);
		if ((rc = mt_yl_push(v, nv, &cap, mt_yl_scalar(e))) < 0)
			return rc;
	}
	if (!*nv)
		return mt_yl_fail(l, n, "'%s' must not be empty", key);
	return 0;
}

/* A command: a list (argv) or a string (run by /bin/sh -c). */
int mt_yl_cmd(struct mt_yl *l, const yaml_node_t *n, const char *key, struct mt_exp_cmd *c)
{
	size_t cap = 0;
	int rc;

	c->at = mt_yl_mark(n);
	if (n->type == YAML_SEQUENCE_NODE)
		return mt_yl_strlist(l, n, key, &c->argv, &c->argc, true);
	if (!mt_yl_scalar(n) || !*mt_yl_scalar(n))
		return mt_yl_fail(l, n,
				  "'%s' must be a command: a list of arguments, or a string for "
				  "/bin/sh -c",
				  key);
	c->shell = true;
	if ((rc = mt_yl_push(&c->argv, &c->argc, &cap, "/bin/sh")) < 0 ||
	    (rc = mt_yl_push(&c->argv, &c->argc, &cap, "-c")) < 0)
		return rc;
	return mt_yl_push(&c->argv, &c->argc, &cap, mt_yl_scalar(n));
}

/* Iterates over a mapping's pairs: calls f(l, key, value, ctx) for each. */
int mt_yl_each_pair(struct mt_yl *l, const yaml_node_t *n, const char *what, mt_yl_pair_fn f,
		    void *ctx)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return mt_yl_fail(l, n, "%s must be a mapping of keys to values", what);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = mt_yl_node(l, p->key), *v = mt_yl_node(l, p->value);
		const char *key = mt_yl_scalar(k);
		int rc;

		if (!key)
			return mt_yl_fail(l, k, "%s: a key must be a string", what);
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
			if (mt_yl_scalar(mt_yl_node(l, q->key)) &&
			    !strcmp(mt_yl_scalar(mt_yl_node(l, q->key)), key))
				return mt_yl_fail(l, k, "'%s' is given twice", key);
		if ((rc = f(l, key, k, v, ctx)) < 0)
			return rc;
	}
	return 0;
}

int mt_yl_unknown(struct mt_yl *l, const yaml_node_t *k, const char *key, const char *what,
		  const char *known)
{
	return mt_yl_fail(l, k, "unknown key '%s' in %s (known: %s)", key, what, known);
}
