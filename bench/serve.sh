#!/bin/sh
# SPDX-License-Identifier: MIT
# The recording cost of the engines in serving mode (issue 37): examples/engines/torch-paged.py
# and llama.mjs --serve (4 sequences; when NODE_LLAMA_DIR holds node-llama-cpp) answering
# their request streams for SECONDS, bare and under memtap record with default options,
# interleaved, ROUNDS each; the figure is the engine's own throughput (tokens decoded per
# second of serving, from its "served" line), so the cost is bare / recorded, medians. The
# trace's size per second of serving is given too.
# usage: bench/serve.sh [BUILD_DIR] [ROUNDS] [SECONDS]   (default build, 3, 10)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
ROUNDS=${2:-3}
SECS=${3:-10}
M=$B/memtap
[ -x "$M" ] || { echo "bench/serve.sh: build first" >&2; exit 1; }
/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || { echo "bench/serve.sh: python3-torch is needed" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ENG="/usr/bin/python3 $HERE/../examples/engines/torch-paged.py --duration $SECS --dir $T"
$ENG --duration 0.5 >/dev/null # the weights file, once
rate() { awk '$1 == "served" { printf "%.1f\n", $3 / $4 }' "$1"; }
# compare NAME ENGINE...: ROUNDS interleaved runs bare and recorded, then the figures
compare() {
	name=$1
	shift
	: >"$T/bare" && : >"$T/rec" && : >"$T/size"
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		"$@" >"$T/b.out"
		rate "$T/b.out" >>"$T/bare"
		PYTHONPATH="$HERE/../python" "$M" record -q -f -o "$T/r.mtap" -- "$@" >"$T/r.out"
		rate "$T/r.out" >>"$T/rec"
		stat -c %s "$T/r.mtap" >>"$T/size"
		i=$((i + 1))
	done
	python3 - "$T" "$SECS" "$name" <<'PY'
import statistics, sys
t = sys.argv[1]
bare = [float(x) for x in open(t + "/bare")]
rec = [float(x) for x in open(t + "/rec")]
size = [int(x) for x in open(t + "/size")]
print("%s serving, %s s per run, %d interleaved rounds" % (sys.argv[3], sys.argv[2], len(bare)))
print("  bare      tokens/s %s  median %.1f" % (bare, statistics.median(bare)))
print("  recorded  tokens/s %s  median %.1f" % (rec, statistics.median(rec)))
print("  cost (bare / recorded throughput): %.2fx" % (statistics.median(bare) / statistics.median(rec)))
print("  trace: %.1f MB per second of serving" % (statistics.median(size) / 1e6 / float(sys.argv[2])))
PY
}
compare "PyTorch paged-KV" $ENG
if [ -n "${NODE_LLAMA_DIR:-}" ] && [ -d "$NODE_LLAMA_DIR/node_modules/node-llama-cpp" ]; then
	python3 "$HERE/../examples/engines/make-gguf.py" "$T/model.gguf" --embd 512 --layers 4 \
		--heads 8 --kv-heads 4 --ff 1536 >/dev/null
	compare "llama.cpp, 4 sequences," node "$HERE/../examples/engines/llama.mjs" "$T/model.gguf" \
		--serve "$SECS" 4 1024
else
	echo "llama.cpp: left out (NODE_LLAMA_DIR does not hold node-llama-cpp)"
fi
