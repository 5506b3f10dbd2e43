#!/bin/sh
# SPDX-License-Identifier: MIT
# Allocation-tracing benchmark (issue 7): overhead on CPython against bare and heaptrack,
# trace bytes per allocation call, and 1- vs 2-thread event rates. Interleaved runs,
# medians, ratios: absolute times on a shared VM mean little.
# usage: bench/alloc.sh [BUILD_DIR] [ROUNDS]   (default build, 7)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-7}
M=$B/memtap
W=$B/tests/e2e/workloads/alloc-threads
[ -x "$M" ] && [ -x "$W" ] || { echo "bench/alloc.sh: build first (cmake --preset dev && cmake --build --preset dev)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PYTHONHASHSEED=0 PYTHONMALLOC=malloc
PY="/usr/bin/python3 $HERE/workloads/py_alloc.py"
$PY >/dev/null # a first run: bytecode caches are written before anything is timed

# The allocation tracer's cost: the other collectors (access sampling, faults, RSS) are off
# in the memtap-full, memtap-nopy and memtap-depth1 variants; memtap-defaults shows everything
# together. memtap-full has Python frames in its stacks, memtap-nopy native stacks only.
A="--access=off --no-faults --no-rss"
echo "== CPython py_alloc.py: wall time, $ROUNDS interleaved rounds"
set -- bare="$PY" \
	memtap-full="$M record -q -f $A -o $T/full.mtap -- $PY" \
	memtap-nopy="$M record -q -f $A --no-python-frames -o $T/nopy.mtap -- $PY" \
	memtap-depth1="$M record -q -f $A --stack-depth 1 -o $T/d1.mtap -- $PY" \
	memtap-defaults="$M record -q -f -o $T/defaults.mtap -- $PY"
if command -v heaptrack >/dev/null; then
	set -- "$@" heaptrack="heaptrack -o $T/ht $PY"
fi
python3 "$HERE/interleave.py" --rounds "$ROUNDS" --json "$T/py.json" "$@"

echo
echo "== where CPython allocates (Python frames of memtap-full's stacks)"
"$M" report "$T/full.mtap" -s alloc -n 4 | sed -n '/^top sites by calls/,/^$/p'

echo
echo "== trace size per allocation call (the last runs above)"
calls=$("$M" report "$T/full.mtap" -s alloc --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["alloc"]["calls"])')
events=$("$M" info "$T/full.mtap" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"].get("alloc", 0))')
msize=$(stat -c %s "$T/full.mtap")
printf '  memtap     %10d bytes  %9d calls  %6.3f B/call  (%d alloc+free events: %.3f B/event; per event: ns time, address, size, usable size, stack)\n' \
	"$msize" "$calls" "$(python3 -c "print($msize / $calls)")" "$events" "$(python3 -c "print($msize / $events)")"
if [ -f "$T/ht.zst" ]; then
	hcalls=$(heaptrack_print -f "$T/ht.zst" 2>/dev/null | sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p')
	hsize=$(stat -c %s "$T/ht.zst")
	printf '  heaptrack  %10d bytes  %9d calls  %6.3f B/call  (per event: an allocation-info index; time every 10 ms)\n' \
		"$hsize" "$hcalls" "$(python3 -c "print($hsize / $hcalls)")"
fi

echo
echo "== events/s recorded: 1 thread vs 2 threads (alloc-threads, 2,000,000 iterations per thread)"
python3 - "$M" "$W" "$T" "$ROUNDS" <<'PY'
import json, statistics, subprocess, sys, time
m, w, t, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rates = {1: [], 2: []}
for r in range(rounds):
    for nt in ((1, 2) if r % 2 == 0 else (2, 1)):
        out = "%s/t%d.mtap" % (t, nt)
        t0 = time.monotonic()
        subprocess.run([m, "record", "-q", "-f", "--access=off", "--no-faults", "--no-rss",
                        "-o", out, "--", w, str(nt), "2000000"],
                       check=True, stdout=subprocess.DEVNULL)
        dt = time.monotonic() - t0
        info = json.loads(subprocess.run([m, "info", out, "--format", "json"], check=True,
                                         capture_output=True, text=True).stdout)
        rates[nt].append(info["events"].get("alloc", 0) / dt)
r1, r2 = statistics.median(rates[1]), statistics.median(rates[2])
print("  1 thread   %6.2f M events/s" % (r1 / 1e6))
print("  2 threads  %6.2f M events/s   ratio %.2fx" % (r2 / 1e6, r2 / r1))
PY
