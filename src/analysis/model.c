/* SPDX-License-Identifier: MIT */
/* The analysis model behind every report and export: the sections a trace supports, loaded
 * in one read of it (analysis/model.h). */
#include "analysis/model.h"
#include "analysis/candidates.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <memtap/trace-format.h>

#include "analysis/pass.h"
#include "common/array.h"
#include "format/reader.h"
#include "format/schema.h"

static const struct {
	const char *name;
	int bit;
} section_names[] = {
	{ "run", MT_SEC_RUN },
	{ "processes", MT_SEC_PROCESSES },
	{ "alloc", MT_SEC_ALLOC },
	{ "access", MT_SEC_ACCESS },
	{ "faults", MT_SEC_FAULTS },
	{ "rss", MT_SEC_RSS },
	{ "syscalls", MT_SEC_SYSCALLS },
	{ "events", MT_SEC_EVENTS },
	{ "metrics", MT_SEC_METRICS },
	{ "candidates", MT_SEC_CANDIDATES },
	{ "placement", MT_SEC_PLACEMENT },
};

/* What the access model serves; the candidates (and the placement of each) need the
 * allocation sites' sizes too. */
#define NEEDS_CANDS (MT_SEC_CANDIDATES | MT_SEC_PLACEMENT)
#define NEEDS_ACCESS (MT_SEC_ACCESS | MT_SEC_FAULTS | MT_SEC_METRICS | NEEDS_CANDS)
#define NEEDS_ALLOC (MT_SEC_ALLOC | NEEDS_CANDS)

const char *mt_report_section_names(void)
{
	return "run, processes, alloc, access, faults, rss, syscalls, events, metrics, "
	       "candidates, placement";
}

/* Each candidate on each tier of the model it could move to. */
static int build_placement(struct mt_report *rep)
{
	uint64_t hz;
	struct mt_place_in in = { .cands = rep->cands,
				  .ncands = rep->ncands,
				  .tiers = &rep->tiers,
				  .page_writes = rep->access.st.page_writes_present };
	const struct mt_run *run = &rep->run;

	mt_report_sampling(rep, &in.period, &hz, &in.unit);
	in.run_s = (double)(run->duration_ns ? run->duration_ns : 0) / 1e9;
	return mt_placement_build(&in, &rep->places, &rep->nplaces);
}

int mt_report_sections(const char *list, const char **bad)
{
	static char tok[64];
	int bits = 0;

	if (!list || !*list)
		return MT_SEC_ALL;
	while (*list) {
		size_t n = strcspn(list, ","), k;

		for (k = 0; k < sizeof(section_names) / sizeof(section_names[0]); k++)
			if (strlen(section_names[k].name) == n &&
			    !strncmp(section_names[k].name, list, n))
				break;
		if (k == sizeof(section_names) / sizeof(section_names[0])) {
			snprintf(tok, sizeof(tok), "%.*s", (int)(n < 60 ? n : 60), list);
			*bad = tok;
			return -1;
		}
		bits |= section_names[k].bit;
		list += n;
		if (*list)
			list++;
	}
	return bits;
}

/* The passes the selected sections need, added to one read of the trace. */
static int setup(struct mt_report *rep, int sections, struct mt_passes *ps)
{
	struct mt_pass p;

	mt_passes_add(ps, mt_run_pass(rep->r, &rep->run, &p), &p);
	mt_passes_add(ps, mt_procs_pass_figures(rep->r, &rep->procs, &p), &p);
	if (ps->status < 0)
		return ps->status; /* the sections need the run's collectors */
	/* one index of the file mappings for every symbolized figure; first, so that it has
	 * seen every mapping before another pass asks it mid-read (the access pass's rules) */
	if (sections & (NEEDS_ALLOC | NEEDS_ACCESS))
		mt_passes_add(ps, mt_sym_pass(rep->r, &rep->sym, &p), &p);
	if (sections & NEEDS_ALLOC)
		mt_report_alloc_setup(rep, ps);
	if (sections & NEEDS_ACCESS)
		mt_report_access_setup(rep, ps);
	if (sections & MT_SEC_RSS)
		mt_report_rss_setup(rep, ps);
	if (sections & MT_SEC_SYSCALLS)
		mt_report_syscalls_setup(rep, ps);
	if (sections & MT_SEC_EVENTS)
		mt_report_events_setup(rep, ps);
	return ps->status;
}

int mt_report_setup(struct mt_report *rep, struct mt_reader *r, const char *path, int sections,
		    unsigned top, const struct mt_access_opts *ao, struct mt_passes *ps)
{
	memset(rep, 0, sizeof(*rep));
	if (ao)
		rep->access_opts = *ao;
	if (rep->access_opts.tiers)
		rep->tiers = *rep->access_opts.tiers;
	else
		mt_tiers_default(&rep->tiers);
	rep->access_opts.tiers = &rep->tiers;
	rep->r = r;
	rep->path = path;
	rep->top = top ? top : 10;
	return setup(rep, sections, ps);
}

int mt_report_done(struct mt_report *rep, int sections, int rc)
{
	if (rc >= 0 && (sections & NEEDS_ALLOC))
		rc = mt_report_alloc_done(rep);
	if (rc >= 0 && (sections & NEEDS_ACCESS))
		rc = mt_report_access_done(rep);
	if (rc >= 0 && (sections & NEEDS_CANDS))
		rc = mt_candidates_build(rep, &rep->cands, &rep->ncands);
	if (rc >= 0 && (sections & MT_SEC_PLACEMENT))
		rc = build_placement(rep);
	if (rc >= 0 && (sections & MT_SEC_RSS))
		rc = mt_report_rss_done(rep);
	if (rc >= 0 && (sections & MT_SEC_SYSCALLS))
		rc = mt_report_syscalls_done(rep);
	if (rc >= 0 && (sections & MT_SEC_EVENTS))
		rc = mt_report_events_done(rep);
	if (rc < 0)
		mt_report_release(rep);
	return rc;
}

int mt_report_load(struct mt_report *rep, struct mt_reader *r, const char *path, int sections,
		   unsigned top, const struct mt_access_opts *ao)
{
	struct mt_passes ps;

	mt_passes_init(&ps);
	mt_report_setup(rep, r, path, sections, top, ao, &ps);
	return mt_report_done(rep, sections, mt_passes_run(r, &ps));
}

void mt_report_release(struct mt_report *rep)
{
	mt_report_alloc_release(rep);
	mt_report_access_release(rep);
	mt_report_rss_release(rep);
	mt_report_syscalls_release(rep);
	mt_report_events_release(rep);
	mt_procs_release(&rep->procs);
	mt_run_release(&rep->run);
	mt_sym_close(rep->sym);
	rep->sym = NULL;
	free(rep->cands);
	rep->cands = NULL;
	rep->ncands = 0;
	free(rep->places);
	rep->places = NULL;
	rep->nplaces = 0;
}

int mt_report_rss_setup(struct mt_report *rep, struct mt_passes *ps)
{
	struct mt_report_rss *rr = &rep->rss;
	struct mt_pass p;

	rr->coll = mt_report_collector(rep, "rss");
	return mt_passes_add(ps, mt_rss_pass(rep->r, &rr->st, &p), &p);
}

int mt_report_rss_done(struct mt_report *rep)
{
	struct mt_report_rss *rr = &rep->rss;

	rr->loaded = rr->st.present || (rr->coll && strcmp(rr->coll->status, "off"));
	return 0;
}

void mt_report_rss_release(struct mt_report *rep)
{
	mt_rss_release(&rep->rss.st);
	memset(&rep->rss, 0, sizeof(rep->rss));
}

int mt_report_syscalls_setup(struct mt_report *rep, struct mt_passes *ps)
{
	static const struct mt_syscall_filter all = { .nr = -1 };
	struct mt_report_syscalls *rs = &rep->syscalls;
	struct mt_pass p;

	rs->coll = mt_report_collector(rep, "syscalls");
	return mt_passes_add(ps, mt_syscalls_pass(rep->r, &all, &rs->st, &p), &p);
}

int mt_report_syscalls_done(struct mt_report *rep)
{
	struct mt_report_syscalls *rs = &rep->syscalls;

	rs->loaded = rs->st.present || (rs->coll && strcmp(rs->coll->status, "off"));
	return 0;
}

void mt_report_syscalls_release(struct mt_report *rep)
{
	mt_syscalls_release(&rep->syscalls.st);
	memset(&rep->syscalls, 0, sizeof(rep->syscalls));
}

int mt_report_events_setup(struct mt_report *rep, struct mt_passes *ps)
{
	struct mt_report_events *re = &rep->events;
	struct mt_pass p;
	int rc;

	re->coll = mt_report_collector(rep, "events");
	rc = mt_tp_infos_load(rep->r, &re->infos);
	if (rc < 0)
		return mt_passes_add(ps, rc, NULL);
	return mt_passes_add(ps, mt_tp_count_pass(rep->r, &re->infos, &re->counts, &p), &p);
}

int mt_report_events_done(struct mt_report *rep)
{
	struct mt_report_events *re = &rep->events;

	re->loaded = re->infos.n || re->counts.events;
	return 0;
}

void mt_report_events_release(struct mt_report *rep)
{
	mt_tp_counts_release(&rep->events.counts);
	mt_tp_infos_release(&rep->events.infos);
	memset(&rep->events, 0, sizeof(rep->events));
}
