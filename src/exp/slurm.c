/* SPDX-License-Identifier: MIT */
/* memtap run --slurm: a job array of the runs not complete, submitted with sbatch. */
#include "exp/slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/strutil.h"
#include "exp/run.h"

static int write_job(const char *path, const struct mt_exp_slurm_opts *o)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "#!/bin/sh\n"
		   "# memtap run --slurm: one task per run of the experiment; the task id is the\n"
		   "# run's number in memtap plan.\n"
		   "exec ");
	mt_fputs_sh(f, o->memtap);
	fputs(" run ", f);
	mt_fputs_sh(f, o->exp_path);
	fprintf(f, " --task \"$SLURM_ARRAY_TASK_ID\"%s\n",
		o->retry_failed ? " --retry-failed" : "");
	if (fclose(f) != 0)
		return -EIO;
	return chmod(path, 0755) < 0 ? -errno : 0;
}

/* The runs to submit as an array spec: "1-3,7,9-12". */
static char *array_spec(const struct mt_experiment *x, const struct mt_exp_run *runs, size_t n,
			bool retry_failed, size_t *count)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	size_t i = 0;

	*count = 0;
	if (!s)
		return NULL;
	s[0] = 0;
	while (i < n) {
		size_t lo, hi;
		int st = mt_exp_run_state(x, &runs[i]);

		if (st == 1 || (st == 2 && !retry_failed)) {
			i++;
			continue;
		}
		lo = hi = runs[i].index;
		(*count)++;
		for (i++; i < n && runs[i].index == hi + 1; i++) {
			st = mt_exp_run_state(x, &runs[i]);
			if (st == 1 || (st == 2 && !retry_failed))
				break;
			hi++;
			(*count)++;
		}
		if (len + 48 > cap) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		len += (size_t)snprintf(s + len, cap - len, lo == hi ? "%s%zu" : "%s%zu-%zu",
					len ? "," : "", lo, hi);
	}
	return s;
}

/* Runs sbatch with argv; its job id (--parsable: "ID" or "ID;cluster") into jobid. */
static int sbatch(char **argv, char *jobid, size_t size, char *err, size_t errsize)
{
	int fd[2], st;
	pid_t pid;
	ssize_t k;
	size_t len = 0;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while (len + 1 < size && (k = read(fd[0], jobid + len, size - 1 - len)) > 0)
		len += (size_t)k;
	jobid[len] = 0;
	jobid[strcspn(jobid, ";\n")] = 0;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !*jobid) {
		snprintf(err, errsize, "%s",
			 WIFEXITED(st) && WEXITSTATUS(st) == 127
				 ? "cannot run sbatch (is Slurm's client installed?)"
				 : "sbatch refused the job array (its message above)");
		return -EIO;
	}
	return 0;
}

int mt_exp_slurm_submit(const struct mt_experiment *x, const struct mt_exp_run *runs, size_t n,
			const struct mt_exp_slurm_opts *o, char *jobid, size_t jobsize,
			size_t *ntasks, char *err, size_t errsize)
{
	char rel[PATH_MAX], dir[PATH_MAX], job[PATH_MAX + 16], out[PATH_MAX + 32], name[300], *spec,
		*arr;
	char **argv;
	size_t k = 0;
	int rc;

	*jobid = 0;
	spec = array_spec(x, runs, n, o->retry_failed, ntasks);
	if (!spec)
		return -ENOMEM;
	if (!*ntasks) {
		free(spec);
		return 0;
	}
	snprintf(rel, sizeof(rel), "%s/slurm", x->results);
	if ((rc = mt_mkdir_p(rel)) < 0 || !realpath(rel, dir)) {
		rc = rc < 0 ? rc : -errno;
		snprintf(err, errsize, "cannot create %s: %s", rel, strerror(-rc));
		free(spec);
		return rc;
	}
	snprintf(job, sizeof(job), "%s/job.sh", dir);
	if ((rc = write_job(job, o)) < 0) {
		snprintf(err, errsize, "cannot write %s: %s", job, strerror(-rc));
		free(spec);
		return rc;
	}
	arr = malloc(strlen(spec) + 32);
	argv = calloc(o->nsbatch + 10, sizeof(*argv));
	if (!arr || !argv) {
		free(spec);
		free(arr);
		free(argv);
		return -ENOMEM;
	}
	snprintf(arr, strlen(spec) + 32, "--array=%s%%%u", spec, o->parallel ? o->parallel : 1);
	snprintf(name, sizeof(name), "--job-name=memtap-%s", x->name);
	snprintf(out, sizeof(out), "--output=%s/%%A_%%a.out", dir);
	argv[k++] = "sbatch";
	argv[k++] = "--parsable";
	argv[k++] = name;
	argv[k++] = arr;
	argv[k++] = out;
	if (o->parallel > 1)
		argv[k++] = "--exclusive"; /* tasks at once: each its own node */
	for (size_t i = 0; i < o->nsbatch; i++)
		argv[k++] = o->sbatch_args[i];
	argv[k++] = job;
	rc = sbatch(argv, jobid, jobsize, err, errsize);
	free(spec);
	free(arr);
	free(argv);
	return rc;
}
