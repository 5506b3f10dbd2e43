#!/bin/sh
# SPDX-License-Identifier: MIT
# Access-sampling benchmark (issue 3): slowdown of a memory-bound workload (the ground-truth
# program: SIMD, random, sequential, rep string, TLS and pointer-chasing phases) at the
# default rate (calibrated per machine for ~2%, at most 10 k/s), 1 k, 10 k and 50 k
# samples/s, as interleaved medians against memtap with sampling off (allocation tracing
# off in every variant, so the ratio is the sampler's); then per rate: samples, resolved
# fraction, throttles and the recorder's decoding CPU.
# usage: bench/access.sh [BUILD_DIR] [ROUNDS] [SCALE]   (defaults: build, 7, 0.3)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-7}
SCALE=${3:-0.3}
M=$B/memtap
W="$B/tests/e2e/workloads/access-truth $SCALE"
[ -x "$M" ] || { echo "bench/access.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R="$M record -q -f --no-alloc"

echo "== memory-bound workload: wall time, $ROUNDS interleaved rounds (mechanism: auto = $("$M" probe --format json | python3 -c '
import json, sys
f = {x["id"]: x["available"] for x in json.load(sys.stdin)["features"]}
print(next((m for m, k in (("pebs", "pebs"), ("ibs", "ibs"), ("regs", "regs-hw"), ("timer", "regs-sw")) if f[k]), "none"))'))"
python3 "$HERE/interleave.py" --rounds "$ROUNDS" \
	bare="$W" \
	sampling-off="$R --access=off -o $T/off.mtap -- $W" \
	default="$R -o $T/default.mtap -- $W" \
	1k="$R --access-freq 1000 -o $T/1k.mtap -- $W" \
	10k="$R --access-freq 10000 -o $T/10k.mtap -- $W" \
	50k="$R --access-freq 50000 -o $T/50k.mtap -- $W"

echo
echo "== per rate (the last runs above)"
for r in default 1k 10k 50k; do
	"$M" report "$T/$r.mtap" -s access --format json | python3 -c '
import json, sys
a = json.load(sys.stdin)["access"]
print("  %-7s %-6s samples %7d  resolved %5.1f%%  lost %d  throttles %d  decoder CPU %.1f ms (%.2f us/sample)" % (
    sys.argv[1], a["mechanism"], a["samples"], 100 * a["resolved_fraction"], a["lost"], a["throttles"],
    a["decoder_cpu_ns"] / 1e6, a["decoder_cpu_ns"] / 1e3 / max(a["samples"], 1)))' "$r"
	[ "$r" != default ] || "$M" info "$T/default.mtap" --format json | python3 -c '
import json, sys
d = [c["details"] for c in json.load(sys.stdin)["collectors"] if c["name"] == "access"][0]
print("          rate %s: %s ns per sample measured, period %s" % (d.get("rate"), d.get("calibrated_ns_per_sample", "-"), d.get("period", d.get("frequency_hz"))))'
done
echo "  kernel.perf_event_max_sample_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)" \
	"perf_cpu_time_max_percent=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
