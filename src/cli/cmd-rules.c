/* SPDX-License-Identifier: MIT */
/* memtap rules: the built-in engine profiles, and the check of a rules file. */
#include <stdio.h>
#include <string.h>

#include "analysis/profiles.h"
#include "analysis/rules.h"
#include "cli/commands.h"
#include "cli/util.h"
#include "common/log.h"
#include "export/json.h"
#include "export/table.h"

static struct {
	int format;
	const char *show, *check;
} o;

static const char *const formats[] = { "text", "json", NULL };

static const struct mt_option options[] = {
	{ "format", 0, MT_OPT_CHOICE, &o.format, "FMT", "output format of the list", formats },
	{ "show", 0, MT_OPT_STRING, &o.show, "NAME",
	  "print a profile's rules (YAML, as --rules reads)" },
	{ "check", 0, MT_OPT_STRING, &o.check, "FILE",
	  "check a rules file: one line FILE:LINE:COLUMN: problem and status 2 when it is bad" },
	{ NULL },
};

const struct mt_command_spec mt_rules_spec = {
	.name = "rules",
	.usage = "[--show NAME | --check FILE] [options]",
	.summary = "list the engine profiles that type regions, or check a rules file",
	.description =
		"report, export, view and plot type regions by rules: a --rules file's first,\n"
		"then the built-in profiles' (--profiles chooses them; default all). A symbol\n"
		"rule matches any function of a region's allocation stack, a path rule a\n"
		"mapping's file; the report's regions say which rule typed each (typed_by).\n"
		"Region types: weight, kv_cache, activation, runtime, tokenizer, io_buffer,\n"
		"optimizer_state, gradient, embedding, and any a rules file declares under\n"
		"types:. Without options: every profile with its rules.\n",
	.opts = options,
	.min_args = 0,
	.max_args = 0,
};

static int check(const char *path)
{
	struct mt_rules rules;

	if (mt_cli_load_rules(path, &rules) != 0)
		return 2;
	printf("%s: %zu rules, %zu phase rules, %zu declared types\n", path, rules.n, rules.nph,
	       rules.ntypes);
	mt_rules_release(&rules);
	return 0;
}

/* Every profile's rules, parsed as the analysis parses them. */
static int list(void)
{
	static const char *const heads[] = { "profile", "rule", "matches", "region type" };
	struct mt_json j;
	struct mt_table t;

	if (o.format == 1) {
		mt_json_init(&j, stdout, true);
		mt_json_begin_object(&j);
		mt_json_key(&j, "profiles");
		mt_json_begin_array(&j);
	} else if (mt_table_init(&t, 4, heads) < 0) {
		return 1;
	}
	for (const struct mt_profile *p = mt_profiles; p->name; p++) {
		struct mt_rules r = { 0 };
		char err[256];

		if (mt_profiles_add(&r, p->name, err, sizeof(err)) < 0) {
			mt_err("%s", err);
			return 1;
		}
		if (o.format == 1) {
			mt_json_begin_object(&j);
			mt_json_kv_str(&j, "name", p->name);
			mt_json_kv_str(&j, "about", p->about);
			mt_json_key(&j, "rules");
			mt_json_begin_array(&j);
		}
		for (size_t i = 0; i < r.n; i++) {
			const struct mt_rule *u = &r.v[i];

			if (o.format == 1) {
				mt_json_begin_object(&j);
				mt_json_kv_str(&j, u->symbol ? "symbol" : "path",
					       u->symbol ? u->symbol : u->path);
				if (u->with)
					mt_json_kv_str(&j, "with", u->with);
				mt_json_kv_str(&j, "region_type", u->region_type);
				mt_json_end_object(&j);
				continue;
			}
			mt_table_add(&t, i ? "" : p->name);
			mt_table_addf(&t, "%zu", i + 1);
			mt_table_addf(&t, "%s %s%s%s", u->symbol ? "symbol" : "path",
				      u->symbol ? u->symbol : u->path, u->with ? " with " : "",
				      u->with ? u->with : "");
			mt_table_add(&t, u->region_type);
		}
		if (o.format == 1) {
			mt_json_end_array(&j);
			mt_json_end_object(&j);
		}
		mt_rules_release(&r);
	}
	if (o.format == 1) {
		mt_json_end_array(&j);
		mt_json_end_object(&j);
		fputc('\n', stdout);
		return 0;
	}
	printf("profiles (tried in this order, after a --rules file's rules)\n");
	for (const struct mt_profile *p = mt_profiles; p->name; p++)
		printf("  %-12s %s\n", p->name, p->about);
	printf("\n");
	mt_table_print(&t, stdout, 2, true);
	mt_table_release(&t);
	return 0;
}

int cmd_rules(int argc, char **argv)
{
	const struct mt_profile *p;
	int nargs, r;

	r = mt_opts_parse(&mt_rules_spec, argc, argv, &nargs);
	if (r)
		return r == 1 ? 0 : r;
	if (o.show && o.check)
		return mt_usage_error(&mt_rules_spec, "--show and --check exclude each other");
	if (o.check)
		return check(o.check);
	if (!o.show)
		return list();
	p = mt_profile_find(o.show);
	if (!p)
		return mt_usage_error(&mt_rules_spec, "no profile '%s' (memtap rules names them)",
				      o.show);
	printf("# profile %s: %s\n%s", p->name, p->about, p->yaml);
	return 0;
}
