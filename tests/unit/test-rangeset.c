/* SPDX-License-Identifier: MIT */
/* Unit tests of the range sets behind the region model: splits as the kernel splits vmas. */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/rangeset.h"
#include "mt-test.h"

MT_TEST_MAIN()

/* Maps [lo, hi) to value a, as on_mmap does: what was there is cut away first. */
static void map(struct mt_rs_pool *p, uint32_t *root, uint64_t lo, uint64_t hi, uint32_t a)
{
	uint32_t n;

	mt_rs_punch(p, root, lo, hi);
	n = mt_rs_new(p, lo, hi, a, 0);
	ASSERT_TRUE(n != 0);
	mt_rs_insert(p, root, n);
}

static uint32_t value_at(const struct mt_rs_pool *p, uint32_t root, uint64_t addr)
{
	uint32_t n = mt_rs_find(p, root, addr);

	return n ? p->v[n].a : 0;
}

TEST(punch_splits_and_keeps_the_rest)
{
	struct mt_rs_pool p = { 0 };
	uint32_t root = 0;

	map(&p, &root, 0x1000, 0x5000, 7);
	/* mprotect of the middle page: a new mapping over it, both sides stay region 7 */
	map(&p, &root, 0x2000, 0x3000, 8);
	ASSERT_EQ(value_at(&p, root, 0x1fff), 7);
	ASSERT_EQ(value_at(&p, root, 0x2000), 8);
	ASSERT_EQ(value_at(&p, root, 0x2fff), 8);
	ASSERT_EQ(value_at(&p, root, 0x3000), 7);
	ASSERT_EQ(value_at(&p, root, 0x4fff), 7);
	ASSERT_EQ(value_at(&p, root, 0x5000), 0);
	/* munmap across a boundary: what lies outside stays */
	mt_rs_punch(&p, &root, 0x2800, 0x3800);
	ASSERT_EQ(value_at(&p, root, 0x27ff), 8);
	ASSERT_EQ(value_at(&p, root, 0x2800), 0);
	ASSERT_EQ(value_at(&p, root, 0x37ff), 0);
	ASSERT_EQ(value_at(&p, root, 0x3800), 7);
	/* erase by start */
	mt_rs_erase(&p, &root, 0x1000, 0x1001);
	ASSERT_EQ(value_at(&p, root, 0x1000), 0);
	ASSERT_EQ(value_at(&p, root, 0x2000), 8);
	mt_rs_free(&p, root);
	free(p.v);
}

TEST(copy_is_independent)
{
	struct mt_rs_pool p = { 0 };
	uint32_t a = 0, b = 0;

	map(&p, &a, 0x1000, 0x2000, 1);
	map(&p, &a, 0x3000, 0x4000, 2);
	mt_rs_copy(&p, a, &b);
	mt_rs_punch(&p, &a, 0x1000, 0x4000);
	ASSERT_EQ(value_at(&p, a, 0x1000), 0);
	ASSERT_EQ(value_at(&p, b, 0x1000), 1);
	ASSERT_EQ(value_at(&p, b, 0x3fff), 2);
	ASSERT_EQ(mt_rs_find_le(&p, b, 0x2fff) != 0, 1);
	ASSERT_EQ(p.v[mt_rs_find_le(&p, b, 0x2fff)].start, 0x1000);
	mt_rs_free(&p, a);
	mt_rs_free(&p, b);
	free(p.v);
}

/* Random maps and unmaps against a plain array of the same addresses. */
TEST(matches_a_naive_model)
{
	enum { N = 512 };
	struct mt_rs_pool p = { .seed = 1 };
	uint32_t root = 0, naive[N] = { 0 };
	unsigned seed = 12345;

	for (int step = 0; step < 4000; step++) {
		uint64_t lo, hi;
		uint32_t a = (uint32_t)step + 1;

		seed = seed * 1103515245u + 12345u;
		lo = (seed >> 8) % N;
		seed = seed * 1103515245u + 12345u;
		hi = lo + 1 + (seed >> 8) % 64;
		if (hi > N)
			hi = N;
		if (step % 3 == 2) {
			mt_rs_punch(&p, &root, lo, hi);
			for (uint64_t i = lo; i < hi; i++)
				naive[i] = 0;
		} else {
			map(&p, &root, lo, hi, a);
			for (uint64_t i = lo; i < hi; i++)
				naive[i] = a;
		}
		if (step % 97 == 0 || step == 3999)
			for (uint64_t i = 0; i < N; i++)
				if (value_at(&p, root, i) != naive[i])
					MT_FAIL("step %d: address %llu holds %u, not %u", step,
						(unsigned long long)i, value_at(&p, root, i),
						naive[i]);
	}
	mt_rs_free(&p, root);
	free(p.v);
}
