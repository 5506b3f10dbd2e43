/* SPDX-License-Identifier: MIT */
/* Unit tests of the option parser behind every command. */
#include <stdlib.h>

#include "cli/options.h"
#include "mt-test.h"

MT_TEST_MAIN()

static struct {
	const char *out;
	bool force, flag;
	uint64_t n, size;
	int fmt;
	const char *opt;
	bool n_seen;
} v;

static const char *const fmts[] = { "text", "json", NULL };

static const struct mt_option opts[] = {
	{ "output", 'o', MT_OPT_STRING, &v.out, "FILE", "output" },
	{ "force", 'f', MT_OPT_FLAG, &v.force, NULL, "force" },
	{ "flag", 0, MT_OPT_FLAG, &v.flag, NULL, "negatable", NULL, MT_OPTF_NEGATABLE },
	{ "count", 'n', MT_OPT_U64, &v.n, "N", "count", NULL, 0, &v.n_seen },
	{ "size", 0, MT_OPT_SIZE, &v.size, "BYTES", "size" },
	{ "format", 0, MT_OPT_CHOICE, &v.fmt, "FMT", "format", fmts },
	{ "opt", 0, MT_OPT_STRING, &v.opt, "X", "optional", NULL, MT_OPTF_OPTIONAL_ARG },
	{ NULL },
};

static struct mt_command_spec spec = {
	"t", "[options] ARGS", "a test command", NULL, opts, 0, 0, 3
};

static int parse(int argc, const char **args, int *n)
{
	static char *argv[32];

	memset(&v, 0, sizeof(v));
	v.flag = true;
	for (int i = 0; i < argc; i++)
		argv[i] = (char *)args[i];
	argv[argc] = NULL;
	return mt_opts_parse(&spec, argc, argv, n);
}

TEST(long_and_short)
{
	const char *a[] = { "t",  "x", "--output=o.mtap", "-f",	  "-n",	       "7",    "--size",
			    "4K", "y", "--format",	  "json", "--no-flag", "--opt" };
	int n = -1;

	ASSERT_EQ(parse(13, a, &n), 0);
	ASSERT_STREQ(v.out, "o.mtap");
	ASSERT_TRUE(v.force && v.n_seen && !v.flag);
	ASSERT_EQ(v.n, 7);
	ASSERT_EQ(v.size, 4096);
	ASSERT_EQ(v.fmt, 1);
	ASSERT_STREQ(v.opt, "");
	ASSERT_EQ(n, 2);
}

TEST(attached_and_separated_values)
{
	const char *a[] = { "t", "-ofile", "--opt=val", "-n0x10" };
	int n;

	ASSERT_EQ(parse(4, a, &n), 0);
	ASSERT_STREQ(v.out, "file");
	ASSERT_STREQ(v.opt, "val");
	ASSERT_EQ(v.n, 16);
	ASSERT_EQ(n, 0);
}

TEST(double_dash_ends_options)
{
	const char *a[] = { "t", "--", "-f", "--force" };
	int n;

	ASSERT_EQ(parse(4, a, &n), 0);
	ASSERT_TRUE(!v.force);
	ASSERT_EQ(n, 2);
}

TEST(usage_errors_return_2)
{
	const char *unknown[] = { "t", "--bogus" };
	const char *noval[] = { "t", "--output" };
	const char *badnum[] = { "t", "-n", "12x" };
	const char *badchoice[] = { "t", "--format", "xml" };
	const char *flagval[] = { "t", "--force=1" };
	const char *toomany[] = { "t", "a", "b", "c", "d" };
	const char *badshort[] = { "t", "-z" };
	int n;

	ASSERT_EQ(parse(2, unknown, &n), 2);
	ASSERT_EQ(parse(2, noval, &n), 2);
	ASSERT_EQ(parse(3, badnum, &n), 2);
	ASSERT_EQ(parse(3, badchoice, &n), 2);
	ASSERT_EQ(parse(2, flagval, &n), 2);
	ASSERT_EQ(parse(5, toomany, &n), 2);
	ASSERT_EQ(parse(2, badshort, &n), 2);
}

TEST(stop_at_first_argument)
{
	const char *a[] = { "t", "-f", "cmd", "-n", "5", "--force" };
	int n;

	spec.flags = MT_CMD_STOP_AT_ARG;
	spec.max_args = -1;
	ASSERT_EQ(parse(6, a, &n), 0);
	spec.flags = 0;
	spec.max_args = 3;
	ASSERT_TRUE(v.force);
	ASSERT_TRUE(!v.n_seen);
	ASSERT_EQ(n, 4);
}
