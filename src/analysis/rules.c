/* SPDX-License-Identifier: MIT */
/* Region-type rules from a YAML file (libyaml's event parser). */
#include "analysis/rules.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_RULES 10000

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

/* The next event; a syntax error becomes the message. */
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
	return (const char *)ev->data.scalar.value;
}

/*
 * glibc's regcomp copies the parse tree for every repetition, so stacked repetitions ("a++"),
 * large counts and repeated groups nested deep grow it exponentially. A rule's regex stays
 * within: 256 bytes, no repetition of a repetition, counts up to 16, at most 3 repeated
 * groups. NULL when it does, else what it breaks.
 */
static const char *regex_too_costly(const char *re)
{
	unsigned group_reps = 0;
	bool prev_rep = false, after_group = false;

	if (strlen(re) > 256)
		return "longer than 256 bytes";
	for (const char *p = re; *p; p++) {
		bool rep = false;

		if (*p == '\\') {
			if (p[1])
				p++;
		} else if (*p == '[') { /* a bracket expression: "]" first is a member */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return NULL; /* regcomp reports the unmatched [ */
		} else if (*p == '*' || *p == '+' || *p == '?') {
			rep = true;
		} else if (*p == '{') {
			unsigned long lo = strtoul(p + 1, (char **)&p, 10), hi = lo;

			if (*p == ',')
				hi = p[1] == '}' ? 0 : strtoul(p + 1, (char **)&p, 10);
			if (lo > 16 || hi > 16)
				return "a repetition count above 16";
			while (*p && *p != '}')
				p++;
			if (!*p)
				return NULL;
			rep = true;
		}
		if (rep) {
			if (prev_rep)
				return "a repetition of a repetition";
			if (after_group && ++group_reps > 3)
				return "more than 3 repeated groups";
		}
		prev_rep = rep;
		after_group = *p == ')';
	}
	return NULL;
}

/* The symbol's regex, checked and compiled; the value's event is current. */
static int compile_symbol(struct parse *ps, char **sym, regex_t *re, yaml_mark_t vm)
{
	const char *costly = regex_too_costly(*sym);
	int rc;

	if (costly) {
		free(*sym);
		*sym = NULL;
		return fail_at(ps, vm, "regular expression too costly: %s", costly);
	}
	rc = regcomp(re, *sym, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char why[128];

		regerror(rc, re, why, sizeof(why));
		free(*sym);
		*sym = NULL;
		return fail_at(ps, vm, "bad regular expression: %s", why);
	}
	return 0;
}

/* One "- symbol|path: ..., region_type: ..." mapping; the MAPPING_START is current. */
static int parse_rule(struct parse *ps, struct mt_rule *r)
{
	yaml_mark_t start = ps->ev.start_mark;

	r->line = (unsigned)start.line + 1;
	for (;;) {
		char key[32];
		yaml_mark_t km, vm;
		char **slot;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (ps->ev.type != YAML_SCALAR_EVENT)
			return fail_at(ps, ps->ev.start_mark,
				       "expected a key (symbol, path, region_type)");
		km = ps->ev.start_mark;
		snprintf(key, sizeof(key), "%s", scalar(&ps->ev));
		if (!strcmp(key, "symbol"))
			slot = &r->symbol;
		else if (!strcmp(key, "path"))
			slot = &r->path;
		else if (!strcmp(key, "region_type"))
			slot = &r->region_type;
		else
			return fail_at(ps, km,
				       "unknown key '%s' (expected symbol, path or region_type)",
				       key);
		if (*slot)
			return fail_at(ps, km, "'%s' given twice in one rule", key);
		if (next(ps) < 0)
			return -1;
		vm = ps->ev.start_mark;
		if (ps->ev.type != YAML_SCALAR_EVENT || !ps->ev.data.scalar.length)
			return fail_at(ps, vm, "expected a non-empty string for '%s'", key);
		*slot = strdup(scalar(&ps->ev));
		if (!*slot)
			return fail_at(ps, vm, "out of memory");
		if (slot == &r->symbol && compile_symbol(ps, &r->symbol, &r->symbol_re, vm) < 0)
			return -1;
		if (!strcmp(key, "region_type") && strlen(*slot) > 63)
			return fail_at(ps, vm, "region_type is longer than 63 bytes");
	}
	if (!r->region_type)
		return fail_at(ps, start, "a rule needs region_type");
	if (!r->symbol == !r->path)
		return fail_at(ps, start, "a rule needs exactly one of symbol and path");
	return 0;
}

/* One "- symbol: ..., phase: ..." mapping; the MAPPING_START is current. */
static int parse_phase_rule(struct parse *ps, struct mt_phase_rule *r)
{
	yaml_mark_t start = ps->ev.start_mark;

	r->line = (unsigned)start.line + 1;
	for (;;) {
		char key[32];
		yaml_mark_t km, vm;
		char **slot;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (ps->ev.type != YAML_SCALAR_EVENT)
			return fail_at(ps, ps->ev.start_mark, "expected a key (symbol, phase)");
		km = ps->ev.start_mark;
		snprintf(key, sizeof(key), "%s", scalar(&ps->ev));
		if (!strcmp(key, "symbol"))
			slot = &r->symbol;
		else if (!strcmp(key, "phase"))
			slot = &r->phase;
		else
			return fail_at(ps, km, "unknown key '%s' (expected symbol or phase)", key);
		if (*slot)
			return fail_at(ps, km, "'%s' given twice in one rule", key);
		if (next(ps) < 0)
			return -1;
		vm = ps->ev.start_mark;
		if (ps->ev.type != YAML_SCALAR_EVENT || !ps->ev.data.scalar.length)
			return fail_at(ps, vm, "expected a non-empty string for '%s'", key);
		*slot = strdup(scalar(&ps->ev));
		if (!*slot)
			return fail_at(ps, vm, "out of memory");
		if (slot == &r->symbol && compile_symbol(ps, &r->symbol, &r->symbol_re, vm) < 0)
			return -1;
		if (slot == &r->phase && strlen(*slot) > 255)
			return fail_at(ps, vm, "phase is longer than 255 bytes");
	}
	if (!r->symbol || !r->phase)
		return fail_at(ps, start, "a phase rule needs symbol and phase");
	return 0;
}

static int parse_phases(struct parse *ps, struct mt_rules *rules)
{
	size_t cap = 0;

	for (;;) {
		struct mt_phase_rule *r;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (ps->ev.type != YAML_MAPPING_START_EVENT)
			return fail_at(ps, ps->ev.start_mark,
				       "expected a phase rule (symbol, phase)");
		if (rules->nph == MAX_RULES)
			return fail_at(ps, ps->ev.start_mark, "more than 10000 phase rules");
		if (rules->nph == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct mt_phase_rule *v = realloc(rules->ph, ncap * sizeof(*v));

			if (!v)
				return fail_at(ps, ps->ev.start_mark, "out of memory");
			rules->ph = v;
			cap = ncap;
		}
		r = &rules->ph[rules->nph++];
		memset(r, 0, sizeof(*r));
		if (parse_phase_rule(ps, r) < 0)
			return -1;
	}
}

static int parse_doc(struct parse *ps, struct mt_rules *rules)
{
	size_t cap = 0;
	bool seen_rules = false, seen_phases = false;

	while (ps->ev.type != YAML_MAPPING_START_EVENT) {
		if (ps->ev.type == YAML_STREAM_END_EVENT)
			return fail_at(ps, ps->ev.start_mark, "empty file: expected 'rules:'");
		if (ps->ev.type == YAML_SCALAR_EVENT || ps->ev.type == YAML_SEQUENCE_START_EVENT)
			return fail_at(ps, ps->ev.start_mark, "expected a mapping with 'rules:'");
		if (next(ps) < 0)
			return -1;
	}
	for (;;) {
		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		if (ps->ev.type == YAML_SCALAR_EVENT && !strcmp(scalar(&ps->ev), "phases")) {
			if (seen_phases)
				return fail_at(ps, ps->ev.start_mark, "'phases' given twice");
			seen_phases = true;
			if (next(ps) < 0)
				return -1;
			if (ps->ev.type != YAML_SEQUENCE_START_EVENT)
				return fail_at(ps, ps->ev.start_mark,
					       "expected a list of phase rules after 'phases:'");
			if (parse_phases(ps, rules) < 0)
				return -1;
			continue;
		}
		if (ps->ev.type != YAML_SCALAR_EVENT || strcmp(scalar(&ps->ev), "rules"))
			return fail_at(ps, ps->ev.start_mark,
				       "unknown key '%s' (expected rules or phases)",
				       ps->ev.type == YAML_SCALAR_EVENT ? scalar(&ps->ev) : "?");
		if (seen_rules)
			return fail_at(ps, ps->ev.start_mark, "'rules' given twice");
		seen_rules = true;
		if (next(ps) < 0)
			return -1;
		if (ps->ev.type != YAML_SEQUENCE_START_EVENT)
			return fail_at(ps, ps->ev.start_mark,
				       "expected a list of rules after 'rules:'");
		for (;;) {
			struct mt_rule *r;

			if (next(ps) < 0)
				return -1;
			if (ps->ev.type == YAML_SEQUENCE_END_EVENT)
				break;
			if (ps->ev.type != YAML_MAPPING_START_EVENT)
				return fail_at(ps, ps->ev.start_mark,
					       "expected a rule (symbol or path, and region_type)");
			if (rules->n == MAX_RULES)
				return fail_at(ps, ps->ev.start_mark, "more than 10000 rules");
			if (rules->n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				struct mt_rule *v = realloc(rules->v, ncap * sizeof(*v));

				if (!v)
					return fail_at(ps, ps->ev.start_mark, "out of memory");
				rules->v = v;
				cap = ncap;
			}
			r = &rules->v[rules->n++];
			memset(r, 0, sizeof(*r));
			if (parse_rule(ps, r) < 0)
				return -1;
		}
	}
}

/* Parses from a file (f) or a buffer (data, n); name is for messages. */
static int load(FILE *f, const char *data, size_t n, const char *name, struct mt_rules *rules,
		char *err, size_t errsize)
{
	struct parse ps = { .file = name, .err = err, .errsize = errsize };
	int rc;

	memset(rules, 0, sizeof(*rules));
	if (!yaml_parser_initialize(&ps.p))
		return -ENOMEM;
	if (f)
		yaml_parser_set_input_file(&ps.p, f);
	else
		yaml_parser_set_input_string(&ps.p, (const unsigned char *)data, n);
	memset(&ps.ev, 0, sizeof(ps.ev));
	rc = yaml_parser_parse(&ps.p, &ps.ev)
		     ? parse_doc(&ps, rules)
		     : fail_at(&ps, ps.p.problem_mark, "YAML syntax error: %s",
			       ps.p.problem ? ps.p.problem : "unknown");
	yaml_event_delete(&ps.ev);
	yaml_parser_delete(&ps.p);
	if (rc < 0)
		mt_rules_release(rules);
	return rc;
}

int mt_rules_load(const char *path, struct mt_rules *rules, char *err, size_t errsize)
{
	FILE *f = fopen(path, "re");
	int rc;

	memset(rules, 0, sizeof(*rules));
	if (!f)
		return -errno;
	rc = load(f, NULL, 0, path, rules, err, errsize);
	fclose(f);
	return rc;
}

int mt_rules_parse(const char *data, size_t n, const char *name, struct mt_rules *rules, char *err,
		   size_t errsize)
{
	return load(NULL, data, n, name, rules, err, errsize);
}

void mt_rules_release(struct mt_rules *rules)
{
	for (size_t i = 0; i < rules->n; i++) {
		if (rules->v[i].symbol) {
			regfree(&rules->v[i].symbol_re);
			free(rules->v[i].symbol);
		}
		free(rules->v[i].path);
		free(rules->v[i].region_type);
	}
	for (size_t i = 0; i < rules->nph; i++) {
		if (rules->ph[i].symbol) {
			regfree(&rules->ph[i].symbol_re);
			free(rules->ph[i].symbol);
		}
		free(rules->ph[i].phase);
	}
	free(rules->v);
	free(rules->ph);
	memset(rules, 0, sizeof(*rules));
}

const struct mt_rule *mt_rules_match_path(const struct mt_rules *rules, const char *path)
{
	for (size_t i = 0; rules && path && i < rules->n; i++)
		if (rules->v[i].path && fnmatch(rules->v[i].path, path, 0) == 0)
			return &rules->v[i];
	return NULL;
}

const struct mt_rule *mt_rules_match_symbols(const struct mt_rules *rules, const char *const *names,
					     size_t n)
{
	for (size_t i = 0; rules && i < rules->n; i++) {
		if (!rules->v[i].symbol)
			continue;
		for (size_t k = 0; k < n; k++)
			if (names[k] && regexec(&rules->v[i].symbol_re, names[k], 0, NULL, 0) == 0)
				return &rules->v[i];
	}
	return NULL;
}

const struct mt_phase_rule *mt_rules_match_phase(const struct mt_rules *rules,
						 const char *const *names, size_t n)
{
	for (size_t i = 0; rules && i < rules->nph; i++)
		for (size_t k = 0; k < n; k++)
			if (names[k] && regexec(&rules->ph[i].symbol_re, names[k], 0, NULL, 0) == 0)
				return &rules->ph[i];
	return NULL;
}
