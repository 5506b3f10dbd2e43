#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Damaged traces through every reading command (issue 36).

Each mutant is a trace with some damage — bytes flipped, a range zeroed, repeated, cut out or
inserted, the file cut short, or the head of one trace spliced onto the tail of another —
read by every command that reads traces: info, dump, report (text, JSON, the placement and
metrics sections), syscalls, export to each format, view, plot, diff against the original;
and `memtap events` on damaged event-trace files (JSON lines), and `memtap top --once` on
damaged live files (the figures a running recording publishes). Every run must end within
10 s, by itself (no signal), with exit 0, 1 or 2, and without a sanitizer report; a command
that fails says so on stderr. The table gives, per command, the runs, their exits and every
failure; --json writes each failure with the seed that makes its mutant again.

usage: mutate.py --memtap PATH --traces A.mtap,B.mtap [--events X.txt,...] [--live F.live]
                 [--mutants N] [--seed S] [--json FILE]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

LIMIT_S = 10
SANITIZER = (b"AddressSanitizer", b"UndefinedBehaviorSanitizer", b"LeakSanitizer",
             b"runtime error:")

# (name, argv after memtap; {t} the mutant, {o} the original, {d} an output directory)
COMMANDS = [
    ("info", ["info", "{t}"]),
    ("info-json", ["info", "{t}", "--format", "json"]),
    ("dump", ["dump", "{t}"]),
    ("report", ["report", "{t}"]),
    ("report-json", ["report", "{t}", "--format", "json"]),
    ("report-metrics", ["report", "{t}", "--section", "metrics", "--by", "site"]),
    ("report-placement", ["report", "{t}", "--section", "placement", "--format", "json"]),
    ("syscalls", ["syscalls", "{t}"]),
    ("export-folded", ["export", "{t}", "--to", "folded", "-f", "-o", "{d}/x.folded"]),
    ("export-parquet", ["export", "{t}", "--to", "parquet", "-f", "-o", "{d}/pq"]),
    ("export-sqlite", ["export", "{t}", "--to", "sqlite", "-f", "-o", "{d}/x.db"]),
    ("export-csv", ["export", "{t}", "--to", "csv", "-f", "-o", "{d}/csv"]),
    ("export-jsonl", ["export", "{t}", "--to", "jsonl", "-f", "-o", "{d}/jsonl"]),
    ("export-perfetto", ["export", "{t}", "--to", "perfetto", "-f", "-o", "{d}/x.pftrace"]),
    ("export-pprof", ["export", "{t}", "--to", "pprof", "-f", "-o", "{d}/x.pb.gz"]),
    ("export-speedscope", ["export", "{t}", "--to", "speedscope", "-f", "-o", "{d}/x.json"]),
    ("view", ["view", "{t}", "-o", "{d}/x.html"]),
    ("plot", ["plot", "{t}", "--kind", "rss", "-o", "{d}/x.svg"]),
    ("diff", ["diff", "{o}", "{t}"]),
]


def mutate(data, other, rng):
    """A damaged copy of data, and what was done to it."""
    b = bytearray(data)
    n = len(b)
    kind = rng.choice(["flip", "flip", "zero", "repeat", "cut_out", "insert", "truncate",
                       "splice"])
    if n < 2:
        return bytes(b), "as is"
    if kind == "flip":
        k = rng.randint(1, 16)
        for _ in range(k):
            i = rng.randrange(n)
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b), "%d bits flipped" % k
    i = rng.randrange(n)
    ln = min(n - i, int(2 ** rng.uniform(0, 14)))
    if kind == "zero":
        b[i:i + ln] = bytes(ln)
        return bytes(b), "%d bytes zeroed at %d" % (ln, i)
    if kind == "repeat":
        return bytes(b[:i + ln] + b[i:i + ln] + b[i + ln:]), "%d bytes at %d repeated" % (ln, i)
    if kind == "cut_out":
        return bytes(b[:i] + b[i + ln:]), "%d bytes at %d cut out" % (ln, i)
    if kind == "insert":
        return bytes(b[:i] + bytes(rng.randrange(256) for _ in range(ln)) + b[i:]), \
            "%d random bytes inserted at %d" % (ln, i)
    if kind == "truncate":
        return bytes(b[:i]), "cut at %d" % i
    j = rng.randrange(len(other)) if other else 0
    return bytes(b[:i]) + other[j:], "head %d spliced onto another's tail from %d" % (i, j)


def run(memtap, name, argv, failures, stats, what, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run([memtap] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=LIMIT_S, env=env)
    except subprocess.TimeoutExpired:
        failures.append(dict(what, command=name, failure="hang",
                             why="no end in %d s" % LIMIT_S))
        stats[name]["hang"] += 1
        return
    el = time.monotonic() - t0
    st = stats[name]
    st["runs"] += 1
    st["max_s"] = max(st["max_s"], el)
    err = p.stderr
    lines = [l for l in err.splitlines() if l.strip()]
    st["max_lines"] = max(st["max_lines"], len(lines))
    bad = None
    if p.returncode < 0:
        bad = ("crash", "signal %d" % -p.returncode)
    elif any(s in err for s in SANITIZER):
        bad = ("sanitizer", err.decode(errors="replace")[:600])
    elif p.returncode not in (0, 1, 2):
        bad = ("bad_exit", "exit %d: %s" % (p.returncode, err.decode(errors="replace")[:300]))
    elif p.returncode != 0 and not lines:
        bad = ("silent", "exit %d with nothing on stderr" % p.returncode)
    if bad:
        failures.append(dict(what, command=name, failure=bad[0], why=bad[1]))
        st[bad[0]] = st.get(bad[0], 0) + 1
    else:
        st["exit%d" % p.returncode] += 1


def main():
    ap = argparse.ArgumentParser(description="damaged traces through every reading command")
    ap.add_argument("--memtap", required=True)
    ap.add_argument("--traces", required=True, help="comma-separated .mtap files")
    ap.add_argument("--events", default="", help="comma-separated event-trace files")
    ap.add_argument("--live", help="a live file of a running recording (memtap top's input)")
    ap.add_argument("--mutants", type=int, default=100, help="per trace")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--json")
    args = ap.parse_args()
    traces = [t for t in args.traces.split(",") if t]
    events = [t for t in args.events.split(",") if t]
    work = tempfile.mkdtemp(prefix="memtap-mutate.")
    stats = {}
    for name, _ in COMMANDS + [("events", None), ("top", None)]:
        stats[name] = {"runs": 0, "exit0": 0, "exit1": 0, "exit2": 0, "hang": 0, "max_s": 0.0,
                       "max_lines": 0}
    failures = []
    t_start = time.monotonic()
    try:
        datas = [open(t, "rb").read() for t in traces]
        for ti, t in enumerate(traces):
            orig = os.path.join(work, "orig%d.mtap" % ti)
            shutil.copy(t, orig)
            for k in range(args.mutants):
                seed = args.seed * 1000003 + ti * 10007 + k
                rng = random.Random(seed)
                data, how = mutate(datas[ti], datas[(ti + 1) % len(datas)], rng)
                d = os.path.join(work, "m")
                os.makedirs(d, exist_ok=True)
                m = os.path.join(d, "mutant.mtap")
                with open(m, "wb") as f:
                    f.write(data)
                what = {"trace": os.path.basename(t), "seed": seed, "damage": how}
                for name, argv in COMMANDS:
                    run(args.memtap, name, [a.format(t=m, o=orig, d=d) for a in argv], failures,
                        stats, what)
                shutil.rmtree(d)
                if sys.stderr.isatty():
                    print("\r%s: %d/%d" % (os.path.basename(t), k + 1, args.mutants), end="",
                          file=sys.stderr)
        for ti, t in enumerate(events):
            data0 = open(t, "rb").read()
            for k in range(args.mutants):
                seed = args.seed * 1000003 + 500000 + ti * 10007 + k
                rng = random.Random(seed)
                data, how = mutate(data0, data0, rng)
                m = os.path.join(work, "events.jsonl")
                with open(m, "wb") as f:
                    f.write(data)
                what = {"trace": os.path.basename(t), "seed": seed, "damage": how}
                run(args.memtap, "events", ["events", m], failures, stats, what)
        if args.live:
            # top reads $XDG_RUNTIME_DIR/memtap/PID.live, a directory only the user enters
            xdg = os.path.join(work, "xdg")
            os.makedirs(os.path.join(xdg, "memtap"), mode=0o700)
            os.chmod(xdg, 0o700)
            env = dict(os.environ, XDG_RUNTIME_DIR=xdg)
            data0 = open(args.live, "rb").read()
            for k in range(args.mutants):
                seed = args.seed * 1000003 + 900000 + k
                rng = random.Random(seed)
                data, how = mutate(data0, data0, rng)
                with open(os.path.join(xdg, "memtap", "4242.live"), "wb") as f:
                    f.write(data)
                what = {"trace": os.path.basename(args.live), "seed": seed, "damage": how}
                run(args.memtap, "top", ["top", "-p", "4242", "--once"], failures, stats, what,
                    env)
        if sys.stderr.isatty():
            print(file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("seed %d; %d traces, %d event files and %d live files, %d mutants each, %.0f s" % (
        args.seed, len(traces), len(events), 1 if args.live else 0, args.mutants,
        time.monotonic() - t_start))
    print("%-18s %6s %6s %6s %6s %7s %5s %9s %6s  %s" % (
        "command", "runs", "exit0", "exit1", "exit2", "crashes", "hangs", "sanitizer", "max s",
        "other failures"))
    for name, st in stats.items():
        if not st["runs"] and not st["hang"]:
            continue
        other = {k: v for k, v in st.items() if k in ("bad_exit", "silent")}
        print("%-18s %6d %6d %6d %6d %7d %5d %9d %6.2f  %s" % (
            name, st["runs"] + st["hang"], st["exit0"], st["exit1"], st["exit2"],
            st.get("crash", 0), st["hang"], st.get("sanitizer", 0), st["max_s"],
            ", ".join("%s %d" % kv for kv in other.items()) or "-"))
    for f in failures[:20]:
        print("FAILED %(command)s on %(trace)s (seed %(seed)d, %(damage)s): %(failure)s: %(why)s" % f,
              file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "stats": stats, "failures": failures}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
