/* SPDX-License-Identifier: MIT */
/* The experiment file: YAML (libyaml's document loader) into struct mt_experiment. */
#include "exp/experiment.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/array.h"

#define MAX_FILE (1u << 20) /* an experiment file is small; a larger one is refused */
#define MAX_ITEMS 10000 /* workloads, configurations, arguments... per list */

struct ld {
	const char *file;
	yaml_document_t doc;
	char *err;
	size_t errsize;
};

static int fail(struct ld *l, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ld *l, const yaml_node_t *n, const char *fmt, ...)
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

static yaml_node_t *node(struct ld *l, int i)
{
	return yaml_document_get_node(&l->doc, i);
}

static struct mt_exp_mark mark_of(const yaml_node_t *n)
{
	return (struct mt_exp_mark){ (unsigned)n->start_mark.line + 1,
				     (unsigned)n->start_mark.column + 1 };
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int want_str(struct ld *l, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = scalar(n);

	if (!s || !*s)
		return fail(l, n, "'%s' must be a non-empty string", key);
	free(*out);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

/* Names become directory names (workload=NAME): letters, digits, '.', '_', '-'. */
static int want_name(struct ld *l, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = scalar(n);

	if (!s || !*s || strlen(s) > 64 || s[0] == '.' ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(s))
		return fail(l, n,
			    "'%s' must be 1 to 64 of letters, digits, '.', '_', '-' (it names a "
			    "directory)",
			    key);
	return want_str(l, n, key, out);
}

static int want_u64(struct ld *l, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	const char *s = scalar(n);
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return fail(l, n, "'%s' must be a whole number from %llu to %llu", key,
			    (unsigned long long)min, (unsigned long long)max);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return fail(l, n, "'%s' must be a whole number from %llu to %llu", key,
			    (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

static int want_seconds(struct ld *l, const yaml_node_t *n, const char *key, double *out)
{
	const char *s = scalar(n);
	char *end;
	double v;

	if (!s || !*s)
		return fail(l, n, "'%s' must be a number of seconds, more than 0", key);
	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 86400 * 30)
		return fail(l, n, "'%s' must be a number of seconds, more than 0", key);
	*out = v;
	return 0;
}

static int want_bool(struct ld *l, const yaml_node_t *n, const char *key, bool *out)
{
	const char *s = scalar(n);

	if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
		*out = true;
	else if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
		*out = false;
	else
		return fail(l, n, "'%s' must be true or false", key);
	return 0;
}

/* One of choices (NULL-terminated): *out points into choices. */
static int want_choice(struct ld *l, const yaml_node_t *n, const char *key,
		       const char *const *choices, const char **out)
{
	const char *s = scalar(n);
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
	return fail(l, n, "'%s' must be one of %s", key, list);
}

static int push_str(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (mt_grow_array(v, cap, *n + 2, sizeof(**v)) < 0 || !((*v)[*n] = strdup(s)))
		return -ENOMEM;
	(*v)[++*n] = NULL;
	return 0;
}

/* A list of strings into a NULL-terminated vector; empty strings only after the first when
 * args (a command's arguments). */
static int want_strlist(struct ld *l, const yaml_node_t *n, const char *key, char ***v, size_t *nv,
			bool args)
{
	size_t cap = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return fail(l, n, "'%s' must be a list of strings", key);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = node(l, *it);
		int rc;

		if (!scalar(e) || (!*scalar(e) && (!args || !*nv)))
			return fail(l, e, "'%s' must be a list of %sstrings", key,
				    args ? "arguments, the program first and not empty: "
					 : "non-empty ");
		if (*nv >= MAX_ITEMS)
			return fail(l, e, "'%s' has more than %u items", key, MAX_ITEMS);
		if ((rc = push_str(v, nv, &cap, scalar(e))) < 0)
			return rc;
	}
	if (!*nv)
		return fail(l, n, "'%s' must not be empty", key);
	return 0;
}

/* A command: a list (argv) or a string (run by /bin/sh -c). */
static int want_cmd(struct ld *l, const yaml_node_t *n, const char *key, struct mt_exp_cmd *c)
{
	size_t cap = 0;
	int rc;

	c->at = mark_of(n);
	if (n->type == YAML_SEQUENCE_NODE)
		return want_strlist(l, n, key, &c->argv, &c->argc, true);
	if (!scalar(n) || !*scalar(n))
		return fail(l, n,
			    "'%s' must be a command: a list of arguments, or a string for "
			    "/bin/sh -c",
			    key);
	c->shell = true;
	if ((rc = push_str(&c->argv, &c->argc, &cap, "/bin/sh")) < 0 ||
	    (rc = push_str(&c->argv, &c->argc, &cap, "-c")) < 0)
		return rc;
	return push_str(&c->argv, &c->argc, &cap, scalar(n));
}

/* Iterates over a mapping's pairs: calls f(l, key, value, ctx) for each. */
typedef int (*pair_fn)(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx);

static int each_pair(struct ld *l, const yaml_node_t *n, const char *what, pair_fn f, void *ctx)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return fail(l, n, "%s must be a mapping of keys to values", what);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *key = scalar(k);
		int rc;

		if (!key)
			return fail(l, k, "%s: a key must be a string", what);
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
			if (scalar(node(l, q->key)) && !strcmp(scalar(node(l, q->key)), key))
				return fail(l, k, "'%s' is given twice", key);
		if ((rc = f(l, key, k, v, ctx)) < 0)
			return rc;
	}
	return 0;
}

static int unknown(struct ld *l, const yaml_node_t *k, const char *key, const char *what,
		   const char *known)
{
	return fail(l, k, "unknown key '%s' in %s (known: %s)", key, what, known);
}

/* ---- services ---- */

static int ready_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_service *sv = ctx;
	uint64_t port;
	int rc;

	if (!strcmp(key, "tcp")) {
		if ((rc = want_u64(l, v, key, 1, 65535, &port)) < 0)
			return rc;
		sv->ready_tcp = (int)port;
		return 0;
	}
	if (!strcmp(key, "command"))
		return want_cmd(l, v, key, &sv->ready_cmd);
	return unknown(l, k, key, "ready", "tcp, command");
}

static int service_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_service *sv = ctx;
	int rc;

	if (!strcmp(key, "name"))
		return want_name(l, v, key, &sv->name);
	if (!strcmp(key, "command"))
		return want_cmd(l, v, key, &sv->cmd);
	if (!strcmp(key, "timeout"))
		return want_seconds(l, v, key, &sv->timeout_s);
	if (!strcmp(key, "ready")) {
		if ((rc = each_pair(l, v, "ready", ready_pair, sv)) < 0)
			return rc;
		if (!!sv->ready_tcp + !!sv->ready_cmd.argv != 1)
			return fail(l, v, "'ready' must give exactly one check: tcp or command");
		return 0;
	}
	return unknown(l, k, key, "a service", "name, command, ready, timeout");
}

static int want_services(struct ld *l, const yaml_node_t *n, struct mt_exp_workload *w)
{
	size_t cap = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return fail(l, n, "'services' must be a list of services");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = node(l, *it);
		struct mt_exp_service *sv;
		int rc;

		if (w->nservices >= 64)
			return fail(l, e, "more than 64 services");
		if (mt_grow_array(&w->services, &cap, w->nservices + 1, sizeof(*w->services)) < 0)
			return -ENOMEM;
		sv = &w->services[w->nservices++];
		memset(sv, 0, sizeof(*sv));
		sv->timeout_s = 30;
		sv->at = mark_of(e);
		if ((rc = each_pair(l, e, "a service", service_pair, sv)) < 0)
			return rc;
		if (!sv->name || !sv->cmd.argv)
			return fail(l, e, "a service needs 'name' and 'command'");
		if (!sv->ready_tcp && !sv->ready_cmd.argv)
			return fail(l, e, "service '%s' needs 'ready' (tcp: PORT or command: ...)",
				    sv->name);
	}
	return 0;
}

/* ---- workloads ---- */

static int env_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_workload *w = ctx;
	size_t cap = w->nenv;

	if (!*key || strchr(key, '='))
		return fail(l, k, "an environment variable's name must be non-empty, without '='");
	if (!scalar(v))
		return fail(l, v, "environment variable '%s' must be a string", key);
	if (mt_grow_array(&w->env, &cap, w->nenv + 1, sizeof(*w->env)) < 0)
		return -ENOMEM;
	w->env[w->nenv].key = strdup(key);
	w->env[w->nenv].value = strdup(scalar(v));
	if (!w->env[w->nenv].key || !w->env[w->nenv++].value)
		return -ENOMEM;
	return 0;
}

static int workload_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_workload *w = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "name"))
		return want_name(l, v, key, &w->name);
	if (!strcmp(key, "command"))
		return want_cmd(l, v, key, &w->cmd);
	if (!strcmp(key, "setup"))
		return want_cmd(l, v, key, &w->setup);
	if (!strcmp(key, "teardown"))
		return want_cmd(l, v, key, &w->teardown);
	if (!strcmp(key, "cwd"))
		return want_str(l, v, key, &w->cwd);
	if (!strcmp(key, "env"))
		return each_pair(l, v, "'env'", env_pair, w);
	if (!strcmp(key, "services"))
		return want_services(l, v, w);
	if (!strcmp(key, "timeout"))
		return want_seconds(l, v, key, &w->timeout_s);
	if (!strcmp(key, "warmup")) {
		if ((rc = want_u64(l, v, key, 0, 100, &u)) < 0)
			return rc;
		w->warmup = (unsigned)u;
		return 0;
	}
	return unknown(l, k, key, "a workload",
		       "name, command, cwd, env, setup, teardown, services, warmup, timeout");
}

/* ---- configurations ---- */

static const char *const thp_enabled[] = { "always", "madvise", "never", NULL };
static const char *const thp_defrag[] = { "always",  "defer", "defer+madvise",
					  "madvise", "never", NULL };

static int thp_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;

	if (!strcmp(key, "enabled"))
		return want_choice(l, v, key, thp_enabled, &c->thp_enabled);
	if (!strcmp(key, "defrag"))
		return want_choice(l, v, key, thp_defrag, &c->thp_defrag);
	return unknown(l, k, key, "'thp'", "enabled, defrag");
}

static int heap_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "numa_node")) {
		if ((rc = want_u64(l, v, key, 0, 1023, &u)) < 0)
			return rc;
		c->heap_numa_node = (int)u;
		return 0;
	}
	if (!strcmp(key, "pmem_dir"))
		return want_str(l, v, key, &c->heap_pmem_dir);
	return unknown(l, k, key, "'heap'", "numa_node, pmem_dir");
}

static int perf_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "max_sample_rate")) {
		if ((rc = want_u64(l, v, key, 1, 1000000, &u)) < 0)
			return rc;
		c->perf_max_sample_rate = (int64_t)u;
		return 0;
	}
	if (!strcmp(key, "cpu_time_max_percent")) {
		if ((rc = want_u64(l, v, key, 0, 100, &u)) < 0)
			return rc;
		c->perf_cpu_time_max_percent = (int64_t)u;
		return 0;
	}
	return unknown(l, k, key, "'perf'", "max_sample_rate, cpu_time_max_percent");
}

/* "0-3,5": CPU numbers and ranges, ascending within a range. */
static int want_cpus(struct ld *l, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = scalar(n);

	for (const char *p = s; p && *p;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p || a > 4095)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a || b > 4095)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			goto bad;
	}
	if (s && *s)
		return want_str(l, n, key, out);
bad:
	return fail(l, n, "'%s' must be a CPU list like 0-3,5", key);
}

static int config_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "name"))
		return want_name(l, v, key, &c->name);
	if (!strcmp(key, "baseline"))
		return want_bool(l, v, key, &c->baseline);
	if (!strcmp(key, "record"))
		return want_strlist(l, v, key, &c->record, &c->nrecord, false);
	if (!strcmp(key, "thp"))
		return each_pair(l, v, "'thp'", thp_pair, c);
	if (!strcmp(key, "heap"))
		return each_pair(l, v, "'heap'", heap_pair, c);
	if (!strcmp(key, "perf"))
		return each_pair(l, v, "'perf'", perf_pair, c);
	if (!strcmp(key, "cpus"))
		return want_cpus(l, v, key, &c->cpus);
	if (!strcmp(key, "memtap_cpus"))
		return want_cpus(l, v, key, &c->memtap_cpus);
	if (!strcmp(key, "numa_node")) {
		if ((rc = want_u64(l, v, key, 0, 1023, &u)) < 0)
			return rc;
		c->numa_node = (int)u;
		return 0;
	}
	return unknown(l, k, key, "a configuration",
		       "name, baseline, record, thp, cpus, memtap_cpus, numa_node, heap, perf");
}

/* ---- the experiment ---- */

/* A list of mappings, each read by one parser into a zeroed element. */
static int want_list(struct ld *l, const yaml_node_t *n, const char *key, void **v, size_t *nv,
		     size_t size, int (*init)(void *e, struct mt_exp_mark at), pair_fn f,
		     const char *what)
{
	size_t cap = 0;

	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return fail(l, n, "'%s' must be a non-empty list of %ss", key, what);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = node(l, *it);
		char *el;
		int rc;

		if (*nv >= MAX_ITEMS)
			return fail(l, e, "more than %u %ss", MAX_ITEMS, what);
		if (mt_grow_array(v, &cap, *nv + 1, size) < 0)
			return -ENOMEM;
		el = (char *)*v + size * (*nv)++;
		memset(el, 0, size);
		init(el, mark_of(e));
		if ((rc = each_pair(l, e, what, f, el)) < 0)
			return rc;
	}
	return 0;
}

static int workload_init(void *e, struct mt_exp_mark at)
{
	((struct mt_exp_workload *)e)->at = at;
	return 0;
}

static int config_init(void *e, struct mt_exp_mark at)
{
	struct mt_exp_config *c = e;

	c->at = at;
	c->numa_node = c->heap_numa_node = -1;
	c->perf_max_sample_rate = c->perf_cpu_time_max_percent = -1;
	return 0;
}

static const char *const orders[] = { "by-config", "shuffle", NULL };
static const char *const baseline_modes[] = { "interleaved", "none", NULL };

static int root_pair(struct ld *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_experiment *x = ctx;
	const char *choice;
	uint64_t u;
	int rc;

	if (!strcmp(key, "experiment"))
		return want_name(l, v, key, &x->name);
	if (!strcmp(key, "results"))
		return want_str(l, v, key, &x->results);
	if (!strcmp(key, "seed"))
		return want_u64(l, v, key, 0, UINT64_MAX, &x->seed);
	if (!strcmp(key, "repetitions")) {
		if ((rc = want_u64(l, v, key, 1, 1000, &u)) < 0)
			return rc;
		x->repetitions = (unsigned)u;
		return 0;
	}
	if (!strcmp(key, "order")) {
		if ((rc = want_choice(l, v, key, orders, &choice)) < 0)
			return rc;
		x->order = choice == orders[0] ? MT_EXP_BY_CONFIG : MT_EXP_SHUFFLE;
		return 0;
	}
	if (!strcmp(key, "baselines")) {
		if ((rc = want_choice(l, v, key, baseline_modes, &choice)) < 0)
			return rc;
		x->baselines = choice == baseline_modes[0];
		return 0;
	}
	if (!strcmp(key, "workloads"))
		return want_list(l, v, key, (void **)&x->workloads, &x->nworkloads,
				 sizeof(*x->workloads), workload_init, workload_pair, "workload");
	if (!strcmp(key, "configurations"))
		return want_list(l, v, key, (void **)&x->configs, &x->nconfigs, sizeof(*x->configs),
				 config_init, config_pair, "configuration");
	return unknown(l, k, key, "the experiment",
		       "experiment, seed, repetitions, order, baselines, results, workloads, "
		       "configurations");
}

/* Required fields and names unique: after the whole file is read. */
static int check_whole(struct ld *l, struct mt_experiment *x, const yaml_node_t *root)
{
	for (size_t i = 0; i < x->nworkloads; i++) {
		const struct mt_exp_workload *w = &x->workloads[i];
		yaml_node_t at = { .start_mark = { .line = w->at.line - 1,
						   .column = w->at.col - 1 } };

		if (!w->name || !w->cmd.argv)
			return fail(l, &at, "a workload needs 'name' and 'command'");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(x->workloads[j].name, w->name))
				return fail(l, &at, "workload name '%s' is used twice", w->name);
	}
	for (size_t i = 0; i < x->nconfigs; i++) {
		const struct mt_exp_config *c = &x->configs[i];
		yaml_node_t at = { .start_mark = { .line = c->at.line - 1,
						   .column = c->at.col - 1 } };

		if (!c->name)
			return fail(l, &at, "a configuration needs 'name'");
		if (c->baseline && c->record)
			return fail(l, &at,
				    "configuration '%s' is a baseline (untraced): it takes no "
				    "'record' options",
				    c->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(x->configs[j].name, c->name))
				return fail(l, &at, "configuration name '%s' is used twice",
					    c->name);
	}
	if (!x->name || !x->nworkloads || !x->nconfigs)
		return fail(l, root,
			    "an experiment needs 'experiment' (its name), 'workloads' and "
			    "'configurations'");
	return 0;
}

static int load_root(struct ld *l, struct mt_experiment *x)
{
	yaml_node_t *root = yaml_document_get_root_node(&l->doc);
	int rc;

	if (!root)
		return fail(l, NULL,
			    "empty: an experiment needs 'experiment', 'workloads' and "
			    "'configurations'");
	x->seed = 1;
	x->repetitions = 1;
	x->baselines = true;
	if ((rc = each_pair(l, root, "the experiment", root_pair, x)) < 0 ||
	    (rc = check_whole(l, x, root)) < 0)
		return rc;
	if (!x->results) {
		size_t n = strlen(x->name) + sizeof("results/");

		x->results = malloc(n);
		if (!x->results)
			return -ENOMEM;
		snprintf(x->results, n, "results/%s", x->name);
	}
	return 0;
}

static void cmd_release(struct mt_exp_cmd *c)
{
	for (size_t i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
}

void mt_exp_release(struct mt_experiment *exp)
{
	for (size_t i = 0; i < exp->nworkloads; i++) {
		struct mt_exp_workload *w = &exp->workloads[i];

		free(w->name);
		free(w->cwd);
		cmd_release(&w->cmd);
		cmd_release(&w->setup);
		cmd_release(&w->teardown);
		for (size_t k = 0; k < w->nenv; k++) {
			free(w->env[k].key);
			free(w->env[k].value);
		}
		free(w->env);
		for (size_t k = 0; k < w->nservices; k++) {
			free(w->services[k].name);
			cmd_release(&w->services[k].cmd);
			cmd_release(&w->services[k].ready_cmd);
		}
		free(w->services);
	}
	for (size_t i = 0; i < exp->nconfigs; i++) {
		struct mt_exp_config *c = &exp->configs[i];

		free(c->name);
		for (size_t k = 0; k < c->nrecord; k++)
			free(c->record[k]);
		free(c->record);
		free(c->cpus);
		free(c->memtap_cpus);
		free(c->heap_pmem_dir);
	}
	free(exp->workloads);
	free(exp->configs);
	free(exp->path);
	free(exp->dir);
	free(exp->name);
	free(exp->results);
	memset(exp, 0, sizeof(*exp));
}

int mt_exp_load_string(const char *name, const char *data, size_t n, struct mt_experiment *exp,
		       char *err, size_t errsize)
{
	struct ld l = { .file = name, .err = err, .errsize = errsize };
	yaml_parser_t p;
	int rc;

	memset(exp, 0, sizeof(*exp));
	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)data, n);
	if (!yaml_parser_load(&p, &l.doc)) {
		snprintf(err, errsize, "%s:%zu:%zu: YAML syntax error: %s", name,
			 p.problem_mark.line + 1, p.problem_mark.column + 1,
			 p.problem ? p.problem : "unknown");
		yaml_parser_delete(&p);
		return -EINVAL;
	}
	yaml_parser_delete(&p);
	exp->path = strdup(name);
	if (!exp->path) {
		yaml_document_delete(&l.doc);
		return -ENOMEM;
	}
	rc = load_root(&l, exp);
	yaml_document_delete(&l.doc);
	if (rc < 0)
		mt_exp_release(exp);
	return rc;
}

/* A relative path in the file is relative to the file's directory. */
static int resolve(const char *dir, char **p)
{
	char *r;

	if (!*p || (*p)[0] == '/' || !strcmp(dir, "."))
		return 0;
	if (asprintf(&r, "%s/%s", dir, *p) < 0)
		return -ENOMEM;
	free(*p);
	*p = r;
	return 0;
}

static int relative_to_dir(struct mt_experiment *x)
{
	int rc = resolve(x->dir, &x->results);

	for (size_t i = 0; rc == 0 && i < x->nworkloads; i++)
		rc = resolve(x->dir, &x->workloads[i].cwd);
	for (size_t i = 0; rc == 0 && i < x->nconfigs; i++)
		rc = resolve(x->dir, &x->configs[i].heap_pmem_dir);
	return rc;
}

int mt_exp_load(const char *path, struct mt_experiment *exp, char *err, size_t errsize)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	int rc;

	memset(exp, 0, sizeof(*exp));
	if (!f) {
		rc = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		return rc;
	}
	buf = malloc(MAX_FILE + 1);
	n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
	fclose(f);
	if (!buf)
		return -ENOMEM;
	if (n > MAX_FILE) {
		free(buf);
		snprintf(err, errsize, "%s: larger than %u KiB: not an experiment file", path,
			 MAX_FILE >> 10);
		return -EFBIG;
	}
	rc = mt_exp_load_string(path, buf, n, exp, err, errsize);
	free(buf);
	if (rc == 0) {
		const char *slash = strrchr(path, '/');

		free(exp->dir);
		exp->dir = slash ? strndup(path, (size_t)(slash - path + (slash == path)))
				 : strdup(".");
		if (!exp->dir || relative_to_dir(exp) < 0) {
			mt_exp_release(exp);
			return -ENOMEM;
		}
	}
	return rc;
}
