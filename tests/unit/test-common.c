/* SPDX-License-Identifier: MIT */
/* Unit tests of src/common. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/log.h"
#include "common/array.h"
#include "common/buf.h"
#include "common/safeopen.h"
#include "common/sha256.h"
#include "common/crc32c.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strutil.h"
#include "common/termsafe.h"
#include "common/varint.h"
#include "mt-test.h"

MT_TEST_MAIN()

TEST(escape_ctl)
{
	char buf[128];
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len), *c;

	ASSERT_STREQ(mt_escape_ctl("a\033[2J\r\n\t\x01\x7f\xc2\x9bz\xc3\xa9", buf, sizeof(buf)),
		     "a\\e[2J\\r\\n\\t\\x01\\x7f\\x9bz\xc3\xa9");
	ASSERT_EQ(mt_has_ctl("plain \xc3\xa9"), 0);
	ASSERT_EQ(mt_has_ctl("a\rb"), 1);
	/* the stream keeps newlines, escapes the rest, also across writes */
	c = mt_ctl_stream(f);
	ASSERT_TRUE(c != NULL);
	fputs("x\033y\n\xc2", c);
	fflush(c);
	fputs("\x9b\xc2\xa0", c);
	fclose(c);
	fclose(f);
	ASSERT_STREQ(mem, "x\\ey\n\\x9b\xc2\xa0");
	free(mem);
}

TEST(varint_round_trip)
{
	static const uint64_t vals[] = {
		0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, (uint64_t)1 << 63, UINT64_MAX
	};
	uint8_t buf[MT_VARINT_MAX];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t n = mt_varint_put(buf, vals[i]);
		const uint8_t *p = buf;
		uint64_t v;

		ASSERT_EQ(n, mt_varint_len(vals[i]));
		ASSERT_EQ(mt_varint_get(&p, buf + n, &v), 0);
		ASSERT_EQ_U(v, vals[i]);
		ASSERT_TRUE(p == buf + n);
		/* Cut short: must fail without reading past the end. */
		p = buf;
		if (n > 1)
			ASSERT_EQ(mt_varint_get(&p, buf + n - 1, &v), -1);
	}
}

TEST(varint_rejects_overlong)
{
	uint8_t bad[11];
	const uint8_t *p = bad;
	uint64_t v;

	memset(bad, 0x80, sizeof(bad));
	ASSERT_EQ(mt_varint_get(&p, bad + sizeof(bad), &v), -1);
	/* 10th byte may only carry one bit. */
	memset(bad, 0xff, 9);
	bad[9] = 0x02;
	p = bad;
	ASSERT_EQ(mt_varint_get(&p, bad + 10, &v), -1);
	bad[9] = 0x01;
	p = bad;
	ASSERT_EQ(mt_varint_get(&p, bad + 10, &v), 0);
	ASSERT_EQ_U(v, UINT64_MAX);
}

TEST(zigzag)
{
	static const int64_t vals[] = { 0, -1, 1, -2, INT64_MIN, INT64_MAX };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		ASSERT_EQ(mt_unzigzag(mt_zigzag(vals[i])), vals[i]);
	ASSERT_EQ_U(mt_zigzag(-1), 1);
	ASSERT_EQ_U(mt_zigzag(1), 2);
}

TEST(crc32c_known_values)
{
	ASSERT_EQ_U(mt_crc32c(0, "123456789", 9), 0xe3069283);
	ASSERT_EQ_U(mt_crc32c(0, "", 0), 0);
	/* Incremental equals one-shot, across the 8-byte stride. */
	ASSERT_EQ_U(mt_crc32c(mt_crc32c(0, "12345", 5), "6789", 4), 0xe3069283);
}

TEST(buf_limits)
{
	struct mt_buf b;

	mt_buf_init(&b, 16);
	ASSERT_EQ(mt_buf_append(&b, "0123456789", 10), 0);
	ASSERT_EQ(mt_buf_append(&b, "012345", 6), 0);
	ASSERT_EQ(b.len, 16);
	/* Growing past the maximum fails and leaves the buffer released. */
	ASSERT_EQ(mt_buf_putc(&b, 'x'), -MT_ERR_LIMIT);
	ASSERT_TRUE(b.data == NULL && b.len == 0);
	ASSERT_EQ(mt_buf_printf(&b, "%d-%s", 42, "ok"), 0);
	ASSERT_EQ(mt_buf_cstr(&b), 0);
	ASSERT_STREQ((char *)b.data, "42-ok");
	mt_buf_release(&b);
}

TEST(map64)
{
	struct mt_map64 m;
	uint64_t *v;

	mt_map64_init(&m);
	ASSERT_TRUE(mt_map64_get(&m, 5) == NULL);
	for (uint64_t k = 0; k < 10000; k++) {
		ASSERT_EQ(mt_map64_put(&m, k * 7919, &v), 0);
		*v = k + 1;
	}
	ASSERT_EQ(m.len, 10000);
	for (uint64_t k = 0; k < 10000; k++) {
		v = mt_map64_get(&m, k * 7919);
		ASSERT_TRUE(v && *v == k + 1);
	}
	ASSERT_TRUE(mt_map64_get(&m, 3) == NULL);
	ASSERT_EQ(mt_map64_put(&m, MT_MAP64_EMPTY, &v), -EINVAL);
	/* Delete every other key; the rest must stay reachable across shifted probe runs. */
	for (uint64_t k = 0; k < 10000; k += 2)
		ASSERT_TRUE(mt_map64_del(&m, k * 7919));
	ASSERT_TRUE(!mt_map64_del(&m, 0));
	ASSERT_EQ(m.len, 5000);
	for (uint64_t k = 0; k < 10000; k++) {
		v = mt_map64_get(&m, k * 7919);
		if (k % 2)
			ASSERT_TRUE(v && *v == k + 1);
		else
			ASSERT_TRUE(v == NULL);
	}
	mt_map64_release(&m);
}

TEST(parse_numbers)
{
	uint64_t v;

	ASSERT_EQ(mt_parse_u64("42", &v), 0);
	ASSERT_EQ_U(v, 42);
	ASSERT_EQ(mt_parse_u64("0x10", &v), 0);
	ASSERT_EQ_U(v, 16);
	ASSERT_EQ(mt_parse_u64("-1", &v), -EINVAL);
	ASSERT_EQ(mt_parse_u64("12a", &v), -EINVAL);
	ASSERT_EQ(mt_parse_u64("", &v), -EINVAL);
	ASSERT_EQ(mt_parse_u64("99999999999999999999999", &v), -ERANGE);
	ASSERT_EQ(mt_parse_size("4K", &v), 0);
	ASSERT_EQ_U(v, 4096);
	ASSERT_EQ(mt_parse_size("2MiB", &v), 0);
	ASSERT_EQ_U(v, 2 << 20);
	ASSERT_EQ(mt_parse_size("7", &v), 0);
	ASSERT_EQ_U(v, 7);
	ASSERT_EQ(mt_parse_size("1X", &v), -EINVAL);
	ASSERT_EQ(mt_parse_size("99999999999T", &v), -ERANGE);
}

TEST(formatting)
{
	char b[32];

	ASSERT_STREQ(mt_fmt_bytes(512, b, sizeof(b)), "512 B");
	ASSERT_STREQ(mt_fmt_bytes(1536, b, sizeof(b)), "1.50 KiB");
	ASSERT_STREQ(mt_fmt_bytes(300ull << 20, b, sizeof(b)), "300 MiB");
	ASSERT_STREQ(mt_fmt_count(1234567, b, sizeof(b)), "1,234,567");
	ASSERT_STREQ(mt_fmt_count(12, b, sizeof(b)), "12");
	ASSERT_STREQ(mt_fmt_duration(1500000, b, sizeof(b)), "1.50 ms");
	ASSERT_STREQ(mt_fmt_duration(999, b, sizeof(b)), "999 ns");
}

TEST(strerror_covers_both)
{
	ASSERT_STREQ(mt_strerror(-MT_ERR_VERSION), "unsupported trace format version");
	ASSERT_STREQ(mt_strerror(-ENOENT), "No such file or directory");
}

TEST(grow_array)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	for (uint64_t i = 0; i < 1000; i++) {
		ASSERT_EQ(mt_grow_array(&v, &cap, i + 1, sizeof(*v)), 0);
		ASSERT_TRUE(cap >= i + 1);
		v[i] = i;
	}
	for (uint64_t i = 0; i < 1000; i++)
		ASSERT_EQ_U(v[i], i);
	/* A size that cannot be allocated fails and leaves the array as it was. */
	ASSERT_EQ(mt_grow_array(&v, &cap, SIZE_MAX / 4, sizeof(*v)), -ENOMEM);
	ASSERT_EQ_U(v[999], 999);
	free(v);
}

/* FIPS 180-4 examples (and a message spanning blocks, fed in odd pieces). */
TEST(sha256_vectors)
{
	struct mt_sha256 s;
	char hex[65];
	const char *msg = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	mt_sha256_init(&s);
	mt_sha256_hex(&s, hex);
	ASSERT_STREQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	mt_sha256_init(&s);
	mt_sha256_update(&s, "abc", 3);
	mt_sha256_hex(&s, hex);
	ASSERT_STREQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	mt_sha256_init(&s);
	for (size_t i = 0; i < strlen(msg); i += 7)
		mt_sha256_update(&s, msg + i, strlen(msg) - i < 7 ? strlen(msg) - i : 7);
	mt_sha256_hex(&s, hex);
	ASSERT_STREQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

struct sink_lines {
	int n;
	char last[256];
	enum mt_log_level level;
};

static void take_line(void *ctx, enum mt_log_level level, const char *line)
{
	struct sink_lines *l = ctx;

	l->n++;
	l->level = level;
	snprintf(l->last, sizeof(l->last), "%s", line);
}

TEST(log_sink_takes_the_lines)
{
	struct sink_lines l = { 0 };
	int saved = mt_log_level;

	mt_log_level = MT_LOG_INFO;
	mt_log_set_sink(take_line, &l);
	mt_warn("no access sampling: %s", "because");
	ASSERT_EQ(l.n, 1);
	ASSERT_EQ(l.level, MT_LOG_WARN);
	ASSERT_TRUE(!strcmp(l.last, "memtap: warning: no access sampling: because"));
	ASSERT_EQ(mt_err_code(-ENOENT, "cannot open '%s'", "x"), -ENOENT);
	ASSERT_EQ(l.n, 2);
	ASSERT_TRUE(strstr(l.last, "cannot open 'x': ") == l.last + strlen("memtap: "));
	mt_debug("filtered out"); /* below the level: never reaches the sink */
	ASSERT_EQ(l.n, 2);
	mt_log_set_sink(NULL, NULL);
	mt_log_level = saved;
}

/* Files another user controls: never a FIFO (which would block), never a device, never a
 * file other than the one named by its identity. */
TEST(open_regular_refuses_what_is_not_the_file)
{
	char dir[] = "/tmp/mt-safeopen-XXXXXX", f[64], fifo[64], link[64];
	struct mt_file_id id = { 0, 0, 0 }, other;
	struct stat st;
	int fd;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, "x", 1), 1);
	close(fd);
	ASSERT_EQ(stat(f, &st), 0);
	id = (struct mt_file_id){ major(st.st_dev), minor(st.st_dev), st.st_ino };
	fd = mt_open_regular(f, &id);
	ASSERT_TRUE(fd >= 0);
	ASSERT_TRUE((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
	close(fd);
	other = id;
	other.ino++;
	ASSERT_EQ(mt_open_regular(f, &other), -ESTALE);
	/* a FIFO with no writer: an open for reading would wait for one forever */
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	ASSERT_EQ(mt_open_regular(fifo, NULL), -EINVAL);
	ASSERT_EQ(mt_open_regular(fifo, &id), -EINVAL);
	ASSERT_EQ(symlink(fifo, link), 0);
	ASSERT_EQ(mt_open_regular(link, NULL), -EINVAL);
	ASSERT_EQ(mt_open_regular("/dev/null", NULL), -EINVAL);
	ASSERT_EQ(mt_open_regular("/dev/tty", NULL) < 0, 1);
	ASSERT_EQ(mt_open_regular(dir, NULL), -EINVAL);
	ASSERT_EQ(mt_open_regular("/nonexistent/x", NULL), -ENOENT);
	unlink(link);
	unlink(fifo);
	unlink(f);
	rmdir(dir);
}
