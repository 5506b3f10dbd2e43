#!/bin/sh
# SPDX-License-Identifier: MIT
# Records the golden traces again: record.sh path/to/memtap path/to/toy-llm path/to/mt-test-tool
# Only on purpose: the outputs in expected.sha256 then change too (UPDATE_GOLDEN=1 ctest -R
# golden/), and every change of a figure must be explained in the commit that makes it.
# The workloads are system programs (their symbols resolve from Debian's files) and the
# toy LLM run from a path removed afterwards (its frames stay module+offset everywhere).
set -eu
M=$1
TOY=$2
cd "$(dirname "$0")"
mkdir -p traces
"$M" record -q -f -o traces/cpython.mtap -- python3 -c \
	'import json; d=[dict(a=i,b=str(i)*10) for i in range(20000)]; print(len(json.dumps(d)))'
"$M" record -q -f -o traces/sqlite3.mtap -- sqlite3 :memory: \
	"create table t(a,b); with recursive c(x) as (select 1 union all select x+1 from c where x<20000) insert into t select x, hex(randomblob(32)) from c; select count(*), sum(length(b)) from t;"
tmp=$(mktemp -d /tmp/memtap-golden.XXXXXX)
cp "$TOY" "$tmp/toy-llm"
"$M" record -q -f -o traces/toy-llm.mtap -- "$tmp/toy-llm"
rm -rf "$tmp"
"$M" record -q -f --syscalls -o traces/syscalls.mtap -- sh -c 'ls /usr/lib >/dev/null; cat /etc/passwd | wc -l'
# A trace cut short: the first 60 % of the CPython one.
size=$(wc -c <traces/cpython.mtap)
head -c $((size * 6 / 10)) traces/cpython.mtap >traces/damaged.mtap
# A damaged trace: one allocation chunk's payload flipped (mt-test-tool from the build's
# tests/ directory, as the third argument).
"$3" flip-payload traces/sqlite3.mtap 4 traces/corrupt.mtap
