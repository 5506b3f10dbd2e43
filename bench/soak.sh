#!/bin/sh
# SPDX-License-Identifier: MIT
# The soak suite's long form (issue 36): TRIALS random SIGKILLs each to the recorder, to the
# program and to both, and DISK recordings into a tmpfs that fills at a random point, for
# CPython, sqlite3 and (when node-llama-cpp is installed beside the build, as the e2e tests
# install it) llama.cpp on a tiny random GGUF model; one table of outcomes (trials, survived,
# crashes, hangs, other failures by class) and the trials as JSON in soak.json. Root (the
# tmpfs mounts). tests/soak/soak.py says what each outcome means; e2e/soak-short is CI's
# short form. Then 5,000 short processes and forks under a process limit (e2e/proc-storm),
# and LOAD seconds (600) of redis under redis-benchmark and of llama.cpp serving,
# recorded with every default collector (tests/soak/load.sh: the recorder's RSS at 10 %, 50 %
# and 100 % of the run, trace MB per minute, events, lost); LOAD 0 leaves them out.
# usage: bench/soak.sh [BUILD_DIR] [TRIALS] [DISK] [SEED] [LOAD]   (build, 100, 50, the time, 600)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
TRIALS=${2:-100}
DISK=${3:-50}
SEED=${4:-$(date +%s)}
LOAD=${5:-600}
[ -x "$B/memtap" ] || { echo "bench/soak.sh: build first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PROGS=python,sqlite
set --
NL=${MEMTAP_NODE_LLAMA_DIR:-$B/npm-llama}
if command -v node >/dev/null && [ -d "$NL/node_modules/@node-llama-cpp/linux-x64" ]; then
	python3 "$HERE/../examples/engines/make-gguf.py" "$T/model.gguf" --embd 256 --layers 2 \
		--heads 4 --kv-heads 2 --ff 768 >/dev/null
	PROGS=$PROGS,llama
	set -- --llama-model "$T/model.gguf" --llama-script "$HERE/../examples/engines/llama.mjs"
	export NODE_LLAMA_DIR="$NL"
else
	echo "bench/soak.sh: no node-llama-cpp beside the build: llama.cpp left out" >&2
fi
python3 "$HERE/../tests/soak/soak.py" --memtap "$B/memtap" --trials "$TRIALS" --disk "$DISK" \
	--seed "$SEED" --programs "$PROGS" --json soak.json "$@" || status=1
# many processes: 5,000 short ones, and forks under a process limit (tests/e2e/proc-storm.sh)
MEMTAP="$B/memtap" WORKLOADS="$B/tests/e2e/workloads" SRC="$HERE/.." MEMTAP_STORM_N=5000 \
	sh "$HERE/../tests/e2e/proc-storm.sh" || status=1
[ "$LOAD" -gt 0 ] || exit ${status:-0}
echo "load PROGRAM SECONDS recorder_rss_kb@10% @50% @100% trace_MB/min events lost lost_by_collector"
mkdir -p "$T/load"
if [ "${PROGS#*llama}" != "$PROGS" ]; then
	(cd "$T/load" && sh "$HERE/../tests/soak/load.sh" "$B/memtap" "$LOAD" "$HERE/../examples/engines/llama.mjs" "$T/model.gguf") || status=1
else
	(cd "$T/load" && sh "$HERE/../tests/soak/load.sh" "$B/memtap" "$LOAD") || status=1
fi
exit ${status:-0}
