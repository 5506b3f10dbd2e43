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

const char *const mt_rule_types[] = { "weight",	   "kv_cache",	"activation",	   "runtime",
				      "tokenizer", "io_buffer", "optimizer_state", "gradient",
				      "embedding", NULL };

struct parse {
	yaml_parser_t p;
	yaml_event_t ev;
	const char *file;
	char *err;
	size_t errsize;
	struct mt_rules *rules;
	const char *source;
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

/* A key of a rule's mapping: the string it sets, its length limit, whether it is a regex. */
struct key {
	const char *name;
	char **slot;
	size_t max; /* 0: no limit */
	regex_t *re; /* compile the value here */
	yaml_mark_t *mark; /* where the value was, or NULL */
};

/*
 * One rule's mapping (its MAPPING_START is current) into the keys' slots: every key at most
 * once, every value a non-empty string. keys_list and keys_or name them in messages.
 */
static int parse_keys(struct parse *ps, const struct key *keys, size_t nkeys, const char *keys_list,
		      const char *keys_or)
{
	for (;;) {
		const struct key *k = NULL;
		yaml_mark_t km, vm;
		char key[32];

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		if (ps->ev.type != YAML_SCALAR_EVENT)
			return fail_at(ps, ps->ev.start_mark, "expected a key (%s)", keys_list);
		km = ps->ev.start_mark;
		snprintf(key, sizeof(key), "%s", scalar(&ps->ev));
		for (size_t i = 0; i < nkeys && !k; i++)
			if (!strcmp(key, keys[i].name))
				k = &keys[i];
		if (!k)
			return fail_at(ps, km, "unknown key '%s' (expected %s)", key, keys_or);
		if (*k->slot)
			return fail_at(ps, km, "'%s' given twice in one rule", key);
		if (next(ps) < 0)
			return -1;
		vm = ps->ev.start_mark;
		if (ps->ev.type != YAML_SCALAR_EVENT || !ps->ev.data.scalar.length)
			return fail_at(ps, vm, "expected a non-empty string for '%s'", key);
		*k->slot = strdup(scalar(&ps->ev));
		if (!*k->slot)
			return fail_at(ps, vm, "out of memory");
		if (k->mark)
			*k->mark = vm;
		if (k->re && compile_symbol(ps, k->slot, k->re, vm) < 0)
			return -1;
		if (k->max && strlen(*k->slot) > k->max)
			return fail_at(ps, vm, "%s is longer than %zu bytes", key, k->max);
	}
}

static bool known_type(const struct mt_rules *rules, const char *type)
{
	for (size_t i = 0; mt_rule_types[i]; i++)
		if (!strcmp(mt_rule_types[i], type))
			return true;
	for (size_t i = 0; i < rules->ntypes; i++)
		if (!strcmp(rules->types[i], type))
			return true;
	return false;
}

/* One "- symbol|path: ..., region_type: ..." mapping. */
static int parse_rule(struct parse *ps, void *elem)
{
	struct mt_rule *r = elem;
	yaml_mark_t start = ps->ev.start_mark, tm = start;
	const struct key keys[] = {
		{ "symbol", &r->symbol, 0, &r->symbol_re, NULL },
		{ "with", &r->with, 0, &r->with_re, NULL },
		{ "path", &r->path, 0, NULL, NULL },
		{ "region_type", &r->region_type, 63, NULL, &tm },
	};

	r->line = (unsigned)start.line + 1;
	r->source = ps->source;
	if (parse_keys(ps, keys, 4, "symbol, with, path, region_type",
		       "symbol, with, path or region_type") < 0)
		return -1;
	if (!r->region_type)
		return fail_at(ps, start, "a rule needs region_type");
	if (!r->symbol == !r->path)
		return fail_at(ps, start, "a rule needs exactly one of symbol and path");
	if (r->with && !r->symbol)
		return fail_at(ps, start, "'with' goes with 'symbol' (another frame of the stack)");
	if (!known_type(ps->rules, r->region_type))
		return fail_at(
			ps, tm,
			"unknown region type '%s' (known: weight, kv_cache, activation, "
			"runtime, tokenizer, io_buffer, optimizer_state, gradient, embedding; "
			"declare others under 'types:' before 'rules:')",
			r->region_type);
	return 0;
}

/* The list under "types:": region type names, [a-z0-9_]+, up to 63 bytes. */
static int parse_types(struct parse *ps)
{
	struct mt_rules *rules = ps->rules;

	if (next(ps) < 0)
		return -1;
	if (ps->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail_at(ps, ps->ev.start_mark,
			       "expected a list of region type names after "
			       "'types:'");
	for (;;) {
		const char *t;
		char **nv;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		t = ps->ev.type == YAML_SCALAR_EVENT ? scalar(&ps->ev) : "";
		if (!t[0] || strlen(t) > 63 ||
		    strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(t))
			return fail_at(ps, ps->ev.start_mark,
				       "expected a region type name ([a-z0-9_], up to 63 bytes)");
		if (rules->ntypes == 256)
			return fail_at(ps, ps->ev.start_mark, "more than 256 types");
		nv = realloc(rules->types, (rules->ntypes + 1) * sizeof(*nv));
		if (!nv)
			return fail_at(ps, ps->ev.start_mark, "out of memory");
		rules->types = nv;
		if (!(nv[rules->ntypes] = strdup(t)))
			return fail_at(ps, ps->ev.start_mark, "out of memory");
		rules->ntypes++;
	}
}

/* One "- symbol: ..., phase: ..." mapping. */
static int parse_phase_rule(struct parse *ps, void *elem)
{
	struct mt_phase_rule *r = elem;
	yaml_mark_t start = ps->ev.start_mark;
	const struct key keys[] = {
		{ "symbol", &r->symbol, 0, &r->symbol_re, NULL },
		{ "phase", &r->phase, 255, NULL, NULL },
	};

	r->line = (unsigned)start.line + 1;
	r->source = ps->source;
	if (parse_keys(ps, keys, 2, "symbol, phase", "symbol or phase") < 0)
		return -1;
	if (!r->symbol || !r->phase)
		return fail_at(ps, start, "a phase rule needs symbol and phase");
	return 0;
}

/* The list after top-level key (current): each mapping by one(), into the growing array *v
 * of *n elements of size bytes; what and expected name them in messages. */
static int parse_list(struct parse *ps, const char *key, void **v, size_t *n, size_t size,
		      int (*one)(struct parse *, void *), const char *what, const char *expected)
{
	size_t cap = 0;

	if (next(ps) < 0)
		return -1;
	if (ps->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail_at(ps, ps->ev.start_mark, "expected a list of %s after '%s:'", what,
			       key);
	for (;;) {
		void *elem;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (ps->ev.type != YAML_MAPPING_START_EVENT)
			return fail_at(ps, ps->ev.start_mark, "expected %s", expected);
		if (*n == MAX_RULES)
			return fail_at(ps, ps->ev.start_mark, "more than 10000 %s", what);
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			void *nv = realloc(*v, ncap * size);

			if (!nv)
				return fail_at(ps, ps->ev.start_mark, "out of memory");
			*v = nv;
			cap = ncap;
		}
		elem = (char *)*v + (*n)++ * size;
		memset(elem, 0, size);
		if (one(ps, elem) < 0)
			return -1;
	}
}

static int parse_doc(struct parse *ps, struct mt_rules *rules)
{
	bool seen[3] = { false, false, false };
	static const char *const keys[] = { "rules", "phases", "types" };

	while (ps->ev.type != YAML_MAPPING_START_EVENT) {
		if (ps->ev.type == YAML_STREAM_END_EVENT)
			return fail_at(ps, ps->ev.start_mark, "empty file: expected 'rules:'");
		if (ps->ev.type == YAML_SCALAR_EVENT || ps->ev.type == YAML_SEQUENCE_START_EVENT)
			return fail_at(ps, ps->ev.start_mark, "expected a mapping with 'rules:'");
		if (next(ps) < 0)
			return -1;
	}
	for (;;) {
		int k = 0, rc;

		if (next(ps) < 0)
			return -1;
		if (ps->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		while (k < 3 &&
		       (ps->ev.type != YAML_SCALAR_EVENT || strcmp(scalar(&ps->ev), keys[k])))
			k++;
		if (k == 3)
			return fail_at(ps, ps->ev.start_mark,
				       "unknown key '%s' (expected rules, phases or types)",
				       ps->ev.type == YAML_SCALAR_EVENT ? scalar(&ps->ev) : "?");
		if (seen[k])
			return fail_at(ps, ps->ev.start_mark, "'%s' given twice", keys[k]);
		if (k == 2 && seen[0])
			return fail_at(ps, ps->ev.start_mark, "'types' must come before 'rules'");
		seen[k] = true;
		if (k == 2)
			rc = parse_types(ps);
		else if (k == 1)
			rc = parse_list(ps, "phases", (void **)&rules->ph, &rules->nph,
					sizeof(*rules->ph), parse_phase_rule, "phase rules",
					"a phase rule (symbol, phase)");
		else
			rc = parse_list(ps, "rules", (void **)&rules->v, &rules->n,
					sizeof(*rules->v), parse_rule, "rules",
					"a rule (symbol or path, and region_type)");
		if (rc < 0)
			return -1;
	}
}

/* Parses from a file (f) or a buffer (data, n); name is for messages. */
static int load(FILE *f, const char *data, size_t n, const char *name, struct mt_rules *rules,
		char *err, size_t errsize)
{
	struct parse ps = { .file = name, .err = err, .errsize = errsize, .rules = rules };
	int rc;

	memset(rules, 0, sizeof(*rules));
	rules->sources = malloc(sizeof(*rules->sources));
	if (!rules->sources || !(rules->sources[0] = strdup(name))) {
		free(rules->sources);
		rules->sources = NULL;
		return -ENOMEM;
	}
	rules->nsources = 1;
	ps.source = rules->sources[0];
	if (!yaml_parser_initialize(&ps.p)) {
		mt_rules_release(rules);
		return -ENOMEM;
	}
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
		if (rules->v[i].with) {
			regfree(&rules->v[i].with_re);
			free(rules->v[i].with);
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
	for (size_t i = 0; i < rules->nsources; i++)
		free(rules->sources[i]);
	free(rules->sources);
	for (size_t i = 0; i < rules->ntypes; i++)
		free(rules->types[i]);
	free(rules->types);
	memset(rules, 0, sizeof(*rules));
}

/* Grows *v (n elements of size bytes) by the m of w; 0 or -ENOMEM, *v unchanged. */
static int append_array(void **v, size_t n, const void *w, size_t m, size_t size)
{
	void *nv = m ? realloc(*v, (n + m) * size) : *v;

	if (m && !nv)
		return -ENOMEM;
	if (m)
		memcpy((char *)nv + n * size, w, m * size);
	*v = nv;
	return 0;
}

int mt_rules_append(struct mt_rules *dst, struct mt_rules *src)
{
	struct mt_rules d = *dst;

	if (append_array((void **)&d.v, d.n, src->v, src->n, sizeof(*d.v)) < 0)
		return -ENOMEM;
	dst->v = d.v; /* the grown arrays hold dst's rules still: only the counts say more */
	if (append_array((void **)&d.ph, d.nph, src->ph, src->nph, sizeof(*d.ph)) < 0 ||
	    append_array((void **)&d.sources, d.nsources, src->sources, src->nsources,
			 sizeof(*d.sources)) < 0)
		return -ENOMEM;
	dst->ph = d.ph;
	dst->sources = d.sources;
	if (append_array((void **)&d.types, d.ntypes, src->types, src->ntypes, sizeof(*d.types)) <
	    0)
		return -ENOMEM;
	d.n += src->n;
	d.nph += src->nph;
	d.nsources += src->nsources;
	d.ntypes += src->ntypes;
	*dst = d;
	free(src->v);
	free(src->ph);
	free(src->sources);
	free(src->types);
	memset(src, 0, sizeof(*src));
	return 0;
}

const struct mt_rule *mt_rules_match_path(const struct mt_rules *rules, const char *path)
{
	for (size_t i = 0; rules && path && i < rules->n; i++)
		if (rules->v[i].path && fnmatch(rules->v[i].path, path, 0) == 0)
			return &rules->v[i];
	return NULL;
}

static bool any_frame(const regex_t *re, const char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (names[k] && regexec(re, names[k], 0, NULL, 0) == 0)
			return true;
	return false;
}

const struct mt_rule *mt_rules_match_symbols(const struct mt_rules *rules, const char *const *names,
					     size_t n)
{
	for (size_t i = 0; rules && i < rules->n; i++) {
		const struct mt_rule *r = &rules->v[i];

		if (r->symbol && any_frame(&r->symbol_re, names, n) &&
		    (!r->with || any_frame(&r->with_re, names, n)))
			return r;
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
