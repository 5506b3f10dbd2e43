/* SPDX-License-Identifier: MIT */
/* Machine facts for probes and for the trace's metadata. */
#include "sysinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/strutil.h"
#include "format/chunk.h"

extern char **environ;

int mt_sysctl_int(const char *path, int def)
{
	char buf[64];
	char *end;
	long v;

	if (mt_read_line_file(path, buf, sizeof(buf)) < 0)
		return def;
	v = strtol(buf, &end, 10);
	return end == buf ? def : (int)v;
}

/* The value of the first "key\t: value" line of /proc/cpuinfo. */
static int cpuinfo_field(const char *key, char *buf, size_t size)
{
	char line[4096];
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/cpuinfo", "re");
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, klen) || !colon ||
		    (line[klen] != '\t' && line[klen] != ' ' && line[klen] != ':'))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		mt_strlcpy(buf, colon, size);
		r = 0;
		break;
	}
	fclose(f);
	return r;
}

void mt_sys_cpu_vendor(char *buf, size_t size)
{
	if (cpuinfo_field("vendor_id", buf, size) < 0 &&
	    cpuinfo_field("CPU implementer", buf, size) < 0)
		mt_strlcpy(buf, "unknown", size);
}

bool mt_sys_is_virtual(void)
{
	static int cached = -1;
	char flags[4096], dmi[128];

	if (cached >= 0)
		return cached;
	cached = 0;
	if (cpuinfo_field("flags", flags, sizeof(flags)) == 0) {
		char *p = strstr(flags, "hypervisor");

		if (p && (p[10] == ' ' || !p[10]))
			cached = 1;
	}
	if (!cached && mt_read_line_file("/sys/class/dmi/id/sys_vendor", dmi, sizeof(dmi)) == 0 &&
	    (strstr(dmi, "QEMU") || strstr(dmi, "KVM") || strstr(dmi, "Amazon EC2") ||
	     strstr(dmi, "Google") || strstr(dmi, "Microsoft") || strstr(dmi, "VMware")))
		cached = 1;
	return cached;
}

int mt_tracefs_path(char *buf, size_t size)
{
	static const char *const cand[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct stat st;
	char p[256];

	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events", cand[i]);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			mt_strlcpy(buf, cand[i], size);
			return 0;
		}
	}
	/* perf mounts tracefs on demand too; it is a read-only view for us. */
	if (geteuid() == 0 && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    stat("/sys/kernel/tracing/events", &st) == 0) {
		mt_strlcpy(buf, "/sys/kernel/tracing", size);
		return 0;
	}
	return -ENOENT;
}

int mt_tracepoint_id(const char *tp)
{
	char base[256], path[512];
	int id;

	if (mt_tracefs_path(base, sizeof(base)) < 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/id", base, tp);
	id = mt_sysctl_int(path, -1);
	return id < 0 ? -ENOENT : id;
}

int mt_tracepoint_format(const char *tp, char **text)
{
	char base[256], path[512];
	size_t n = 0, cap = 1 << 16;
	char *buf;
	FILE *f;
	int r;

	if (mt_tracefs_path(base, sizeof(base)) < 0)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/events/%s/format", base, tp);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	buf = malloc(cap);
	/* Descriptions with long __print_symbolic lists run to tens of KiB; none to 4 MiB. */
	while (buf) {
		size_t got = fread(buf + n, 1, cap - 1 - n, f);
		char *nb;

		n += got;
		if (got == 0 || n < cap - 1 || cap >= (1u << 22))
			break;
		nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	r = !buf ? -ENOMEM : ferror(f) ? -EIO : 0;
	fclose(f);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[n] = 0;
	*text = buf;
	return 0;
}

bool mt_sys_thp_always(void)
{
	char buf[256];

	return mt_read_line_file("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) ==
		       0 &&
	       strstr(buf, "[always]");
}

static void add_file(struct mt_kv *kv, const char *key, const char *path)
{
	char buf[512];

	if (mt_read_line_file(path, buf, sizeof(buf)) == 0)
		mt_kv_add(kv, key, buf);
}

/* Environment variables that change memory behaviour or how memtap itself runs. */
static bool env_matters(const char *name, size_t len)
{
	static const char *const exact[] = { "LD_PRELOAD",	     "LD_LIBRARY_PATH",
					     "LD_BIND_NOW",	     "GLIBC_TUNABLES",
					     "OMP_NUM_THREADS",	     "PYTHONMALLOC",
					     "JEMALLOC_CONF",	     "MIMALLOC_SHOW_STATS",
					     "TCMALLOC_RELEASE_RATE" };
	static const char *const prefix[] = { "MALLOC_", "MEMTAP_", "MIMALLOC_", "_RJEM_",
					      "TCMALLOC_" };

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strlen(exact[i]) == len && !strncmp(name, exact[i], len))
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

int mt_sysinfo_meta(struct mt_kv *kv)
{
	struct utsname u;
	char buf[512], key[300];
	long pages, psize;

	if (uname(&u) == 0) {
		mt_kv_add(kv, "kernel", u.release);
		mt_kv_add(kv, "kernel_version", u.version);
		mt_kv_add(kv, "arch", u.machine);
		mt_kv_add(kv, "hostname", u.nodename);
	}
	{
		FILE *f = fopen("/etc/os-release", "re");

		while (f && fgets(buf, sizeof(buf), f)) {
			if (!strncmp(buf, "PRETTY_NAME=", 12)) {
				char *v = buf + 12;

				v[strcspn(v, "\n")] = 0;
				if (*v == '"') {
					v++;
					v[strcspn(v, "\"")] = 0;
				}
				mt_kv_add(kv, "os", v);
			}
		}
		if (f)
			fclose(f);
	}
	if (cpuinfo_field("model name", buf, sizeof(buf)) == 0)
		mt_kv_add(kv, "cpu_model", buf);
	mt_sys_cpu_vendor(buf, sizeof(buf));
	mt_kv_add(kv, "cpu_vendor", buf);
	mt_kv_add_u64(kv, "cpus_online", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	mt_kv_add_u64(kv, "cpus_configured", (uint64_t)sysconf(_SC_NPROCESSORS_CONF));
	psize = sysconf(_SC_PAGESIZE);
	pages = sysconf(_SC_PHYS_PAGES);
	mt_kv_add_u64(kv, "page_size", (uint64_t)psize);
	if (pages > 0)
		mt_kv_add_u64(kv, "mem_total_bytes", (uint64_t)pages * (uint64_t)psize);
	mt_kv_add(kv, "virtualized", mt_sys_is_virtual() ? "yes" : "no");
	add_file(kv, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid");
	add_file(kv, "perf_event_max_sample_rate", "/proc/sys/kernel/perf_event_max_sample_rate");
	add_file(kv, "perf_cpu_time_max_percent", "/proc/sys/kernel/perf_cpu_time_max_percent");
	add_file(kv, "perf_event_mlock_kb", "/proc/sys/kernel/perf_event_mlock_kb");
	add_file(kv, "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	add_file(kv, "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	add_file(kv, "numa_balancing", "/proc/sys/kernel/numa_balancing");
	add_file(kv, "overcommit_memory", "/proc/sys/vm/overcommit_memory");
	add_file(kv, "clocksource",
		 "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	add_file(kv, "boot_id", "/proc/sys/kernel/random/boot_id");
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!eq || !env_matters(*e, (size_t)(eq - *e)))
			continue;
		snprintf(key, sizeof(key), "env.%.*s", (int)(eq - *e), *e);
		mt_kv_add(kv, key, eq + 1);
	}
	return 0;
}
