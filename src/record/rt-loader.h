/* SPDX-License-Identifier: MIT */
/* The dynamic loader's work for the preload runtime, told apart call by call per thread
 * (decode/rt-load.h): watched from each successful exec until the runtime's first own call. */
#ifndef MEMTAP_RECORD_RT_LOADER_H
#define MEMTAP_RECORD_RT_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/rt-load.h"

struct mt_loader_watch {
	struct mt_loader_thread {
		uint32_t tid;
		struct mt_rtload load;
	} * v; /* the threads whose new image's loader is watched */
	size_t n, cap;
};

/* One completed call of thread tid (flags: MT_SYSCALL_*; is_rt: its path argument is the
 * runtime's file): true when it is the loader's work for the runtime. */
bool mt_loader_watch_call(struct mt_loader_watch *w, uint32_t tid, int64_t nr, int64_t ret,
			  const uint64_t *args, unsigned flags, bool is_rt);
void mt_loader_watch_release(struct mt_loader_watch *w);

#endif
