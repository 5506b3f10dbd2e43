#!/bin/sh
# SPDX-License-Identifier: MIT
# PyTorch under memtap in one command: records examples/engines/torch-decoder.py (weights
# mapped from a .npy, greedy generation with a KV cache grown by torch.cat) with default
# options and prints the MRM candidates.
# usage: examples/engines/torch.sh [TOKENS] [dynamic|static] [MEMTAP]   (MEMTAP: default memtap
# on PATH, else the build of ./scripts/demo.sh or ./scripts/test.sh)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOKENS=${1:-48}
CACHE=${2:-dynamic}
. "$HERE/find-memtap.sh"
find_memtap "${3:-}"
/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null ||
	{ echo "torch.sh: PyTorch is needed (apt-get install python3-torch)" >&2; exit 2; }
W=${TMPDIR:-/tmp}/memtap-torch
mkdir -p "$W"
PYTHONPATH="$HERE/../../python${PYTHONPATH:+:$PYTHONPATH}" "$M" record -f -o "$W/torch.mtap" -- \
	/usr/bin/python3 "$HERE/torch-decoder.py" --tokens "$TOKENS" --cache "$CACHE" --dir "$W"
"$M" report "$W/torch.mtap" --section access,metrics,candidates --by phase
