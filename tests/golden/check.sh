#!/bin/sh
# SPDX-License-Identifier: MIT
# Byte-identity of every output over the golden traces: check.sh path/to/memtap
# Runs `report` (JSON, text, Markdown), `syscalls`, `info`, `dump` and every export of each
# trace in traces/, and compares the SHA-256 of each output file, its stderr and its exit
# status with expected.sha256. A refactoring must leave them all unchanged; a change of a figure made on
# purpose is rewritten with UPDATE_GOLDEN=1 and explained in its commit. MEMTAP_GOLDEN_KEEP=DIR
# keeps the outputs in DIR, to diff them against another memtap's.
set -eu
M=$(command -v "$1") || { echo "golden: no memtap at $1" >&2; exit 2; }
case $M in /*) ;; *) M=$(pwd)/$M ;; esac
here=$(cd "$(dirname "$0")" && pwd)
out=${MEMTAP_GOLDEN_KEEP:-$(mktemp -d /tmp/memtap-golden.XXXXXX)}
mkdir -p "$out"
[ -n "${MEMTAP_GOLDEN_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
cd "$here/traces"

run() { # name command...: stdout to $out/name.out unless the command writes its own file
	name=$1
	shift
	rc=0
	"$@" >"$out/$name.out" 2>"$out/$name.err" || rc=$?
	echo "$rc" >"$out/$name.rc"
}

for f in *.mtap; do
	t=${f%.mtap}
	run "$t.report-json" "$M" report "$f" --format json
	run "$t.report-text" "$M" report "$f"
	run "$t.report-md" "$M" report "$f" --format md
	run "$t.syscalls" "$M" syscalls "$f"
	run "$t.syscalls-list" "$M" syscalls "$f" --list --format json
	run "$t.syscalls-rereads" "$M" syscalls "$f" --rereads --all-files
	run "$t.info-text" "$M" info "$f"
	run "$t.info-json" "$M" info "$f" --format json
	run "$t.dump-csv" "$M" dump "$f" --format csv
	for w in bytes calls peak leaked temporary; do
		run "$t.folded-$w" "$M" export "$f" --to folded -w "$w" -o -
	done
	for x in csv jsonl parquet; do
		run "$t.$x" "$M" export "$f" --to "$x" -o "$out/$t.$x.d"
	done
	run "$t.sqlite" "$M" export "$f" --to sqlite -o "$out/$t.sqlite.db"
	run "$t.perfetto" "$M" export "$f" --to perfetto --perfetto-json -o -
	run "$t.perfetto-pb" "$M" export "$f" --to perfetto -o -
	run "$t.view" "$M" view "$f" -o "$out/$t.view.html"
	# the output's path, named on stderr, is a new temporary directory each run
	sed "s|$out/||" "$out/$t.view.err" >"$out/$t.view.err.tmp" && mv "$out/$t.view.err.tmp" "$out/$t.view.err"
done

cd "$out"
got=$(find . -type f ! -name '*.sha256' | LC_ALL=C sort | xargs sha256sum)
if [ -n "${UPDATE_GOLDEN:-}" ]; then
	printf '%s\n' "$got" >"$here/expected.sha256"
	echo "golden: rewrote $here/expected.sha256 ($(printf '%s\n' "$got" | wc -l) outputs)"
	exit 0
fi
printf '%s\n' "$got" >got.sha256
if ! diff -u "$here/expected.sha256" got.sha256 >diff.sha256; then
	echo "golden: outputs differ from expected.sha256 (outputs in $out):" >&2
	grep '^[-+][0-9a-f]' diff.sha256 | sed 's/^/  /' >&2
	trap - EXIT
	exit 1
fi
echo "golden: $(printf '%s\n' "$got" | wc -l) outputs of $(ls "$here/traces" | wc -l) traces unchanged"
