/* SPDX-License-Identifier: MIT */
/* A minimal unit-test harness: TEST(name) registers a test; ASSERT_*() fail it. */
#ifndef MEMTAP_TESTS_MT_TEST_H
#define MEMTAP_TESTS_MT_TEST_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mt_test {
	const char *name;
	void (*fn)(void);
};

extern struct mt_test mt_tests[];
extern int mt_ntests;
extern jmp_buf mt_test_jmp;
extern int mt_test_failed;

#define TEST(tname)                                                     \
	static void test_##tname(void);                                 \
	__attribute__((constructor)) static void register_##tname(void) \
	{                                                               \
		mt_tests[mt_ntests].name = #tname;                      \
		mt_tests[mt_ntests++].fn = test_##tname;                \
	}                                                               \
	static void test_##tname(void)

#define MT_FAIL(...)                                            \
	do {                                                    \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                   \
		fputc('\n', stderr);                            \
		mt_test_failed = 1;                             \
		longjmp(mt_test_jmp, 1);                        \
	} while (0)

#define ASSERT_TRUE(c)                                       \
	do {                                                 \
		if (!(c))                                    \
			MT_FAIL("assertion failed: %s", #c); \
	} while (0)

#define ASSERT_EQ(a, b)                                                    \
	do {                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);        \
		if (a_ != b_)                                              \
			MT_FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_); \
	} while (0)

#define ASSERT_EQ_U(a, b)                                                                       \
	do {                                                                                    \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);  \
		if (a_ != b_)                                                                   \
			MT_FAIL("%s == %s: %llu (0x%llx) != %llu (0x%llx)", #a, #b, a_, a_, b_, \
				b_);                                                            \
	} while (0)

#define ASSERT_STREQ(a, b)                                                                \
	do {                                                                              \
		const char *a_ = (a), *b_ = (b);                                          \
		if (!a_ || !b_ || strcmp(a_, b_))                                         \
			MT_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)", \
				b_ ? b_ : "(null)");                                      \
	} while (0)

/* Declares the registry and main(); include in exactly one file per test binary. */
#define MT_TEST_MAIN()                                                                      \
	struct mt_test mt_tests[256];                                                       \
	int mt_ntests;                                                                      \
	jmp_buf mt_test_jmp;                                                                \
	int mt_test_failed;                                                                 \
	static int mt_run_one(void (*fn)(void))                                             \
	{                                                                                   \
		mt_test_failed = 0;                                                         \
		if (!setjmp(mt_test_jmp))                                                   \
			fn();                                                               \
		return mt_test_failed;                                                      \
	}                                                                                   \
	int main(int argc, char **argv)                                                     \
	{                                                                                   \
		int failed = 0, run = 0;                                                    \
		for (int i = 0; i < mt_ntests; i++) {                                       \
			int f;                                                              \
			if (argc > 1 && strcmp(argv[1], mt_tests[i].name))                  \
				continue;                                                   \
			run++;                                                              \
			f = mt_run_one(mt_tests[i].fn);                                     \
			printf("%s %d - %s\n", f ? "not ok" : "ok", run, mt_tests[i].name); \
			fflush(stdout);                                                     \
			failed += f;                                                        \
		}                                                                           \
		printf("1..%d\n", run);                                                     \
		return failed ? 1 : 0;                                                      \
	}

#endif
