/* SPDX-License-Identifier: MIT */
/* The plan of an experiment: which runs, in which order, where their results go. */
#include "exp/experiment.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/hash.h"

const char *mt_exp_kind_name(enum mt_exp_kind k)
{
	static const char *const n[] = { "warmup", "traced", "baseline" };

	return (unsigned)k < 3 ? n[k] : "?";
}

/* Fisher-Yates: element i swaps with one of 0..i, chosen by splitmix64 % (i + 1). */
static void shuffle(struct mt_exp_run *v, size_t n, uint64_t *state)
{
	for (size_t i = n; i-- > 1;) {
		size_t j = (size_t)(mt_splitmix64(state) % (i + 1));
		struct mt_exp_run t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

static int add(struct mt_exp_run **v, size_t *n, size_t *cap, size_t w, size_t c, unsigned rep,
	       enum mt_exp_kind kind)
{
	if (mt_grow_array(v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = (struct mt_exp_run){ 0, w, c, rep, kind };
	return 0;
}

/* Configuration c's measured runs: every workload x repetition, traced (and a baseline of
 * each when interleaved), or untraced only for a baseline configuration. */
static int measured(const struct mt_experiment *x, size_t c, struct mt_exp_run **v, size_t *n,
		    size_t *cap)
{
	const struct mt_exp_config *cf = &x->configs[c];
	int rc = 0;

	for (size_t w = 0; w < x->nworkloads && rc == 0; w++)
		for (unsigned r = 1; r <= x->repetitions && rc == 0; r++) {
			rc = add(v, n, cap, w, c, r,
				 cf->baseline ? MT_EXP_BASELINE : MT_EXP_TRACED);
			if (rc == 0 && !cf->baseline && x->baselines)
				rc = add(v, n, cap, w, c, r, MT_EXP_BASELINE);
		}
	return rc;
}

static int warmups(const struct mt_experiment *x, size_t c, struct mt_exp_run **v, size_t *n,
		   size_t *cap)
{
	int rc = 0;

	for (size_t w = 0; w < x->nworkloads && rc == 0; w++)
		for (unsigned r = 1; r <= x->workloads[w].warmup && rc == 0; r++)
			rc = add(v, n, cap, w, c, r, MT_EXP_WARMUP);
	return rc;
}

int mt_exp_plan(const struct mt_experiment *x, struct mt_exp_run **runs, size_t *nruns)
{
	struct mt_exp_run *v = NULL;
	size_t n = 0, cap = 0, from;
	uint64_t state = x->seed;
	int rc = 0;

	*runs = NULL;
	*nruns = 0;
	if (x->order == MT_EXP_SHUFFLE) {
		for (size_t c = 0; c < x->nconfigs && rc == 0; c++)
			rc = warmups(x, c, &v, &n, &cap);
		from = n;
		for (size_t c = 0; c < x->nconfigs && rc == 0; c++)
			rc = measured(x, c, &v, &n, &cap);
		if (rc == 0)
			shuffle(v + from, n - from, &state);
	} else {
		for (size_t c = 0; c < x->nconfigs && rc == 0; c++) {
			rc = warmups(x, c, &v, &n, &cap);
			from = n;
			if (rc == 0)
				rc = measured(x, c, &v, &n, &cap);
			if (rc == 0)
				shuffle(v + from, n - from, &state);
		}
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		v[i].index = i + 1;
	*runs = v;
	*nruns = n;
	return 0;
}

int mt_exp_run_dir(const struct mt_experiment *x, const struct mt_exp_run *r, char *buf,
		   size_t size)
{
	int n = snprintf(buf, size, "workload=%s/config=%s/kind=%s/rep=%u",
			 x->workloads[r->workload].name, x->configs[r->config].name,
			 mt_exp_kind_name(r->kind), r->rep);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void mt_exp_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

bool mt_exp_heap_spec(const struct mt_exp_config *c, char *buf, size_t size)
{
	if (c->heap_pmem_dir)
		snprintf(buf, size, "pmem:%s", c->heap_pmem_dir);
	else if (c->heap_numa_node >= 0)
		snprintf(buf, size, "numa:%d", c->heap_numa_node);
	else
		return false;
	return true;
}

int mt_exp_run_argv(const struct mt_experiment *x, const struct mt_exp_run *r, const char *memtap,
		    const char *trace, char ***argv)
{
	const struct mt_exp_cmd *cmd = &x->workloads[r->workload].cmd;
	const struct mt_exp_config *c = &x->configs[r->config];
	const char *head[] = { memtap, "record", "-q", "-f", "-o", trace };
	size_t n = 0, cap = cmd->argc + c->nrecord + 12;
	char node[16], heap[4200];
	char **v = calloc(cap, sizeof(*v));

	*argv = NULL;
	if (!v)
		return -ENOMEM;
	if (r->kind == MT_EXP_TRACED) {
		for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
			v[n++] = strdup(head[i]);
		/* the workload's placement: memtap record applies it to the command only */
		if (c->cpus) {
			v[n++] = strdup("--cpus");
			v[n++] = strdup(c->cpus);
		}
		if (c->numa_node >= 0) {
			snprintf(node, sizeof(node), "%d", c->numa_node);
			v[n++] = strdup("--numa-node");
			v[n++] = strdup(node);
		}
		if (mt_exp_heap_spec(c, heap, sizeof(heap))) {
			v[n++] = strdup("--heap");
			v[n++] = strdup(heap);
		}
		for (size_t i = 0; i < c->nrecord; i++)
			v[n++] = strdup(c->record[i]);
		v[n++] = strdup("--");
	}
	for (size_t i = 0; i < cmd->argc; i++)
		v[n++] = strdup(cmd->argv[i]);
	for (size_t i = 0; i < n; i++)
		if (!v[i]) {
			mt_exp_argv_free(v);
			return -ENOMEM;
		}
	*argv = v;
	return 0;
}
