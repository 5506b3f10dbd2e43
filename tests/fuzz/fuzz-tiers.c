/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the tier model's YAML parser (memtap report --tiers). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/tiers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_tiers t;
	char err[512];
	int rc = mt_tiers_parse((const char *)data, size, "fuzz.yaml", &t, err, sizeof(err));

	if (rc == 0) {
		/* what the parser accepted is a whole model */
		if (t.n < 2 || t.n > MT_TIERS_MAX || t.v[0].retention_s > 0)
			abort();
		for (unsigned i = 0; i < t.n; i++)
			if (!t.v[i].name[0] || !(t.v[i].read_ns > 0) || !(t.v[i].write_ns > 0) ||
			    t.v[i].retention_s < 0)
				abort();
	} else if (rc == -1 && !memchr(err, 0, sizeof(err))) {
		abort();
	}
	return 0;
}
