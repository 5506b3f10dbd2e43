/* SPDX-License-Identifier: MIT */
/* The runtime's own counters (stalls, stacks, unwinding, Python, losses), read from its
 * region when the region closes, summed into the allocation collector's totals, and written
 * as the collector's keys. */
#include <stdbool.h>
#include <stdio.h>

#include "common/clock.h"
#include "format/rt-proto.h"
#include "record/alloc-internal.h"
#include "record/collectors.h"
#include "record/session.h"

/* Did the workload write over its runtime's region? The geometry never changes after the
 * greeting (the recorder reads with its own checked copies): a difference means the counters
 * beside it may be the workload's scribbles too, so they are left out, and counted so. A
 * scribble that misses the geometry goes unseen: the counters are the runtime's claims. */
static bool overwritten(const struct conn *c)
{
	const struct mt_rt_region *r = c->region;

	return r->magic != MT_RT_REGION_MAGIC || r->version != MT_RT_PROTO_VERSION ||
	       r->size != c->size || r->nslots != c->nslots || r->slot_words != c->slot_words ||
	       r->slots_off != c->slots_off || r->slot_size != c->slot_size ||
	       r->nodes_off != c->nodes_off || r->nodes_cap != c->nodes_cap ||
	       r->ready_off != c->ready_off || r->free_off != c->free_off;
}

void mt_ac_sum_counters(struct mt_session *s, struct conn *c)
{
	struct mt_alloc_state *a = s->alloc;
	const struct mt_rt_region *r = c->region;

	if (overwritten(c)) {
		a->regions_overwritten++;
		return;
	}
	a->stalls += r->stalls;
	a->stall_ns += r->stall_ns;
	a->notifies += r->notifies;
	a->dropped += r->dropped;
	a->labels_dropped += r->labels_dropped;
	if (r->labels_dropped)
		mt_emit_lost(s, mt_now_ns(), &s->alloc_coll, r->labels_dropped,
			     "memtap.h labels: the runtime's socket stayed full");
	a->guard += r->guard_events;
	a->truncated += r->truncated;
	a->depth_limited += r->depth_limited;
	a->rule_misses += r->rule_misses;
	a->unwind_chunk_reads += r->unwind_chunk_reads;
	a->unwind_in_memory += r->unwind_in_memory;
	a->unsupported += r->unsupported;
	a->trie_full += r->trie_full;
	a->trie_resets += r->trie_resets;
	a->own_lost += r->own_reports_lost;
	a->own_outside += r->own_outside;
	a->node_waits += r->node_waits;
	for (int k = 0; k < MT_RT_TRUNC_MAX; k++)
		a->trunc[k] += r->trunc[k];
	a->memo_hits += r->memo_hits;
	if (r->py_state < 4) {
		a->py_procs[r->py_state]++;
		if (r->py_version)
			a->py_version[r->py_state] = r->py_version;
	}
	a->py_funcs_lost += r->py_codes_lost;
	a->chan_lost += r->chan_lost;
	a->chan_resumed += r->chan_resumed;
	a->starved_drops += r->starved_drops;
	a->appev_dropped += r->appev_dropped;
	a->appev_fields_dropped += r->appev_fields_dropped;
	a->spans_unmatched += r->spans_unmatched;
	a->spans_too_deep += r->spans_too_deep;
	if (r->appev_dropped)
		mt_emit_lost(s, mt_now_ns(), &s->alloc_coll, r->appev_dropped,
			     "memtap.h events and spans: the runtime's socket stayed full");
	a->py_stacks += r->py_stacks;
	a->py_unplaced += r->py_unplaced;
	if (r->py_codes_lost)
		mt_emit_lost(s, mt_now_ns(), &s->alloc_coll, r->py_codes_lost,
			     "Python function names: the runtime's socket stayed full");
	a->walked += r->frames_walked;
	a->reused += r->frames_reused;
	if (r->dropped)
		mt_emit_lost(
			s, mt_now_ns(), &s->alloc_coll, r->dropped,
			"runtime found no free slot for a second, or a nested hook overflowed");
}

void mt_ac_unwind_keys(struct mt_kv *kv, const struct mt_alloc_state *a)
{
	mt_kv_add_u64(kv, "stacks_truncated", a->truncated);
	mt_kv_add_u64(kv, "stacks_depth_limited", a->depth_limited);
	mt_kv_add_u64(kv, "events_without_stack_nested", a->guard);
	mt_kv_add_u64(kv, "unwind_rule_misses", a->rule_misses);
	/* the objects' unwind tables read from their files, 16 KiB at a time, into
	 * memtap's memory (their mappings untouched); objects, and rules whose file
	 * read failed, read in place */
	mt_kv_add_u64(kv, "unwind_table_chunks_read", a->unwind_chunk_reads);
	mt_kv_add_u64(kv, "unwind_tables_in_memory", a->unwind_in_memory);
	mt_kv_add_u64(kv, "unwind_unsupported", a->unsupported);
	for (int k = 0; k < MT_RT_TRUNC_MAX; k++) {
		char key[64];

		snprintf(key, sizeof(key), "stacks_truncated_%s", mt_rt_trunc_name((unsigned)k));
		mt_kv_add_u64(kv, key, a->trunc[k]);
	}
	mt_kv_add_u64(kv, "unwind_trie_full", a->trie_full);
	mt_kv_add_u64(kv, "unwind_trie_resets", a->trie_resets);
	mt_kv_add_u64(kv, "unwind_node_waits", a->node_waits);
	/* memtap's own memory: its reports the socket lost (their times only), and bytes
	 * the runtime had to map outside its arena (not identified as memtap's) */
	mt_kv_add_u64(kv, "own_memory_reports_lost", a->own_lost);
	mt_kv_add_u64(kv, "own_memory_outside_arena", a->own_outside);
	mt_kv_add_u64(kv, "unwind_frames_walked", a->walked);
	mt_kv_add_u64(kv, "unwind_frames_reused", a->reused);
	mt_kv_add_u64(kv, "unwind_memo_hits", a->memo_hits);
}

/* The runtime's channel: connections refused and why, sockets programs took away. */
void mt_ac_channel_keys(struct mt_kv *kv, const struct mt_alloc_state *a)
{
	static const char *const names[REF_MAX] = { "key",    "memfd",	"malformed",
						    "silent", "resume", "no_fd" };
	uint64_t total = 0;
	char key[64];

	for (int k = 0; k < REF_MAX; k++) {
		total += a->refused[k];
		snprintf(key, sizeof(key), "connections_refused_%s", names[k]);
		mt_kv_add_u64(kv, key, a->refused[k]);
	}
	mt_kv_add_u64(kv, "connections_refused", total);
	mt_kv_add_u64(kv, "recorder_descriptors_exhausted", a->fd_exhausted);
	mt_kv_add_u64(kv, "runtime_sockets_lost", a->chan_lost);
	mt_kv_add_u64(kv, "runtime_sockets_resumed", a->chan_resumed);
	mt_kv_add_u64(kv, "events_dropped_no_wait", a->starved_drops);
}
