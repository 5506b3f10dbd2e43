#!/bin/sh
# SPDX-License-Identifier: MIT
# Real programs under the recorder: output and exit status identical to a bare run.
. "$(dirname "$0")/lib.sh"
need ptrace

same() { # name, command...
	run_same "$@"
	"$MEMTAP" info r.mtap --format json >r.json || fail "$name: trace unreadable"
	check_json r.json 'j["integrity"]["complete"] and j["run"]["exit_status"] is not None' "$name: trace"
	ok "$name (exit $rrc)"
}

same "python3 threads" /usr/bin/python3 -c '
import threading, sys
out = []
ts = [threading.Thread(target=lambda i=i: out.append(sum(range(i * 10000)))) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print(sorted(out)); sys.stderr.write("err\n"); sys.exit(4)'
same "python3 subprocess" /usr/bin/python3 -c '
import subprocess
print(subprocess.run(["sh", "-c", "echo sub; exit 2"], capture_output=True))'
same "bash pipeline" bash -c 'set -o pipefail; seq 1 20000 | sort -r | head -3; false | true'
same "bash subshells" bash -c '{ for i in 1 2 3; do (echo $i; exit $i) & done; wait; } | sort; echo done'
if command -v gcc >/dev/null; then
	printf '#include <stdio.h>\nint main(void){puts("compiled");return 0;}\n' >hello.c
	same "gcc" gcc -O1 -o hello hello.c
	./hello | grep -q compiled || fail "gcc under memtap built a broken binary"
	check_json r.json 'len(j["processes"]) >= 3' "gcc: the driver's children (cc1, as, collect2, ld) were not followed"
fi
if command -v sqlite3 >/dev/null; then
	same "sqlite3" sqlite3 :memory: 'create table t(x); insert into t values (1),(2); select sum(x) from t;'
fi
