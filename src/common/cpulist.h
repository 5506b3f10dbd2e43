/* SPDX-License-Identifier: MIT */
/* CPU lists ("0-3,5", as /sys and taskset write them) and NUMA nodes, from the kernel alone. */
#ifndef MEMTAP_COMMON_CPULIST_H
#define MEMTAP_COMMON_CPULIST_H

#include <sched.h>

/* Parses s into set (CPUs below CPU_SETSIZE); 0, or -EINVAL for anything else. */
int mt_cpulist_parse(const char *s, cpu_set_t *set);
/* The CPUs of NUMA node node (/sys/devices/system/node/nodeN/cpulist); 0 or -errno
 * (-ENOENT: no such node). */
int mt_numa_node_cpus(int node, cpu_set_t *set);
/* Binds the calling thread's future memory to node (set_mempolicy MPOL_BIND; inherited
 * across fork and exec); 0 or -errno. */
int mt_numa_bind(int node);

#endif
