/* SPDX-License-Identifier: MIT */
#include "record/rt-loader.h"

#include <stdlib.h>

#include <memtap/trace-format.h>

#include "common/array.h"

bool mt_loader_watch_call(struct mt_loader_watch *w, uint32_t tid, int64_t nr, int64_t ret,
			  const uint64_t *args, unsigned flags, bool is_rt)
{
	struct mt_loader_thread *t = NULL;
	bool hit;

	for (size_t i = 0; i < w->n && !t; i++)
		if (w->v[i].tid == tid)
			t = &w->v[i];
	if ((nr == 59 || nr == 322) && ret == 0) { /* execve, execveat: a new image */
		if (!t && mt_grow_array(&w->v, &w->cap, w->n + 1, sizeof(*w->v)) == 0) {
			t = &w->v[w->n++];
			t->tid = tid;
		}
		if (t)
			mt_rtload_exec(&t->load);
		return false;
	}
	if (!t || !args || (flags & (MT_SYSCALL_NO_EXIT | MT_SYSCALL_NO_ENTRY)))
		return false;
	hit = mt_rtload_call(&t->load, (long)nr, (const unsigned long long *)args, ret, is_rt,
			     (flags & MT_SYSCALL_RUNTIME) != 0);
	if (t->load.state == MT_RTLOAD_IDLE)
		*t = w->v[--w->n]; /* done: the runtime runs */
	return hit;
}

void mt_loader_watch_release(struct mt_loader_watch *w)
{
	free(w->v);
	*w = (struct mt_loader_watch){ 0 };
}
