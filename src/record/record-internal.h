/* SPDX-License-Identifier: MIT */
/* Between record.c, record-meta.c and record-attach.c (not a public API). */
#ifndef MEMTAP_RECORD_RECORD_INTERNAL_H
#define MEMTAP_RECORD_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <memtap/trace-format.h>

struct mt_session;
struct mt_coll;
struct mt_kv;
struct launch;

/* The counted events of an attached recording: kept to the window from the moment every
 * collector runs (mt_writer_window). */
#define MT_REC_WINDOWED \
	(1u << MT_EV_FAULT | 1u << MT_EV_SYSCALL | 1u << MT_EV_ACCESS | 1u << MT_EV_TRACEPOINT)

/* A collector's record: its first (final false) or closing one, with extra keys. */
int mt_rec_write_collector(struct mt_session *s, const struct mt_coll *c, bool final,
			   const struct mt_kv *extra);
/* The META record: versions, the command (argv), the machine, an attach's keys. */
int mt_rec_write_meta(struct mt_session *s, char *const *argv);
/* The summary on stderr after the recording. */
void mt_rec_print_summary(struct mt_session *s, const char *path, uint64_t bytes);

/* record.c: the trace file as the options say; the signals the loop reads through sigfd
 * and the launch pipes; the collector table opened with its first records; memtap's own
 * CPU time so far. */
int mt_rec_open_trace(struct mt_session *s);
int mt_rec_setup_signals(struct launch *l, int *sigfd);
void mt_rec_open_collectors(struct mt_session *s);
uint64_t mt_rec_own_cpu_ns(void);

/* record-attach.c: record --pid and record -a started (1: running, or -errno); the
 * runtime's calls given back at the end; an attached process's pidfd or -a's standard
 * input readable (the loop's exec-error pipe slot). */
int mt_rec_start_attach(struct mt_session *s, struct launch *l, int *sigfd);
int mt_rec_start_system(struct mt_session *s, struct launch *l, int *sigfd);
void mt_rec_uninject(struct mt_session *s);
void mt_rec_attach_exits(struct mt_session *s, struct launch *l);
void mt_rec_on_stdin(struct mt_session *s, struct launch *l);
#endif
