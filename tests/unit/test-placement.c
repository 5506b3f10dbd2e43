/* SPDX-License-Identifier: MIT */
/* What-if placement's arithmetic on recorded-sample figures (counting samples, as PEBS and
 * IBS give, which this machine cannot record), and the tier model's parser. */
#include <math.h>

#include "mt-test.h"

#include "analysis/placement.h"
#include "analysis/tiers.h"

MT_TEST_MAIN()

#define CLOSE(a, b) (fabs((a) - (b)) <= 1e-9 * fabs(b) + 1e-15)

static const char model[] = "tiers:\n"
			    "  - {name: dram, read_latency_ns: 100, write_latency_ns: 100}\n"
			    "  - {name: far, read_latency_ns: 250, write_latency_ns: 400}\n"
			    "  - {name: mrm, read_latency_ns: 100, write_latency_ns: 600, "
			    "retention_s: 30}\n";

/* Two candidates, mem-loads at period 2003 over a 10 s run: each column by its formula. */
TEST(placement_counts)
{
	struct mt_tiers t;
	char err[256];
	struct mt_candidate c[2] = {
		{ .bytes = 64 << 20,
		  .read_samples = 400,
		  .write_samples = 100,
		  .refresh_known = true },
		{ .bytes = 1 << 20, .read_samples = 9, .write_samples = 0, .refresh_known = false },
	};
	struct mt_place_in in = { .cands = c,
				  .ncands = 2,
				  .tiers = &t,
				  .run_s = 10.0,
				  .period = 2003,
				  .unit = "loads",
				  .page_writes = true };
	struct mt_placement *p;
	size_t n;

	c[0].refresh_bytes[0][0] = 3.0 * (64 << 20);
	c[0].refresh_bytes[0][1] = 2.0 * (64 << 20);
	c[0].refresh_bytes[0][2] = 3.0 * (64 << 20);
	ASSERT_EQ(mt_tiers_parse(model, sizeof(model) - 1, "m.yaml", &t, err, sizeof(err)), 0);
	ASSERT_EQ(t.n, 3);
	ASSERT_EQ(mt_placement_build(&in, &p, &n), 0);
	ASSERT_EQ(n, 4);
	for (size_t i = 0; i < n; i++) {
		const struct mt_candidate *x = &c[p[i].cand];
		const struct mt_tier *d = &t.v[0], *k = &t.v[p[i].tier];
		double reads = (double)x->read_samples * 2003,
		       writes = (double)x->write_samples * 2003;
		double added =
			(reads * (k->read_ns - d->read_ns) + writes * (k->write_ns - d->write_ns)) *
			1e-9;

		ASSERT_TRUE(CLOSE(p[i].read_bps, reads * 64 / 10.0));
		ASSERT_TRUE(CLOSE(p[i].read_bps_err,
				  1.96 * sqrt((double)x->read_samples) * 2003 * 64 / 10.0));
		ASSERT_TRUE(CLOSE(p[i].write_bps, writes * 64 / 10.0));
		ASSERT_TRUE(CLOSE(p[i].added_s, added));
		ASSERT_TRUE(isnan(p[i].read_time_s));
		if (p[i].tier == 1) {
			ASSERT_TRUE(p[i].refresh_bytes == 0 && p[i].refresh_s == 0);
		} else if (p[i].cand == 0) {
			ASSERT_TRUE(CLOSE(p[i].refresh_bytes, 3.0 * (64 << 20)));
			ASSERT_TRUE(CLOSE(p[i].refresh_lo, 2.0 * (64 << 20)));
			ASSERT_TRUE(CLOSE(p[i].refresh_bps, 3.0 * (64 << 20) / 10.0));
			ASSERT_TRUE(CLOSE(p[i].refresh_s, 3.0 * (64 << 20) / 64 * 600e-9));
		} else {
			ASSERT_TRUE(isnan(p[i].refresh_bytes) && isnan(p[i].cost_s));
		}
		if (!isnan(p[i].cost_s)) {
			ASSERT_TRUE(CLOSE(p[i].cost_s, p[i].added_s + p[i].refresh_s));
			ASSERT_TRUE(CLOSE(p[i].score, (double)x->bytes / p[i].cost_s));
		}
	}
	/* ranked: known costs by DRAM freed per second of cost, then the unknown one */
	ASSERT_TRUE(p[0].score >= p[1].score && p[1].score >= p[2].score);
	ASSERT_TRUE(isnan(p[3].score) && p[3].cand == 1 && p[3].tier == 2);
	free(p);
}

/* cpu-clock samples give time, not counts; cycles give neither; none give nothing. */
TEST(placement_bases)
{
	struct mt_tiers t;
	struct mt_candidate c = { .bytes = 4096, .read_samples = 100, .write_samples = 25 };
	struct mt_place_in in = {
		.cands = &c, .ncands = 1, .tiers = &t, .run_s = 2.0, .period = 1000000, .unit = "ns"
	};
	struct mt_placement *p;
	size_t n;

	mt_tiers_default(&t);
	c.read_samples = 140, c.spin_samples = 40; /* a spin-wait's loads are left out */
	ASSERT_EQ(mt_place_basis_of(1000000, "ns"), MT_PLACE_TIME);
	ASSERT_EQ(mt_place_basis_of(2003, "loads"), MT_PLACE_COUNTS);
	ASSERT_EQ(mt_place_basis_of(100000, "cycles"), MT_PLACE_CYCLES);
	ASSERT_EQ(mt_place_basis_of(0, NULL), MT_PLACE_NONE);
	ASSERT_EQ(mt_placement_build(&in, &p, &n), 0);
	ASSERT_EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		const struct mt_tier *k = &t.v[p[i].tier];

		ASSERT_TRUE(CLOSE(p[i].read_time_s, 0.1) && CLOSE(p[i].write_time_s, 0.025));
		ASSERT_TRUE(CLOSE(p[i].time_err_s, 1.96 * sqrt(125.0) * 1e-3));
		ASSERT_TRUE(CLOSE(p[i].added_s,
				  0.1 * (k->read_ns / 90 - 1) + 0.025 * (k->write_ns / 90 - 1)));
		ASSERT_TRUE(isnan(p[i].read_bps));
		/* no page writes known for it: the MRM's rewrites are unknown */
		ASSERT_TRUE(k->retention_s > 0 ? isnan(p[i].refresh_bytes)
					       : p[i].refresh_bytes == 0);
	}
	free(p);
	in.unit = "cycles";
	ASSERT_EQ(mt_placement_build(&in, &p, &n), 0);
	ASSERT_TRUE(isnan(p[0].added_s) && isnan(p[0].read_time_s) && isnan(p[0].read_bps));
	free(p);
}

static void bad(const char *yaml, const char *want)
{
	struct mt_tiers t;
	char err[256] = "";

	if (mt_tiers_parse(yaml, strlen(yaml), "t.yaml", &t, err, sizeof(err)) != -1)
		MT_FAIL("accepted: %s", yaml);
	if (!strstr(err, want) || strncmp(err, "t.yaml:", 7))
		MT_FAIL("'%s': wanted '%s'", err, want);
}

TEST(tiers_parse)
{
	struct mt_tiers t;
	double r[MT_TIERS_MAX_R];
	char err[256];

	ASSERT_EQ(mt_tiers_parse(model, sizeof(model) - 1, "m.yaml", &t, err, sizeof(err)), 0);
	ASSERT_STREQ(t.v[1].name, "far");
	ASSERT_TRUE(t.v[1].write_ns == 400 && t.v[2].retention_s == 30);
	ASSERT_EQ(mt_tiers_retentions(&t, r), 1);
	ASSERT_TRUE(r[0] == 30);
	ASSERT_STREQ(t.source, "m.yaml");
	mt_tiers_default(&t);
	ASSERT_EQ(t.n, 3);
	ASSERT_STREQ(t.source, "built-in");
	bad("", "empty file");
	bad("tiers: 3\n", "must be a list");
	bad("tier: []\n", "unknown key 'tier'");
	bad("tiers:\n  - {name: dram, read_latency_ns: 90, write_latency_ns: 90}\n",
	    "at least two");
	bad("tiers:\n  - {name: a, read_latency_ns: 9, write_latency_ns: 9}\n  - {name: b, "
	    "read_latency_ns: 9}\n",
	    "without 'write_latency_ns'");
	bad("tiers:\n  - {name: a, read_latency_ns: 9, write_latency_ns: 9}\n  - {name: b, "
	    "read_latency_ns: -1, write_latency_ns: 9}\n",
	    "greater than 0");
	bad("tiers:\n  - {name: a, read_latency_ns: 9, write_latency_ns: 9}\n  - {name: b, "
	    "read_latency_ns: 9, write_latency_ns: 9, retention_s: 0}\n",
	    "'retention_s' must be greater than 0");
	bad("tiers:\n  - {name: a, read_latency_ns: 9, write_latency_ns: 9, retention_s: 5}\n  - "
	    "{name: b, read_latency_ns: 9, write_latency_ns: 9}\n",
	    "no retention_s");
	bad("tiers:\n  - {name: a, read_latency_ns: 9, write_latency_ns: 9}\n  - {name: a, "
	    "read_latency_ns: 9, write_latency_ns: 9}\n",
	    "given twice");
	bad("tiers:\n  - {name: a, read_latency_ns: nan, write_latency_ns: 9}\n", "a number");
	bad("tiers:\n  - {name: a, read_latency_ns: 9, write_latency_ns: 9, speed: 3}\n",
	    "unknown key 'speed'");
	bad("tiers: [\n", "YAML syntax error");
}
