/* SPDX-License-Identifier: MIT */
/*
 * What one access sample costs the sampled thread here: measured once a boot (or again after
 * CAL_KEEP_S), kept in the user's private live directory so that a run of short recordings
 * (a test suite, a build) does not pay ~45 ms each. The figure only feeds a warning and the
 * END record (calibrated_ns_per_sample, calibrated_ms_ago); the sampling rate never depends
 * on it.
 */
#include "record/calibrate.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/livedir.h"
#include "common/strutil.h"
#include "record/perf.h"

#define CAL_KEEP_S 600 /* a measurement is reused this long within one boot */

#define CAL_FREQ 10000 /* samples/s during calibration */
#define CAL_WINDOW_NS 5000000ull
#define CAL_BYTES (8u << 20)

static volatile uint64_t cal_sink;

/* Random reads over buf for one window; returns the reads done per millisecond. */
static double cal_run(const uint64_t *buf, size_t n)
{
	uint64_t x = 88172645463325252ull, s = 0, it = 0, t0 = mt_now_ns(), t;

	do {
		for (int k = 0; k < 256; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s += buf[x & (n - 1)];
		}
		it += 256;
		t = mt_now_ns();
	} while (t - t0 < CAL_WINDOW_NS);
	cal_sink = s;
	return (double)it * 1e6 / (double)(t - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * What one sample costs the sampled thread on this machine, in ns: a memory-bound loop of
 * the recorder's own runs in alternating windows without and with the same kind of event
 * at CAL_FREQ, and the median slowdown gives the cost. In VMs it varies by two orders of
 * magnitude (a timer interrupt that exits to the hypervisor may flush caches and TLB):
 * ~4 us on one host of this VM type, 100-300 us on another. Returns 0 if it cannot tell.
 */
static double measure(const struct perf_event_attr *model)
{
	struct perf_event_attr at = *model;
	double slow[4], on, off;
	uint64_t *buf;
	size_t n = CAL_BYTES / sizeof(uint64_t);
	int fd;

	at.inherit = 0;
	at.enable_on_exec = 0;
	at.disabled = 1;
	at.freq = 0;
	at.sample_period = at.type == PERF_TYPE_SOFTWARE ? 1000000000ull / CAL_FREQ : 0;
	if (!at.sample_period) {
		at.freq = 1;
		at.sample_freq = CAL_FREQ;
	}
	fd = mt_perf_open(&at, 0, -1, -1);
	if (fd < 0)
		return 0;
	buf = malloc(CAL_BYTES);
	if (!buf) {
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = i;
	/* No ring is mapped: the kernel takes each sample and finds nowhere to put it, which
	 * is the interrupt's cost without the copy (a few hundred ns). */
	for (int r = 0; r < 4; r++) {
		off = cal_run(buf, n);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		on = cal_run(buf, n);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		slow[r] = on > 0 ? off / on : 1;
	}
	close(fd);
	free(buf);
	mt_qsort(slow, 4, sizeof(slow[0]), cmp_double);
	on = (slow[1] + slow[2]) / 2;
	return on > 1 ? (on - 1) * 1e9 / CAL_FREQ : 1;
}

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cache file's path and the key of model's event on this boot; false if none. */
static bool cache_key(const struct perf_event_attr *m, char *path, size_t psize, char *key,
		      size_t ksize)
{
	char dir[PATH_MAX - 32], boot[64];

	if (mt_live_dir(dir, sizeof(dir), true) < 0 ||
	    mt_read_line_file("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) < 0)
		return false;
	snprintf(path, psize, "%s/calibration", dir);
	snprintf(key, ksize, "%s %u %" PRIu64 " %d", boot, m->type, (uint64_t)m->config,
		 m->freq ? 1 : 0);
	return true;
}

double mt_calibrate_sample(const struct perf_event_attr *model, uint64_t *age_ns)
{
	char path[PATH_MAX], key[160], line[256], tmp[PATH_MAX + 8];
	uint64_t now = boottime_ns(), then;
	double cost;
	FILE *f;
	int fd;

	*age_ns = 0;
	if (!cache_key(model, path, sizeof(path), key, sizeof(key)))
		return measure(model);
	if (mt_read_line_file(path, line, sizeof(line)) == 0 && !strncmp(line, key, strlen(key)) &&
	    sscanf(line + strlen(key), " %" SCNu64 " %lf", &then, &cost) == 2 && then <= now &&
	    now - then < CAL_KEEP_S * 1000000000ull && cost >= 0) {
		*age_ns = now - then;
		return cost;
	}
	cost = measure(model);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0)
		return cost;
	if ((f = fdopen(fd, "w"))) {
		fprintf(f, "%s %" PRIu64 " %.1f\n", key, now, cost);
		if (fclose(f) == 0 && rename(tmp, path) == 0)
			return cost;
	} else {
		close(fd);
	}
	unlink(tmp);
	return cost;
}
