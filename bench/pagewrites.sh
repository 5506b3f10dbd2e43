#!/bin/sh
# SPDX-License-Identifier: MIT
# The cost of page-write tracking without labels (issue 16): memtap with its defaults (heap
# blocks and writable anonymous mappings of 1 MiB or more tracked) against memtap with
# --page-writes-min 0 (labelled ranges only), interleaved, medians, ratios, on the two
# engines (PyTorch, llama.cpp through node-llama-cpp) and on a rewrite-heavy workload (a
# 64 MiB block rewritten whole, every page every epoch: the worst case, one write-protect
# fault per page per epoch with --page-writes=full; at most two per page settled, the
# default), and the memory-bound C program of bench/perf.sh, settled against full.
# usage: bench/pagewrites.sh [BUILD_DIR] [ROUNDS]   (default build, 5); NODE_LLAMA_DIR: a
# directory whose node_modules/ holds node-llama-cpp (else llama.cpp is left out)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-5}
M=$B/memtap
W=$B/tests/e2e/workloads/pw-rewrite
[ -x "$M" ] && [ -x "$W" ] || { echo "bench/pagewrites.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ON="$M record -q -f"
OFF="$M record -q -f --page-writes-min 0"

FULL="$M record -q -f --page-writes=full"
AT=$B/tests/e2e/workloads/access-truth
faults() { # the workload's and tracking's faults of a trace
	"$M" report "$1" --format json | python3 -c 'import json,sys; f=json.load(sys.stdin)["faults"]; print("  %s: workload faults %d, write-protect (tracking) faults %d" % (sys.argv[1], f["minor"], f["page_write_tracking_minor"]))' "$2"
}

echo "== rewrite-heavy: a 64 MiB block rewritten 100 times, $ROUNDS interleaved rounds"
echo "   (tracking-on: the default settling; tracking-full: --page-writes=full)"
python3 "$HERE/interleave.py" --rounds "$ROUNDS" \
	tracking-off="$OFF -o $T/r0.mtap -- $W 64 100" tracking-on="$ON -o $T/r1.mtap -- $W 64 100" \
	tracking-full="$FULL -o $T/r2.mtap -- $W 64 100"
faults "$T/r1.mtap" settled
faults "$T/r2.mtap" full
"$M" report "$T/r1.mtap" -s candidates | sed -n '/^  kind/,/^$/p' | head -3

echo
echo "== memory-bound C (access-truth 0.3, bench/perf.sh's), bare and every default collector, $ROUNDS interleaved rounds"
python3 "$HERE/interleave.py" --rounds "$ROUNDS" bare="$AT 0.3" \
	settled="$ON -o $T/m1.mtap -- $AT 0.3" full="$FULL -o $T/m2.mtap -- $AT 0.3"
faults "$T/m1.mtap" settled
faults "$T/m2.mtap" full

if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
	echo
	echo "== PyTorch: examples/engines/torch-decoder.py, 48 tokens, $ROUNDS interleaved rounds"
	PY="/usr/bin/python3 $HERE/../examples/engines/torch-decoder.py --tokens 48 --dir $T"
	$PY >/dev/null
	python3 "$HERE/interleave.py" --rounds "$ROUNDS" \
		tracking-off="$OFF -o $T/t0.mtap -- $PY" tracking-on="$ON -o $T/t1.mtap -- $PY"
	"$M" info "$T/t1.mtap" --format json | python3 -c 'import json,sys; d=next(c for c in json.load(sys.stdin)["collectors"] if c["name"]=="pagewrites")["details"]; print("  tracked ranges", d["tracked_ranges"], "pages written", d["pages"])'
fi

if [ -n "${NODE_LLAMA_DIR:-}" ] && [ -d "$NODE_LLAMA_DIR/node_modules/node-llama-cpp" ]; then
	echo
	echo "== llama.cpp: examples/engines/llama.mjs, 48 tokens, context 256, $ROUNDS interleaved rounds"
	python3 "$HERE/../examples/engines/make-gguf.py" "$T/model.gguf" --embd 512 --layers 4 --heads 8 \
		--kv-heads 4 --ff 1536 >/dev/null
	L="node $HERE/../examples/engines/llama.mjs $T/model.gguf 48 256"
	python3 "$HERE/interleave.py" --rounds "$ROUNDS" \
		tracking-off="$OFF -o $T/l0.mtap -- $L" tracking-on="$ON -o $T/l1.mtap -- $L"
	"$M" info "$T/l1.mtap" --format json | python3 -c 'import json,sys; d=next(c for c in json.load(sys.stdin)["collectors"] if c["name"]=="pagewrites")["details"]; print("  tracked ranges", d["tracked_ranges"], "pages written", d["pages"])'
else
	echo
	echo "== llama.cpp: skipped (set NODE_LLAMA_DIR; tests install node-llama-cpp into build/npm-llama)"
fi
