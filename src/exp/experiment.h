/* SPDX-License-Identifier: MIT */
/* Experiments (memtap validate | plan | run EXP.yaml): the model, its YAML loader, the plan. */
#ifndef MEMTAP_EXP_EXPERIMENT_H
#define MEMTAP_EXP_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where something was written in the experiment file, for messages (1-based). */
struct mt_exp_mark {
	unsigned line, col;
};

/* A command: argv (a YAML list), or one string run by /bin/sh -c. */
struct mt_exp_cmd {
	char **argv; /* NULL-terminated; NULL when absent */
	size_t argc;
	bool shell; /* the YAML gave a string: argv is {"/bin/sh", "-c", STRING} */
	struct mt_exp_mark at;
};

/* A process started before each run of its workload and stopped after it. */
struct mt_exp_service {
	char *name;
	struct mt_exp_cmd cmd;
	int ready_tcp; /* ready when this TCP port on 127.0.0.1 accepts; 0: not this check */
	struct mt_exp_cmd ready_cmd; /* ready when this command exits 0 */
	double timeout_s; /* to become ready */
	struct mt_exp_mark at;
};

struct mt_exp_env {
	char *key, *value;
};

struct mt_exp_workload {
	char *name;
	struct mt_exp_cmd cmd, setup, teardown;
	char *cwd; /* NULL: the experiment file's directory */
	struct mt_exp_env *env;
	size_t nenv;
	struct mt_exp_service *services;
	size_t nservices;
	/* started once the measured command is ready (its check), its exit ends the run: it
	 * drives a server that is the measured command, and stops it; NULL: none */
	struct mt_exp_service *driver;
	unsigned warmup; /* untraced runs before the measured ones, per configuration */
	double timeout_s; /* a run is killed after this; 0: none */
	struct mt_exp_mark at;
};

/* A configuration: memtap record's options and the system knobs of its runs. */
struct mt_exp_config {
	char *name;
	bool baseline; /* untraced runs only (dry runs) */
	char **record; /* memtap record options, NULL-terminated */
	size_t nrecord;
	const char *thp_enabled, *thp_defrag; /* transparent huge pages; NULL: left alone */
	char *cpus; /* the workload's CPU list ("0-1,3"); NULL: any */
	char *memtap_cpus; /* memtap's own */
	int numa_node; /* the workload's CPUs and memory on this node; -1: any */
	int heap_numa_node; /* the workload's heap on this node (libnuma); -1: not set */
	char *heap_pmem_dir; /* the workload's heap in this PMEM/DAX directory (libmemkind) */
	int64_t perf_max_sample_rate, perf_cpu_time_max_percent; /* -1: left alone */
	struct mt_exp_mark at;
};

/* One figure's bounds of the validity classes: clean below clean, marginal below marginal
 * (throttle events: at most clean, at most marginal). */
struct mt_exp_bounds {
	double clean, marginal;
};

/* How runs are classified (docs/experiments.md, "Validity"; defaults: mrm-trace's). */
struct mt_exp_validity {
	double idle_seconds; /* the idle baseline measured before the runs; 0: none */
	struct mt_exp_bounds observer_cpu; /* the recorder's CPU, % of one CPU: 10, 20 */
	struct mt_exp_bounds observer_mem; /* memtap's memory, % of the workload's peak RSS: 5, 15 */
	struct mt_exp_bounds background_cpu; /* others' CPU + steal, % of all CPUs: 15, 30 */
	struct mt_exp_bounds idle_cpu; /* the idle baseline, % of all CPUs: 15, 30 */
	struct mt_exp_bounds throttle; /* thermal throttle events during the run: 0, 2 */
};

enum mt_exp_order {
	MT_EXP_BY_CONFIG, /* configurations in sequence; each one's runs shuffled */
	MT_EXP_SHUFFLE, /* every run of every configuration shuffled together */
};

struct mt_experiment {
	char *path; /* as given */
	char *dir; /* the file's directory: relative paths are relative to it */
	char *name;
	uint64_t seed;
	unsigned repetitions;
	enum mt_exp_order order;
	bool baselines; /* untraced runs interleaved with every traced configuration's */
	char *results; /* the results directory */
	struct mt_exp_validity validity;
	struct mt_exp_workload *workloads;
	size_t nworkloads;
	struct mt_exp_config *configs;
	size_t nconfigs;
};

/*
 * Reads and checks an experiment file: YAML syntax, known keys, types, required fields,
 * values in range, names unique and usable as directory names. On failure returns < 0 with
 * one line "FILE:LINE:COLUMN: problem" in err (or "FILE: problem" when it has no place).
 */
int mt_exp_load(const char *path, struct mt_experiment *exp, char *err, size_t errsize);
/* The same from a string (tests, fuzzing); name stands for the file in messages. */
int mt_exp_load_string(const char *name, const char *data, size_t n, struct mt_experiment *exp,
		       char *err, size_t errsize);
void mt_exp_release(struct mt_experiment *exp);

/*
 * What this machine lacks for the experiment (a knob's sysfs file, a NUMA node, a CPU, the
 * PMEM directory, a command's executable): 0, or < 0 with one line in err, placed in the
 * file like a syntax error.
 */
int mt_exp_check_machine(const struct mt_experiment *exp, char *err, size_t errsize);

/*
 * What could blur the experiment's own comparison, as one line in msg (1), or 0: its
 * configurations vary transparent huge pages while a traced one keeps page-write tracking on
 * (tracking leaves huge pages whole and untracked, yet a tracked range holds khugepaged's
 * collapse back: its small pages are protected).
 */
int mt_exp_interference(const struct mt_experiment *exp, char *msg, size_t size);

enum mt_exp_kind {
	MT_EXP_WARMUP, /* untraced, before the measured runs; not aggregated */
	MT_EXP_TRACED, /* under memtap record */
	MT_EXP_BASELINE, /* untraced: the traced runs' reference, or a baseline configuration */
};

const char *mt_exp_kind_name(enum mt_exp_kind k);

struct mt_exp_run {
	size_t index; /* 1-based, in running order */
	size_t workload, config;
	unsigned rep; /* 1-based within (workload, config, kind) */
	enum mt_exp_kind kind;
};

/*
 * The runs in the order they run: per configuration (in the file's order) its warm-ups
 * first, then its workloads x repetitions (traced, and baseline when interleaved), shuffled
 * with the experiment's seed; with order: shuffle, all measured runs shuffled together after
 * all warm-ups. The shuffle is Fisher-Yates over splitmix64 (docs/experiments.md): the
 * same file and seed give the same plan on every machine.
 */
int mt_exp_plan(const struct mt_experiment *exp, struct mt_exp_run **runs, size_t *nruns);

/* The run's directory under the results directory, Hive-style:
 * "workload=W/config=C/kind=K/rep=R". */
int mt_exp_run_dir(const struct mt_experiment *exp, const struct mt_exp_run *r, char *buf,
		   size_t size);

/* The configuration's heap placement as memtap record's --heap takes it ("pmem:DIR",
 * "numa:N"); false when it sets none. */
bool mt_exp_heap_spec(const struct mt_exp_config *c, char *buf, size_t size);

/* The command run r runs: the workload's, under `MEMTAP record -q -f -o TRACE OPTIONS --`
 * when traced. *argv is NULL-terminated; free it with mt_exp_argv_free(). */
int mt_exp_run_argv(const struct mt_experiment *exp, const struct mt_exp_run *r, const char *memtap,
		    const char *trace, char ***argv);
void mt_exp_argv_free(char **argv);

#endif
