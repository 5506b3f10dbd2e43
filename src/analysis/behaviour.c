/* SPDX-License-Identifier: MIT */
/* Allocation sites typed by what their blocks did (analysis/behaviour.h). */
#include "analysis/behaviour.h"

uint64_t mt_beh_alloc(struct mt_site_behaviour *b, uint64_t size)
{
	if (b->allocs) {
		if (size > b->last_size) {
			b->size_up++;
			b->size_up_step += size - b->last_size <= b->last_size / 4;
		} else if (size < b->last_size)
			b->size_down++;
	}
	b->last_size = size;
	return ++b->allocs;
}

void mt_beh_free(struct mt_site_behaviour *b, uint64_t at)
{
	uint64_t later = at && b->allocs > at ? b->allocs - at : 0;

	b->frees++;
	b->successors += later;
	if (later)
		b->outlived++;
}

/* The thresholds (docs/metrics.md, "Typing by behaviour"). */
#define MIN_BLOCKS 8

static float ratio(uint64_t a, uint64_t b)
{
	return b ? (float)a / (float)b : 0.0f;
}

void mt_beh_settle(struct mt_site_behaviour *b)
{
	float freed = ratio(b->frees, b->allocs), outlive = ratio(b->outlived, b->frees);
	float alive = ratio(b->lasting, b->big);
	/* read late as often as blocks read all along would be, with their samples (one
	 * sample: half the time); capped at 1 */
	float rlate = b->read_late_expected > 0
			      ? (float)((double)b->read_late / b->read_late_expected)
			      : 0.0f;
	float wlate = ratio(b->written_late, b->big);

	if (rlate > 1.0f)
		rlate = 1.0f;
	b->verdict = MT_BEH_NONE;
	b->confidence = 0;
	if (!b->big) /* no block of 64 KiB or more was touched: not memory that matters here */
		return;
	/* grown by copy: sizes mostly grow, by rows (a buffer that doubles is no context), and
	 * each block outlives the site's next ones */
	if (b->allocs >= MIN_BLOCKS && freed >= 0.5f && b->size_up >= 3 &&
	    b->size_down * 2 <= b->size_up && b->size_up_step * 4 >= b->size_up * 3 &&
	    outlive >= 0.8f && b->successors >= b->frees * 3 / 2) {
		b->verdict = MT_BEH_KV_GROWN;
		b->confidence = outlive * (1.0f - ratio(b->size_down, b->size_up));
		return;
	}
	/* lasting and read to the end: state kept for the whole run, by how it was written */
	if (alive >= 0.9f && b->read && rlate >= 0.5f) {
		float wo = b->wo_pages ? ratio(b->wo_once_pages, b->wo_pages) : -1.0f;

		/* written to the end: filled as it goes (each page takes a few rows, so a few
		 * epochs at most), or a buffer kept and rewritten (every epoch of the run) */
		float epochs = b->pages_written ? (float)b->page_epochs / (float)b->pages_written
						: 0;
		/* settled pages: epochs a lower bound; where the pages were first written tells
		 * a cache filled as it goes (spread over its life) from a buffer rewritten from
		 * its start (its late writes then seen by sampled stores) */
		float settled = ratio(b->pages_settled, b->pages_written);
		float fill = b->pages_written
				     ? (float)(b->first_write_pos / (double)b->pages_written)
				     : 0.0f;

		if (b->pages_settled && wlate >= 0.5f && fill >= 0.25f) {
			b->verdict = MT_BEH_KV_FILLED;
			b->confidence = alive * rlate * wlate * (fill < 0.5f ? 2.0f * fill : 1.0f);
		} else if (b->pages_settled && wlate >= 0.5f && settled >= 0.5f) {
			b->verdict = MT_BEH_SCRATCH_SETTLED;
			b->confidence = alive * wlate * settled * (1.0f - 4.0f * fill);
		} else if (!b->pages_settled && wlate >= 0.5f && b->pages_written &&
			   epochs <= 4.0f) {
			b->verdict = MT_BEH_KV_IN_PLACE;
			b->confidence = alive * rlate * wlate;
		} else if (!b->pages_settled && wlate >= 0.5f && epochs >= 8.0f) {
			b->verdict = MT_BEH_SCRATCH;
			b->confidence = alive * wlate * (1.0f - 4.0f / epochs);
		} else if (wlate <= 0.1f && wo >= 0.9f) { /* written once, exactly */
			b->verdict = MT_BEH_WEIGHT;
			b->confidence = alive * rlate * (1.0f - wlate) * wo;
		}
		return;
	}
	/* many short-lived blocks, each gone before the site's next one */
	if (b->allocs >= MIN_BLOCKS && freed >= 0.9f && outlive <= 0.2f) {
		b->verdict = MT_BEH_ACTIVATION;
		b->confidence = freed * (1.0f - outlive);
	}
}

const char *mt_beh_type(unsigned verdict)
{
	switch (verdict) {
	case MT_BEH_KV_GROWN:
	case MT_BEH_KV_IN_PLACE:
	case MT_BEH_KV_FILLED:
		return "kv_cache";
	case MT_BEH_WEIGHT:
		return "weight";
	case MT_BEH_ACTIVATION:
	case MT_BEH_SCRATCH:
	case MT_BEH_SCRATCH_SETTLED:
		return "activation";
	default:
		return NULL;
	}
}

const char *mt_beh_evidence(unsigned verdict)
{
	switch (verdict) {
	case MT_BEH_KV_GROWN:
		return "kv-like: its blocks grow step by step, each outliving the site's next ones";
	case MT_BEH_KV_IN_PLACE:
		return "kv-like: lasting, filled to the end, each page in a few epochs (exact)";
	case MT_BEH_WEIGHT:
		return "weight-like: lasting, written once early (exact), read to the end";
	case MT_BEH_ACTIVATION:
		return "activation-like: many short-lived blocks, each gone before the site's next";
	case MT_BEH_SCRATCH:
		return "activation-like: lasting, its pages rewritten epoch after epoch (exact)";
	case MT_BEH_KV_FILLED:
		return "kv-like: lasting, its pages first written over its life, written to the end";
	case MT_BEH_SCRATCH_SETTLED:
		return "activation-like: lasting, rewritten from its start (settled pages), written "
		       "to the end";
	default:
		return "";
	}
}
