/* SPDX-License-Identifier: MIT */
/* Unit tests of src/export: JSON escaping and structure, CSV quoting, tables. */
#include <stdio.h>
#include <stdlib.h>

#include "export/json.h"
#include "export/table.h"
#include "mt-test.h"

MT_TEST_MAIN()

/* Runs fn writing to a memory stream and returns what it wrote (malloc'd). */
static char *capture(void (*fn)(FILE *f))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f);
	fclose(f);
	return buf;
}

static void w_escape(FILE *f)
{
	mt_json_write_string(f, "a\"b\\c\n\t\x01\x7f<>", 11, false);
	mt_json_write_string(f, "\xff\xc3\xa9\xe2\x82", 5, false); /* bad, é, cut 3-byte seq */
	mt_json_write_string(f, "<script>'&'", 11, true);
	mt_json_write_string(f, "\xed\xa0\x80", 3, false); /* a surrogate: invalid in UTF-8 */
}

TEST(json_escaping)
{
	char *s = capture(w_escape);

	ASSERT_STREQ(s, "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f<>\""
			"\"\\ufffd\xc3\xa9\\ufffd\\ufffd\""
			"\"\\u003cscript\\u003e\\u0027\\u0026\\u0027\""
			"\"\\ufffd\\ufffd\\ufffd\"");
	free(s);
}

static void w_doc(FILE *f)
{
	struct mt_json j;

	mt_json_init(&j, f, false);
	mt_json_begin_object(&j);
	mt_json_kv_u64(&j, "a", 18446744073709551615ull);
	mt_json_kv_i64(&j, "b", -5);
	mt_json_key(&j, "c");
	mt_json_begin_array(&j);
	mt_json_hex(&j, 0x7fff0000);
	mt_json_null(&j);
	mt_json_bool(&j, true);
	mt_json_double(&j, 0.25);
	mt_json_double(&j, 1.0 / 0.0);
	mt_json_double(&j, 1.8e19); /* beyond int64_t: no cast before the range check (UBSan) */
	mt_json_double(&j, -1e300);
	mt_json_begin_object(&j);
	mt_json_end_object(&j);
	mt_json_end_array(&j);
	mt_json_kv_str(&j, "d", NULL);
	mt_json_end_object(&j);
}

TEST(json_structure)
{
	char *s = capture(w_doc);

	ASSERT_STREQ(s, "{\"a\":18446744073709551615,\"b\":-5,\"c\":[\"0x7fff0000\",null,true,0.25,"
			"null,1.8e+19,-1e+300,{}],\"d\":null}");
	free(s);
}

static void w_pretty(FILE *f)
{
	struct mt_json j;

	mt_json_init(&j, f, true);
	mt_json_begin_object(&j);
	mt_json_key(&j, "x");
	mt_json_begin_array(&j);
	mt_json_u64(&j, 1);
	mt_json_u64(&j, 2);
	mt_json_end_array(&j);
	mt_json_key(&j, "e");
	mt_json_begin_array(&j);
	mt_json_end_array(&j);
	mt_json_end_object(&j);
}

TEST(json_pretty)
{
	char *s = capture(w_pretty);

	ASSERT_STREQ(s, "{\n  \"x\": [\n    1,\n    2\n  ],\n  \"e\": []\n}");
	free(s);
}

static void w_csv(FILE *f)
{
	mt_csv_cell(f, "plain", 5, true);
	mt_csv_cell(f, "a,b", 3, false);
	mt_csv_cell(f, "say \"hi\"", 8, false);
	mt_csv_cell(f, "two\nlines", 9, false);
	mt_csv_cell(f, "", 0, false);
}

TEST(csv_quoting)
{
	char *s = capture(w_csv);

	ASSERT_STREQ(s, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",");
	free(s);
}

static void w_formulas(FILE *f)
{
	static const char *const cells[] = { "=1+2",	"+cmd", "-x",  "@SUM(A1)", "\tx", "-12",
					     "+3.5e-7", "-",	"a=b", "-1e",	   "-.5" };

	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++)
		mt_csv_cell(f, cells[i], strlen(cells[i]), i == 0);
}

TEST(csv_formulas_neutralised)
{
	char *s = capture(w_formulas);

	/* OWASP: text a spreadsheet would evaluate gets a leading '; numbers stay numbers */
	ASSERT_STREQ(s, "\"'=1+2\",\"'+cmd\",\"'-x\",\"'@SUM(A1)\",\"'\tx\",-12,+3.5e-7,\"'-\",a=b,"
			"\"'-1e\",-.5");
	free(s);
	mt_csv_raw = true;
	s = capture(w_formulas);
	mt_csv_raw = false;
	ASSERT_STREQ(s, "=1+2,+cmd,-x,@SUM(A1),\tx,-12,+3.5e-7,-,a=b,-1e,-.5");
	free(s);
}

static void w_table(FILE *f)
{
	static const char *const heads[] = { "name", ">count" };
	struct mt_table t;

	mt_table_init(&t, 2, heads);
	mt_table_add(&t, "alpha");
	mt_table_add(&t, "1");
	mt_table_add(&t, "b\x01");
	mt_table_addf(&t, "%d", 12345);
	mt_table_print(&t, f, 2, true);
	mt_table_release(&t);
}

TEST(table_alignment)
{
	char *s = capture(w_table);

	ASSERT_STREQ(s, "  name   count\n  alpha      1\n  b?     12345\n");
	free(s);
}
