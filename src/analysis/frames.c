/* SPDX-License-Identifier: MIT */
/* A resolved frame's display names, as tables show them (analysis/symbols.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/symbols.h"

const char *mt_frame_py_name(const struct mt_frame *f, char *buf, size_t size)
{
	const char *base = f->file ? strrchr(f->file, '/') : NULL;

	snprintf(buf, size, "%s (%s:%u)", f->function ? f->function : "?",
		 base	   ? base + 1
		 : f->file ? f->file
			   : "?",
		 f->line);
	return buf;
}

const char *mt_frame_name(const struct mt_frame *f, char *buf, size_t size)
{
	const char *mod = f->module ? strrchr(f->module, '/') : NULL;

	mod = mod ? mod + 1 : f->module;
	if (f->function && f->file)
		snprintf(buf, size, "%s (%s:%u)", f->function, f->file, f->line);
	else if (f->function)
		snprintf(buf, size, "%s (%s)", f->function, mod ? mod : "?");
	else if (mod)
		snprintf(buf, size, "%s+0x%" PRIx64, mod, f->offset);
	else
		snprintf(buf, size, "0x%" PRIx64, f->ip);
	return buf;
}
