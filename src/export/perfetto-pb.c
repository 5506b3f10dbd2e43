/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto timeline as Perfetto's own protobuf trace (a perfetto.protos.Trace): track
 * descriptors for processes, threads, each process's "phases" and each counter series,
 * and TrackEvents on them. A Trace message is a run of `packet` fields, so packets are
 * written one by one as the events come. Field numbers are those of Perfetto's
 * protos/perfetto/trace (trace_packet.proto and those of track_event/).
 */
#include <errno.h>
#include <string.h>

#include "common/varint.h"
#include "export/pb.h"
#include "export/perfetto-internal.h"

enum { TRACE_PACKET = 1 };
/* TracePacket */
enum {
	PK_TIMESTAMP = 8,
	PK_SEQUENCE_ID = 10,
	PK_TRACK_EVENT = 11,
	PK_SEQUENCE_FLAGS = 13,
	PK_TRACK_DESCRIPTOR = 60
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1 };
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
enum { TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8 };
enum { PD_PID = 1, PD_NAME = 6 };
enum { THD_PID = 1, THD_TID = 2, THD_NAME = 5 };
enum { CD_UNIT = 3, UNIT_COUNT = 2, UNIT_SIZE_BYTES = 3 };
/* TrackEvent, DebugAnnotation */
enum {
	TE_DEBUG = 4,
	TE_TYPE = 9,
	TE_TRACK = 11,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_COUNTER_VALUE = 30
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10 };

#define SEQUENCE 1 /* every packet: one writer, one sequence */
#define UUID_PROCESS (1ull << 56)
#define UUID_THREAD (2ull << 56)
#define UUID_PHASES (3ull << 56)
#define UUID_COUNTER (4ull << 56)

void mt_pf_pb_init(struct pf *p)
{
	mt_map64_init(&p->tracks);
	mt_buf_init(&p->pkt, 64u << 20);
	mt_buf_init(&p->ev, 64u << 20);
	mt_buf_init(&p->m, 64u << 20);
	mt_buf_init(&p->a, 64u << 20);
}

void mt_pf_pb_release(struct pf *p)
{
	mt_map64_release(&p->tracks);
	mt_buf_release(&p->pkt);
	mt_buf_release(&p->ev);
	mt_buf_release(&p->m);
	mt_buf_release(&p->a);
}

/* A varint field written even when 0 (a oneof's value, a pid 0). */
static int put_u64(struct mt_buf *b, unsigned field, uint64_t v)
{
	int rc = mt_pb_tag(b, field, MT_PB_VARINT);

	return rc < 0 ? rc : mt_buf_put_varint(b, v);
}

/* The packet in p->pkt (with its message `data` in field `field`) into the trace. */
static void emit(struct pf *p, uint64_t t, unsigned field, const struct mt_buf *data)
{
	struct mt_buf *k = &p->pkt;
	uint8_t hdr[16];
	size_t n = 0;
	int rc;

	mt_buf_reset(k);
	rc = t ? put_u64(k, PK_TIMESTAMP, t) : 0;
	if (rc == 0)
		rc = put_u64(k, PK_SEQUENCE_ID, SEQUENCE);
	if (rc == 0 && !p->pb_started) {
		rc = put_u64(k, PK_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		p->pb_started = true;
	}
	if (rc == 0 && data)
		rc = mt_pb_msg(k, field, data);
	if (rc < 0) {
		p->pb_failed = true;
		return;
	}
	hdr[n++] = TRACE_PACKET << 3 | MT_PB_LEN;
	n += mt_varint_put(hdr + n, k->len);
	if (fwrite(hdr, 1, n, p->f) != n || fwrite(k->data, 1, k->len, p->f) != k->len)
		p->pb_failed = true;
}

/* A TrackDescriptor: uuid, parent (0: none), name (NULL: none), and the descriptor of
 * its kind already in p->m (empty: none) under field kind. */
static void describe(struct pf *p, uint64_t uuid, uint64_t parent, const char *name, unsigned kind)
{
	struct mt_buf *d = &p->ev;
	int rc;

	mt_buf_reset(d);
	rc = put_u64(d, TD_UUID, uuid);
	if (rc == 0 && parent)
		rc = put_u64(d, TD_PARENT, parent);
	if (rc == 0 && name)
		rc = mt_pb_str(d, TD_NAME, name);
	if (rc == 0 && kind)
		rc = mt_pb_msg(d, kind, &p->m);
	if (rc < 0) {
		p->pb_failed = true;
		return;
	}
	emit(p, 0, PK_TRACK_DESCRIPTOR, d);
}

/* A track is described once (a thread again when it is named). */
static bool described(struct pf *p, uint64_t uuid)
{
	uint64_t *v;

	if (mt_map64_put(&p->tracks, uuid, &v) < 0)
		return true; /* no memory: the events still carry their track's uuid */
	if (*v)
		return true;
	*v = 1;
	return false;
}

void mt_pf_pb_process(struct pf *p, uint32_t pid, const char *name)
{
	mt_buf_reset(&p->m);
	if (put_u64(&p->m, PD_PID, pid) < 0 || mt_pb_str(&p->m, PD_NAME, name) < 0) {
		p->pb_failed = true;
		return;
	}
	described(p, UUID_PROCESS | pid);
	describe(p, UUID_PROCESS | pid, 0, NULL, TD_PROCESS);
}

static uint64_t thread_track(struct pf *p, uint32_t pid, uint32_t tid, const char *name)
{
	if (tid >= PHASE_TID_BASE) { /* the process's phases: a named track of its own */
		uint64_t uuid = UUID_PHASES | (tid - PHASE_TID_BASE);

		if (!described(p, uuid)) {
			mt_buf_reset(&p->m);
			describe(p, uuid, UUID_PROCESS | pid, "phases", 0);
		}
		return uuid;
	}
	if (described(p, UUID_THREAD | tid) && !name)
		return UUID_THREAD | tid;
	mt_buf_reset(&p->m);
	if (put_u64(&p->m, THD_PID, pid) < 0 || put_u64(&p->m, THD_TID, tid) < 0 ||
	    (name && mt_pb_str(&p->m, THD_NAME, name) < 0)) {
		p->pb_failed = true;
		return UUID_THREAD | tid;
	}
	describe(p, UUID_THREAD | tid, UUID_PROCESS | pid, NULL, TD_THREAD);
	return UUID_THREAD | tid;
}

void mt_pf_pb_thread(struct pf *p, uint32_t pid, uint32_t tid, const char *name)
{
	thread_track(p, pid, tid, name);
}

/* The debug annotations of an event's arguments, into e. */
static int annotations(struct pf *p, struct mt_buf *e, const struct pf_arg *a, int n)
{
	int rc = 0;

	for (int i = 0; i < n && rc == 0; i++) {
		mt_buf_reset(&p->a);
		rc = mt_pb_str(&p->a, DA_NAME, a[i].key);
		if (rc == 0 && a[i].kind == PF_STR)
			rc = mt_pb_str(&p->a, DA_STRING, a[i].s);
		else if (rc == 0)
			rc = put_u64(&p->a,
				     a[i].kind == PF_U64   ? DA_UINT
				     : a[i].kind == PF_I64 ? DA_INT
							   : DA_POINTER,
				     a[i].u);
		if (rc == 0)
			rc = mt_pb_msg(e, TE_DEBUG, &p->a);
	}
	return rc;
}

/* A TrackEvent of type on track at t: name and category (NULL: none), arguments. */
static void track_event(struct pf *p, uint64_t t, unsigned type, uint64_t track, const char *name,
			const char *cat, const struct pf_arg *a, int n, const int64_t *value)
{
	struct mt_buf *e = &p->ev;
	int rc;

	mt_buf_reset(e);
	rc = put_u64(e, TE_TYPE, type);
	if (rc == 0)
		rc = put_u64(e, TE_TRACK, track);
	if (rc == 0 && name)
		rc = mt_pb_str(e, TE_NAME, name);
	if (rc == 0 && cat)
		rc = mt_pb_str(e, TE_CATEGORIES, cat);
	if (rc == 0 && value)
		rc = put_u64(e, TE_COUNTER_VALUE, (uint64_t)*value);
	if (rc == 0)
		rc = annotations(p, e, a, n);
	if (rc < 0) {
		p->pb_failed = true;
		return;
	}
	emit(p, t, PK_TRACK_EVENT, e);
}

void mt_pf_pb_counter(struct pf *p, uint32_t pid, const char *name, uint64_t t,
		      const struct pf_arg *a, int n)
{
	/* counts: faults per window, pages of the working set; the rest are bytes */
	unsigned unit = !strcmp(name, "faults") || !strcmp(name, "working set") ? UNIT_COUNT
										: UNIT_SIZE_BYTES;

	for (int i = 0; i < n; i++) {
		char series[96];
		uint64_t uuid;
		int64_t v = (int64_t)a[i].u;

		snprintf(series, sizeof(series), "%s %s", name, a[i].key);
		uuid = UUID_COUNTER | (mt_hash64(series, strlen(series), pid) & ((1ull << 56) - 1));
		if (!described(p, uuid)) {
			mt_buf_reset(&p->m);
			if (put_u64(&p->m, CD_UNIT, unit) < 0) {
				p->pb_failed = true;
				return;
			}
			describe(p, uuid, UUID_PROCESS | pid, series, TD_COUNTER);
		}
		track_event(p, t, TYPE_COUNTER, uuid, NULL, NULL, NULL, 0, &v);
	}
}

void mt_pf_pb_instant(struct pf *p, uint32_t pid, uint32_t tid, const char *cat, const char *name,
		      uint64_t t, const struct pf_arg *a, int n)
{
	track_event(p, t, TYPE_INSTANT, thread_track(p, pid, tid, NULL), name, cat, a, n, NULL);
}

void mt_pf_pb_slice(struct pf *p, uint32_t pid, uint32_t tid, const char *cat, const char *name,
		    uint64_t t, uint64_t dur, const struct pf_arg *a, int n)
{
	uint64_t track = thread_track(p, pid, tid, NULL);

	track_event(p, t, TYPE_SLICE_BEGIN, track, name, cat, a, n, NULL);
	track_event(p, t + dur, TYPE_SLICE_END, track, NULL, NULL, NULL, 0, NULL);
}
