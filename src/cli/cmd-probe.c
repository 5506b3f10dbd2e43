/* SPDX-License-Identifier: MIT */
/* memtap probe: which collectors work on this machine, and why not. */
#include <stdio.h>
#include <sys/utsname.h>

#include "cli/commands.h"
#include "export/json.h"
#include "export/table.h"
#include "record/probe.h"
#include "record/sysinfo.h"

static struct {
	int format;
} o;

static const char *const formats[] = { "text", "json", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format", formats },
	{ NULL },
};

const struct mt_command_spec mt_probe_spec = {
	.name = "probe",
	.usage = "[options]",
	.summary = "show which collectors work on this machine, and why not",
	.description =
		"Each feature is probed by a real, tiny attempt (an event opened, a child\n"
		"traced), once per run. MEMTAP_DISABLE_FEAT=id,id,... (or all) makes features\n"
		"report unavailable, to exercise memtap's fallbacks.\n",
	.opts = options,
	.min_args = 0,
	.max_args = 0,
};

int cmd_probe(int argc, char **argv)
{
	struct utsname u;
	int nargs, r;

	r = mt_opts_parse(&mt_probe_spec, argc, argv, &nargs);
	if (r)
		return r == 1 ? 0 : r;
	uname(&u);
	if (o.format == 1) {
		struct mt_json j;

		mt_json_init(&j, stdout, true);
		mt_json_begin_object(&j);
		mt_json_kv_str(&j, "memtap_version", MEMTAP_VERSION);
		mt_json_kv_str(&j, "kernel", u.release);
		mt_json_kv_str(&j, "arch", u.machine);
		mt_json_kv_bool(&j, "virtualized", mt_sys_is_virtual());
		mt_json_key(&j, "features");
		mt_json_begin_array(&j);
		for (int f = 0; f < _MT_FEAT_MAX; f++) {
			const struct mt_probe_result *p = mt_probe((enum mt_feat)f);

			mt_json_begin_object(&j);
			mt_json_kv_str(&j, "id", mt_feat_id((enum mt_feat)f));
			mt_json_kv_str(&j, "name", mt_feat_name((enum mt_feat)f));
			mt_json_kv_bool(&j, "available", p->available);
			mt_json_kv_str(&j, "detail", p->detail);
			if (p->hint[0])
				mt_json_kv_str(&j, "hint", p->hint);
			mt_json_end_object(&j);
		}
		mt_json_end_array(&j);
		mt_json_end_object(&j);
		fputc('\n', stdout);
		return 0;
	}
	{
		static const char *const heads[] = { "feature", "ok", "detail" };
		struct mt_table t;

		printf("memtap %s on Linux %s (%s%s)\n\n", MEMTAP_VERSION, u.release, u.machine,
		       mt_sys_is_virtual() ? ", virtual machine" : "");
		if (mt_table_init(&t, 3, heads) < 0)
			return 1;
		for (int f = 0; f < _MT_FEAT_MAX; f++) {
			const struct mt_probe_result *p = mt_probe((enum mt_feat)f);

			mt_table_add(&t, mt_feat_name((enum mt_feat)f));
			mt_table_add(&t, p->available ? "yes" : "no");
			if (p->hint[0])
				mt_table_addf(&t, "%s (hint: %s)", p->detail, p->hint);
			else
				mt_table_add(&t, p->detail);
		}
		mt_table_print(&t, stdout, 0, true);
		mt_table_release(&t);
	}
	return 0;
}
