/* SPDX-License-Identifier: MIT */
/* --event SUBSYS:NAME: any tracepoint, its fields decoded from its format description. */
#include "record/tracepoints.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"
#include "decode/sample.h"
#include "decode/tpformat.h"
#include "format/chunk.h"
#include "format/writer.h"
#include "record/perf.h"
#include "record/session.h"
#include "record/sysinfo.h"

/*
 * One perf tracepoint event per --event and CPU, inherited by the command's tree and enabled
 * at its exec (as the syscall collector's). All of a CPU's events write into the first one's
 * ring; a record's common_type (the tracepoint's id) says which tracepoint it is. The
 * recorder decodes each record's fields with the description read from tracefs before the
 * command starts: integers and pointers become values, char arrays and __data_loc strings
 * become string ids. The descriptions go into the collector's chunk, so readers name the
 * value columns without tracefs.
 */

#define RING_PAGES 256 /* 1 MiB per CPU */
#define RING_PAGES_MIN 16

struct tp {
	char spec[128]; /* SUBSYS:NAME */
	struct mt_tpf d;
	uint32_t name_id; /* its string id in the trace */
	uint64_t hits;
};

struct mt_tracepoints_state {
	struct tp tps[MT_MAX_EVENTS];
	size_t ntps;
	struct mt_perf_ring *rings; /* per CPU: the first tracepoint's fd owns the ring */
	int *fds; /* ncpu * ntps: the others, redirected into the ring */
	int nrings;
	unsigned ring_pages;
	uint64_t lost, malformed, unknown;
};

/* "skb:kfree_skb" or "skb/kfree_skb" into tracefs's "skb/kfree_skb"; -EINVAL otherwise. */
static int spec_path(const char *spec, char *out, size_t size)
{
	const char *sep = strpbrk(spec, ":/");
	size_t n = strlen(spec);

	if (!sep || sep == spec || !sep[1] || strpbrk(sep + 1, ":/") || n >= size ||
	    strstr(spec, ".."))
		return -EINVAL;
	memcpy(out, spec, n + 1);
	out[sep - spec] = '/';
	return 0;
}

static int read_format(const char *spec, char **text)
{
	char rel[128];
	int r = spec_path(spec, rel, sizeof(rel));

	return r < 0 ? r : mt_tracepoint_format(rel, text);
}

/* Appends " (closest: a, b, c)": the tracepoints nearest to want, compared whole, or by
 * their NAME part when want has no subsystem. */
static void closest(const char *base, const char *want, bool by_name, char *msg, size_t size)
{
	char evdir[300], **names = NULL;
	const char *best[3];
	unsigned dist[3];
	size_t nbest = 0, nnames = 0, k = strlen(msg);
	DIR *ev;

	snprintf(evdir, sizeof(evdir), "%s/events", base);
	ev = opendir(evdir);
	while (ev) {
		struct dirent *sd = readdir(ev);
		char sub[600];
		DIR *sdir;

		if (!sd)
			break;
		if (sd->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", evdir, sd->d_name);
		sdir = opendir(sub);
		for (struct dirent *e; sdir && (e = readdir(sdir)) != NULL;) {
			char full[520], **nn;
			unsigned d;
			size_t at;

			if (e->d_name[0] == '.' || e->d_type == DT_REG)
				continue;
			snprintf(full, sizeof(full), "%s:%s", sd->d_name, e->d_name);
			d = mt_edit_distance(want, by_name ? e->d_name : full);
			if (nbest == 3 && d >= dist[2])
				continue;
			nn = realloc(names, (nnames + 1) * sizeof(*names));
			if (!nn)
				break;
			names = nn;
			if (!(names[nnames] = strdup(full)))
				break;
			/* keep the three nearest, ties in directory order */
			at = nbest;
			while (at > 0 && dist[at - 1] > d)
				at--;
			if (nbest < 3)
				nbest++;
			memmove(best + at + 1, best + at, (nbest - 1 - at) * sizeof(*best));
			memmove(dist + at + 1, dist + at, (nbest - 1 - at) * sizeof(*dist));
			best[at] = names[nnames++];
			dist[at] = d;
		}
		if (sdir)
			closedir(sdir);
	}
	if (ev)
		closedir(ev);
	for (size_t i = 0; i < nbest && k < size; i++)
		k += (size_t)snprintf(msg + k, size - k, "%s%s", i ? ", " : " (closest: ", best[i]);
	if (nbest && k < size)
		snprintf(msg + k, size - k, ")");
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
}

int mt_tracepoint_check(const char *spec, char *msg, size_t size)
{
	char base[256], rel[128];
	char *text = NULL;
	int r;

	if (mt_tracefs_path(base, sizeof(base)) < 0) {
		snprintf(msg, size,
			 "--event '%s': tracefs is not mounted (mount -t tracefs nodev "
			 "/sys/kernel/tracing)",
			 spec);
		return -1;
	}
	if (spec_path(spec, rel, sizeof(rel)) < 0) {
		snprintf(msg, size, "--event '%s': expected SUBSYS:NAME", spec);
		closest(base, spec, !strpbrk(spec, ":/"), msg, size);
		return -1;
	}
	r = read_format(spec, &text);
	if (r == 0) {
		struct mt_tpf d;

		r = mt_tpf_parse(text, &d);
		free(text);
		if (r == 0 && d.id < 0)
			r = -EPROTO;
		mt_tpf_release(&d);
		if (r == 0)
			return 0;
		snprintf(msg, size, "--event '%s': its format description cannot be parsed (%s)",
			 spec, strerror(-r));
		return -1;
	}
	if (r != -ENOENT) {
		snprintf(msg, size, "--event '%s': cannot read %s/events/%s/format: %s%s", spec,
			 base, rel, strerror(-r),
			 r == -EACCES || r == -EPERM ? " (tracefs needs root here)" : "");
		return -1;
	}
	snprintf(msg, size, "--event '%s': no such tracepoint", spec);
	closest(base, spec, false, msg, size);
	return -1;
}

static void free_state(struct mt_tracepoints_state *c)
{
	for (int i = 0; c->fds && i < c->nrings * (int)c->ntps; i++)
		if (c->fds[i] >= 0)
			mt_perf_close(c->fds[i]);
	for (int i = 0; c->rings && i < c->nrings; i++)
		mt_perf_ring_close(&c->rings[i]);
	for (size_t i = 0; i < c->ntps; i++)
		mt_tpf_release(&c->tps[i].d);
	free(c->fds);
	free(c->rings);
	free(c);
}

/* The description keys of tracepoint i (docs/trace-format.md, the "events" collector). */
static void describe(const struct tp *t, size_t i, struct mt_kv *kv)
{
	char key[160], fields[MT_TPF_MAX_FIELDS * (MT_TPF_NAME_MAX + 8)];
	size_t k = 0;

	snprintf(key, sizeof(key), "event.%zu", i);
	mt_kv_add(kv, key, t->spec);
	snprintf(key, sizeof(key), "event.%zu.id", i);
	mt_kv_add_u64(kv, key, (uint64_t)t->d.id);
	fields[0] = 0;
	for (unsigned f = 0; f < t->d.nfields; f++)
		k += (size_t)snprintf(fields + k, sizeof(fields) - k, "%s%s:%s", f ? "," : "",
				      t->d.f[f].name, mt_tpf_kind_name(t->d.f[f].kind));
	snprintf(key, sizeof(key), "event.%zu.fields", i);
	mt_kv_add(kv, key, fields);
	snprintf(key, sizeof(key), "event.%zu.skipped_fields", i);
	mt_kv_add_u64(kv, key, t->d.skipped);
	for (unsigned f = 0; f < t->d.nfields; f++) {
		if (!t->d.f[f].symbols)
			continue;
		snprintf(key, sizeof(key), "event.%zu.symbols.%s", i, t->d.f[f].name);
		mt_kv_add(kv, key, t->d.f[f].symbols);
	}
}

/* The second and later tracepoints of one CPU, writing into the first one's ring. */
struct tp_follow {
	struct mt_session *s;
	struct mt_tracepoints_state *c;
	struct perf_event_attr at;
};

static int open_others(void *ctx, int cpu, const struct mt_perf_ring *ring)
{
	struct tp_follow *tf = ctx;
	struct mt_tracepoints_state *c = tf->c;

	for (size_t i = 1; i < c->ntps; i++) {
		int fd;

		tf->at.config = (uint64_t)c->tps[i].d.id;
		fd = mt_perf_open_follower(&tf->at, tf->s->root, cpu, ring);
		if (fd < 0)
			return fd;
		c->fds[(size_t)cpu * c->ntps + i] = fd;
	}
	return 0;
}

int mt_tracepoints_open(struct mt_session *s, const char *const *specs, size_t n, struct mt_kv *kv)
{
	struct mt_tracepoints_state *c = calloc(1, sizeof(*c));
	struct tp_follow tf = { 0 };
	struct perf_event_attr at;
	int ncpu = mt_perf_ncpus(), opened = 0, rc = 0;
	char list[MT_MAX_EVENTS * 130];
	size_t k = 0;

	if (!c)
		return -ENOMEM;
	if (n > MT_MAX_EVENTS)
		n = MT_MAX_EVENTS;
	list[0] = 0;
	for (size_t i = 0; i < n; i++) {
		struct tp *t = &c->tps[c->ntps];
		char *text = NULL;

		mt_strlcpy(t->spec, specs[i], sizeof(t->spec));
		{
			char *sep = strchr(t->spec, '/');

			if (sep)
				*sep = ':';
		}
		rc = read_format(t->spec, &text);
		if (rc == 0) {
			rc = mt_tpf_parse(text, &t->d);
			free(text);
		}
		if (rc == 0 && t->d.id < 0)
			rc = -EPROTO;
		if (rc < 0) {
			free_state(c);
			return rc;
		}
		c->ntps++;
		t->name_id = mt_writer_str(s->w, t->spec);
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", i ? "," : "", t->spec);
	}
	c->rings = calloc((size_t)ncpu, sizeof(*c->rings));
	c->fds = malloc((size_t)ncpu * c->ntps * sizeof(int));
	if (!c->rings || !c->fds) {
		free_state(c);
		return -ENOMEM;
	}
	c->nrings = ncpu;
	for (int i = 0; i < ncpu; i++)
		c->rings[i].fd = -1;
	for (size_t i = 0; i < (size_t)ncpu * c->ntps; i++)
		c->fds[i] = -1;
	c->ring_pages = RING_PAGES;
	tf.s = s;
	tf.c = c;
	mt_perf_attr_tree(&tf.at, PERF_TYPE_TRACEPOINT, (uint64_t)c->tps[0].d.id,
			  PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW, 1u << 18);
	at = tf.at;
	rc = mt_perf_rings_open(&at, s->root, c->rings, ncpu, &c->ring_pages, RING_PAGES_MIN,
				open_others, &tf);
	opened = rc > 0 ? rc : 0;
	if (rc < 0 || !opened) {
		free_state(c);
		return rc < 0 ? rc : -ENODEV;
	}
	mt_kv_add(kv, "tracepoints", list);
	mt_kv_add(kv, "scope", "the command's tree: tasks it creates, from its exec");
	for (size_t i = 0; i < c->ntps; i++)
		describe(&c->tps[i], i, kv);
	s->tracepoints = c;
	return 0;
}

int mt_tracepoints_pollfds(struct mt_session *s, struct pollfd *fds, int max)
{
	return s->tracepoints ? mt_perf_rings_pollfds(s->tracepoints->rings, s->tracepoints->nrings,
						      fds, max)
			      : 0;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct mt_session *s = ctx;
	struct mt_tracepoints_state *c = s->tracepoints;
	uint64_t row[_MT_F_TP_MAX];
	struct mt_perf_sample ps;
	struct tp *t = NULL;
	uint16_t type;

	if (h->type == PERF_RECORD_LOST) {
		c->lost += mt_emit_perf_lost(s, h, mt_now_ns(), &s->events_coll,
					     "events: perf ring buffer full");
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	if (mt_perf_sample_parse(h, h->size, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
				 0, &ps) < 0 ||
	    !ps.raw || ps.raw_size < 2) {
		c->malformed++;
		return;
	}
	memcpy(&type, ps.raw, 2); /* common_type, at offset 0 in every tracepoint record */
	for (size_t i = 0; i < c->ntps; i++)
		if (c->tps[i].d.id == type)
			t = &c->tps[i];
	if (!t) {
		c->unknown++;
		return;
	}
	memset(row, 0, sizeof(row));
	row[MT_F_TIME] = ps.time;
	row[MT_F_PID] = ps.pid;
	row[MT_F_TID] = ps.tid;
	row[MT_F_TP_EVENT] = t->name_id;
	for (unsigned f = 0; f < t->d.nfields; f++) {
		const char *str;
		size_t len;
		uint64_t v = mt_tpf_value(&t->d.f[f], ps.raw, ps.raw_size, &str, &len);

		if (t->d.f[f].kind == MT_TPF_STR || t->d.f[f].kind == MT_TPF_DYNSTR)
			v = mt_writer_strn(s->w, str, len);
		row[MT_F_TP_V0 + f] = v;
	}
	t->hits++;
	if (mt_writer_event(s->w, MT_EV_TRACEPOINT, row) == 0)
		s->events_coll.events++;
}

void mt_tracepoints_drain(struct mt_session *s)
{
	struct mt_tracepoints_state *c = s->tracepoints;

	if (c)
		c->malformed += mt_perf_rings_drain(c->rings, c->nrings, on_record, s);
}

void mt_tracepoints_close(struct mt_session *s, struct mt_kv *kv)
{
	struct mt_tracepoints_state *c = s->tracepoints;
	char list[MT_MAX_EVENTS * 130], key[64];
	size_t k = 0;

	if (!c)
		return;
	mt_tracepoints_drain(s);
	list[0] = 0;
	for (size_t i = 0; i < c->ntps; i++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", i ? "," : "",
				      c->tps[i].spec);
	mt_kv_add(kv, "tracepoints", list);
	mt_kv_add(kv, "scope", "the command's tree: tasks it creates, from its exec");
	for (size_t i = 0; i < c->ntps; i++) {
		describe(&c->tps[i], i, kv);
		snprintf(key, sizeof(key), "event.%zu.hits", i);
		mt_kv_add_u64(kv, key, c->tps[i].hits);
	}
	mt_kv_add_u64(kv, "malformed", c->malformed);
	mt_kv_add_u64(kv, "ring_bytes_per_cpu", (uint64_t)c->ring_pages * 4096);
	s->events_coll.lost = c->lost;
	free_state(c);
	s->tracepoints = NULL;
}
