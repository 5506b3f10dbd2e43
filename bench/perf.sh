#!/bin/sh
# SPDX-License-Identifier: MIT
# Every figure of the performance issue (22) in one table, with its target and the peers
# (heaptrack, strace, perf stat) measured in the same run: interleaved rounds, medians,
# ratios to bare. Workloads: CPython's py_alloc.py (allocation-heavy), alloc-threads (1 and 2
# threads), access-truth (memory-bound C, few allocations), a PyTorch decoder
# (tests/e2e/workloads/torch-decoder.py; skipped without python3-torch), a generated
# LLM-like trace for the analysis, a shell loop of 200 /bin/true, and dd with bs=1 for the
# syscall summary. A row whose peer or workload is missing says so. Back-to-back recordings
# each wait at the start for the kernel's RCU grace period after the previous one removed
# its tracepoint probes (perf stat pays the same); the fixed cost is given both ways.
# usage: bench/perf.sh [BUILD_DIR] [ROUNDS]   (defaults: build, 3); as root
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-3}
[ -x "$B/memtap" ] && [ -x "$B/tests/mt-test-tool" ] || { echo "bench/perf.sh: build first (cmake --preset dev && cmake --build build)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PYTHONHASHSEED=0
/usr/bin/python3 "$HERE/workloads/py_alloc.py" >/dev/null # bytecode caches first
exec python3 - "$B" "$T" "$ROUNDS" "$HERE/workloads/py_alloc.py" "$HERE/../tests/e2e/workloads/torch-decoder.py" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
B, T, rounds, PYW, TORCHW = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
M, TOOL = os.path.join(B, "memtap"), os.path.join(B, "tests", "mt-test-tool")
WL = os.path.join(B, "tests", "e2e", "workloads")
rows = []
def row(figure, memtap, target, peer="", note=""):
    rows.append((figure, memtap, target, peer, note))
    print("  %-44s %-14s %-8s %s" % (figure, memtap, target, peer), file=sys.stderr, flush=True)
def have(cmd):
    return shutil.which(cmd) is not None
def run(cmd, env=None):
    e = dict(os.environ, **(env or {}))
    t0 = time.monotonic()
    subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=e)
    return time.monotonic() - t0
def interleave(variants, env=None, n=rounds):
    """{name: median wall s}, every round each variant once, the order alternating."""
    t = {k: [] for k in variants}
    names = list(variants)
    for r in range(n):
        for k in (names if r % 2 == 0 else names[::-1]):
            t[k].append(run(variants[k], env))
    return {k: statistics.median(v) for k, v in t.items()}
def info(path):
    return json.loads(subprocess.run([M, "info", path, "--format", "json"], capture_output=True,
                                     text=True, check=True).stdout)
def rec(out, flags=""):
    return "%s record -q -f %s -o %s --" % (M, flags, os.path.join(T, out))
ONLY_ALLOC = "--access=off --no-faults --no-rss"
x = lambda a, b: "%.2fx" % (a / b)

print("== CPython py_alloc.py (PYTHONMALLOC=malloc), %d rounds" % rounds, file=sys.stderr)
py = "/usr/bin/python3 " + PYW
v = {"bare": py, "defaults": rec("d.mtap") + " " + py, "alloc": rec("a.mtap", ONLY_ALLOC) + " " + py,
     "sites": rec("s.mtap", ONLY_ALLOC + " --alloc=sites") + " " + py}
if have("heaptrack"):
    v["heaptrack"] = "heaptrack -o %s/ht %s" % (T, py)
m = interleave(v, {"PYTHONMALLOC": "malloc"})
row("CPython benchmark, every default collector", x(m["defaults"], m["bare"]), "<= 1.5x",
    "heaptrack " + x(m["heaptrack"], m["bare"]) if "heaptrack" in m else "heaptrack missing")
j = info(os.path.join(T, "a.mtap"))
ev = j["events"]["alloc"]
row("recorder CPU per allocation event", "%.1f ns" % (j["run"]["recorder"]["cpu_ns"] / ev), "<= 10 ns")
size = os.path.getsize(os.path.join(T, "a.mtap"))
peer = ""
if os.path.exists(os.path.join(T, "ht.zst")):
    calls = subprocess.run("heaptrack_print -f %s/ht.zst | sed -n 's/^calls to allocation functions: \\([0-9]*\\).*/\\1/p'" % T,
                           shell=True, capture_output=True, text=True).stdout.strip()
    if calls:
        peer = "heaptrack %.3f B/call" % (os.path.getsize(os.path.join(T, "ht.zst")) / int(calls))
row("trace bytes per allocation event", "%.3f B" % (size / ev), "<= 0.7 B", peer)
ssize = os.path.getsize(os.path.join(T, "s.mtap"))
row("--alloc=sites trace bytes per allocation event", "%.3f B" % (ssize / ev),
    "<= heaptrack", peer)
row("allocation tracing alone: events / sites mode", "%s / %s" % (x(m["alloc"], m["bare"]),
    x(m["sites"], m["bare"])), "")

print("== alloc-threads: 1 thread vs 2, %d rounds" % rounds, file=sys.stderr)
at = os.path.join(WL, "alloc-threads")
rate = {}
for nt in (1, 2):
    w = []
    for r in range(rounds):
        s = run(rec("t%d.mtap" % nt, ONLY_ALLOC) + " %s %d 400000" % (at, nt))
        w.append(info(os.path.join(T, "t%d.mtap" % nt))["events"]["alloc"] / s)
    rate[nt] = statistics.median(w)
row("2-thread events/s over 1-thread", "%.2fx" % (rate[2] / rate[1]), ">= 1.6x",
    "", "%.1f M/s vs %.1f M/s" % (rate[2] / 1e6, rate[1] / 1e6))

print("== memory-bound C (access-truth 0.3), %d rounds" % rounds, file=sys.stderr)
c = os.path.join(WL, "access-truth") + " 0.3"
v = {"bare": c, "defaults": rec("c.mtap") + " " + c,
     "access": rec("c1.mtap", "--no-alloc --no-faults --no-rss") + " " + c,
     "rss": rec("c2.mtap", "--no-alloc --access=off --no-faults") + " " + c,
     "faults": rec("c3.mtap", "--no-alloc --access=off --no-rss") + " " + c,
     "alloc": rec("c5.mtap", "--access=off --no-faults --no-rss") + " " + c,
     "alloc-nopw": rec("c6.mtap", "--access=off --no-faults --no-rss --page-writes-ms 0") + " " + c,
     "full": rec("c7.mtap", "--page-writes=full") + " " + c,
     "none": rec("c4.mtap", "--no-alloc --access=off --no-faults --no-rss") + " " + c}
if have("heaptrack"):
    v["heaptrack"] = "heaptrack -o %s/htc %s" % (T, c)
m = interleave(v)
row("memory-bound C, every default collector", x(m["defaults"], m["bare"]), "<= 1.15x",
    "heaptrack " + x(m["heaptrack"], m["bare"]) if "heaptrack" in m else "")
row("memory-bound C, access sampling alone", x(m["access"], m["none"]), "<= 1.05x")
row("memory-bound C, RSS collector alone", x(m["rss"], m["none"]), "<= 1.02x")
row("memory-bound C, faults alone", x(m["faults"], m["none"]), "")
# Its large arrays are page-write tracked by default (--page-writes-min 1 MiB): at most two
# write-protect faults per page, settled once written in two epochs (--page-writes=full: one
# per page and 100 ms epoch it rewrites).
row("memory-bound C, allocations with page writes", x(m["alloc"], m["none"]), "")
row("memory-bound C, allocations, page writes off", x(m["alloc-nopw"], m["none"]), "")
row("memory-bound C, every collector off", x(m["none"], m["bare"]), "")
# settling (the default) against every epoch's pages protected again
row("memory-bound C, defaults but --page-writes=full", x(m["full"], m["bare"]), "")

if subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0:
    print("== PyTorch decoder, %d rounds" % rounds, file=sys.stderr)
    tw = "/usr/bin/python3 %s 24" % TORCHW
    v = {"bare": tw, "defaults": rec("p.mtap") + " " + tw}
    if have("heaptrack"):
        v["heaptrack"] = "heaptrack -o %s/htp %s" % (T, tw)
    m = interleave(v)
    row("PyTorch decoder, every default collector", x(m["defaults"], m["bare"]), "<= 1.3x",
        "heaptrack " + x(m["heaptrack"], m["bare"]) if "heaptrack" in m else "")
else:
    row("PyTorch decoder, every default collector", "-", "<= 1.3x", "", "python3-torch missing")

print("== analysis of a generated 10 M-event trace", file=sys.stderr)
synth = os.path.join(T, "s.mtap")
subprocess.run([TOOL, "gen-synth", "10000000", synth], check=True, stdout=subprocess.DEVNULL)
nev = sum(info(synth)["events"].values())
s = statistics.median(run("%s report %s --section metrics" % (M, synth)) for _ in range(rounds))
row("analysis, full metric set", "%.1f M ev/s" % (nev / s / 1e6), ">= 20 M")
pq = os.path.join(T, "s.parquet")
s = statistics.median(run("%s export %s --to parquet -o %s -f" % (M, synth, pq)) for _ in range(rounds))
pqb = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(pq) for f in fs)
row("Parquet export", "%.0f MB/s" % (pqb / s / 1e6), ">= 200")

print("== short processes, %d rounds" % rounds, file=sys.stderr)
s = statistics.median(run(rec("true.mtap") + " /bin/true") for _ in range(max(5, rounds)))
row("fixed cost: record -- /bin/true, back to back", "%.0f ms" % (s * 1e3), "<= 20 ms",
    "perf stat -e kmem:rss_stat %.0f ms" % (1e3 * statistics.median(
        run("perf stat -e kmem:rss_stat -o /dev/null /bin/true") for _ in range(5)))
    if have("perf") else "")
def spaced():
    time.sleep(0.3) # the kernel's grace period after the last run's tracepoint removal
    return run(rec("true.mtap") + " /bin/true")
row("fixed cost: record -- /bin/true, 0.3 s apart", "%.0f ms" % (
    1e3 * statistics.median(spaced() for _ in range(max(5, rounds)))), "<= 20 ms")
loop = os.path.join(T, "loop.sh")
open(loop, "w").write("for i in $(seq 200); do /bin/true; done\n")
v = {"bare": "sh " + loop, "memtap": rec("loop.mtap") + " sh " + loop}
if have("heaptrack"):
    v["heaptrack"] = "heaptrack -o %s/htl sh %s" % (T, loop)
if have("strace"):
    v["strace"] = "strace -f -c -o /dev/null sh " + loop
m = interleave(v)
per = lambda k, fixed=0: "%.2f ms" % ((m[k] - m["bare"] - fixed) / 200 * 1e3)
row("per traced process (200 x /bin/true)", per("memtap", s), "<= 0.5 ms",
    ", ".join("%s %s" % (k, per(k)) for k in ("heaptrack", "strace") if k in m))

print("== syscall summary vs the kernel's floor, %d rounds" % rounds, file=sys.stderr)
dd = "dd if=/dev/zero of=/dev/null bs=1 count=300000"
v = {"bare": dd, "floor": "perf stat -e raw_syscalls:sys_enter -x, -o /dev/null " + dd,
     "floor2": "perf stat -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -x, -o /dev/null " + dd,
     "summary": rec("sc.mtap", "--no-alloc --access=off --no-faults --no-rss --syscalls=summary") + " " + dd}
if have("strace"):
    v["strace"] = "strace -f -c -o /dev/null " + dd
m = interleave(v)
row("--syscalls=summary over perf stat's floor", x(m["summary"], m["floor"]), "<= 1.1x",
    "floor %s of bare%s" % (x(m["floor"], m["bare"]),
                            ", strace " + x(m["strace"], m["bare"]) if "strace" in m else ""))
# The summary's durations (strace -c's time column) and errors need the exit tracepoint too:
# the floor of counting both, measured the same way.
row("--syscalls=summary over the floor with exits", x(m["summary"], m["floor2"]), "",
    "perf stat enter+exit %s of bare" % x(m["floor2"], m["bare"]))

print("| figure | memtap | target | peers, same run |\n|---|---|---|---|")
for f, mv, tg, peer, note in rows:
    print("| %s | %s | %s | %s |" % (f, mv, tg, "; ".join(p for p in (peer, note) if p)))
PY
