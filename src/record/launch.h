/* SPDX-License-Identifier: MIT */
/* Launching the command (its process group, limits, placement, environment) and passing
 * signals on to it: the part of a recording that runs before and beside the collectors. */
#ifndef MEMTAP_RECORD_LAUNCH_H
#define MEMTAP_RECORD_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/signalfd.h>

#include "common/compiler.h"

struct mt_session;

struct launch {
	int go[2];
	int execerr[2]; /* the command's exec error (its errno), or its close-on-exec: exec'd */
	/* What the loop watches instead when there is no command: standard input under -a
	 * (a line END stops), a live attached process's pidfd under --pid (it exited). */
	int watch;
	sigset_t oldmask;
	struct sigaction oldpipe;
	struct rlimit nofile; /* the user's descriptor limit, the command's again */
	bool nofile_raised;
	bool own_group; /* the command runs in a process group of its own */
};

/*
 * Is memtap the terminal's foreground job? Then the command stays in memtap's process
 * group, so that the terminal's signals and job control reach it as without memtap (and
 * memtap does not pass them on). Otherwise (no terminal, a background job, a supervisor,
 * make) the command gets a group of its own: a signal sent to memtap's group reaches
 * memtap alone, which passes it on once.
 */
bool mt_launch_terminal_foreground(void);
/* One descriptor per traced process (its runtime's socket): the recorder runs with its soft
 * limit at the hard one; the command gets the user's limits back before exec. */
void mt_launch_raise_nofile(struct launch *l);
/* The forked child: the user's signal state and limits, its group, wait for the go, exec. */
void MT_NORETURN mt_launch_child(struct mt_session *s, struct launch *l, char *const *argv);
/* Collects the exits (and, under ptrace, the stops) of the tree. */
void mt_launch_reap(struct mt_session *s);
/* A signal memtap received: passed on to the command unless it reached the command too. */
void mt_launch_on_signal(struct mt_session *s, const struct signalfd_siginfo *si);

#endif
