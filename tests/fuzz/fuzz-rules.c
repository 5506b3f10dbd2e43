/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the YAML rules parser (memtap report --rules). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_rules rules;
	char err[512];
	int rc = mt_rules_parse((const char *)data, size, "fuzz.yaml", &rules, err, sizeof(err));

	if (rc == 0) {
		for (size_t i = 0; i < rules.n; i++) /* what the parser accepted is complete */
			if (!rules.v[i].region_type || !rules.v[i].symbol == !rules.v[i].path)
				abort();
		(void)mt_rules_match_path(&rules, "/models/x.gguf");
		mt_rules_release(&rules);
	} else if (rc == -1 && !memchr(err, 0, sizeof(err))) {
		abort();
	}
	return 0;
}
