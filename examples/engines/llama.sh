#!/bin/sh
# SPDX-License-Identifier: MIT
# llama.cpp under memtap in one command: installs node-llama-cpp (its prebuilt CPU build, from
# npm) once into $MEMTAP_NODE_LLAMA_DIR (default ~/.cache/memtap/node-llama), writes a tiny
# llama GGUF model with random weights, records a greedy generation with default options and
# prints the MRM candidates.
# usage: examples/engines/llama.sh [TOKENS] [MEMTAP]   (MEMTAP: default memtap on PATH, else
# the build of ./scripts/demo.sh or ./scripts/test.sh)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOKENS=${1:-48}
. "$HERE/find-memtap.sh"
find_memtap "${2:-}"
command -v node >/dev/null && command -v npm >/dev/null ||
	{ echo "llama.sh: node and npm are needed (apt-get install nodejs npm)" >&2; exit 2; }
export NODE_LLAMA_DIR=${MEMTAP_NODE_LLAMA_DIR:-$HOME/.cache/memtap/node-llama}
W=${TMPDIR:-/tmp}/memtap-llama
sh "$HERE/llama-setup.sh" "$NODE_LLAMA_DIR" "$W/model.gguf"
"$M" record -f -o "$W/llama.mtap" -- node "$HERE/llama.mjs" "$W/model.gguf" "$TOKENS" 256
"$M" report "$W/llama.mtap" --section access,candidates
