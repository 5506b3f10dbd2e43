#!/bin/sh
# SPDX-License-Identifier: MIT
# The live figures' cost (issue 19: memtap top "never slows the recorder down measurably"):
# the recorder follows every heap block, site, sampled region and working-set page for
# `memtap top` unless --no-live. Recorded with and without, in interleaved rounds, medians:
# the workload's wall time and the recorder's own CPU time (its rusage, in the trace), on the
# allocation-heaviest workloads at hand: CPython's py_alloc.py (~60,000 calls/s into
# malloc with Python frames) and alloc-threads (two C threads, millions of calls), all
# collectors on as by default. Also: the recorder's peak resident memory with and without.
# usage: bench/live.sh [BUILD_DIR] [ROUNDS]   (default build, 7)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-7}
M=$B/memtap
W=$B/tests/e2e/workloads/alloc-threads
[ -x "$M" ] && [ -x "$W" ] || { echo "bench/live.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PYTHONHASHSEED=0 PYTHONMALLOC=malloc
/usr/bin/python3 "$HERE/workloads/py_alloc.py" >/dev/null # bytecode caches first

python3 - "$M" "$W" "$T" "$ROUNDS" "$HERE/workloads/py_alloc.py" <<'PY'
import os, statistics, subprocess, sys, time
M, W, T, rounds, pyw = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
works = {"py_alloc.py": ["/usr/bin/python3", pyw], "alloc-threads": [W, "2", "300000"]}
variants = {"live": [], "no-live": ["--no-live"]}

def run(work, extra):
    cmd = [M, "record", "-q", "-f", "-o", os.path.join(T, "o.mtap")] + extra + ["--"] + works[work]
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    info = subprocess.run([M, "info", os.path.join(T, "o.mtap"), "--format", "json"],
                          capture_output=True, text=True, check=True).stdout
    return wall, info

for work in works:
    res = {v: ([], [], []) for v in variants}
    for r in range(rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for v in order:
            wall, info = run(work, variants[v])
            rec = __import__("json").loads(info)["run"]["recorder"]
            res[v][0].append(wall)
            res[v][1].append(rec["cpu_ns"] / 1e9)
            res[v][2].append(rec["max_rss_bytes"] / 2**20)
    lw, lc = statistics.median(res["live"][0]), statistics.median(res["live"][1])
    nw, nc = statistics.median(res["no-live"][0]), statistics.median(res["no-live"][1])
    print("== %s, %d interleaved rounds (medians)" % (work, rounds))
    print("  wall: no-live %.3f s, live %.3f s: %.3fx" % (nw, lw, lw / nw))
    print("  recorder cpu: no-live %.3f s, live %.3f s: %.3fx" % (nc, lc, lc / nc))
    print("  recorder peak RSS: no-live %.1f MiB, live %.1f MiB" %
          (statistics.median(res["no-live"][2]), statistics.median(res["live"][2])))
PY
