/* SPDX-License-Identifier: MIT */
/* Unit tests of src/record that need no perf events: /proc parsing, build-ids, probe control. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/buildid.h"
#include "record/probe.h"
#include "record/procfs.h"
#include "mt-test.h"

MT_TEST_MAIN()

TEST(maps_line_file)
{
	char line[] = "7f0e1c021000-7f0e1c1b6000 r-xp 00028000 fe:01 1318447                    "
		      "/usr/lib/x86_64-linux-gnu/libc.so.6\n";
	struct mt_maps_entry e;

	ASSERT_EQ(mt_maps_parse_line(line, &e), 0);
	ASSERT_EQ_U(e.start, 0x7f0e1c021000);
	ASSERT_EQ_U(e.end, 0x7f0e1c1b6000);
	ASSERT_EQ_U(e.pgoff, 0x28000);
	ASSERT_EQ(e.prot, PROT_READ | PROT_EXEC);
	ASSERT_TRUE(!e.shared);
	ASSERT_EQ(e.maj, 0xfe);
	ASSERT_EQ(e.min, 1);
	ASSERT_EQ_U(e.ino, 1318447);
	ASSERT_STREQ(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(maps_line_special)
{
	char anon[] =
		"7ffd5e4e2000-7ffd5e503000 rw-p 00000000 00:00 0                          [stack]";
	char bare[] = "55e6a2f13000-55e6a2f34000 rw-s 00000000 00:00 0";
	char spaces[] = "00400000-00401000 r--p 00000000 08:01 42 /tmp/my file (deleted)";
	struct mt_maps_entry e;

	ASSERT_EQ(mt_maps_parse_line(anon, &e), 0);
	ASSERT_STREQ(e.path, "[stack]");
	ASSERT_EQ(e.prot, PROT_READ | PROT_WRITE);
	ASSERT_EQ(mt_maps_parse_line(bare, &e), 0);
	ASSERT_STREQ(e.path, "");
	ASSERT_TRUE(e.shared);
	ASSERT_EQ(mt_maps_parse_line(spaces, &e), 0);
	ASSERT_STREQ(e.path, "/tmp/my file (deleted)");
	ASSERT_EQ_U(e.ino, 42);
}

TEST(maps_line_rejects_garbage)
{
	static const char *const bad[] = {
		"",
		"x",
		"1000-",
		"1000-2000",
		"1000-2000 rwxp",
		"2000-1000 r--p 0 00:00 0",
		"1000-2000 r--p zz 00:00 0",
		"1000-2000 r--p 0 00 0",
		"1000-2000 r-- 0 00:00 0",
		"1000-2000 r--p 0 00:00 x",
		"-1000-2000 r--p 0 00:00 0",
		"1000-2000 r--p 0 fffffffffffff:00 0",
	};
	struct mt_maps_entry e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%s", bad[i]);
		if (mt_maps_parse_line(buf, &e) == 0)
			MT_FAIL("accepted '%s'", bad[i]);
	}
}

static int count_maps(void *ctx, const struct mt_maps_entry *e)
{
	(void)e;
	(*(int *)ctx)++;
	return 0;
}

TEST(procfs_self)
{
	pid_t tgid = 0, ppid = 0;
	char comm[64], exe[4096];
	int n = 0;

	ASSERT_EQ(mt_procfs_status(getpid(), &tgid, &ppid), 0);
	ASSERT_EQ(tgid, getpid());
	ASSERT_EQ(ppid, getppid());
	ASSERT_EQ(mt_procfs_comm(getpid(), comm, sizeof(comm)), 0);
	ASSERT_STREQ(comm, "test-record");
	ASSERT_EQ(mt_procfs_exe(getpid(), exe, sizeof(exe)), 0);
	ASSERT_TRUE(strstr(exe, "test-record") != NULL);
	ASSERT_EQ(mt_procfs_maps(getpid(), count_maps, &n), 0);
	ASSERT_TRUE(n > 5);
	ASSERT_TRUE(mt_procfs_status(999999999, &tgid, &ppid) < 0);
}

TEST(buildid_of_self)
{
	char a[64] = "", b[64] = "";

	if (mt_buildid_of_file("/proc/self/exe", a, sizeof(a)) == -ENOENT) {
		printf("# skipped: this binary was linked without a build-id\n");
		return;
	}
	ASSERT_EQ(strlen(a), 40);
	ASSERT_TRUE(strspn(a, "0123456789abcdef") == 40);
	/* The cached answer is the same. */
	ASSERT_EQ(mt_buildid_of_file("/proc/self/exe", b, sizeof(b)), 0);
	ASSERT_STREQ(a, b);
	ASSERT_EQ(mt_buildid_of_file("/etc/hostname", b, sizeof(b)), -ENOENT);
	ASSERT_EQ(mt_buildid_of_file("/nonexistent", b, sizeof(b)), -ENOENT);
	mt_buildid_cache_clear();
}

TEST(probe_can_be_disabled)
{
	const struct mt_probe_result *p;

	/* Probes cache per process, so set the variable before the first probe. */
	setenv("MEMTAP_DISABLE_FEAT", "ptrace,perf", 1);
	p = mt_probe(MT_FEAT_PTRACE);
	ASSERT_TRUE(!p->available);
	ASSERT_STREQ(p->detail, "disabled by MEMTAP_DISABLE_FEAT");
	/* Dependents report the dependency's reason. */
	p = mt_probe(MT_FEAT_MMAP2);
	ASSERT_TRUE(!p->available);
	ASSERT_TRUE(strstr(p->detail, "needs perf") != NULL);
	ASSERT_TRUE(mt_feat_disabled(MT_FEAT_PERF));
	ASSERT_TRUE(!mt_feat_disabled(MT_FEAT_BPF));
	/* Cached: a later change of the environment does not flip a result. */
	unsetenv("MEMTAP_DISABLE_FEAT");
	ASSERT_TRUE(!mt_feat_ok(MT_FEAT_PTRACE));
	for (int f = 0; f < _MT_FEAT_MAX; f++) {
		ASSERT_TRUE(mt_feat_id((enum mt_feat)f)[0] != '?');
		ASSERT_TRUE(mt_probe((enum mt_feat)f)->detail[0] != 0);
	}
}
