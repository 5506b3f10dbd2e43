#!/bin/sh
# SPDX-License-Identifier: MIT
# System-wide recording (issue 19): (1) the cost of `memtap record -a` (faults, RSS and the
# in-kernel syscall summary; access sampling off) to a busy workload — stress-ng's vm and
# get stressors for a fixed number of operations — as the ratio of its wall time recorded
# to bare, in interleaved rounds, medians; (2) the recorder's resident memory over a long
# -a run beside the same workload without an end (sampled every 15 s): it must stay flat,
# the trace streaming to disk.
# usage: bench/system.sh [BUILD_DIR] [ROUNDS] [MINUTES]   (defaults: build, 7, 10); as root
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-7}
MINUTES=${3:-10}
M=$B/memtap
[ -x "$M" ] || { echo "bench/system.sh: build first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench/system.sh: run as root (system-wide perf and BPF)" >&2; exit 1; }
command -v stress-ng >/dev/null || { echo "bench/system.sh: stress-ng is missing" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

python3 - "$M" "$T" "$ROUNDS" "$MINUTES" <<'PY'
import os, statistics, subprocess, sys, time
M, T, rounds, minutes = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
W = ["stress-ng", "--vm", "1", "--vm-bytes", "64M", "--vm-ops", "12", "--get", "1",
     "--get-ops", "30000", "--quiet"]
REC = [M, "record", "-a", "-q", "-f", "--syscalls=summary", "--access=off"]

def start_memtap(out, extra=()):
    p = subprocess.Popen(REC + list(extra) + ["-o", out], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(0.5) # -q: no "recording" line; its collectors open in well under this
    return p

def stop_memtap(p):
    p.stdin.write("END\n")
    p.stdin.flush()
    p.wait()
    if p.returncode != 0:
        sys.exit("memtap -a failed: " + p.stderr.read())

def timed(cmd):
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0

print("== overhead: %s, %d interleaved rounds" % (" ".join(W), rounds))
bare, rec = [], []
for r in range(rounds):
    for which in (("bare", "rec") if r % 2 == 0 else ("rec", "bare")):
        if which == "bare":
            bare.append(timed(W))
        else:
            p = start_memtap(os.path.join(T, "o.mtap"))
            rec.append(timed(W))
            stop_memtap(p)
b, t = statistics.median(bare), statistics.median(rec)
print("  bare %.3f s, recorded system-wide %.3f s: %.2fx (medians)" % (b, t, t / b))
info = subprocess.run([M, "info", os.path.join(T, "o.mtap"), "--format", "json"],
                      capture_output=True, text=True, check=True).stdout
import json
j = json.loads(info)
ev = {c["name"]: (c["events"], c["lost"]) for c in j["collectors"]}
print("  last run: %d processes; events (lost): %s" % (len(j["processes"]),
      ", ".join("%s %d (%d)" % (k, v[0], v[1]) for k, v in ev.items() if v[0])))

print("== recorder RSS over %.0f minutes of -a beside the same workload, unending, and a "
      "churn of short processes with arguments never seen before (20 a second)" % minutes)
busy = subprocess.Popen(["stress-ng", "--vm", "1", "--vm-bytes", "64M", "--get", "1",
                         "--timeout", "%ds" % int(minutes * 60 + 30), "--quiet"],
                        stdout=subprocess.DEVNULL)
# as on a real machine (cron, shells, build steps): each process new, with a unique argument
churn = subprocess.Popen(["sh", "-c", "i=0; while :; do /bin/true churn-$i-$(date +%s%N); "
                          "i=$((i+1)); sleep 0.05; done"], stdout=subprocess.DEVNULL)
p = start_memtap(os.path.join(T, "long.mtap"))
def rss_kb(pid):
    for l in open("/proc/%d/status" % pid):
        if l.startswith("VmRSS:"):
            return int(l.split()[1])
series = []
t0 = time.monotonic()
while time.monotonic() - t0 < minutes * 60:
    time.sleep(15)
    series.append((time.monotonic() - t0, rss_kb(p.pid),
                   os.path.getsize(os.path.join(T, "long.mtap"))))
stop_memtap(p)
busy.terminate()
busy.wait()
churn.terminate()
churn.wait()
info = json.loads(subprocess.run([M, "info", os.path.join(T, "long.mtap"), "--format", "json"],
                                 capture_output=True, text=True, check=True).stdout)
print("  the long run saw %d processes" % len(info["processes"]))
for s, kb, size in series[:: max(1, len(series) // 10)] + series[-1:]:
    print("  %5.0f s: recorder RSS %6.1f MiB, trace %7.1f MiB" % (s, kb / 1024, size / 2**20))
first = series[min(1, len(series) - 1)][1] # after the first minute's warm-up sample
last = series[-1][1]
peak = max(kb for _, kb, _ in series)
print("  RSS after 15-30 s %.1f MiB, at the end %.1f MiB, peak %.1f MiB: growth %.1f%%" % (
      first / 1024, last / 1024, peak / 1024, 100.0 * (last - first) / first))
PY
