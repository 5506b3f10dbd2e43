/* SPDX-License-Identifier: MIT */
/* memtap_event and memtap_span_* from the workload (include/memtap/memtap.h): MT_EV_APP. */
#include <string.h>

#include <memtap/trace-format.h>

#include "format/chunk.h"
#include "format/writer.h"
#include "record/alloc-internal.h"
#include "record/session.h"

/*
 * One message as one event. The recorder checks the message's geometry and nothing of its
 * meaning: the fields are the workload's JSON, read by the analysis (which counts what does
 * not parse); a span's ids pair its begin with its end there. An end carries no name.
 */
void mt_ac_on_appev(struct mt_session *s, struct conn *c, const struct mt_rt_appev *h, size_t n)
{
	const char *str = (const char *)(h + 1);
	uint64_t row[MT_MAX_FIELDS] = { 0 };
	struct mt_alloc_state *a = s->alloc;

	if (h->name_len > MT_RT_APPEV_NAME_MAX || h->fields_len > MT_RT_APPEV_FIELDS_MAX ||
	    n != sizeof(*h) + h->name_len + h->fields_len || h->op > MT_APP_END ||
	    (h->op != MT_APP_EVENT && !h->id)) {
		a->appev_bad++; /* the workload can scribble on anything it sends */
		return;
	}
	row[MT_F_TIME] = h->time_ns;
	row[MT_F_PID] = (uint64_t)c->pid;
	row[MT_F_TID] = h->tid ? h->tid : (uint64_t)c->pid;
	row[MT_F_APP_OP] = h->op;
	row[MT_F_APP_ID] = h->id;
	row[MT_F_APP_PARENT] = h->parent;
	row[MT_F_APP_NAME] = mt_writer_strn(s->w, str, h->name_len);
	row[MT_F_APP_FIELDS] = mt_writer_strn(s->w, str + h->name_len, h->fields_len);
	if (mt_writer_event(s->w, MT_EV_APP, row) == 0)
		a->appev++;
}

void mt_ac_appev_keys(struct mt_kv *kv, const struct mt_alloc_state *a)
{
	mt_kv_add_u64(kv, "app_events", a->appev);
	mt_kv_add_u64(kv, "app_events_dropped", a->appev_dropped);
	mt_kv_add_u64(kv, "app_events_malformed", a->appev_bad);
	mt_kv_add_u64(kv, "app_fields_too_long", a->appev_fields_dropped);
	mt_kv_add_u64(kv, "spans_unmatched_ends", a->spans_unmatched);
	mt_kv_add_u64(kv, "spans_too_deep", a->spans_too_deep);
}
