#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap's main job on the bundled example workload: install dependencies, build, record
# examples/memdemo, and show what the trace says.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build build-release --target memtap memtap-rt memdemo
M=build-release/memtap
OUT=${MEMTAP_DEMO_OUT:-build-release/memdemo.mtap}
echo
echo "== memtap probe"
$M probe
echo
echo "== memtap record -o $OUT -- build-release/examples/memdemo"
$M record -f -o "$OUT" -- build-release/examples/memdemo
echo
echo "== memtap report $OUT"
$M report "$OUT"
echo
echo "== memtap info $OUT"
$M info "$OUT"
echo
HTML=${OUT%.mtap}.html
echo "== memtap view $OUT -o $HTML"
$M view -f "$OUT" -o "$HTML"
echo
echo "The trace is $OUT; its interactive report is $HTML (open it in a browser, offline)."
echo "Try: $M report $OUT -s alloc --top 5; $M export $OUT --to folded -o - | head"
