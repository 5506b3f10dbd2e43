/* SPDX-License-Identifier: MIT */
/*
 * A libmemtap client: the headline figures of a trace, its busiest regions, and how many
 * events of each type it holds.
 *
 *	cc trace-summary.c $(pkg-config --cflags --libs memtap) -o trace-summary
 *	./trace-summary memtap.mtap
 */
#include <inttypes.h>
#include <stdio.h>

#include <memtap/libmemtap.h>

static void regions(const memtap_report *rep)
{
	struct memtap_region top[3], g;
	size_t ntop = 0;

	/* the three regions with the most sampled accesses, most first */
	for (size_t i = 0; i < memtap_report_nregions(rep); i++) {
		size_t k;

		if (memtap_report_region(rep, i, &g) < 0 || !g.samples)
			continue;
		k = ntop < 3 ? ntop++ : 3;
		for (; k > 0 && top[k - 1].samples < g.samples; k--)
			if (k < 3)
				top[k] = top[k - 1];
		if (k < 3)
			top[k] = g;
	}
	for (size_t i = 0; i < ntop; i++)
		printf("region %zu: %s pid %" PRIu32 " 0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu64
		       " samples, mrm %s\n",
		       i + 1, top[i].type, top[i].pid, top[i].start, top[i].end, top[i].samples,
		       top[i].mrm ? top[i].mrm : "null");
}

int main(int argc, char **argv)
{
	memtap_trace *t;
	memtap_report *rep;
	struct memtap_summary s;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: trace-summary TRACE\n");
		return 2;
	}
	rc = memtap_trace_open(argv[1], &t);
	if (rc < 0) {
		fprintf(stderr, "trace-summary: '%s': %s\n", argv[1], memtap_strerror(rc));
		return 1;
	}
	rc = memtap_report_load(t, &rep);
	if (rc < 0) {
		fprintf(stderr, "trace-summary: '%s': %s\n", argv[1], memtap_strerror(rc));
		memtap_trace_close(t);
		return 1;
	}
	memtap_report_summary(rep, &s);
	printf("libmemtap %s\n", memtap_version());
	printf("run.duration_ns %" PRIu64 "\n", s.duration_ns);
	printf("processes %" PRIu64 "\n", s.processes);
	if (s.has_alloc)
		printf("alloc.calls %" PRIu64 "\nalloc.bytes %" PRIu64 "\nalloc.peak_bytes %" PRIu64
		       "\nalloc.leaked_bytes %" PRIu64 "\n",
		       s.alloc_calls, s.alloc_bytes, s.heap_peak_bytes, s.leaked_bytes);
	if (s.has_access)
		printf("access.samples %" PRIu64 "\n", s.access_samples);
	if (s.has_faults)
		printf("faults.minor %" PRIu64 "\nfaults.major %" PRIu64 "\n", s.faults_minor,
		       s.faults_major);
	if (s.has_rss)
		printf("rss.tree_peak_bytes %" PRIu64 "\n", s.rss_tree_peak_bytes);
	regions(rep);
	for (unsigned type = 1; memtap_event_type_name(type); type++)
		if (memtap_trace_event_count(t, type))
			printf("events.%s %" PRIu64 "\n", memtap_event_type_name(type),
			       memtap_trace_event_count(t, type));
	memtap_report_free(rep);
	memtap_trace_close(t);
	return 0;
}
