/* SPDX-License-Identifier: MIT */
/* Unit tests of the stack tables: round trips, references, canonical ids. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/reader.h"
#include "format/writer.h"
#include "mt-test.h"
#include "mt-test-trace.h"

MT_TEST_MAIN()

static struct mt_writer *new_writer(int *fd)
{
	struct mt_writer *w = NULL;

	*fd = memfd(NULL, 0);
	ASSERT_EQ(mt_writer_open_fd(*fd, NULL, &w), 0);
	return w;
}

static void drop(struct mt_reader *r, int fd, uint8_t *bytes)
{
	mt_reader_free(r);
	close(fd);
	free(bytes);
}

/* Finishes w (writing to wfd) and opens what it wrote: the reader, its fd in *rfd and the
 * bytes in *bytes (the caller frees all three). */
static struct mt_reader *reread(struct mt_writer *w, int wfd, int *rfd, uint8_t **bytes)
{
	struct mt_reader *r = NULL;
	size_t n;

	ASSERT_EQ(mt_writer_finish(w, NULL), 0);
	mt_writer_free(w);
	*bytes = slurp(wfd, &n);
	close(wfd);
	*rfd = open_bytes(*bytes, n, &r);
	ASSERT_TRUE(*rfd >= 0);
	return r;
}

TEST(stack_table_round_trip)
{
	/* Two stacks sharing a prefix: main <- run <- {alloc_a, alloc_b}, across two chunks. */
	const uint64_t p1[] = { 0, 1, 2 }, ip1[] = { 0x401000, 0x401200, 0x7f0000001000 };
	const uint64_t p2[] = { 2 }, ip2[] = { 0x401100 };
	const uint64_t bad_parent[] = { 9 };
	uint64_t ips[8];
	uint8_t *p;
	int fd;
	struct mt_writer *w = new_writer(&fd);
	struct mt_reader *r;

	ASSERT_EQ(mt_writer_stacks(w, 0, 1, 3, p1, ip1), 0);
	/* A later chunk may define ids out of order and refer to earlier nodes. */
	ASSERT_EQ(mt_writer_stacks(w, 0, 4, 1, p2, ip2), 0);
	/* A parent must have a smaller id: rejected before anything is written. */
	ASSERT_EQ(mt_writer_stacks(w, 0, 5, 1, bad_parent, ip2), -EINVAL);
	ASSERT_EQ(mt_writer_error(w), 0);
	r = reread(w, fd, &fd, &p);
	ASSERT_EQ(mt_reader_stack(r, 0, 3, ips, 8), 3);
	ASSERT_EQ_U(ips[0], 0x7f0000001000);
	ASSERT_EQ_U(ips[1], 0x401200);
	ASSERT_EQ_U(ips[2], 0x401000);
	ASSERT_EQ(mt_reader_stack(r, 0, 4, ips, 8), 3);
	ASSERT_EQ_U(ips[0], 0x401100);
	ASSERT_EQ_U(ips[1], 0x401200);
	/* Truncated output, unknown id, unknown stream, the empty stack. */
	ASSERT_EQ(mt_reader_stack(r, 0, 4, ips, 1), 1);
	ASSERT_EQ(mt_reader_stack(r, 0, 77, ips, 8), -1);
	ASSERT_EQ(mt_reader_stack(r, 5, 1, ips, 8), -1);
	ASSERT_EQ(mt_reader_stack(r, 0, 0, ips, 8), 0);
	drop(r, fd, p);
}

/*
 * A reference node stands for the innermost frames of another stack: a Python stack ending
 * in the native frames its innermost call made, as the runtime writes it. Expanded in
 * place; bounded by its count, by max and by the end of the stack it names; a duplicate of
 * the referenced stack (another id after a trie reset) folds into the same canonical id.
 */
TEST(stack_references_expand_in_place)
{
	/* 1 main <- 2 eval <- 3 PyList_New <- 4 malloc-caller (native, innermost 4);
	 * 5 <module> (Python) <- 6 ref(4, 2): PyList_New, malloc-caller under <module>;
	 * 7-10 the same native chain again (a reset), 11 <module> <- 12 ref(10, 2). */
	const uint64_t py = MT_PY_FRAME_BIT | 1ull << 24 | 5;
	const uint64_t par[] = { 0, 1, 2, 3, 1, 5, 0, 7, 8, 9, 7, 11, 5, 5 };
	const uint64_t ip[] = {
		0x401000,	    0x402000,		0x403000, 0x404000, py, MT_STACK_REF(4, 2),
		0x401000,	    0x402000,		0x403000, 0x404000, py, MT_STACK_REF(10, 2),
		MT_STACK_REF(4, 9), MT_STACK_REF(13, 1)
	};
	int fd;
	struct mt_writer *w = new_writer(&fd);
	struct mt_reader *r;
	uint64_t ips[8];
	uint8_t *p;

	ASSERT_EQ(mt_writer_stacks(w, 0, 1, 14, par, ip), 0);
	r = reread(w, fd, &fd, &p);
	ASSERT_EQ(mt_reader_stack(r, 0, 6, ips, 8), 4);
	ASSERT_EQ_U(ips[0], 0x404000);
	ASSERT_EQ_U(ips[1], 0x403000);
	ASSERT_EQ_U(ips[2], py);
	ASSERT_EQ_U(ips[3], 0x401000);
	/* bounded by max inside the reference */
	ASSERT_EQ(mt_reader_stack(r, 0, 6, ips, 1), 1);
	ASSERT_EQ_U(ips[0], 0x404000);
	/* a count beyond the referenced stack ends with it: 4 frames, then <module>, main */
	ASSERT_EQ(mt_reader_stack(r, 0, 13, ips, 8), 6);
	ASSERT_EQ_U(ips[3], 0x401000);
	ASSERT_EQ_U(ips[4], py);
	/* a reference to a reference is not expanded: nothing, then the parent's frames */
	ASSERT_EQ(mt_reader_stack(r, 0, 14, ips, 8), 2);
	ASSERT_EQ_U(ips[0], py);
	/* the same chain with other ids, and its reference, fold into one canonical id */
	ASSERT_EQ_U(mt_reader_stack_canon(r, 0, 10), mt_reader_stack_canon(r, 0, 4));
	ASSERT_EQ_U(mt_reader_stack_canon(r, 0, 12), mt_reader_stack_canon(r, 0, 6));
	drop(r, fd, p);
}
