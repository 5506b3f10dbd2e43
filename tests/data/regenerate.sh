#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites the fixture traces: regenerate.sh path/to/mt-test-tool
# Fixtures are committed so that later memtaps prove they still read old traces; regenerate
# only on purpose, and review the golden diffs this causes (UPDATE_GOLDEN=1 ctest -L cli).
set -eu
TOOL=$1
cd "$(dirname "$0")"
"$TOOL" gen-small small.mtap
"$TOOL" gen-noend noend.mtap
"$TOOL" cut-events small.mtap 3 truncated.mtap
"$TOOL" flip-payload small.mtap 2 corrupt.mtap
"$TOOL" set-major small.mtap 2 v2.mtap
python3 -c 'import random; r = random.Random(7); open("garbage.bin", "wb").write(bytes(r.randrange(256) for _ in range(5000)))'
: >empty.mtap
printf 'hello, world\n' >text.txt
cp small.mtap noend.mtap truncated.mtap corrupt.mtap v2.mtap ../fuzz/corpus/reader/
"$TOOL" gen-big 3000 ../fuzz/corpus/reader/big.mtap
"$TOOL" gen-small-raw ../fuzz/corpus/reader/small-raw.mtap
