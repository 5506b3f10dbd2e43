#!/bin/sh
# SPDX-License-Identifier: MIT
# What examples/engines/llama.sh and examples/experiments/engines.yaml need before llama.cpp
# runs: node-llama-cpp (its prebuilt CPU build, from npm) installed once into DIR, and a tiny
# llama GGUF model with random weights written once to MODEL. Idempotent.
# usage: examples/engines/llama-setup.sh DIR MODEL.gguf
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
[ $# = 2 ] || { echo "usage: llama-setup.sh DIR MODEL.gguf" >&2; exit 2; }
DIR=$1 MODEL=$2
if [ ! -d "$DIR/node_modules/@node-llama-cpp/linux-x64" ]; then
	echo "llama-setup.sh: installing node-llama-cpp@3.22.1 into $DIR" >&2
	mkdir -p "$DIR"
	(cd "$DIR" && { [ -f package.json ] || npm init -y >/dev/null; } &&
		npm install --no-audit --no-fund --silent --omit=optional node-llama-cpp@3.22.1 \
			@node-llama-cpp/linux-x64@3.22.1) ||
		{ echo "llama-setup.sh: npm could not install node-llama-cpp (npm install node-llama-cpp@3.22.1)" >&2; exit 2; }
fi
mkdir -p "$(dirname "$MODEL")"
[ -f "$MODEL" ] || python3 "$HERE/make-gguf.py" "$MODEL" --embd 512 --ff 1536 >&2
