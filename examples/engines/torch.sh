#!/bin/sh
# SPDX-License-Identifier: MIT
# PyTorch under memtap in one command: records examples/engines/torch-decoder.py (weights
# mapped from a .npy, greedy generation with a KV cache grown by torch.cat) with default
# options and prints the MRM candidates.
# With --serve, a serving run instead: examples/engines/torch-paged.py answering a stream of
# requests, 4 sequences at a time, in KV blocks of a paged cache, for SECONDS (default 30).
# usage: examples/engines/torch.sh [TOKENS] [dynamic|static] [MEMTAP]   (MEMTAP: default memtap
# on PATH, else the build of ./scripts/demo.sh or ./scripts/test.sh)
#        examples/engines/torch.sh --serve [SECONDS] [MEMTAP]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SERVE=
if [ "${1:-}" = --serve ]; then
	SERVE=${2:-30}
	MEMTAP_ARG=${3:-}
else
	TOKENS=${1:-48}
	CACHE=${2:-dynamic}
	MEMTAP_ARG=${3:-}
fi
. "$HERE/find-memtap.sh"
find_memtap "$MEMTAP_ARG"
/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null ||
	{ echo "torch.sh: PyTorch is needed (apt-get install python3-torch)" >&2; exit 2; }
W=${TMPDIR:-/tmp}/memtap-torch
mkdir -p "$W"
export PYTHONPATH="$HERE/../../python${PYTHONPATH:+:$PYTHONPATH}"
if [ -n "$SERVE" ]; then
	"$M" record -f -o "$W/torch-serve.mtap" -- \
		/usr/bin/python3 "$HERE/torch-paged.py" --duration "$SERVE" --dir "$W" >"$W/torch-serve.log"
	"$M" report "$W/torch-serve.mtap" --section metrics,candidates,placement
else
	"$M" record -f -o "$W/torch.mtap" -- \
		/usr/bin/python3 "$HERE/torch-decoder.py" --tokens "$TOKENS" --cache "$CACHE" --dir "$W"
	"$M" report "$W/torch.mtap" --section access,metrics,candidates,placement --by phase
fi
