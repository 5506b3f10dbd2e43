#!/bin/sh
# SPDX-License-Identifier: MIT
# Export benchmark (issue 5): `memtap export --to parquet` of a generated LLM-like trace of N
# events (default 10 M; mt-test-tool gen-synth): seconds, MB/s of output, bytes per event and
# events per second, the median of 3 runs; the same for CSV and SQLite; and the Parquet
# writer alone (mt-test-tool pq-write: the trace table's rows straight into the writer, no
# analysis), to tell the writer's cost from the analysis pass's.
# usage: bench/export.sh [BUILD_DIR] [EVENTS]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
N=${2:-10000000}
M=$B/memtap
TOOL=$B/tests/mt-test-tool
[ -x "$M" ] && [ -x "$TOOL" ] || { echo "bench/export.sh: build first (cmake --preset dev && cmake --build build)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$TOOL" gen-synth "$N" "$T/s.mtap"
echo "trace: $N events, $(($(stat -c %s "$T/s.mtap") >> 20)) MiB"

# median of 3: "seconds bytes-of-output"
run() { # NAME OUTPUT-PATH COMMAND...
	name=$1 out=$2
	shift 2
	for i in 1 2 3; do
		[ "$out" = - ] || rm -rf "$out"
		/usr/bin/time -f "%e" -o "$T/time" "$@" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
		echo "$(cat "$T/time") $([ "$out" = - ] && echo 0 || du -sb "$out" | cut -f1)"
	done | sort -n | sed -n 2p
}

report() { # NAME "seconds bytes" ROWS
	set -- "$1" $2 "$3"
	printf '%-22s %8.2f s %10.1f MB %9.1f MB/s %7.2f B/event %12.0f events/s\n' "$1" "$2" \
		"$(echo "$3 / 1000000" | bc -l)" "$(echo "$3 / 1000000 / $2" | bc -l)" \
		"$(echo "$3 / $4" | bc -l)" "$(echo "$4 / $2" | bc -l)"
}

report "report (analysis only)" "$(run report - "$M" report "$T/s.mtap" --section metrics --format json)" "$N"
report "export parquet" "$(run parquet "$T/pq" "$M" export "$T/s.mtap" --to parquet -o "$T/pq")" "$N"
report "export csv" "$(run csv "$T/csv" "$M" export "$T/s.mtap" --to csv -o "$T/csv")" "$N"
report "export sqlite" "$(run sqlite "$T/s.db" "$M" export "$T/s.mtap" --to sqlite -o "$T/s.db")" "$N"
report "parquet writer alone" "$(run writer "$T/w.parquet" "$TOOL" pq-write "$N" "$T/w.parquet")" "$N"
