/* SPDX-License-Identifier: MIT */
/* The tier model of what-if placement from YAML (libyaml's event parser). */
#include "analysis/tiers.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct parse {
	yaml_parser_t p;
	yaml_event_t ev;
	const char *file;
	char *err;
	size_t errsize;
};

static int fail_at(struct parse *ps, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct parse *ps, yaml_mark_t m, const char *fmt, ...)
{
	int n = snprintf(ps->err, ps->errsize, "%s:%zu:%zu: ", ps->file, m.line + 1, m.column + 1);
	va_list ap;

	if (n > 0 && (size_t)n < ps->errsize) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errsize - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int next(struct parse *ps)
{
	yaml_event_delete(&ps->ev);
	if (yaml_parser_parse(&ps->p, &ps->ev))
		return 0;
	return fail_at(ps, ps->p.problem_mark, "YAML syntax error: %s",
		       ps->p.problem ? ps->p.problem : "unknown");
}

static const char *scalar(const yaml_event_t *ev)
{
	return ev->type == YAML_SCALAR_EVENT ? (const char *)ev->data.scalar.value : NULL;
}

void mt_tiers_default(struct mt_tiers *t)
{
	/* Idle load-to-use latencies as published for a current server (local DDR5 ~90 ns;
	 * a CXL memory expander ~2.5x that); the MRM's are the model's assumptions: reads as
	 * fast as DRAM's, slower writes, a retention of hours (docs/metrics.md). */
	static const struct mt_tier d[] = {
		{ "dram", 90, 90, 0 },
		{ "cxl", 250, 250, 0 },
		{ "mrm", 90, 500, 3600 },
	};

	memset(t, 0, sizeof(*t));
	memcpy(t->v, d, sizeof(d));
	t->n = 3;
	snprintf(t->source, sizeof(t->source), "built-in");
}

unsigned mt_tiers_retentions(const struct mt_tiers *t, double *r_s)
{
	unsigned k = 0;

	for (unsigned i = 0; i < t->n && k < MT_TIERS_MAX_R; i++)
		if (t->v[i].retention_s > 0)
			r_s[k++] = t->v[i].retention_s;
	return k;
}

/* A number in (0, max]; the scalar event is current. */
static int number(struct parse *ps, const char *key, double max, double *out)
{
	const char *s = scalar(&ps->ev);
	char *end;
	double v;

	if (!s)
		return fail_at(ps, ps->ev.start_mark, "'%s' must be a number", key);
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v))
		return fail_at(ps, ps->ev.start_mark, "'%s' must be a number, not '%s'", key, s);
	if (v <= 0)
		return fail_at(ps, ps->ev.start_mark, "'%s' must be greater than 0 (got %s)", key,
			       s);
	if (v > max)
		return fail_at(ps, ps->ev.start_mark, "'%s' must be at most %g (got %s)", key, max,
			       s);
	*out = v;
	return 0;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= sizeof(((struct mt_tier *)0)->name))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= '0' && s[i] <= '9') && s[i] != '_' &&
		    s[i] != '-' && !(s[i] >= 'A' && s[i] <= 'Z'))
			return false;
	return true;
}

/* One tier's mapping (its MAPPING_START is current). */
static int parse_tier(struct parse *ps, struct mt_tiers *t)
{
	static const char *const keys[] = { "name", "read_latency_ns", "write_latency_ns",
					    "retention_s" };
	yaml_mark_t start = ps->ev.start_mark;
	struct mt_tier *tr = &t->v[t->n];
	bool seen[4] = { false };

	memset(tr, 0, sizeof(*tr));
	for (;;) {
		const char *k;
		unsigned i = 0;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			break;
		k = scalar(&ps->ev);
		while (k && i < 4 && strcmp(k, keys[i]))
			i++;
		if (!k || i == 4)
			return fail_at(
				ps, ps->ev.start_mark,
				"unknown key '%s' in a tier (expected name, read_latency_ns, "
				"write_latency_ns, retention_s)",
				k ? k : "?");
		if (seen[i])
			return fail_at(ps, ps->ev.start_mark, "'%s' given twice", k);
		seen[i] = true;
		if (next(ps) < 0)
			return -1;
		if (i == 0) {
			const char *v = scalar(&ps->ev);

			if (!v || !valid_name(v))
				return fail_at(
					ps, ps->ev.start_mark,
					"a tier's name is 1 to 31 letters, digits, '_' or '-'");
			for (unsigned j = 0; j < t->n; j++)
				if (!strcmp(t->v[j].name, v))
					return fail_at(ps, ps->ev.start_mark,
						       "tier '%s' given twice", v);
			snprintf(tr->name, sizeof(tr->name), "%s", v);
		} else if (number(ps, keys[i], i == 3 ? 1e9 : 1e6,
				  i == 1   ? &tr->read_ns
				  : i == 2 ? &tr->write_ns
					   : &tr->retention_s) < 0) {
			return -1;
		}
	}
	for (unsigned i = 0; i < 3; i++)
		if (!seen[i])
			return fail_at(ps, start, "a tier without '%s'", keys[i]);
	if (!t->n && tr->retention_s > 0)
		return fail_at(ps, start,
			       "the first tier is where the memory is now (DRAM): it has no "
			       "retention_s");
	if (tr->retention_s > 0) {
		unsigned k = 0;

		for (unsigned j = 0; j < t->n; j++)
			k += t->v[j].retention_s > 0;
		if (k == MT_TIERS_MAX_R)
			return fail_at(ps, start, "more than %d tiers with a retention_s",
				       MT_TIERS_MAX_R);
	}
	t->n++;
	return 0;
}

static int parse_list(struct parse *ps, struct mt_tiers *t)
{
	if (next(ps) < 0)
		return -1;
	if (ps->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail_at(ps, ps->ev.start_mark, "'tiers' must be a list of tiers");
	for (;;) {
		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (ps->ev.type != YAML_MAPPING_START_EVENT)
			return fail_at(ps, ps->ev.start_mark,
				       "a tier is a mapping (name, read_latency_ns, "
				       "write_latency_ns[, retention_s])");
		if (t->n == MT_TIERS_MAX)
			return fail_at(ps, ps->ev.start_mark, "more than %d tiers", MT_TIERS_MAX);
		if (parse_tier(ps, t) < 0)
			return -1;
	}
	if (t->n < 2)
		return fail_at(
			ps, ps->ev.start_mark,
			"at least two tiers: where the memory is now, and one to move it to");
	return 0;
}

static int parse_doc(struct parse *ps, struct mt_tiers *t)
{
	bool seen = false;

	while (ps->ev.type != YAML_MAPPING_START_EVENT) {
		if (ps->ev.type == YAML_STREAM_END_EVENT)
			return fail_at(ps, ps->ev.start_mark, "empty file: expected 'tiers:'");
		if (ps->ev.type == YAML_SCALAR_EVENT || ps->ev.type == YAML_SEQUENCE_START_EVENT ||
		    ps->ev.type == YAML_ALIAS_EVENT)
			return fail_at(ps, ps->ev.start_mark, "expected a mapping with 'tiers:'");
		if (next(ps) < 0)
			return -1;
	}
	for (;;) {
		const char *k;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			break;
		k = scalar(&ps->ev);
		if (!k || strcmp(k, "tiers"))
			return fail_at(ps, ps->ev.start_mark, "unknown key '%s' (expected tiers)",
				       k ? k : "?");
		if (seen)
			return fail_at(ps, ps->ev.start_mark, "'tiers' given twice");
		seen = true;
		if (parse_list(ps, t) < 0)
			return -1;
	}
	if (!seen)
		return fail_at(ps, ps->ev.start_mark, "no 'tiers:' list");
	return 0;
}

static int parse(FILE *f, const char *data, size_t n, const char *name, struct mt_tiers *t,
		 char *err, size_t errsize)
{
	struct parse ps = { .file = name, .err = err, .errsize = errsize };
	int rc;

	memset(t, 0, sizeof(*t));
	if (!yaml_parser_initialize(&ps.p))
		return -ENOMEM;
	if (f)
		yaml_parser_set_input_file(&ps.p, f);
	else
		yaml_parser_set_input_string(&ps.p, (const unsigned char *)data, n);
	memset(&ps.ev, 0, sizeof(ps.ev));
	rc = yaml_parser_parse(&ps.p, &ps.ev)
		     ? parse_doc(&ps, t)
		     : fail_at(&ps, ps.p.problem_mark, "YAML syntax error: %s",
			       ps.p.problem ? ps.p.problem : "unknown");
	yaml_event_delete(&ps.ev);
	yaml_parser_delete(&ps.p);
	if (rc < 0)
		memset(t, 0, sizeof(*t));
	else
		snprintf(t->source, sizeof(t->source), "%s", name);
	return rc;
}

int mt_tiers_parse(const char *data, size_t n, const char *name, struct mt_tiers *t, char *err,
		   size_t errsize)
{
	return parse(NULL, data, n, name, t, err, errsize);
}

int mt_tiers_load(const char *path, struct mt_tiers *t, char *err, size_t errsize)
{
	FILE *f = fopen(path, "re");
	int rc;

	memset(t, 0, sizeof(*t));
	if (!f)
		return -errno;
	rc = parse(f, NULL, 0, path, t, err, errsize);
	fclose(f);
	return rc;
}
