#!/bin/sh
# SPDX-License-Identifier: MIT
# llama.cpp under memtap in one command: installs node-llama-cpp (its prebuilt CPU build, from
# npm) once into $MEMTAP_NODE_LLAMA_DIR (default ~/.cache/memtap/node-llama), writes a tiny
# llama GGUF model with random weights, records a greedy generation with default options and
# prints the MRM candidates.
# With --serve, a serving run instead: 4 sequences of one 1024-token context answering a
# stream of prompts for SECONDS (default 30).
# usage: examples/engines/llama.sh [TOKENS] [MEMTAP]   (MEMTAP: default memtap on PATH, else
# the build of ./scripts/demo.sh or ./scripts/test.sh)
#        examples/engines/llama.sh --serve [SECONDS] [MEMTAP]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SERVE=
if [ "${1:-}" = --serve ]; then
	SERVE=${2:-30}
	MEMTAP_ARG=${3:-}
else
	TOKENS=${1:-48}
	MEMTAP_ARG=${2:-}
fi
. "$HERE/find-memtap.sh"
find_memtap "$MEMTAP_ARG"
command -v node >/dev/null && command -v npm >/dev/null ||
	{ echo "llama.sh: node and npm are needed (apt-get install nodejs npm)" >&2; exit 2; }
export NODE_LLAMA_DIR=${MEMTAP_NODE_LLAMA_DIR:-$HOME/.cache/memtap/node-llama}
W=${TMPDIR:-/tmp}/memtap-llama
sh "$HERE/llama-setup.sh" "$NODE_LLAMA_DIR" "$W/model.gguf"
if [ -n "$SERVE" ]; then
	"$M" record -f -o "$W/llama-serve.mtap" -- \
		node "$HERE/llama.mjs" "$W/model.gguf" --serve "$SERVE" 4 1024 >"$W/llama-serve.log"
	"$M" report "$W/llama-serve.mtap" --section metrics,candidates,placement
else
	"$M" record -f -o "$W/llama.mtap" -- node "$HERE/llama.mjs" "$W/model.gguf" "$TOKENS" 256
	"$M" report "$W/llama.mtap" --section access,candidates,placement
fi
