/* SPDX-License-Identifier: MIT */
/* Unit tests of the trace container: round trip, truncation, corruption, versions. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "common/varint.h"
#include "common/hash.h"
#include "format/block.h"
#include "format/chunk.h"
#include "format/reader.h"
#include "format/schema.h"
#include "format/writer.h"
#include "mt-test.h"
#include "mt-test-trace.h"

MT_TEST_MAIN()

static const uint8_t fixed_id[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/*
 * A small trace: 3 processes, interleaved out of order across two types, small blocks so
 * there are several chunks of each type. Returns the bytes.
 */
#define NEV 60
static uint8_t *make_trace(size_t *n, uint32_t block_events, bool finish)
{
	struct mt_writer_opts o = { .run_id = fixed_id,
				    .realtime_ns = 1000,
				    .monotonic_ns = 5000,
				    .block_events = block_events };
	struct mt_writer *w;
	struct mt_kv kv;
	uint8_t *p;
	int fd = memfd(NULL, 0);

	if (mt_writer_open_fd(fd, &o, &w) < 0)
		abort();
	mt_kv_init(&kv);
	mt_kv_add(&kv, "command", "sh -c 'exit 3'");
	mt_kv_add_u64(&kv, "cpus", 2);
	if (mt_writer_kv(w, MT_CHUNK_META, &kv) < 0)
		abort();
	mt_kv_release(&kv);
	for (int i = 0; i < NEV; i++) {
		/* Times go 10000, 10100, ... but each type's rows arrive out of order. */
		uint64_t t = 10000 + (uint64_t)((i * 37) % NEV) * 100;

		if (i % 3 == 0) {
			uint64_t row[_MT_F_MMAP_MAX] = { t,
							 100 + i % 3,
							 100 + i % 3,
							 0x400000 + i * 4096,
							 4096,
							 0,
							 5,
							 2,
							 8,
							 1,
							 1000 + i,
							 mt_writer_str(w, "4a5b6c"),
							 mt_writer_str(w, i % 2 ? "/bin/sh"
										: "/lib/libc.so.6"),
							 MT_MMAP_PERF };
			if (mt_writer_event(w, MT_EV_MMAP, row) < 0)
				abort();
		} else {
			uint64_t row[_MT_F_EXIT_MAX] = { t,
							 100 + i % 3,
							 200 + i,
							 MT_TASK_THREAD,
							 (uint64_t)(int64_t)(i % 5 - 2),
							 0,
							 0,
							 1 };
			if (mt_writer_event(w, MT_EV_TASK_EXIT, row) < 0)
				abort();
		}
	}
	if (finish) {
		mt_kv_init(&kv);
		mt_kv_add(&kv, "exit_status", "3");
		if (mt_writer_finish(w, &kv) < 0)
			abort();
		mt_kv_release(&kv);
	} else if (mt_writer_flush(w) < 0) {
		abort();
	}
	mt_writer_free(w);
	p = slurp(fd, n);
	close(fd);
	return p;
}

/* Reads every event in order; checks ordering; returns the count. */
static int drain(struct mt_reader *r, int fd, uint64_t *sum_time)
{
	struct mt_cursor *c;
	struct mt_event ev;
	uint64_t last = 0;
	int n = 0, rc;

	if (mt_cursor_new(r, NULL, &c) < 0)
		abort();
	while ((rc = mt_cursor_next(c, &ev)) == 1) {
		if (ev.v[MT_F_TIME] < last)
			abort();
		last = ev.v[MT_F_TIME];
		if (sum_time)
			*sum_time += last;
		n++;
	}
	if (rc < 0)
		abort();
	mt_cursor_free(c);
	mt_reader_free(r);
	close(fd);
	return n;
}

TEST(round_trip)
{
	size_t n;
	uint8_t *p = make_trace(&n, 7, true);
	struct mt_reader *r;
	struct mt_cursor *c;
	struct mt_event ev;
	int fd = open_bytes(p, n, &r), seen = 0;
	uint64_t last = 0, lo, hi;

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(mt_reader_file(r)->major, MT_FORMAT_MAJOR);
	ASSERT_EQ(mt_reader_file(r)->realtime_ns, 1000);
	ASSERT_EQ(mt_reader_file(r)->run_id[0], 1);
	ASSERT_TRUE(!strncmp(mt_reader_file(r)->writer, "memtap ", 7));
	ASSERT_TRUE(mt_reader_integrity(r)->complete);
	ASSERT_TRUE(!mt_reader_integrity(r)->truncated);
	ASSERT_STREQ(mt_reader_meta(r, "command"), "sh -c 'exit 3'");
	ASSERT_STREQ(mt_reader_meta(r, "cpus"), "2");
	ASSERT_STREQ(mt_kvlist_get(mt_reader_end(r), "exit_status"), "3");
	ASSERT_EQ(mt_reader_event_count(r, MT_EV_MMAP), NEV / 3);
	ASSERT_EQ(mt_reader_event_count(r, MT_EV_TASK_EXIT), NEV - NEV / 3);
	ASSERT_TRUE(mt_reader_time_range(r, &lo, &hi));
	ASSERT_EQ(lo, 10000);
	ASSERT_EQ(hi, 10000 + (NEV - 1) * 100);

	ASSERT_EQ(mt_cursor_new(r, NULL, &c), 0);
	while (mt_cursor_next(c, &ev) == 1) {
		/* Every time appears exactly once, so order is fully determined. */
		ASSERT_EQ_U(ev.v[MT_F_TIME], 10000 + (uint64_t)seen * 100);
		ASSERT_TRUE(ev.v[MT_F_TIME] >= last);
		last = ev.v[MT_F_TIME];
		if (ev.type == MT_EV_MMAP) {
			const char *path = mt_reader_str(r, ev.stream, ev.v[MT_F_MMAP_PATH], NULL);

			ASSERT_TRUE(path &&
				    (!strcmp(path, "/bin/sh") || !strcmp(path, "/lib/libc.so.6")));
			ASSERT_STREQ(mt_reader_str(r, ev.stream, ev.v[MT_F_MMAP_BUILD_ID], NULL),
				     "4a5b6c");
			ASSERT_EQ(ev.v[MT_F_MMAP_LEN], 4096);
			ASSERT_EQ(ev.v[MT_F_MMAP_ORIGIN], MT_MMAP_PERF);
		} else {
			int64_t code = (int64_t)ev.v[MT_F_EXIT_CODE];

			ASSERT_TRUE(code >= -2 && code <= 2);
			ASSERT_EQ(ev.v[MT_F_EXIT_KIND], MT_TASK_THREAD);
		}
		seen++;
	}
	ASSERT_EQ(seen, NEV);
	mt_cursor_free(c);

	/* Filter by type and pid. */
	struct mt_cursor_opts o = { .type_mask = 1ull << MT_EV_MMAP, .by_pid = true, .pid = 100 };
	seen = 0;
	ASSERT_EQ(mt_cursor_new(r, &o, &c), 0);
	while (mt_cursor_next(c, &ev) == 1) {
		ASSERT_EQ(ev.type, MT_EV_MMAP);
		ASSERT_EQ(ev.v[MT_F_PID], 100);
		seen++;
	}
	ASSERT_EQ(seen, NEV / 3); /* every mmap row (i % 3 == 0) has pid 100 */
	mt_cursor_free(c);
	mt_reader_free(r);
	close(fd);
	free(p);
}

TEST(strings_are_interned_once)
{
	struct mt_writer *w;
	int fd = memfd(NULL, 0);
	uint32_t a, b, c;

	ASSERT_EQ(mt_writer_open_fd(fd, NULL, &w), 0);
	a = mt_writer_str(w, "hello");
	b = mt_writer_str(w, "world");
	c = mt_writer_str(w, "hello");
	ASSERT_TRUE(a && b && a != b);
	ASSERT_EQ(a, c);
	ASSERT_EQ(mt_writer_str(w, ""), 0);
	ASSERT_EQ(mt_writer_str(w, NULL), 0);
	for (int i = 0; i < 5000; i++) {
		char s[32];

		snprintf(s, sizeof(s), "s%d", i);
		ASSERT_EQ(mt_writer_str(w, s), mt_writer_str(w, s));
	}
	ASSERT_EQ(mt_writer_stats(w)->strings, 5002);
	mt_writer_free(w);
	close(fd);
}

/*
 * A writer that holds few string bytes forgets them once written: a path seen again gets a
 * new id; the reader gives every id of one text the first one, in every event field that
 * names a string, so grouping by id still groups by text. The table stays small.
 */
TEST(forgotten_strings_read_as_one_id)
{
	struct mt_writer_opts o = { .block_events = 64, .strtab_keep = 256 };
	struct mt_writer *w;
	struct mt_reader *r;
	struct mt_cursor *c;
	struct mt_event ev;
	int fd = memfd(NULL, 0), rfd, n = 0, rc;
	uint32_t first = 0, ids[3] = { 0, 0, 0 };
	uint64_t seen_same = 0, want_same = 0, path0 = 0;

	ASSERT_EQ(mt_writer_open_fd(fd, &o, &w), 0);
	for (int i = 0; i < 3000; i++) {
		uint64_t row[_MT_F_MMAP_MAX] = { 0 };
		char path[64];
		/* every 10th mapping is /lib/same.so, the others all different */
		bool same = i % 10 == 0;

		snprintf(path, sizeof(path), same ? "/lib/same.so" : "/tmp/unique-%d", i);
		row[MT_F_TIME] = 1000 + (uint64_t)i;
		row[MT_F_PID] = row[MT_F_TID] = 7;
		row[MT_F_MMAP_LEN] = 4096;
		row[MT_F_MMAP_PATH] = mt_writer_str(w, path);
		if (same) {
			want_same++;
			if (!first)
				first = (uint32_t)row[MT_F_MMAP_PATH];
			if (i == 0 || i == 1500 || i == 2990)
				ids[i == 0 ? 0 : i == 1500 ? 1 : 2] = (uint32_t)row[MT_F_MMAP_PATH];
		}
		ASSERT_EQ(mt_writer_event(w, MT_EV_MMAP, row), 0);
	}
	/* the table was emptied, and the repeated path got new ids */
	ASSERT_TRUE(mt_writer_stats(w)->strings_forgotten > 10);
	ASSERT_TRUE(ids[1] != ids[0] && ids[2] != ids[1]);
	ASSERT_EQ(mt_writer_finish(w, NULL), 0);
	mt_writer_free(w);
	rfd = fd;
	ASSERT_EQ(mt_reader_open_fd(rfd, &r), 0);
	ASSERT_EQ(mt_cursor_new(r, NULL, &c), 0);
	while ((rc = mt_cursor_next(c, &ev)) == 1) {
		const char *t = mt_reader_str(r, ev.stream, (uint32_t)ev.v[MT_F_MMAP_PATH], NULL);

		ASSERT_TRUE(t != NULL);
		if (!strcmp(t, "/lib/same.so")) {
			if (!path0)
				path0 = ev.v[MT_F_MMAP_PATH];
			seen_same += ev.v[MT_F_MMAP_PATH] == path0;
		}
		n++;
	}
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(n, 3000);
	ASSERT_EQ(path0, first);
	ASSERT_EQ(seen_same, want_same);
	mt_cursor_free(c);
	mt_reader_free(r);
	close(fd);
}

TEST(block_encodings)
{
	struct mt_block b, d;
	struct mt_buf out;
	uint64_t row[_MT_F_LOST_MAX];

	ASSERT_EQ(mt_block_init(&b, MT_EV_LOST, 100), 0);
	for (int i = 0; i < 100; i++) {
		row[MT_F_TIME] = 1000000 + (uint64_t)i * 3; /* delta */
		row[MT_F_PID] = 42; /* const */
		row[MT_F_TID] = (uint64_t)(i * 7919 % 101); /* varint */
		row[MT_F_LOST_COLLECTOR] = 1;
		row[MT_F_LOST_COUNT] = (uint64_t) - (int64_t)i; /* zigzag */
		row[MT_F_LOST_REASON] = UINT64_MAX;
		ASSERT_EQ(mt_block_add(&b, row), 0);
	}
	ASSERT_EQ(mt_block_add(&b, row), -ENOSPC);
	mt_buf_init(&out, 1 << 20);
	ASSERT_EQ(mt_block_encode(&b, &out), 0);
	/* Constant columns cost a few bytes; the whole block is far below 100 * 6 * 10. */
	ASSERT_TRUE(out.len < 600);
	ASSERT_EQ(mt_block_init(&d, MT_EV_LOST, 100), 0);
	ASSERT_EQ(mt_block_decode(&d, out.data, out.len, 100), 0);
	for (unsigned f = 0; f < b.nfields; f++)
		for (int i = 0; i < 100; i++)
			ASSERT_EQ_U(d.col[f][i], b.col[f][i]);
	/* Every truncation of the payload is rejected, never read past. */
	for (size_t cut = 0; cut < out.len; cut++)
		ASSERT_TRUE(mt_block_decode(&d, out.data, cut, 100) < 0);
	/* Too many rows for the block. */
	ASSERT_EQ(mt_block_decode(&d, out.data, out.len, 101), -MT_ERR_LIMIT);
	mt_buf_release(&out);
	mt_block_release(&b);
	mt_block_release(&d);
}

TEST(block_sort_is_stable)
{
	struct mt_block b;
	uint64_t row[_MT_F_COMM_MAX];

	ASSERT_EQ(mt_block_init(&b, MT_EV_TASK_COMM, 64), 0);
	for (int i = 0; i < 64; i++) {
		row[MT_F_TIME] = (uint64_t)(63 - i) / 4; /* descending, groups of 4 equal times */
		row[MT_F_PID] = 1;
		row[MT_F_TID] = (uint64_t)i;
		row[MT_F_COMM_COMM] = 0;
		ASSERT_EQ(mt_block_add(&b, row), 0);
	}
	ASSERT_EQ(mt_block_sort(&b, NULL), 0);
	for (int i = 1; i < 64; i++) {
		ASSERT_TRUE(b.col[MT_F_TIME][i - 1] <= b.col[MT_F_TIME][i]);
		if (b.col[MT_F_TIME][i - 1] == b.col[MT_F_TIME][i])
			ASSERT_TRUE(b.col[MT_F_TID][i - 1] < b.col[MT_F_TID][i]);
	}
	mt_block_release(&b);
}

TEST(truncation_at_every_byte)
{
	size_t n, full;
	uint8_t *p = make_trace(&n, 5, true);
	struct mt_reader *r;
	int fd = open_bytes(p, n, &r);

	full = (size_t)drain(r, fd, NULL);
	ASSERT_EQ(full, NEV);
	for (size_t cut = 0; cut < n; cut++) {
		const struct mt_integrity *in;
		int events;

		fd = open_bytes(p, cut, &r);
		if (cut == 0) {
			ASSERT_EQ(fd, -MT_ERR_FORMAT);
			continue;
		}
		if (cut < MT_FILE_MAGIC_LEN) {
			ASSERT_EQ(fd, -MT_ERR_FORMAT);
			continue;
		}
		if (cut < MT_FILE_HEADER_SIZE) {
			ASSERT_EQ(fd, -MT_ERR_TRUNCATED);
			continue;
		}
		ASSERT_TRUE(fd >= 0);
		in = mt_reader_integrity(r);
		/* Only the last byte completes the END chunk. */
		ASSERT_TRUE(!in->complete);
		ASSERT_EQ(in->corrupt_chunks, 0);
		ASSERT_EQ(in->damaged_regions, 0);
		if (in->truncated)
			ASSERT_EQ(in->truncated_offset + in->truncated_bytes, cut);
		events = drain(r, fd, NULL);
		ASSERT_TRUE(events >= 0 && (size_t)events <= full);
	}
	free(p);
}

TEST(truncation_reports_lost_chunk)
{
	size_t n;
	uint8_t *p = make_trace(&n, 5, true);
	struct mt_reader *r;
	const struct mt_integrity *in;
	int fd;

	/* Cut 10 bytes before the end: inside the END chunk's payload or header. */
	fd = open_bytes(p, n - 10, &r);
	ASSERT_TRUE(fd >= 0);
	in = mt_reader_integrity(r);
	ASSERT_TRUE(in->truncated);
	ASSERT_TRUE(in->truncated_hdr_known);
	ASSERT_EQ(in->truncated_hdr.type, MT_CHUNK_END);
	ASSERT_EQ(drain(r, fd, NULL), NEV);
	free(p);
}

TEST(flipped_bits_are_detected)
{
	size_t n;
	uint8_t *p = make_trace(&n, 5, true);
	uint8_t *q = malloc(n);

	for (size_t off = MT_FILE_HEADER_SIZE; off < n; off++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct mt_reader *r;
			const struct mt_integrity *in;
			int fd, events;

			memcpy(q, p, n);
			q[off] ^= (uint8_t)(1u << bit);
			fd = open_bytes(q, n, &r);
			ASSERT_TRUE(fd >= 0);
			ASSERT_EQ(mt_reader_verify(r), 0);
			in = mt_reader_integrity(r);
			/* Every single flip is noticed somewhere. */
			ASSERT_TRUE(in->corrupt_chunks + in->damaged_regions > 0 || in->truncated ||
				    !in->complete);
			events = drain(r, fd, NULL);
			ASSERT_TRUE(events <= NEV);
		}
	}
	free(q);
	free(p);
}

TEST(flipped_payload_bit_loses_only_that_chunk)
{
	size_t n;
	uint8_t *p = make_trace(&n, 5, true);
	struct mt_reader *r;
	const struct mt_integrity *in;
	uint64_t off = MT_FILE_HEADER_SIZE;
	int fd, events, seen_events = 0;

	/* Find the second EVENTS chunk and flip a bit in the middle of its payload. */
	for (;;) {
		struct mt_chunk_hdr h;

		ASSERT_EQ(mt_chunk_hdr_unpack(p + off, &h), 0);
		if (h.type == MT_CHUNK_EVENTS && ++seen_events == 2) {
			p[off + MT_CHUNK_HEADER_SIZE + h.payload_size / 2] ^= 0x10;
			fd = open_bytes(p, n, &r);
			ASSERT_TRUE(fd >= 0);
			ASSERT_EQ(mt_reader_verify(r), 0);
			in = mt_reader_integrity(r);
			ASSERT_EQ(in->corrupt_chunks, 1);
			ASSERT_EQ(in->corrupt_events, h.count);
			ASSERT_EQ(in->first_damage_offset, off);
			ASSERT_TRUE(in->complete);
			events = drain(r, fd, NULL);
			ASSERT_EQ(events, NEV - (int)h.count);
			break;
		}
		off += MT_CHUNK_HEADER_SIZE + h.payload_size;
	}
	free(p);
}

TEST(damaged_header_resyncs)
{
	size_t n;
	uint8_t *p = make_trace(&n, 5, true);
	struct mt_reader *r;
	const struct mt_integrity *in;
	struct mt_chunk_hdr h;
	uint64_t off = MT_FILE_HEADER_SIZE;
	int fd;

	/* Skip the META chunk and damage the next header's length field. */
	ASSERT_EQ(mt_chunk_hdr_unpack(p + off, &h), 0);
	off += MT_CHUNK_HEADER_SIZE + h.payload_size;
	ASSERT_EQ(mt_chunk_hdr_unpack(p + off, &h), 0);
	p[off + 17] ^= 0xff;
	fd = open_bytes(p, n, &r);
	ASSERT_TRUE(fd >= 0);
	in = mt_reader_integrity(r);
	ASSERT_EQ(in->damaged_regions, 1);
	ASSERT_EQ(in->skipped_bytes, MT_CHUNK_HEADER_SIZE + h.payload_size);
	ASSERT_TRUE(in->complete);
	/* Strings of that chunk may be lost, but every event chunk after it is read. */
	ASSERT_TRUE(drain(r, fd, NULL) > 0);
	free(p);
}

TEST(wrong_magic_and_versions)
{
	size_t n;
	uint8_t *p = make_trace(&n, 16, true);
	struct mt_reader *r;
	int fd;

	p[1] = 'X';
	ASSERT_EQ(open_bytes(p, n, &r), -MT_ERR_FORMAT);
	p[1] = 'M';
	/* Unknown major version: refused, even though the rest is fine. */
	mt_put_le16(p + MT_FILE_HDR_OFF_MAJOR, 2);
	ASSERT_EQ(open_bytes(p, n, &r), -MT_ERR_VERSION);
	mt_put_le16(p + MT_FILE_HDR_OFF_MAJOR, 1);
	/* A flipped header byte: the header checksum catches it. */
	p[MT_FILE_HDR_OFF_REALTIME] ^= 1;
	ASSERT_EQ(open_bytes(p, n, &r), -MT_ERR_CORRUPT);
	p[MT_FILE_HDR_OFF_REALTIME] ^= 1;
	fd = open_bytes(p, n, &r);
	ASSERT_TRUE(fd >= 0);
	drain(r, fd, NULL);
	/* Text that is not a trace. */
	ASSERT_EQ(open_bytes((const uint8_t *)"hello, world\n", 13, &r), -MT_ERR_FORMAT);
	free(p);
}

/* Builds a file as a newer minor version would: bigger header, unknown chunk type, unknown
 * event type, an extra column. */
TEST(newer_minor_is_readable)
{
	struct mt_buf f, pl;
	struct mt_chunk_hdr h = { 0 };
	uint8_t hdr[128] = { 0 }, ch[MT_CHUNK_HEADER_SIZE];
	struct mt_reader *r;
	struct mt_cursor *c;
	struct mt_event ev;
	int fd, n = 0;

	mt_buf_init(&f, 1 << 20);
	mt_buf_init(&pl, 1 << 20);
	memcpy(hdr, MT_FILE_MAGIC, MT_FILE_MAGIC_LEN);
	mt_put_le32(hdr + MT_FILE_HDR_OFF_SIZE, sizeof(hdr));
	mt_put_le16(hdr + MT_FILE_HDR_OFF_MAJOR, MT_FORMAT_MAJOR);
	mt_put_le16(hdr + MT_FILE_HDR_OFF_MINOR, MT_FORMAT_MINOR + 7);
	mt_put_le32(hdr + sizeof(hdr) - 4, mt_crc32c(0, hdr, sizeof(hdr) - 4));
	mt_buf_append(&f, hdr, sizeof(hdr));

	/* An unknown chunk type 99. */
	h.type = 99;
	h.raw_size = h.payload_size = 3;
	h.payload_crc = mt_crc32c(0, "abc", 3);
	mt_chunk_hdr_pack(&h, ch);
	mt_buf_append(&f, ch, sizeof(ch));
	mt_buf_append(&f, "abc", 3);

	/* A task_comm block with an extra column (field 9) and an unknown event type 77. */
	for (int pass = 0; pass < 2; pass++) {
		mt_buf_reset(&pl);
		mt_buf_put_varint(&pl, 5);
		for (unsigned fld = 0; fld < 5; fld++) {
			unsigned id = fld < 4 ? fld : 9;

			mt_buf_put_varint(&pl, id);
			mt_buf_putc(&pl, MT_ENC_CONST);
			mt_buf_put_varint(&pl, 1);
			mt_buf_put_varint(&pl, id == 0 ? 50 : 7);
		}
		memset(&h, 0, sizeof(h));
		h.type = MT_CHUNK_EVENTS;
		h.subtype = pass ? 77 : MT_EV_TASK_COMM;
		h.count = 3;
		h.t_min = h.t_max = 50;
		h.raw_size = h.payload_size = (uint32_t)pl.len;
		h.payload_crc = mt_crc32c(0, pl.data, pl.len);
		mt_chunk_hdr_pack(&h, ch);
		mt_buf_append(&f, ch, sizeof(ch));
		mt_buf_append(&f, pl.data, pl.len);
	}
	fd = open_bytes(f.data, f.len, &r);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(mt_reader_file(r)->minor, MT_FORMAT_MINOR + 7);
	ASSERT_EQ(mt_reader_event_count(r, MT_EV_TASK_COMM), 3);
	ASSERT_EQ(mt_reader_unknown_events(r), 3);
	ASSERT_EQ(mt_reader_verify(r), 0);
	ASSERT_EQ(mt_reader_integrity(r)->corrupt_chunks, 0);
	ASSERT_EQ(mt_cursor_new(r, NULL, &c), 0);
	while (mt_cursor_next(c, &ev) == 1) {
		ASSERT_EQ(ev.type, MT_EV_TASK_COMM);
		ASSERT_EQ(ev.v[MT_F_TIME], 50);
		ASSERT_EQ(ev.v[MT_F_PID], 7);
		n++;
	}
	ASSERT_EQ(n, 3);
	mt_cursor_free(c);
	mt_reader_free(r);
	close(fd);
	mt_buf_release(&f);
	mt_buf_release(&pl);
}

TEST(no_end_record_when_not_finished)
{
	size_t n;
	uint8_t *p = make_trace(&n, 16, false);
	struct mt_reader *r;
	int fd = open_bytes(p, n, &r);

	ASSERT_TRUE(fd >= 0);
	ASSERT_TRUE(!mt_reader_integrity(r)->complete);
	ASSERT_TRUE(!mt_reader_integrity(r)->truncated);
	ASSERT_TRUE(mt_reader_end(r) == NULL);
	ASSERT_EQ(drain(r, fd, NULL), NEV);
	free(p);
}

TEST(kv_decode_rejects_bad_lengths)
{
	struct mt_kv kv;
	struct mt_buf b;
	struct mt_kvlist l;

	mt_kv_init(&kv);
	mt_buf_init(&b, 1 << 16);
	mt_kv_add(&kv, "a", "1");
	mt_kv_add(&kv, "name", "process");
	mt_kv_add(&kv, "a", "2");
	mt_kv_encode(&kv, &b);
	ASSERT_EQ(mt_kvlist_decode(b.data, b.len, &l), 0);
	ASSERT_EQ(l.n, 3);
	ASSERT_STREQ(mt_kvlist_get(&l, "a"), "2");
	ASSERT_STREQ(mt_kvlist_get(&l, "name"), "process");
	ASSERT_TRUE(mt_kvlist_get(&l, "zz") == NULL);
	mt_kvlist_release(&l);
	for (size_t cut = 0; cut < b.len; cut++)
		ASSERT_TRUE(mt_kvlist_decode(b.data, cut, &l) < 0);
	mt_kv_release(&kv);
	mt_buf_release(&b);
}

TEST(schema_is_consistent)
{
	for (unsigned t = 0; t < _MT_EV_MAX; t++) {
		const struct mt_type_desc *d = mt_type_desc(t);

		if (!d)
			continue;
		ASSERT_EQ(mt_type_by_name(d->name), (int)t);
		ASSERT_TRUE(d->nfields <= MT_MAX_FIELDS);
		ASSERT_STREQ(d->fields[MT_F_TIME].name, "time_ns");
		ASSERT_STREQ(d->fields[MT_F_PID].name, "pid");
		ASSERT_STREQ(d->fields[MT_F_TID].name, "tid");
		for (unsigned f = 0; f < d->nfields; f++)
			ASSERT_TRUE(d->fields[f].name && d->fields[f].doc);
	}
	ASSERT_TRUE(mt_type_desc(0) == NULL);
	ASSERT_TRUE(mt_type_desc(_MT_EV_MAX) == NULL);
	ASSERT_EQ(mt_type_by_name("nope"), -1);
}

/* A trace of n events from three interleaved producers (types mmap and task_exit, two pids),
 * in blocks of 700: the merge has several blocks open at once. ties: four events at each time,
 * all of pid 100. */
static uint8_t *make_big_trace(size_t *len, int nev, int corrupt_chunk, bool ties)
{
	struct mt_writer_opts o = { .run_id = fixed_id, .block_events = 700 };
	struct mt_writer *w;
	uint8_t *p;
	int fd = memfd(NULL, 0);

	if (mt_writer_open_fd(fd, &o, &w) < 0)
		abort();
	for (int i = 0; i < nev; i++) {
		uint64_t t = ties ? 1000 + (uint64_t)(i / 4) * 10
				  : 1000 + (uint64_t)i * 10 + (uint64_t)(i % 7);

		if (i % 3 == 0) {
			uint64_t row[_MT_F_MMAP_MAX] = { t, 100, 100, 0x400000 + (uint64_t)i * 4096,
							 4096 };
			if (mt_writer_event(w, MT_EV_MMAP, row) < 0)
				abort();
		} else {
			uint64_t row[_MT_F_EXIT_MAX] = { t, ties ? 100 : 100 + (uint64_t)(i % 3),
							 (uint64_t)i, MT_TASK_THREAD };
			if (mt_writer_event(w, MT_EV_TASK_EXIT, row) < 0)
				abort();
		}
	}
	if (mt_writer_finish(w, NULL) < 0)
		abort();
	mt_writer_free(w);
	p = slurp(fd, len);
	close(fd);
	if (corrupt_chunk) { /* flip a payload bit of that EVENTS chunk */
		uint64_t off = MT_FILE_HEADER_SIZE;
		int seen = 0;

		for (;;) {
			struct mt_chunk_hdr h;

			if (mt_chunk_hdr_unpack(p + off, &h) < 0)
				abort();
			if (h.type == MT_CHUNK_EVENTS && ++seen == corrupt_chunk) {
				p[off + MT_CHUNK_HEADER_SIZE + h.payload_size / 2] ^= 0x10;
				break;
			}
			off += MT_CHUNK_HEADER_SIZE + h.payload_size;
		}
	}
	return p;
}

/* Events (time, type, pid, tid) of the whole trace through a cursor with opts o, by single
 * events (batch false) or by batches. */
static uint64_t *collect(struct mt_reader *r, const struct mt_cursor_opts *o, bool batch, size_t *n)
{
	struct mt_cursor *c;
	struct mt_event ev;
	const struct mt_event *evs;
	uint64_t *out = NULL;
	size_t cap = 0;
	int rc;

	*n = 0;
	if (mt_cursor_new(r, o, &c) < 0)
		abort();
	for (;;) {
		int k = 1;

		if (batch) {
			rc = k = mt_cursor_next_batch(c, &evs);
		} else {
			rc = mt_cursor_next(c, &ev);
			evs = &ev;
		}
		if (rc <= 0)
			break;
		for (int i = 0; i < k; i++) {
			if (*n + 4 > cap) {
				cap = cap ? cap * 2 : 4096;
				out = realloc(out, cap * sizeof(*out));
				if (!out)
					abort();
			}
			out[(*n)++] = evs[i].v[MT_F_TIME];
			out[(*n)++] = evs[i].type;
			out[(*n)++] = evs[i].v[MT_F_PID];
			out[(*n)++] = evs[i].v[MT_F_TID];
		}
	}
	if (rc < 0)
		abort();
	mt_cursor_free(c);
	return out;
}

/* The decode-ahead thread changes nothing: the same events in the same order, by single events
 * and by batches, with a corrupt chunk skipped the same way; a cursor freed early (its thread
 * waiting on a full ring) ends cleanly. */
TEST(cursor_ahead_is_the_same_stream)
{
	for (int corrupt = 0; corrupt <= 3; corrupt += 3) {
		size_t len, n0, n1, n2;
		uint8_t *p = make_big_trace(&len, 30000, corrupt, false);
		struct mt_reader *r;
		struct mt_cursor_opts plain = { 0 }, ahead = { .ahead = true };
		struct mt_cursor_opts ahead_pid = { .ahead = true, .by_pid = true, .pid = 101 };
		int fd = open_bytes(p, len, &r);
		uint64_t *a, *b, *c, *d;
		struct mt_cursor *cur;
		struct mt_event ev;

		ASSERT_TRUE(fd >= 0);
		a = collect(r, &plain, false, &n0);
		b = collect(r, &ahead, false, &n1);
		c = collect(r, &ahead, true, &n2);
		ASSERT_EQ(n0 / 4, corrupt ? 30000 - 700 : 30000);
		ASSERT_EQ(n1, n0);
		ASSERT_EQ(n2, n0);
		ASSERT_TRUE(!memcmp(a, b, n0 * sizeof(*a)));
		ASSERT_TRUE(!memcmp(a, c, n0 * sizeof(*a)));
		for (size_t i = 4; i < n0; i += 4)
			ASSERT_TRUE(a[i] >= a[i - 4]);
		d = collect(r, &ahead_pid, true, &n2);
		n1 = 0; /* the plain stream's events of pid 101, in order */
		for (size_t i = 0; i < n0; i += 4)
			if (a[i + 2] == 101) {
				ASSERT_TRUE(n1 < n2 && !memcmp(&a[i], &d[n1], 4 * sizeof(*a)));
				n1 += 4;
			}
		ASSERT_EQ(n1, n2);
		ASSERT_TRUE(n2 / 4 > 9000);
		free(a);
		free(b);
		free(c);
		free(d);
		ASSERT_EQ(mt_cursor_new(r, &ahead, &cur), 0);
		ASSERT_EQ(mt_cursor_next(cur, &ev), 1);
		usleep(20000); /* the thread fills the ring and waits */
		mt_cursor_free(cur);
		mt_reader_free(r);
		close(fd);
		free(p);
	}
}

/* Runs of one block are copied whole; a pid filter takes every event through the heap. With
 * four events at each time across blocks, both give the same order (ties in file order). */
TEST(cursor_runs_keep_ties_in_file_order)
{
	size_t len, n0, n1;
	uint8_t *p = make_big_trace(&len, 30000, 0, true);
	struct mt_reader *r;
	struct mt_cursor_opts runs = { .ahead = true }, one = { .by_pid = true, .pid = 100 };
	int fd = open_bytes(p, len, &r);
	uint64_t *a, *b;

	ASSERT_TRUE(fd >= 0);
	a = collect(r, &runs, true, &n0);
	b = collect(r, &one, false, &n1);
	ASSERT_EQ(n0 / 4, 30000);
	ASSERT_EQ(n1, n0);
	ASSERT_TRUE(!memcmp(a, b, n0 * sizeof(*a)));
	free(a);
	free(b);
	mt_reader_free(r);
	close(fd);
	free(p);
}

/* mt_writer_limit: the file never holds data past the limit; what is left out is counted
 * (rows by type, the earliest time); the trace still reads whole, with its END record. */
TEST(writer_limit_leaves_out_and_counts)
{
	struct mt_writer_opts o = { .run_id = fixed_id, .block_events = 256 };
	const struct mt_writer_stats *st;
	struct mt_writer *w;
	struct mt_reader *r;
	struct mt_kv kv;
	uint64_t written = 0, left = 0, first_left = 0;
	size_t n;
	uint8_t *p;
	int fd = memfd(NULL, 0), rfd;

	ASSERT_EQ(mt_writer_open_fd(fd, &o, &w), 0);
	mt_writer_limit(w, 16384);
	for (uint64_t i = 0; i < 20000; i++) {
		/* pseudo-random addresses: the rows do not compress to nothing */
		uint64_t row[_MT_F_FAULT_MAX] = { 1000 + i, 7, 7, mt_hash_u64(i) & 0xffffffffff };

		ASSERT_TRUE(mt_writer_event(w, MT_EV_FAULT, row) >= 0);
	}
	st = mt_writer_stats(w);
	ASSERT_TRUE(st->sealed);
	written = st->events[MT_EV_FAULT];
	left = st->left_out_events[MT_EV_FAULT];
	first_left = st->left_out_from;
	ASSERT_TRUE(written > 0 && left > 0);
	ASSERT_EQ_U(written + left, 20000 - 20000 % 256); /* the last partial block: at finish */
	ASSERT_EQ_U(first_left, 1000 + written); /* rows in order: the first one left out */
	mt_kv_init(&kv);
	mt_kv_add(&kv, "stop_reason", "test");
	ASSERT_EQ(mt_writer_finish(w, &kv), 0); /* END is key/value: written past the limit */
	mt_kv_release(&kv);
	ASSERT_EQ_U(mt_writer_stats(w)->left_out_events[MT_EV_FAULT], 20000 - written);
	mt_writer_free(w);
	p = slurp(fd, &n);
	close(fd);
	ASSERT_TRUE(n <= 16384 + 1024);
	rfd = open_bytes(p, n, &r);
	ASSERT_TRUE(rfd >= 0);
	ASSERT_TRUE(mt_reader_integrity(r)->complete);
	ASSERT_TRUE(mt_reader_end(r) != NULL);
	ASSERT_EQ_U(mt_reader_event_count(r, MT_EV_FAULT), written);
	ASSERT_EQ(drain(r, rfd, NULL), (int)written);
	free(p);
}
