/* SPDX-License-Identifier: MIT */
/* What a recording writes about itself: its META and collector records, its summary. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memtap/trace-format.h>

#include <Zydis/Zydis.h>
#include <elfutils/libdwfl.h>

#include "mt-build-info.h"
#include "common/log.h"
#include "common/strutil.h"
#include "format/chunk.h"
#include "format/writer.h"
#include "record/record-internal.h"
#include "record/session.h"
#include "record/sysinfo.h"

static const char *follow_name(enum mt_follow f)
{
	static const char *const n[] = { "auto", "ptrace", "perf", "none" };

	return n[f];
}

/* Shell-quotes argv into buf for display ("sh -c 'ls / | wc -l'"). */
static void quote_argv(char *const *argv, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = 0;
	for (int i = 0; argv[i] && o + 4 < size; i++) {
		const char *a = argv[i];
		bool plain = *a != 0;

		for (const char *c = a; *c; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "-_./=:,+@%",
				    *c))
				plain = false;
		if (i)
			buf[o++] = ' ';
		if (plain) {
			o += mt_strlcpy(buf + o, a, size - o);
		} else {
			buf[o++] = '\'';
			for (const char *c = a; *c && o + 6 < size; c++) {
				if (*c == '\'') {
					memcpy(buf + o, "'\\''", 4);
					o += 4;
				} else {
					buf[o++] = *c;
				}
			}
			buf[o++] = '\'';
		}
		if (o >= size)
			o = size - 1;
		buf[o] = 0;
	}
}

int mt_rec_write_collector(struct mt_session *s, const struct mt_coll *c, bool final,
			   const struct mt_kv *extra)
{
	struct mt_kv kv;
	int r;

	mt_kv_init(&kv);
	mt_kv_add(&kv, "name", c->name);
	mt_kv_add(&kv, "mechanism", c->mechanism);
	mt_kv_add(&kv, "status", c->status);
	if (c->reason[0])
		mt_kv_add(&kv, "reason", c->reason);
	mt_kv_add(&kv, "final", final ? "1" : "0");
	mt_kv_add_u64(&kv, "events", c->events);
	mt_kv_add_u64(&kv, "lost", c->lost);
	if (c == &s->proc) {
		mt_kv_add_u64(&kv, "processes", s->nprocesses);
		mt_kv_add_u64(&kv, "threads", s->nthreads);
		mt_kv_add(&kv, "exit_status",
			  s->follow == MT_FOLLOW_PTRACE ? "every process"
							: "the command's process only");
	} else if (c == &s->maps && s->nrings) {
		mt_kv_add(&kv, "build_ids", s->perf_build_ids ? "kernel" : "files");
		mt_kv_add_u64(&kv, "ring_bytes_per_cpu", (uint64_t)s->o->ring_pages * 4096);
		mt_kv_add_u64(&kv, "perf_records", s->perf_records);
	}
	if (extra && extra->n)
		mt_kv_extend(&kv, extra);
	r = mt_writer_kv(s->w, MT_CHUNK_COLLECTOR, &kv);
	mt_kv_release(&kv);
	return r;
}

const char *mt_record_build(void)
{
	return MEMTAP_GIT_COMMIT;
}

const char *mt_record_features(void)
{
	static char buf[256];

	if (!buf[0]) {
		uint64_t z = ZYDIS_VERSION;

		snprintf(buf, sizeof(buf),
			 "bpf-syscalls=%s zydis=%u.%u.%u libdw=%s page-writes=uffd-wp",
#ifdef MEMTAP_BPF
			 "yes",
#else
			 "no",
#endif
			 (unsigned)ZYDIS_VERSION_MAJOR(z), (unsigned)ZYDIS_VERSION_MINOR(z),
			 (unsigned)ZYDIS_VERSION_PATCH(z), dwfl_version(NULL));
	}
	return buf;
}

int mt_rec_write_meta(struct mt_session *s, char *const *argv)
{
	struct mt_kv kv;
	char buf[8192], key[32];
	int argc = 0, r;

	mt_kv_init(&kv);
	mt_kv_add(&kv, "memtap_version", MEMTAP_VERSION);
	mt_kv_add(&kv, "memtap_commit", MEMTAP_GIT_COMMIT);
	mt_kv_add(&kv, "memtap_build", MEMTAP_BUILD_TYPE);
	mt_kv_add(&kv, "memtap_features", mt_record_features());
	mt_kv_addf(&kv, "format_version", "%d.%d", MT_FORMAT_MAJOR, MT_FORMAT_MINOR);
	quote_argv(argv, buf, sizeof(buf));
	mt_kv_add(&kv, "command", buf);
	mt_strlcpy(s->live_command, buf, sizeof(s->live_command));
	for (; argv[argc]; argc++) {
		snprintf(key, sizeof(key), "argv.%d", argc);
		mt_kv_add(&kv, key, argv[argc]);
	}
	mt_kv_add_u64(&kv, "argc", (uint64_t)argc);
	if (getcwd(buf, sizeof(buf)))
		mt_kv_add(&kv, "cwd", buf);
	mt_kv_add_u64(&kv, "uid", getuid());
	mt_kv_add_u64(&kv, "recorder_pid", (uint64_t)s->self);
	mt_kv_add_u64(&kv, "start_monotonic_ns", s->t_start);
	mt_kv_add(&kv, "clock", "CLOCK_MONOTONIC");
	mt_kv_add(&kv, "follow", follow_name(s->follow));
	if (s->system_wide) {
		mt_kv_add(&kv, "system_wide", "1");
		mt_kv_add_u64(&kv, "attach_monotonic_ns", s->t_start);
	} else if (s->attached) {
		/* Figures hold from the attach on: what was live before is not seen. */
		mt_kv_add_u64(&kv, "attach_pid", (uint64_t)s->root);
		if (s->npids > 1) { /* --pid A,B,...: every one, the first is attach_pid */
			char list[MT_MAX_ATTACH * 12] = "";
			size_t n = 0;

			for (unsigned i = 0; i < s->npids && n < sizeof(list); i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d",
						      i ? "," : "", (int)s->pids[i]);
			mt_kv_add(&kv, "attach_pids", list);
		}
		mt_kv_add_u64(&kv, "attach_monotonic_ns", s->t_start);
	}
	mt_sysinfo_meta(&kv);
	r = mt_writer_kv(s->w, MT_CHUNK_META, &kv);
	mt_kv_release(&kv);
	return r;
}

void mt_rec_print_summary(struct mt_session *s, const char *path, uint64_t bytes)
{
	const struct mt_coll *cs[] = { &s->proc,	   &s->maps,	    &s->alloc_coll,
				       &s->access_coll,	   &s->faults_coll, &s->rss_coll,
				       &s->pagewrites_coll };
	char dur[32], size[32], cnt[32];

	mt_fmt_duration(s->t_end - s->t_start, dur, sizeof(dur));
	if (s->system_wide)
		fprintf(stderr, "memtap: recorded the whole system for %s; %s\n", dur,
			s->stop_requested ? "stopped" : "--duration elapsed");
	else if (s->attached && s->npids > 1)
		fprintf(stderr, "memtap: recorded %u processes for %s; %s\n", s->npids, dur,
			s->root_exited ? "they exited" : "detached (the processes run on)");
	else if (s->attached)
		fprintf(stderr, "memtap: recorded pid %d for %s; %s\n", (int)s->root, dur,
			s->root_exited ? "the process exited" : "detached (the process runs on)");
	else if (WIFSIGNALED(s->root_status))
		fprintf(stderr,
			"memtap: recorded for %s; the command was killed by signal %d (%s)\n", dur,
			WTERMSIG(s->root_status), strsignal(WTERMSIG(s->root_status)));
	else
		fprintf(stderr, "memtap: recorded for %s; the command exited with status %d\n", dur,
			WEXITSTATUS(s->root_status));
	int mw = 9; /* the mechanism column fits its longest entry */

	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
		if ((int)strlen(cs[i]->mechanism) > mw)
			mw = (int)strlen(cs[i]->mechanism);
	fprintf(stderr, "  %-10s %-*s %-11s %10s %8s\n", "collector", mw, "mechanism", "status",
		"events", "lost");
	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
		fprintf(stderr, "  %-10s %-*s %-11s %10s %8" PRIu64 "\n", cs[i]->name, mw,
			cs[i]->mechanism, cs[i]->status,
			mt_fmt_count(cs[i]->events, cnt, sizeof(cnt)), cs[i]->lost);
	fprintf(stderr, "  %" PRIu64 " process%s, %" PRIu64 " thread%s\n", s->nprocesses,
		s->nprocesses == 1 ? "" : "es", s->nthreads, s->nthreads == 1 ? "" : "s");
	mt_info("wrote %s to '%s'", mt_fmt_bytes(bytes, size, sizeof(size)), path);
}
