/* SPDX-License-Identifier: MIT */
/* perf_event_open and its mmap ring buffers. */
#ifndef MEMTAP_RECORD_PERF_H
#define MEMTAP_RECORD_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* perf_event_open(2); returns a file descriptor or -errno. Sets O_CLOEXEC. */
int mt_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group);

/*
 * A ring buffer of one perf event fd: one metadata page and 2^n data pages. Records are
 * handed out one at a time; a record that wraps around the end of the ring is copied into
 * a scratch buffer first, so callers always see it contiguous.
 */
struct mt_perf_ring {
	int fd;
	void *base;
	size_t map_size;
	size_t data_size;
	uint8_t *data;
	uint8_t scratch[65536]; /* a perf record is at most 64 KiB (u16 size) */
};

/* Maps the ring of fd with data_pages (a power of two) pages; takes ownership of fd. */
int mt_perf_ring_open(struct mt_perf_ring *ring, int fd, unsigned data_pages);
void mt_perf_ring_close(struct mt_perf_ring *ring);

/* Calls fn for every record available now; returns the number of records, or -EBADMSG if
 * the ring holds a malformed record (the rest of the ring is then dropped). */
typedef void (*mt_perf_record_fn)(void *ctx, const struct perf_event_header *h);
int mt_perf_ring_drain(struct mt_perf_ring *ring, mt_perf_record_fn fn, void *ctx);

/* The per-CPU rings of one collector (a ring with fd < 0 is a CPU that could not be opened):
 * their descriptors to poll (at most max; returns how many), and every record of each handed
 * to fn (returns the rings that held a malformed record). */
/* The attributes every collector of the command's tree shares: type and config, one record
 * per event (sample_period 1) of sample_type, CLOCK_MONOTONIC times, inherited by the tree,
 * enabled at the command's exec, the ring woken every wakeup_bytes. at is cleared first. */
struct perf_event_attr;
void mt_perf_attr_tree(struct perf_event_attr *at, uint32_t type, uint64_t config,
		       uint64_t sample_type, uint32_t wakeup_bytes);
/* The same without touching type, config or sampling: follow the tree from the command's
 * exec, CLOCK_MONOTONIC times with sample ids, the ring woken every wakeup_bytes. */
void mt_perf_attr_follow(struct perf_event_attr *at, uint32_t wakeup_bytes);

/*
 * Opens the event at on cpu for the tree of pid with a ring of *pages data pages; where
 * locked memory is limited (EPERM), halves *pages down to min_pages and tries again (the
 * smaller size then holds for the other CPUs). Returns the event's fd (the ring owns it),
 * or -errno: -ENODEV for an offline CPU.
 */
int mt_perf_open_ring(struct perf_event_attr *at, pid_t pid, int cpu, struct mt_perf_ring *ring,
		      unsigned *pages, unsigned min_pages);

/* An event on cpu for the tree of pid whose records go into ring (PERF_EVENT_IOC_SET_OUTPUT):
 * one drain then sees the group's records in time order. Its fd, or -errno. */
int mt_perf_open_follower(struct perf_event_attr *at, pid_t pid, int cpu,
			  const struct mt_perf_ring *ring);

/*
 * The per-CPU group every perf collector opens: on each of ncpu CPUs a ring for at (as
 * mt_perf_open_ring; rings[] set to fd -1 first, offline CPUs left so), then follow(ctx, cpu,
 * ring) for the events that write into it (NULL: none). Returns the CPUs opened, or the first
 * -errno.
 */
typedef int (*mt_perf_follow_fn)(void *ctx, int cpu, const struct mt_perf_ring *ring);
int mt_perf_rings_open(struct perf_event_attr *at, pid_t pid, struct mt_perf_ring *rings, int ncpu,
		       unsigned *pages, unsigned min_pages, mt_perf_follow_fn follow, void *ctx);

struct pollfd;
int mt_perf_rings_pollfds(const struct mt_perf_ring *rings, int n, struct pollfd *fds, int max);
uint64_t mt_perf_rings_drain(struct mt_perf_ring *rings, int n, mt_perf_record_fn fn, void *ctx);

/* Number of configured (online) CPUs to open per-CPU events on. */
int mt_perf_ncpus(void);

/*
 * Attaching to a running process (record --pid). An event inherited by the tree reaches the
 * threads its target creates from then on, not the ones that run already: while attaching,
 * every per-CPU event opened for root is opened for each of root's other threads too (its
 * copies), their records sent where the event's go (its ring, or the ring it follows), and
 * events are enabled at once (there is no exec to wait for). mt_perf_attach_scan() lists
 * root's threads and gives the ones not seen yet copies of every event open; call it until
 * it finds none (a thread created before its creator's events were open). Event
 * descriptors are closed with mt_perf_close(), which closes their copies.
 */
void mt_perf_attach_begin(pid_t root);
/* The threads of process pid (root, or another process attached with it: --pid A,B) not
 * seen before, their copies opened, each handed to fn: how many, or -errno (pid gone). */
int mt_perf_attach_scan(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);
void mt_perf_attach_end(void);
/* Copies that could not be opened (other than for a thread that had exited). */
uint64_t mt_perf_attach_failed(void);
/* The ids (PERF_EVENT_IOC_ID) of the copies of event fd: how many. */
size_t mt_perf_copy_ids(int fd, const uint64_t **ids);
void mt_perf_close(int fd);

/* Keep closed events open until mt_perf_reap_deferred() (perf.c says why); for the end of
 * a memtap record process only. */
void mt_perf_defer_closes(bool on);
void mt_perf_reap_deferred(void);

#endif
