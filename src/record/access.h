/* SPDX-License-Identifier: MIT */
/* The access collector: sampled memory accesses with data addresses (precise or decoded). */
#ifndef MEMTAP_RECORD_ACCESS_H
#define MEMTAP_RECORD_ACCESS_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_session;
struct mt_kv;

/* --access: which mechanism. */
enum mt_access_mode {
	MT_ACCESS_AUTO,
	MT_ACCESS_MODE_PEBS,
	MT_ACCESS_MODE_IBS,
	MT_ACCESS_MODE_SPE,
	MT_ACCESS_MODE_REGS,
	MT_ACCESS_MODE_TIMER,
	MT_ACCESS_OFF,
};

/*
 * Picks the mechanism for mode (auto: the best the probe says works). Returns the
 * mechanism (enum mt_access_mech), or -1 with why filled (the probe's reason) when mode
 * cannot work here; for auto that means no mechanism works at all.
 */
int mt_access_choose(enum mt_access_mode mode, char *why, size_t size);

/* "pebs", "ibs", "spe", "regs" or "timer". */
const char *mt_access_mech_name(int mech);

/* Opens the sampling events on the command (before it execs; they start at exec). */
int mt_access_open(struct mt_session *s, int mech);
int mt_access_pollfds(struct mt_session *s, struct pollfd *fds, int max);
/* Reads every sample available, decodes it and writes ACCESS events. */
void mt_access_drain(struct mt_session *s);
/* Tracer hooks: a task stopped (ptrace; registers readable), exec'd, or is exiting. */
void mt_access_on_stop(struct mt_session *s, pid_t tid);
void mt_access_on_exec(struct mt_session *s, pid_t pid, pid_t tid, uint64_t t);
void mt_access_on_exit(struct mt_session *s);
/* The perf collector saw an executable mapping made: cached code there is stale. */
void mt_access_on_code_map(struct mt_session *s, pid_t pid, uint64_t addr, uint64_t len);
/* Drains what is left, closes the events; adds the collector's totals to kv. */
void mt_access_close(struct mt_session *s, struct mt_kv *kv);

#endif
