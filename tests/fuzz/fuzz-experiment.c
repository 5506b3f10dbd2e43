/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the experiment file parser and the plan (memtap validate | plan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_experiment x;
	struct mt_exp_run *runs;
	char err[512];
	size_t n;

	if (size > (1u << 16))
		return 0;
	if (mt_exp_load_string("fuzz.yaml", (const char *)data, size, &x, err, sizeof(err)) < 0) {
		if (!memchr(err, 0, sizeof(err)) || strncmp(err, "fuzz.yaml", 9))
			abort(); /* a failure always says where */
		return 0;
	}
	/* what the parser accepted is complete, and plans */
	if (!x.name || !x.nworkloads || !x.nconfigs || !x.results)
		abort();
	for (size_t i = 0; i < x.nworkloads; i++)
		if (!x.workloads[i].name || !x.workloads[i].cmd.argv || !x.workloads[i].cmd.argv[0])
			abort();
	if (x.nworkloads * x.nconfigs * x.repetitions <= 100000 &&
	    mt_exp_plan(&x, &runs, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			char dir[1024], **argv;

			if (runs[i].index != i + 1 ||
			    mt_exp_run_dir(&x, &runs[i], dir, sizeof(dir)) < 0 ||
			    mt_exp_run_argv(&x, &runs[i], "memtap", "t.mtap", &argv) < 0)
				abort();
			mt_exp_argv_free(argv);
		}
		free(runs);
	}
	mt_exp_release(&x);
	return 0;
}
