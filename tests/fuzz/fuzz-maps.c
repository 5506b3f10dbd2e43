/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the /proc/PID/maps line parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct mt_maps_entry e;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	if (mt_maps_parse_line(line, &e) == 0 && (e.end < e.start || strlen(e.path) > size))
		abort();
	free(line);
	return 0;
}
