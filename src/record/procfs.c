/* SPDX-License-Identifier: MIT */
/* /proc readers. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/strutil.h"

static int isxdigit_ascii(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hex_field(char **p, char stop, uint64_t *v)
{
	char *end;

	if (!isxdigit_ascii(**p))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (errno || *end != stop)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

int mt_maps_parse_line(char *line, struct mt_maps_entry *e)
{
	struct mt_maps_entry x = { 0 };
	uint64_t maj, min;
	char *p = line, *end;
	size_t n;

	if (hex_field(&p, '-', &x.start) < 0 || hex_field(&p, ' ', &x.end) < 0 || x.end < x.start)
		return -EINVAL;
	/* perms: exactly four characters, then a space */
	for (int i = 0; i < 4; i++)
		if (!p[i])
			return -EINVAL;
	if (p[4] != ' ')
		return -EINVAL;
	x.prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		 (p[2] == 'x' ? PROT_EXEC : 0);
	x.shared = p[3] == 's';
	p += 5;
	if (hex_field(&p, ' ', &x.pgoff) < 0 || hex_field(&p, ':', &maj) < 0 ||
	    hex_field(&p, ' ', &min) < 0 || maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	x.maj = (unsigned)maj;
	x.min = (unsigned)min;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	x.ino = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	p = end;
	while (*p == ' ')
		p++;
	n = strlen(p);
	if (n && p[n - 1] == '\n')
		p[--n] = 0;
	x.path = p;
	*e = x;
	return 0;
}

int mt_procfs_maps(pid_t pid, mt_maps_fn fn, void *ctx)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct mt_maps_entry e;

		if (mt_maps_parse_line(line, &e) < 0)
			continue;
		r = fn(ctx, &e);
		if (r)
			break;
	}
	free(line);
	fclose(f);
	return r;
}

long mt_procfs_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	long n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = mt_read_small_file(path, buf, size);
	/* The kernel terminates every argument with NUL; keep them, drop a trailing cut. */
	return n;
}

int mt_procfs_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	return mt_read_line_file(path, buf, size);
}

int mt_procfs_cgroup(pid_t pid, char *buf, size_t size)
{
	char path[64], line[1024];
	FILE *f;
	int r = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	/* the v2 line "0::/path"; on a v1-only machine, systemd's "N:name=systemd:/path" */
	while (fgets(line, sizeof(line), f)) {
		const char *v = !strncmp(line, "0::", 3) ? line + 3
							 : strstr(line, ":name=systemd:");

		if (!v)
			continue;
		if (v != line + 3)
			v += strlen(":name=systemd:");
		line[strcspn(line, "\n")] = 0;
		snprintf(buf, size, "%s", v);
		r = 0;
		if (v == line + 3)
			break;
	}
	fclose(f);
	return r;
}

int mt_procfs_exe(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

int mt_procfs_status(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (found != 3 && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5)) {
			*tgid = (pid_t)strtol(line + 5, NULL, 10);
			found |= 1;
		} else if (!strncmp(line, "PPid:", 5)) {
			*ppid = (pid_t)strtol(line + 5, NULL, 10);
			found |= 2;
		}
	}
	fclose(f);
	return found == 3 ? 0 : -EINVAL;
}

int mt_procfs_tasks(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return -errno;
	while ((d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid > 0)
			n += fn(ctx, tid);
	}
	closedir(dir);
	return n;
}
