#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks sampled accesses against the ground truth access-truth printed.

usage: access-truth-check.py WORKLOAD_STDOUT DUMP_CSV [--min-resolved F] [--min-right F]
DUMP_CSV is `memtap dump --type access --format csv --unresolved`. For every phase: the
fraction of its samples that resolved, and of the resolved accesses the fraction in the
right array with the right kind. Prints one line per phase; exits 1 if a bound fails.
"""
import argparse
import csv
import sys
from collections import Counter

# phase -> list of (array, kind) an access may be; "tls" means the sampling thread's TLS.
RIGHT = {
    "seq_add": [("A", "load"), ("B", "load"), ("C", "store")],
    "random_reads": [("A", "load")],
    "seq_writes": [("B", "store")],
    "rep_movsb": [("A", "load"), ("C", "store")],
    "rep_stosq": [("B", "store")],
    "tls_writes": [("tls", "store")],
    "pointer_chase": [("A", "load")],
}
CHASING = {"pointer_chase"}

ap = argparse.ArgumentParser()
ap.add_argument("stdout")
ap.add_argument("dump")
ap.add_argument("--min-resolved", type=float, default=0.80)
ap.add_argument("--min-right", type=float, default=0.99)
ap.add_argument("--min-samples", type=int, default=100)
a = ap.parse_args()

arrays, tls, phases = {}, {}, []
for line in open(a.stdout):
    f = line.split()
    if not f:
        continue
    if f[0] == "array":
        arrays[f[1]] = (int(f[2]), int(f[3]))
    elif f[0] == "tls":
        tls[int(f[1])] = (int(f[2]), int(f[3]))
    elif f[0] == "phase":
        phases.append((f[1], int(f[2]), int(f[3]), int(f[4])))

rows = list(csv.DictReader(open(a.dump)))
failed = False
for name, tid, t0, t1 in phases:
    # Several threads run tls_writes: each is checked against its own TLS array.
    sel = [r for r in rows if t0 <= int(r["time_ns"]) <= t1 and (tid == 0 or int(r["tid"]) == tid)]
    samples = [r for r in sel if r["part"] == "0"]
    resolved = [r for r in samples if r["kind"] != "unresolved"]
    acc = [r for r in sel if r["kind"] != "unresolved"]
    reasons = Counter(r["reason"] for r in samples if r["kind"] == "unresolved")
    right = 0
    for r in acc:
        addr = int(r["addr"], 16)
        for arr, kind in RIGHT[name]:
            lo, hi = tls.get(int(r["tid"]), (0, 0)) if arr == "tls" else arrays[arr]
            if lo <= addr < hi and r["kind"] == kind:
                right += 1
                break
    n, res = len(samples), len(resolved)
    frac_res = res / n if n else 0.0
    frac_right = right / len(acc) if acc else 0.0
    ok = n >= a.min_samples
    if name in CHASING:
        # Pointer chasing cannot be resolved from registers: it must say so, not guess.
        # The few samples that resolve (loop bookkeeping, phase edges) must be almost all
        # right: at most 1% of the phase's samples may be wrong accesses.
        ok = ok and reasons.get("pointer_chase", 0) >= 0.5 * n and len(acc) - right <= 0.01 * n
    else:
        ok = ok and frac_res >= a.min_resolved and frac_right >= a.min_right
    failed |= not ok
    print("%-3s %-14s tid %-6d samples %5d resolved %5.1f%% right %6.2f%% of %5d accesses  unresolved %s"
          % ("ok" if ok else "BAD", name, tid, n, 100 * frac_res, 100 * frac_right, len(acc),
             dict(reasons.most_common(4))))
sys.exit(1 if failed else 0)
