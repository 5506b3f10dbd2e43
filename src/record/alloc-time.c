/* SPDX-License-Identifier: MIT */
/* Allocation event times: the runtime's TSC readings converted to CLOCK_MONOTONIC between
 * calibration pairs the recorder takes (docs/metrics.md, "Event times"). */
#include "record/alloc-internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

#include "common/array.h"
#include "common/clock.h"
#include "record/session.h"

typedef int (*cgt_fn)(clockid_t, struct timespec *);

/* The vDSO's own clock_gettime: the libc name may be a sanitizer's interceptor, whose work
 * on both sides of the clock read would widen the pairs, unevenly (by 100 ns and more in
 * the ASan build: converted times came out later than the program's next clock read). */
static cgt_fn vdso_clock_gettime(void)
{
	static cgt_fn fn;
	void *h;

	if (fn)
		return fn;
	h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (h)
		fn = (cgt_fn)dlsym(h, "__vdso_clock_gettime");
	if (!fn)
		fn = clock_gettime;
	return fn;
}

/*
 * One pair: the TSC before and after one CLOCK_MONOTONIC reading. The vDSO reads the TSC
 * after a fence (every instruction before it done), and rdtscp reads it after every
 * instruction before it: the clock's own TSC value lies in [t0, t1], so the midpoint is
 * within half the width of it. Nothing instrumented runs inside the window.
 */
__attribute__((no_sanitize("address", "undefined"))) static void
tsc_pair(cgt_fn fn, uint64_t *t0, uint64_t *ns, uint64_t *t1)
{
	struct timespec ts;
	unsigned aux;

	*t0 = __rdtsc();
	fn(CLOCK_MONOTONIC, &ts);
	*t1 = __rdtscp(&aux);
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A calibration pair: the narrowest of eight tries (~30 ns wide here). Pairs stay at least
 * 50 ms apart in the history; the newest one slides forward at every collection round
 * instead, so that every row drained was stamped before the last pair and is converted by
 * interpolation between two measured pairs, never by extrapolating a rate. A converted
 * time is within half the wider pair's width of the clock's (plus any change of the
 * clock's rate between the pairs, which no pair sees: NTP's slewing); the widest pair is
 * kept as the trace's stated bound.
 */
void mt_ac_calibrate(struct mt_alloc_state *a)
{
	struct cal best = { 0, 0 };
	uint64_t width = UINT64_MAX;
	cgt_fn fn = vdso_clock_gettime();

	for (int i = 0; i < 8; i++) {
		uint64_t t0, ns, t1;

		tsc_pair(fn, &t0, &ns, &t1);
		if (t1 > t0 && t1 - t0 < width) {
			width = t1 - t0;
			best = (struct cal){ .tsc = t0 + (t1 - t0) / 2, .ns = ns };
		}
	}
	if (width == UINT64_MAX)
		return; /* the TSC went backwards eight times: no pair */
	if (width > a->cal_width_max)
		a->cal_width_max = width;
	a->cal_gen++;
	if (a->ncal >= 2 && a->cal[a->ncal - 1].ns - a->cal[a->ncal - 2].ns < 50000000ull) {
		a->cal[a->ncal - 1] = best;
		return;
	}
	if (mt_grow_array(&a->cal, &a->cal_cap, a->ncal + 1, sizeof(*a->cal)) < 0)
		return;
	a->cal[a->ncal++] = best;
}

/* The stated bound of converted times: half the widest pair, in nanoseconds (0: no pairs). */
uint64_t mt_ac_cal_bound_ns(const struct mt_alloc_state *a)
{
	double rate;

	if (a->ncal < 2 || a->cal[a->ncal - 1].tsc <= a->cal[0].tsc)
		return 0;
	rate = (double)(a->cal[a->ncal - 1].ns - a->cal[0].ns) /
	       (double)(a->cal[a->ncal - 1].tsc - a->cal[0].tsc);
	return (uint64_t)((double)a->cal_width_max / 2 * rate) + 1;
}

uint64_t mt_ac_tsc_to_ns_slow(struct mt_alloc_state *a, uint64_t t)
{
	size_t lo = 0, hi;
	double rate;

	if (a->ncal < 2 || t >= a->cal[a->ncal - 1].tsc)
		mt_ac_calibrate(a);
	if (a->ncal < 2) /* no memory for a second pair */
		return a->ncal ? a->cal[0].ns : mt_now_ns();
	hi = a->ncal;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (a->cal[mid].tsc <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (lo + 1 >= a->ncal)
		lo = a->ncal - 2;
	rate = (double)(a->cal[lo + 1].ns - a->cal[lo].ns) /
	       (double)(a->cal[lo + 1].tsc - a->cal[lo].tsc);
	a->seg_tsc = a->cal[lo].tsc;
	a->seg_ns = a->cal[lo].ns;
	a->seg_rate = rate;
	/* The last segment ends at its pair too: later times take a new one. A time before the
	 * first pair (rows stamped as the recording began) extends the first segment back. */
	a->seg_end = a->cal[lo + 1].tsc;
	a->seg_gen = a->cal_gen;
	return a->cal[lo].ns + (uint64_t)(int64_t)((double)(int64_t)(t - a->cal[lo].tsc) * rate);
}

void mt_alloc_calibrate(struct mt_session *s)
{
	if (s->alloc && s->alloc->tsc)
		mt_ac_calibrate(s->alloc);
}
