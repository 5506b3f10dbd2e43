#!/bin/sh
# SPDX-License-Identifier: MIT
# An analysis reads its trace once: read-once.sh path/to/memtap
# Every command below, on every golden trace, must decode each event chunk at most once (the
# reader counts decodes and, with MEMTAP_DECODE_STATS set, says so when it is freed).
set -eu
M=$(command -v "$1") || { echo "read-once: no memtap at $1" >&2; exit 2; }
case $M in /*) ;; *) M=$(pwd)/$M ;; esac
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/memtap-read-once.XXXXXX)
trap 'rm -rf "$out"' EXIT
cd "$here/traces"
fail=0
n=0
check() { # what command...
	what=$1
	shift
	MEMTAP_DECODE_STATS=1 "$@" >/dev/null 2>"$out/err" || true
	line=$(grep 'decode stats' "$out/err" || true)
	if [ -z "$line" ]; then
		echo "read-once: $what: no decode stats" >&2
		fail=1
		return
	fi
	if [ "$(printf '%s\n' "$line" | wc -l)" -ne 1 ]; then
		echo "read-once: $what: the trace was opened more than once" >&2
		fail=1
		return
	fi
	case $line in
	*", 0 decoded more than once"*) n=$((n + 1)) ;;
	*)
		echo "read-once: $what: $line" >&2
		fail=1
		;;
	esac
}
for f in *.mtap; do
	check "$f report" "$M" report "$f" --format json
	for x in parquet csv jsonl; do
		rm -rf "$out/x"
		check "$f export $x" "$M" export "$f" --to "$x" -o "$out/x"
	done
	rm -rf "$out/x"
	check "$f export parquet (mrm layout)" "$M" export "$f" --to parquet --layout mrm -o "$out/x"
	rm -rf "$out/x"
	check "$f export csv (hive layout)" "$M" export "$f" --to csv --layout hive -o "$out/x"
	rm -f "$out/db"
	check "$f export sqlite" "$M" export "$f" --to sqlite -o "$out/db"
done
[ "$fail" -eq 0 ] || exit 1
echo "read-once: $n analyses, each decoded every chunk at most once"
