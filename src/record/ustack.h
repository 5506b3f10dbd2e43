/* SPDX-License-Identifier: MIT */
/* User stacks of sampled system calls (--syscall-stacks): copies of the stack at entry,
 * unwound by the recorder with the .eh_frame CFI of the mapped files (libdwfl). */
#ifndef MEMTAP_RECORD_USTACK_H
#define MEMTAP_RECORD_USTACK_H

#include <stddef.h>
#include <stdint.h>

#include "common/safeopen.h"

struct mt_ustack;
struct mt_writer;
struct mt_kv;

int mt_ustack_new(struct mt_ustack **ret);
void mt_ustack_free(struct mt_ustack *u);

/* What the unwinder needs to know of each process: its executable file mappings (the
 * newest mapping of an address wins), and its parent's at fork. */
void mt_ustack_map(struct mt_ustack *u, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const struct mt_file_id *id, const char *path);
void mt_ustack_fork(struct mt_ustack *u, uint32_t parent, uint32_t child);

/* Unwinds one stack copy (bytes at sp..sp+size) from ip, sp and bp, interns its frames into
 * the trie of the trace's stream 0, and returns the stack id (0: none). */
uint64_t mt_ustack_unwind(struct mt_ustack *u, uint32_t pid, uint32_t tid, uint64_t ip, uint64_t sp,
			  uint64_t bp, const uint8_t *stack, size_t size);

/* Writes the trie nodes made since the last call (before the events that use them). */
int mt_ustack_flush(struct mt_ustack *u, struct mt_writer *w);

void mt_ustack_stats(const struct mt_ustack *u, struct mt_kv *kv);

#endif
