#!/bin/sh
# SPDX-License-Identifier: MIT
# Damaged traces through every reading command, the long form (issue 36): traces of CPython,
# sqlite3 and a shell pipeline recorded with every default collector and the syscall
# collector, and the stored test traces, each damaged MUTANTS times and read by info, dump,
# report (text, JSON, metrics, placement), syscalls, export to every format, view, plot and
# diff, the fuzz corpus's event-trace files through `memtap events` and a running recording's
# live file through `memtap top --once`: one table of runs,
# exits, crashes, hangs (over 10 s) and sanitizer reports per command (tests/soak/mutate.py).
# Reading is done by the sanitizer build when there is one (BUILD_DIR/../build-asan).
# usage: bench/mutate.sh [BUILD_DIR] [MUTANTS] [SEED]   (default build, 200, the time)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$HERE/../build}" && pwd)
N=${2:-200}
SEED=${3:-$(date +%s)}
M=$B/memtap
[ -x "$M" ] || { echo "bench/mutate.sh: build first" >&2; exit 1; }
R=$M
[ -x "$B/../build-asan/memtap" ] && R=$(cd "$B/../build-asan" && pwd)/memtap
echo "reading with $R"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$M" record -q -o "$T/python.mtap" --syscalls -- python3 -S -c \
	'd = {i: str(i) * 3 for i in range(5000)}; print(sum(map(len, d.values())))' >/dev/null
"$M" record -q -o "$T/sqlite.mtap" --syscalls -- sqlite3 :memory: \
	"create table t(a, b); with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000) insert into t select x, hex(x) from c; select count(*), max(b) from t;" >/dev/null
"$M" record -q -o "$T/pipe.mtap" --syscalls -- sh -c 'ls -R /usr/share/doc/python3* | sort | uniq -c | wc -l' >/dev/null
# a running recording's live file, for memtap top
"$M" record -q -o "$T/live.mtap" -- python3 -c 'import time; x = [bytearray(999) for i in range(999)]; time.sleep(1.6)' &
mp=$!
live=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/memtap}
sleep 1.2
cp "${live:-/tmp/memtap-$(id -u)}/$mp.live" "$T/sample.live"
wait $mp
D=$HERE/../tests/data
C=$HERE/../tests/fuzz/corpus/jsonl
python3 "$HERE/../tests/soak/mutate.py" --memtap "$R" --mutants "$N" --seed "$SEED" \
	--traces "$T/python.mtap,$T/sqlite.mtap,$T/pipe.mtap,$D/small.mtap,$D/v2.mtap,$D/noend.mtap" \
	--events "$(ls "$C"/*.jsonl | tr '\n' ',')" --live "$T/sample.live" --json mutate.json
