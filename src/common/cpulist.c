/* SPDX-License-Identifier: MIT */
/* CPU lists and NUMA nodes: /sys and set_mempolicy(2), no library. */
#include "common/cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/strutil.h"

int mt_cpulist_parse(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (!s || !*s)
		return -EINVAL;
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s || *s == '-' || *s == '+' || a >= CPU_SETSIZE)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || *s == '-' || *s == '+' || b < a || b >= CPU_SETSIZE)
				return -EINVAL;
		}
		if (*end && *end != ',' && *end != '\n')
			return -EINVAL;
		for (unsigned long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*end == '\n')
			break;
		s = *end ? end + 1 : end;
		if (end[0] == ',' && !*s)
			return -EINVAL;
	}
	return 0;
}

int mt_numa_node_cpus(int node, cpu_set_t *set)
{
	char path[96], buf[4096];
	int rc;

	if (node < 0 || node > 1023)
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if ((rc = mt_read_line_file(path, buf, sizeof(buf))) < 0)
		return rc;
	if (!buf[0]) {
		CPU_ZERO(set);
		return 0; /* a node with memory and no CPU */
	}
	return mt_cpulist_parse(buf, set);
}

#define MPOL_BIND_MODE 2 /* MPOL_BIND in linux/mempolicy.h */

int mt_numa_bind(int node)
{
	unsigned long mask[1024 / (8 * sizeof(unsigned long))] = { 0 };

	if (node < 0 || node > 1023)
		return -EINVAL;
	mask[(unsigned)node / (8 * sizeof(unsigned long))] |=
		1ul << ((unsigned)node % (8 * sizeof(unsigned long)));
	if (syscall(SYS_set_mempolicy, MPOL_BIND_MODE, mask, (unsigned long)1024 + 1) < 0)
		return -errno;
	return 0;
}
