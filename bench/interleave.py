#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Interleaved A/B timing: every round runs each variant once, in a shuffled order, and the
report gives each variant's median wall time and its ratio to the first (the baseline).
Timings on a shared machine drift; interleaving makes the drift hit every variant alike.

usage: interleave.py [--rounds N] [--json FILE] NAME=COMMAND [NAME=COMMAND...]
The first variant is the baseline. COMMAND runs through /bin/sh; its output is discarded.
"""
import argparse, json, os, random, statistics, subprocess, sys, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()
    vs = []
    for v in a.variants:
        name, _, cmd = v.partition("=")
        if not cmd:
            sys.exit("interleave.py: '%s' is not NAME=COMMAND" % v)
        vs.append((name, cmd))
    rng = random.Random(a.seed)
    times = {n: [] for n, _ in vs}
    tty = sys.stderr.isatty()
    for r in range(a.rounds):
        order = list(vs)
        rng.shuffle(order)
        for name, cmd in order:
            t0 = time.monotonic()
            p = subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            dt = time.monotonic() - t0
            if p.returncode != 0:
                sys.exit("interleave.py: '%s' failed with status %d: %s" % (name, p.returncode, cmd))
            times[name].append(dt)
        if tty:
            sys.stderr.write("\rround %d/%d" % (r + 1, a.rounds))
    if tty:
        sys.stderr.write("\n")
    base = statistics.median(times[vs[0][0]])
    res = []
    w = max(len(n) for n, _ in vs)
    print("%-*s  %10s  %10s  %10s  %7s" % (w, "variant", "median s", "min s", "max s", "ratio"))
    for name, cmd in vs:
        m = statistics.median(times[name])
        print("%-*s  %10.4f  %10.4f  %10.4f  %6.2fx" % (w, name, m, min(times[name]), max(times[name]), m / base))
        res.append({"name": name, "command": cmd, "median_s": m, "times_s": times[name], "ratio": m / base})
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rounds": a.rounds, "variants": res}, f, indent=1)

main()
