/* SPDX-License-Identifier: MIT */
/* Loading the allocation runtime into a running process (record --pid) with ptrace. */
#ifndef MEMTAP_RECORD_ATTACH_RT_H
#define MEMTAP_RECORD_ATTACH_RT_H

#include <stdint.h>
#include <sys/types.h>

struct mt_attach_rt {
	pid_t tid; /* the thread that was held */
	uint64_t from_ns, held_ns, to_ns; /* CLOCK_MONOTONIC: asked, held, let go */
	unsigned slots; /* call slots the runtime redirected */
};

/* Loads lib into pid and starts it with conf (what MEMTAP_RT would hold): 0, or -errno
 * with the reason, a sentence, in why. The process is never left held. */
int mt_attach_rt(pid_t pid, const char *lib, const char *conf, struct mt_attach_rt *out, char *why,
		 size_t wlen);
/* At the end: the process's calls given back to what they were bound to (the runtime stays
 * loaded, forwarding). 0 with *restored the slots put back (-1: some could not be), or
 * -errno with the reason in why. */
int mt_detach_rt(pid_t pid, const char *lib, int *restored, char *why, size_t wlen);

#endif
