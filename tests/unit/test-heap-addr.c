/* SPDX-License-Identifier: MIT */
/* Unit tests of the HEAP_ADDR column encoding: round trips, fallbacks, bad codes. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/varint.h"
#include "format/block.h"
#include "format/heap-addr.h"
#include "mt-test.h"

MT_TEST_MAIN()

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void add(struct mt_block *b, uint64_t t, unsigned kind, uint64_t addr, uint64_t usable,
		uint64_t old)
{
	uint64_t row[_MT_F_ALLOC_MAX] = { 0 };

	row[MT_F_TIME] = t;
	row[MT_F_PID] = 7;
	row[MT_F_TID] = 7 + (t & 1);
	row[MT_F_ALLOC_KIND] = kind;
	row[MT_F_ALLOC_ADDR] = addr;
	row[MT_F_ALLOC_SIZE] = usable ? usable - 3 : 0;
	row[MT_F_ALLOC_USABLE] = usable;
	row[MT_F_ALLOC_OLD] = old;
	row[MT_F_ALLOC_STACK] = t % 5;
	ASSERT_EQ(mt_block_add(b, row), 0);
}

/* A heap of a glibc-like allocator: fresh blocks cut in a row, freed ones reused last in
 * first out, frees of recent and of old blocks, reallocs, realloc(p, 0), a block from
 * another arena far away. */
static void fill(struct mt_block *b, unsigned n)
{
	uint64_t live[512], freed[512], top = 0x55550000a000ull, t = 1000;
	unsigned nlive = 0, nfreed = 0;

	while (b->count < n) {
		uint64_t r = next();

		if (nlive && (r % 3 == 0 || nlive == 512)) { /* a free: recent or old */
			unsigned i = r % 7 ? nlive - 1 : (unsigned)(r >> 8) % nlive;

			add(b, t++, MT_ALLOC_FREE, live[i], 0, 0);
			if (nfreed < 512)
				freed[nfreed++] = live[i];
			live[i] = live[--nlive];
		} else if (r % 11 == 1 && nlive) { /* realloc, moving it */
			uint64_t a = top;

			top += 112;
			add(b, t++, MT_ALLOC_REALLOC, a, 104, live[nlive - 1]);
			live[nlive - 1] = a;
		} else if (r % 13 == 2 && nlive) { /* realloc(p, 0): a free, addr 0 */
			add(b, t++, MT_ALLOC_REALLOC, 0, 0, live[--nlive]);
		} else {
			uint64_t usable = 24 + 16 * ((r >> 16) % 9), a = top;

			if (r % 17 == 3)
				a = 0x7f0000001000ull + (r & 0xfff0); /* another arena */
			else if (nfreed && r % 4) /* the block freed last, as tcache does */
				a = freed[--nfreed];
			else
				top += usable + 8;
			add(b, t++, r % 5 ? MT_ALLOC_MALLOC : MT_ALLOC_CALLOC, a, usable, 0);
			live[nlive++] = a;
		}
	}
}

/* The encoding byte of field f's column in an encoded block, or NULL. */
static uint8_t *column(struct mt_buf *out, uint64_t f)
{
	const uint8_t *q = out->data, *end = out->data + out->len;
	uint64_t ncols, field, len;

	if (mt_varint_get(&q, end, &ncols) < 0)
		return NULL;
	for (uint64_t k = 0; k < ncols; k++) {
		if (mt_varint_get(&q, end, &field) < 0)
			return NULL;
		if (field == f)
			return (uint8_t *)q;
		q++;
		if (mt_varint_get(&q, end, &len) < 0)
			return NULL;
		q += len;
	}
	return NULL;
}

static size_t round_trip(const struct mt_block *b, struct mt_buf *out)
{
	struct mt_block d;

	out->len = 0;
	ASSERT_EQ(mt_block_encode(b, out), 0);
	ASSERT_EQ(mt_block_init(&d, MT_EV_ALLOC, b->count), 0);
	ASSERT_EQ(mt_block_decode(&d, out->data, out->len, b->count), 0);
	for (unsigned f = 0; f < b->nfields; f++)
		for (uint32_t i = 0; i < b->count; i++)
			ASSERT_EQ_U(d.col[f][i], b->col[f][i]);
	mt_block_release(&d);
	return out->len;
}

TEST(round_trips_and_is_smaller)
{
	struct mt_block b;
	struct mt_buf out;
	uint8_t codes[20000 * MT_VARINT_MAX];
	size_t heap;

	ASSERT_EQ(mt_block_init(&b, MT_EV_ALLOC, 20000), 0);
	fill(&b, 20000);
	mt_buf_init(&out, 8 << 20);
	round_trip(&b, &out);
	ASSERT_EQ(*column(&out, MT_F_ALLOC_ADDR), MT_ENC_HEAP_ADDR);
	/* the model's codes against DELTA's on the same addresses */
	heap = mt_heap_addr_encode(&b, codes);
	ASSERT_TRUE(heap > 0);
	{
		size_t delta = 0;

		for (uint32_t i = 0; i < b.count; i++) {
			uint64_t d =
				b.col[MT_F_ALLOC_ADDR][i] - (i ? b.col[MT_F_ALLOC_ADDR][i - 1] : 0);

			delta += mt_varint_len((d << 1) ^ (uint64_t)((int64_t)d >> 63));
		}
		printf("# codes %zu bytes, DELTA %zu bytes\n", heap, delta);
		ASSERT_TRUE(heap * 3 < delta * 2); /* before compression; after: bench/perf.sh */
	}
	mt_buf_release(&out);
	mt_block_release(&b);
}

TEST(every_prefix_length_round_trips)
{
	struct mt_buf out;

	mt_buf_init(&out, 1 << 20);
	for (unsigned n = 1; n < 300; n += 7) {
		struct mt_block b;

		rng = 12345 + n;
		ASSERT_EQ(mt_block_init(&b, MT_EV_ALLOC, n), 0);
		fill(&b, n);
		round_trip(&b, &out);
		mt_block_release(&b);
	}
	mt_buf_release(&out);
}

TEST(addresses_outside_user_space_keep_a_generic_encoding)
{
	struct mt_block b;
	struct mt_buf out;
	uint8_t codes[64 * MT_VARINT_MAX];

	ASSERT_EQ(mt_block_init(&b, MT_EV_ALLOC, 64), 0);
	fill(&b, 63);
	add(&b, 5000, MT_ALLOC_MALLOC, UINT64_MAX - 15, 24, 0);
	ASSERT_EQ(mt_heap_addr_encode(&b, codes), (size_t)0);
	mt_buf_init(&out, 1 << 16);
	round_trip(&b, &out);
	ASSERT_TRUE(*column(&out, MT_F_ALLOC_ADDR) != MT_ENC_HEAP_ADDR);
	mt_buf_release(&out);
	mt_block_release(&b);
}

/* Codes the model cannot have made: a place beyond its lists. */
TEST(impossible_codes_are_corrupt)
{
	struct mt_block b, d;
	struct mt_buf out;
	uint8_t *c;

	/* realloc(p, 0) first: address 0, at distance 0 from where fresh memory starts (0),
	 * code 1; then a free of a block never seen, and one of a block just allocated */
	ASSERT_EQ(mt_block_init(&b, MT_EV_ALLOC, 4), 0);
	add(&b, 1, MT_ALLOC_REALLOC, 0, 0, 0x2000);
	add(&b, 2, MT_ALLOC_FREE, 0x3000, 0, 0);
	add(&b, 3, MT_ALLOC_MALLOC, 0x1000, 24, 0);
	add(&b, 4, MT_ALLOC_FREE, 0x1000, 0, 0);
	mt_buf_init(&out, 1 << 16);
	round_trip(&b, &out);
	c = column(&out, MT_F_ALLOC_ADDR);
	ASSERT_EQ(c[0], MT_ENC_HEAP_ADDR);
	ASSERT_EQ(c[2], 1);
	c[2] = 6; /* "entry 3 of the freed list", which is empty */
	ASSERT_EQ(mt_block_init(&d, MT_EV_ALLOC, 4), 0);
	ASSERT_EQ(mt_block_decode(&d, out.data, out.len, 4), -MT_ERR_CORRUPT);
	c[2] = 1;
	ASSERT_EQ(mt_block_decode(&d, out.data, out.len, 4), 0);
	ASSERT_EQ_U(d.col[MT_F_ALLOC_ADDR][3], 0x1000);
	mt_buf_release(&out);
	mt_block_release(&b);
	mt_block_release(&d);
}
