#!/bin/sh
# SPDX-License-Identifier: MIT
# Two memtaps side by side (issue 15: restructuring must not slow memtap down: new/old
# seconds <= 1.05): `report --section metrics`, the whole report and the Parquet export of a
# generated LLM-like trace (mt-test-tool gen-synth); and recording CPython's allocations
# (bench/workloads/py_alloc.py, the allocation tracer alone) through each memtap's preload
# runtime. 5 runs of each, interleaved, medians.
# usage: bench/compare.sh OLD_MEMTAP [BUILD_DIR] [EVENTS]   (default build, 10000000)
# An old memtap: git worktree add /tmp/old <commit> && cmake -S /tmp/old -B /tmp/old/b -G Ninja
# -DBUILD_TESTING=OFF && cmake --build /tmp/old/b
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$1
B=$(cd "${2:-$HERE/../build}" && pwd)
N=${3:-10000000}
NEW=$B/memtap
TOOL=$B/tests/mt-test-tool
[ -x "$OLD" ] && [ -x "$NEW" ] && [ -x "$TOOL" ] || { echo "bench/compare.sh: OLD_MEMTAP and a build with tests are needed" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$TOOL" gen-synth "$N" "$T/s.mtap"

secs() { # memtap args...: seconds of one run
	m=$1
	shift
	/usr/bin/time -f "%e" -o "$T/time" "$m" "$@" >/dev/null 2>&1
	cat "$T/time"
}
median() { sort -n | sed -n 3p; }

printf '%-28s %10s %10s %8s\n' "$N events" "old s" "new s" "new/old"
for what in metrics report parquet; do
	case $what in
	metrics) set -- report "$T/s.mtap" --section metrics --format json ;;
	report) set -- report "$T/s.mtap" --format json ;;
	parquet) set -- export "$T/s.mtap" --to parquet -f -o "$T/pq" ;;
	esac
	: >"$T/old"
	: >"$T/new"
	for i in 1 2 3 4 5; do
		secs "$OLD" "$@" >>"$T/old"
		secs "$NEW" "$@" >>"$T/new"
	done
	o=$(median <"$T/old")
	n=$(median <"$T/new")
	printf '%-28s %10s %10s %8.3f\n' "$what" "$o" "$n" "$(echo "$n / $o" | bc -l)"
done

export PYTHONHASHSEED=0 PYTHONMALLOC=malloc
PY="/usr/bin/python3 $HERE/workloads/py_alloc.py"
$PY >/dev/null
A="--access=off --no-faults --no-rss"
: >"$T/old"
: >"$T/new"
for i in 1 2 3 4 5; do
	secs "$OLD" record -q -f $A -o "$T/r.mtap" -- $PY >>"$T/old"
	secs "$NEW" record -q -f $A -o "$T/r.mtap" -- $PY >>"$T/new"
done
o=$(median <"$T/old")
n=$(median <"$T/new")
printf '%-28s %10s %10s %8.3f\n' "record py_alloc (alloc)" "$o" "$n" "$(echo "$n / $o" | bc -l)"
