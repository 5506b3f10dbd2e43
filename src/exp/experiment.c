/* SPDX-License-Identifier: MIT */
/* The experiment file: YAML (libyaml's document loader) into struct mt_experiment. */
#include "exp/experiment.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/array.h"
#include "exp/yaml-load.h"

#define MAX_FILE (1u << 20) /* an experiment file is small; a larger one is refused */

/* ---- services ---- */

static int ready_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_service *sv = ctx;
	uint64_t port;
	int rc;

	if (!strcmp(key, "tcp")) {
		if ((rc = mt_yl_u64(l, v, key, 1, 65535, &port)) < 0)
			return rc;
		sv->ready_tcp = (int)port;
		return 0;
	}
	if (!strcmp(key, "command"))
		return mt_yl_cmd(l, v, key, &sv->ready_cmd);
	return mt_yl_unknown(l, k, key, "ready", "tcp, command");
}

static int service_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_service *sv = ctx;
	int rc;

	if (!strcmp(key, "name"))
		return mt_yl_name(l, v, key, &sv->name);
	if (!strcmp(key, "command"))
		return mt_yl_cmd(l, v, key, &sv->cmd);
	if (!strcmp(key, "timeout"))
		return mt_yl_seconds(l, v, key, &sv->timeout_s);
	if (!strcmp(key, "ready")) {
		if ((rc = mt_yl_each_pair(l, v, "ready", ready_pair, sv)) < 0)
			return rc;
		if (!!sv->ready_tcp + !!sv->ready_cmd.argv != 1)
			return mt_yl_fail(l, v,
					  "'ready' must give exactly one check: tcp or command");
		return 0;
	}
	return mt_yl_unknown(l, k, key, "a service", "name, command, ready, timeout");
}

static int want_services(struct mt_yl *l, const yaml_node_t *n, struct mt_exp_workload *w)
{
	size_t cap = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return mt_yl_fail(l, n, "'services' must be a list of services");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = mt_yl_node(l, *it);
		struct mt_exp_service *sv;
		int rc;

		if (w->nservices >= 64)
			return mt_yl_fail(l, e, "more than 64 services");
		if (mt_grow_array(&w->services, &cap, w->nservices + 1, sizeof(*w->services)) < 0)
			return -ENOMEM;
		sv = &w->services[w->nservices++];
		memset(sv, 0, sizeof(*sv));
		sv->timeout_s = 30;
		sv->at = mt_yl_mark(e);
		if ((rc = mt_yl_each_pair(l, e, "a service", service_pair, sv)) < 0)
			return rc;
		if (!sv->name || !sv->cmd.argv)
			return mt_yl_fail(l, e, "a service needs 'name' and 'command'");
		if (!sv->ready_tcp && !sv->ready_cmd.argv)
			return mt_yl_fail(l, e,
					  "service '%s' needs 'ready' (tcp: PORT or command: ...)",
					  sv->name);
	}
	return 0;
}

/* The workload's driver: a service in form (name optional), started once the measured
 * command is ready; a service without a name is named "driver". */
static int want_driver(struct mt_yl *l, const yaml_node_t *n, struct mt_exp_workload *w)
{
	struct mt_exp_service *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return -ENOMEM;
	w->driver = d;
	d->timeout_s = 30;
	d->at = mt_yl_mark(n);
	if ((rc = mt_yl_each_pair(l, n, "the driver", service_pair, d)) < 0)
		return rc;
	if (!d->cmd.argv)
		return mt_yl_fail(l, n, "the driver needs 'command'");
	if (!d->ready_tcp && !d->ready_cmd.argv)
		return mt_yl_fail(l, n,
				  "the driver needs 'ready' (tcp: PORT or command: ...): when the "
				  "measured command is ready for it");
	if (!d->name && !(d->name = strdup("driver")))
		return -ENOMEM;
	return 0;
}

/* ---- workloads ---- */

static int env_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_workload *w = ctx;
	size_t cap = w->nenv;

	if (!*key || strchr(key, '='))
		return mt_yl_fail(l, k,
				  "an environment variable's name must be non-empty, without '='");
	if (!mt_yl_scalar(v))
		return mt_yl_fail(l, v, "environment variable '%s' must be a string", key);
	if (mt_grow_array(&w->env, &cap, w->nenv + 1, sizeof(*w->env)) < 0)
		return -ENOMEM;
	w->env[w->nenv].key = strdup(key);
	w->env[w->nenv].value = strdup(mt_yl_scalar(v));
	if (!w->env[w->nenv].key || !w->env[w->nenv++].value)
		return -ENOMEM;
	return 0;
}

static int workload_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v,
			 void *ctx)
{
	struct mt_exp_workload *w = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "name"))
		return mt_yl_name(l, v, key, &w->name);
	if (!strcmp(key, "command"))
		return mt_yl_cmd(l, v, key, &w->cmd);
	if (!strcmp(key, "setup"))
		return mt_yl_cmd(l, v, key, &w->setup);
	if (!strcmp(key, "teardown"))
		return mt_yl_cmd(l, v, key, &w->teardown);
	if (!strcmp(key, "cwd"))
		return mt_yl_str(l, v, key, &w->cwd);
	if (!strcmp(key, "env"))
		return mt_yl_each_pair(l, v, "'env'", env_pair, w);
	if (!strcmp(key, "services"))
		return want_services(l, v, w);
	if (!strcmp(key, "driver"))
		return want_driver(l, v, w);
	if (!strcmp(key, "timeout"))
		return mt_yl_seconds(l, v, key, &w->timeout_s);
	if (!strcmp(key, "warmup")) {
		if ((rc = mt_yl_u64(l, v, key, 0, 100, &u)) < 0)
			return rc;
		w->warmup = (unsigned)u;
		return 0;
	}
	return mt_yl_unknown(l, k, key, "a workload",
			     "name, command, cwd, env, setup, teardown, services, driver, warmup, "
			     "timeout");
}

/* ---- configurations ---- */

static const char *const thp_enabled[] = { "always", "madvise", "never", NULL };
static const char *const thp_defrag[] = { "always",  "defer", "defer+madvise",
					  "madvise", "never", NULL };

static int thp_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;

	if (!strcmp(key, "enabled"))
		return mt_yl_choice(l, v, key, thp_enabled, &c->thp_enabled);
	if (!strcmp(key, "defrag"))
		return mt_yl_choice(l, v, key, thp_defrag, &c->thp_defrag);
	return mt_yl_unknown(l, k, key, "'thp'", "enabled, defrag");
}

static int heap_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "numa_node")) {
		if ((rc = mt_yl_u64(l, v, key, 0, 1023, &u)) < 0)
			return rc;
		c->heap_numa_node = (int)u;
		return 0;
	}
	if (!strcmp(key, "pmem_dir"))
		return mt_yl_str(l, v, key, &c->heap_pmem_dir);
	return mt_yl_unknown(l, k, key, "'heap'", "numa_node, pmem_dir");
}

static int perf_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "max_sample_rate")) {
		if ((rc = mt_yl_u64(l, v, key, 1, 1000000, &u)) < 0)
			return rc;
		c->perf_max_sample_rate = (int64_t)u;
		return 0;
	}
	if (!strcmp(key, "cpu_time_max_percent")) {
		if ((rc = mt_yl_u64(l, v, key, 0, 100, &u)) < 0)
			return rc;
		c->perf_cpu_time_max_percent = (int64_t)u;
		return 0;
	}
	return mt_yl_unknown(l, k, key, "'perf'", "max_sample_rate, cpu_time_max_percent");
}

/* "0-3,5": CPU numbers and ranges, ascending within a range. */
static int want_cpus(struct mt_yl *l, const yaml_node_t *n, const char *key, char **out)
{
	const char *s = mt_yl_scalar(n);

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
		return mt_yl_str(l, n, key, out);
bad:
	return mt_yl_fail(l, n, "'%s' must be a CPU list like 0-3,5", key);
}

static int config_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_exp_config *c = ctx;
	uint64_t u;
	int rc;

	if (!strcmp(key, "name"))
		return mt_yl_name(l, v, key, &c->name);
	if (!strcmp(key, "baseline"))
		return mt_yl_bool(l, v, key, &c->baseline);
	if (!strcmp(key, "record"))
		return mt_yl_strlist(l, v, key, &c->record, &c->nrecord, false);
	if (!strcmp(key, "thp"))
		return mt_yl_each_pair(l, v, "'thp'", thp_pair, c);
	if (!strcmp(key, "heap"))
		return mt_yl_each_pair(l, v, "'heap'", heap_pair, c);
	if (!strcmp(key, "perf"))
		return mt_yl_each_pair(l, v, "'perf'", perf_pair, c);
	if (!strcmp(key, "cpus"))
		return want_cpus(l, v, key, &c->cpus);
	if (!strcmp(key, "memtap_cpus"))
		return want_cpus(l, v, key, &c->memtap_cpus);
	if (!strcmp(key, "numa_node")) {
		if ((rc = mt_yl_u64(l, v, key, 0, 1023, &u)) < 0)
			return rc;
		c->numa_node = (int)u;
		return 0;
	}
	return mt_yl_unknown(
		l, k, key, "a configuration",
		"name, baseline, record, thp, cpus, memtap_cpus, numa_node, heap, perf");
}

/* ---- the experiment ---- */

/* A list of mappings, each read by one parser into a zeroed element. */
static int want_list(struct mt_yl *l, const yaml_node_t *n, const char *key, void **v, size_t *nv,
		     size_t size, int (*init)(void *e, struct mt_exp_mark at), mt_yl_pair_fn f,
		     const char *what)
{
	size_t cap = 0;

	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return mt_yl_fail(l, n, "'%s' must be a non-empty list of %ss", key, what);
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *e = mt_yl_node(l, *it);
		char *el;
		int rc;

		if (*nv >= MT_YL_MAX_ITEMS)
			return mt_yl_fail(l, e, "more than %u %ss", MT_YL_MAX_ITEMS, what);
		if (mt_grow_array(v, &cap, *nv + 1, size) < 0)
			return -ENOMEM;
		el = (char *)*v + size * (*nv)++;
		memset(el, 0, size);
		init(el, mt_yl_mark(e));
		if ((rc = mt_yl_each_pair(l, e, what, f, el)) < 0)
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

/* ---- validity ---- */

/* [clean, marginal]: two numbers from 0, the first not above the second. */
static int want_bounds(struct mt_yl *l, const yaml_node_t *n, const char *key,
		       struct mt_exp_bounds *b)
{
	double v[2];
	size_t k = 0;

	if (n->type == YAML_SEQUENCE_NODE &&
	    n->data.sequence.items.top - n->data.sequence.items.start == 2)
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			const char *s = mt_yl_scalar(mt_yl_node(l, *it));
			char *end;

			if (!s || !*s)
				break;
			v[k] = strtod(s, &end);
			if (*end || !(v[k] >= 0) || v[k] > 1e9)
				break;
			k++;
		}
	if (k != 2 || v[0] > v[1])
		return mt_yl_fail(l, n,
				  "'%s' must be [CLEAN, MARGINAL]: two numbers from 0, the first "
				  "not above the second",
				  key);
	b->clean = v[0];
	b->marginal = v[1];
	return 0;
}

static int validity_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v,
			 void *ctx)
{
	struct mt_exp_validity *x = ctx;
	static const struct {
		const char *key;
		size_t off;
	} bounds[] = {
		{ "observer_cpu", offsetof(struct mt_exp_validity, observer_cpu) },
		{ "observer_memory", offsetof(struct mt_exp_validity, observer_mem) },
		{ "background_cpu", offsetof(struct mt_exp_validity, background_cpu) },
		{ "idle_cpu", offsetof(struct mt_exp_validity, idle_cpu) },
		{ "throttle_events", offsetof(struct mt_exp_validity, throttle) },
	};

	if (!strcmp(key, "idle_seconds")) {
		const char *s = mt_yl_scalar(v);
		char *end;

		x->idle_seconds = s && *s ? strtod(s, &end) : -1;
		if (!s || !*s || *end || !(x->idle_seconds >= 0) || x->idle_seconds > 60)
			return mt_yl_fail(l, v, "'idle_seconds' must be a number from 0 to 60");
		return 0;
	}
	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		if (!strcmp(key, bounds[i].key))
			return want_bounds(l, v, key,
					   (struct mt_exp_bounds *)((char *)x + bounds[i].off));
	return mt_yl_unknown(l, k, key, "'validity'",
			     "idle_seconds, observer_cpu, observer_memory, background_cpu, "
			     "idle_cpu, throttle_events");
}

static const char *const orders[] = { "by-config", "shuffle", NULL };
static const char *const baseline_modes[] = { "interleaved", "none", NULL };

static int root_pair(struct mt_yl *l, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx)
{
	struct mt_experiment *x = ctx;
	const char *choice;
	uint64_t u;
	int rc;

	if (!strcmp(key, "experiment"))
		return mt_yl_name(l, v, key, &x->name);
	if (!strcmp(key, "results"))
		return mt_yl_str(l, v, key, &x->results);
	if (!strcmp(key, "seed"))
		return mt_yl_u64(l, v, key, 0, UINT64_MAX, &x->seed);
	if (!strcmp(key, "repetitions")) {
		if ((rc = mt_yl_u64(l, v, key, 1, 1000, &u)) < 0)
			return rc;
		x->repetitions = (unsigned)u;
		return 0;
	}
	if (!strcmp(key, "order")) {
		if ((rc = mt_yl_choice(l, v, key, orders, &choice)) < 0)
			return rc;
		x->order = choice == orders[0] ? MT_EXP_BY_CONFIG : MT_EXP_SHUFFLE;
		return 0;
	}
	if (!strcmp(key, "baselines")) {
		if ((rc = mt_yl_choice(l, v, key, baseline_modes, &choice)) < 0)
			return rc;
		x->baselines = choice == baseline_modes[0];
		return 0;
	}
	if (!strcmp(key, "validity"))
		return mt_yl_each_pair(l, v, "'validity'", validity_pair, &x->validity);
	if (!strcmp(key, "workloads"))
		return want_list(l, v, key, (void **)&x->workloads, &x->nworkloads,
				 sizeof(*x->workloads), workload_init, workload_pair, "workload");
	if (!strcmp(key, "configurations"))
		return want_list(l, v, key, (void **)&x->configs, &x->nconfigs, sizeof(*x->configs),
				 config_init, config_pair, "configuration");
	return mt_yl_unknown(l, k, key, "the experiment",
			     "experiment, seed, repetitions, order, baselines, results, validity, "
			     "workloads, configurations");
}

/* Required fields and names unique: after the whole file is read. */
static int check_whole(struct mt_yl *l, struct mt_experiment *x, const yaml_node_t *root)
{
	for (size_t i = 0; i < x->nworkloads; i++) {
		const struct mt_exp_workload *w = &x->workloads[i];
		yaml_node_t at = { .start_mark = { .line = w->at.line - 1,
						   .column = w->at.col - 1 } };

		if (!w->name || !w->cmd.argv)
			return mt_yl_fail(l, &at, "a workload needs 'name' and 'command'");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(x->workloads[j].name, w->name))
				return mt_yl_fail(l, &at, "workload name '%s' is used twice",
						  w->name);
	}
	for (size_t i = 0; i < x->nconfigs; i++) {
		const struct mt_exp_config *c = &x->configs[i];
		yaml_node_t at = { .start_mark = { .line = c->at.line - 1,
						   .column = c->at.col - 1 } };

		if (!c->name)
			return mt_yl_fail(l, &at, "a configuration needs 'name'");
		if (c->baseline && c->record)
			return mt_yl_fail(
				l, &at,
				"configuration '%s' is a baseline (untraced): it takes no "
				"'record' options",
				c->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(x->configs[j].name, c->name))
				return mt_yl_fail(l, &at, "configuration name '%s' is used twice",
						  c->name);
	}
	if (!x->name || !x->nworkloads || !x->nconfigs)
		return mt_yl_fail(l, root,
				  "an experiment needs 'experiment' (its name), 'workloads' and "
				  "'configurations'");
	return 0;
}

static int load_root(struct mt_yl *l, struct mt_experiment *x)
{
	yaml_node_t *root = yaml_document_get_root_node(&l->doc);
	int rc;

	if (!root)
		return mt_yl_fail(l, NULL,
				  "empty: an experiment needs 'experiment', 'workloads' and "
				  "'configurations'");
	x->seed = 1;
	x->repetitions = 1;
	x->baselines = true;
	/* mrm-trace's classes (its README), and memtap's bounds where it gives none */
	x->validity = (struct mt_exp_validity){
		.idle_seconds = 2,
		.observer_cpu = { 10, 20 },
		.observer_mem = { 5, 15 },
		.background_cpu = { 15, 30 },
		.idle_cpu = { 15, 30 },
		.throttle = { 0, 2 },
	};
	if ((rc = mt_yl_each_pair(l, root, "the experiment", root_pair, x)) < 0 ||
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
		if (w->driver) {
			free(w->driver->name);
			cmd_release(&w->driver->cmd);
			cmd_release(&w->driver->ready_cmd);
			free(w->driver);
		}
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

/* The file's nesting, with libyaml's events, stopped at the first level beyond
 * MT_YL_MAX_DEPTH: building the document of a file nested 100,000 deep takes libyaml time
 * that grows with the square of the depth (half a minute for 200 KB). Syntax errors are
 * left to the load that follows. */
static int check_depth(const char *name, const char *data, size_t n, char *err, size_t errsize)
{
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned depth = 0;
	int rc = 0;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)data, n);
	while (rc == 0 && yaml_parser_parse(&p, &ev)) {
		yaml_event_type_t t = ev.type;

		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > MT_YL_MAX_DEPTH) {
				snprintf(err, errsize, "%s:%zu:%zu: nested deeper than %u levels",
					 name, ev.start_mark.line + 1, ev.start_mark.column + 1,
					 MT_YL_MAX_DEPTH);
				rc = -EINVAL;
			}
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	return rc;
}

int mt_exp_load_string(const char *name, const char *data, size_t n, struct mt_experiment *exp,
		       char *err, size_t errsize)
{
	struct mt_yl l = { .file = name, .err = err, .errsize = errsize };
	yaml_parser_t p;
	int rc;

	memset(exp, 0, sizeof(*exp));
	if ((rc = check_depth(name, data, n, err, errsize)) < 0)
		return rc;
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
