/* SPDX-License-Identifier: MIT */
/* memtap check-schema: is this Parquet file a memtap table this memtap can read? */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "export/parquet-read.h"

#define SCHEMA_MAJOR 1 /* memtap_schema_version this memtap writes: 1.0 */

static const struct mt_option options[] = {
	{ NULL },
};

const struct mt_command_spec mt_check_schema_spec = {
	.name = "check-schema",
	.usage = "FILE.parquet [TABLE]",
	.summary = "check that a Parquet file is a memtap table of a compatible schema",
	.description =
		"Reads the file's key/value metadata (memtap_schema_version, table, run_id) and\n"
		"exits 0 when its schema major is this memtap's and, if TABLE is given, the file\n"
		"holds that table; else one line on stderr says why, and the status is 1 — like\n"
		"mrm-trace's check_parquet_schema. A file that is not Parquet, or is cut short,\n"
		"is an error too.\n",
	.opts = options,
	.min_args = 1,
	.max_args = 2,
};

struct found {
	char version[32], table[64], run_id[64];
};

static void copy(char *dst, size_t size, const char *v, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = 0;
}

static bool on_kv(void *ctx, const char *k, size_t kn, const char *v, size_t vn)
{
	struct found *f = ctx;

	if (kn == 21 && !memcmp(k, "memtap_schema_version", 21))
		copy(f->version, sizeof(f->version), v, vn);
	else if (kn == 5 && !memcmp(k, "table", 5))
		copy(f->table, sizeof(f->table), v, vn);
	else if (kn == 6 && !memcmp(k, "run_id", 6))
		copy(f->run_id, sizeof(f->run_id), v, vn);
	return false;
}

int cmd_check_schema(int argc, char **argv)
{
	struct found f = { { 0 }, { 0 }, { 0 } };
	const char *path, *want;
	uint8_t *footer;
	size_t n = 0;
	int nargs, rc;
	long major;
	char *end;

	rc = mt_opts_parse(&mt_check_schema_spec, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : rc;
	path = argv[0];
	want = nargs > 1 ? argv[1] : NULL;
	rc = mt_pq_read_footer(path, &footer, &n);
	if (rc == -EPROTO) {
		mt_err("'%s': not a Parquet file, or cut short (no footer)", path);
		return 1;
	}
	if (rc < 0) {
		mt_err_code(rc, "cannot read '%s'", path);
		return 1;
	}
	rc = mt_pq_parse_footer(footer, n, on_kv, &f);
	free(footer);
	if (rc < 0) {
		mt_err("'%s': malformed Parquet footer", path);
		return 1;
	}
	if (!f.version[0]) {
		mt_err("'%s': no memtap_schema_version in its metadata (not written by memtap)",
		       path);
		return 1;
	}
	major = strtol(f.version, &end, 10);
	if (end == f.version || major != SCHEMA_MAJOR) {
		mt_err("'%s': memtap_schema_version %s is not compatible with this memtap's %d.x",
		       path, f.version, SCHEMA_MAJOR);
		return 1;
	}
	if (want && strcmp(want, f.table)) {
		mt_err("'%s' holds table '%s', not '%s'", path, f.table[0] ? f.table : "?", want);
		return 1;
	}
	printf("%s: table %s, memtap_schema_version %s, run %s: compatible\n", path,
	       f.table[0] ? f.table : "?", f.version, f.run_id[0] ? f.run_id : "?");
	return 0;
}
