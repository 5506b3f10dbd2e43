#!/bin/sh
# SPDX-License-Identifier: MIT
# Analysis benchmark (issue 4): `memtap report --section metrics` on generated LLM-like
# traces (mt-test-tool gen-synth) of 1 M, 10 M and N events (default 100 M): seconds,
# events/s and peak RSS, which must not grow with the trace's length; and, on 1 M events,
# the speed-up over mrm-trace's own pandas formulas (iai, locality, read_freq).
# usage: bench/analysis.sh [BUILD_DIR] [BIG_EVENTS]   (default build, 100000000)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
BIG=${2:-100000000}
M=$B/memtap
TOOL=$B/tests/mt-test-tool
[ -x "$M" ] && [ -x "$TOOL" ] || { echo "bench/analysis.sh: build first (cmake --preset dev && cmake --build --preset dev)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# median seconds and max RSS (KiB) of 3 runs of the report on $1
measure() {
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$T/time" "$M" report "$1" --section metrics --format json >"$T/out.json"
		cat "$T/time"
	done | sort -n | sed -n 2p
}

printf '%-12s %10s %8s %14s %12s\n' events "file MiB" seconds "events/s" "peak RSS MiB"
for n in 1000000 10000000 "$BIG"; do
	"$TOOL" gen-synth "$n" "$T/s.mtap"
	set -- $(measure "$T/s.mtap")
	printf '%-12s %10d %8s %14.0f %12.0f\n' "$n" $(($(stat -c %s "$T/s.mtap") >> 20)) "$1" \
		"$(echo "$n / $1" | bc -l)" "$(echo "$2 / 1024" | bc -l)"
	[ "$n" = 1000000 ] && cp "$T/s.mtap" "$T/one.mtap"
	rm -f "$T/s.mtap"
done

PY=/usr/bin/python3
if ! "$PY" -c 'import pandas' 2>/dev/null; then
	echo "pandas comparison skipped: no python3-pandas"
	exit 0
fi
"$M" dump "$T/one.mtap" --type access --format csv >"$T/one.csv"
set -- $(measure "$T/one.mtap")
ours=$1
theirs=$("$PY" "$HERE/workloads/pandas_metrics.py" "$T/one.csv")
echo "1 M events: memtap report ${ours} s (decode included), pandas iai+locality+read_freq ${theirs} s (CSV load excluded): $(echo "$theirs / $ours" | bc -l | cut -c1-6)x"
