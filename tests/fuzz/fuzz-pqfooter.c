/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the Parquet footer parser (memtap check-schema). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/parquet-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool on_kv(void *ctx, const char *k, size_t kn, const char *v, size_t vn)
{
	size_t *total = ctx;

	if ((kn && !k) || (vn && !v))
		abort();
	*total += kn + vn;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private copy, exactly as long as the input: reads past it are caught */
	uint8_t *copy = malloc(size ? size : 1);
	size_t total = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	(void)mt_pq_parse_footer(copy, size, on_kv, &total);
	if (total > size)
		abort();
	free(copy);
	return 0;
}
