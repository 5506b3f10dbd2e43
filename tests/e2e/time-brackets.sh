#!/bin/sh
# SPDX-License-Identifier: MIT
# Allocation times against the program's own clock, bracketed as tightly as a program can:
# two threads, 100,000 iterations each of { clock; malloc; free; clock }, ~20 ns between a
# free's stamp and the next clock read. Every malloc and free must lie inside its
# iteration's brackets widened by the trace's stated conversion bound
# (alloc.time_conversion_bound_ns: half the widest TSC calibration pair; null and 0 when
# the hooks read CLOCK_MONOTONIC itself), and that bound must be under 1 us. The recorder's
# calibration pairs once took their clock read through a sanitizer's interceptor: in the
# ASan build converted frees came out up to 130 ns after the program's next clock read.
. "$(dirname "$0")/lib.sh"

"$MEMTAP" record -q -o t.mtap -- "$WORKLOADS/time-brackets" its.log 100000 >t.out 2>t.err ||
	fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s alloc >r.json || fail "report failed"
"$MEMTAP" dump t.mtap --type alloc --format csv >m.csv || fail "dump failed"
python3 - r.json m.csv its.log <<'PY' || fail "allocation times outside their brackets (above)"
import csv, json, sys
a = json.load(open(sys.argv[1]))["alloc"]
bound = a["time_conversion_bound_ns"]
if bound is not None and not 0 < bound <= 1000:
    print("  stated conversion bound %s ns" % bound)
    sys.exit(1)
B = bound or 0
rows = {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["kind"] in ("malloc", "free"):
        rows.setdefault(int(r["tid"]), []).append((int(r["time_ns"]), r["kind"], int(r["addr"], 16), int(r["size"])))
its = {}
for l in open(sys.argv[3]):
    t, r0, r1, p = l.split()
    its.setdefault(int(t), []).append((int(r0), int(r1), int(p, 16)))
bad = out = worst = n = 0
for t, lst in its.items():
    ev = rows.get(t, [])
    ev.sort(key=lambda x: x[0]) # stable: a thread's rows are in order already
    mal = [k for k, x in enumerate(ev) if x[1] == "malloc" and 100 <= x[3] < 116]
    if len(mal) != len(lst):
        print("  thread %d: %d iterations, %d mallocs of their sizes" % (t, len(lst), len(mal)))
        sys.exit(1)
    for i, ((r0, r1, p), k) in enumerate(zip(lst, mal)):
        m = ev[k]
        f = next((ev[j] for j in range(k + 1, len(ev)) if ev[j][1] == "free" and ev[j][2] == m[2]), None)
        n += 1
        if m[2] != p or m[3] != 100 + i % 16 or f is None:
            bad += 1
            if bad <= 3:
                print("  thread %d iteration %d: malloc %s, free %s; the program's block %x" % (t, i, m, f, p))
            continue
        for x in (m[0], f[0]):
            d = r0 - x if x < r0 else x - r1 if x > r1 else 0
            out += d > 0
            worst = max(worst, d)
            if d > B:
                bad += 1
                if bad <= 3:
                    print("  thread %d iteration %d: an event %d ns outside [%d, %d]" % (t, i, d, r0, r1))
print("  %d iterations: %d events outside their brackets (worst by %d ns), stated bound %s ns; %d wrong" %
      (n, out, worst, bound, bad))
sys.exit(0 if bad == 0 and n == 200000 else 1)
PY
ok "every malloc and free inside its program-timed brackets, within the stated conversion bound"
