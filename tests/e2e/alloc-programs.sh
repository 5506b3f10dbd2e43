#!/bin/sh
# SPDX-License-Identifier: MIT
# Real programs with the allocation runtime loaded: output and exit status as bare, every
# process traced, nothing lost. Covers threads, subprocess trees, a compiler, a database,
# a server under load with its own allocator (redis + jemalloc).
. "$(dirname "$0")/lib.sh"
need ptrace

# same NAME CMD...: bare and recorded runs agree; the trace covers every process.
same() {
	run_same "$@"
	"$MEMTAP" report r.mtap --format json >r.json || fail "$name: report failed"
	check_json r.json 'j["alloc"]["calls"] > 0 and j["alloc"]["processes_untraced"] == 0 and j["run"]["lost_events"] == 0' \
		"$name: allocations missing, a process untraced, or events lost"
	check_json r.json 'j["alloc"]["processes_traced"] >= len([p for p in j["processes"] if p["exe"]])' \
		"$name: fewer traced processes than exec'd ones"
	check_json r.json 'j["alloc"]["untracked_frees"] <= 8' "$name: frees of blocks never seen allocated"
	ok "$name: exit $rrc, $(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["alloc"]; print("%d calls in %d processes" % (a["calls"], a["processes_traced"]))' r.json)"
}

same "python3" /usr/bin/python3 -c '
import json, threading, collections
c = collections.Counter()
def work(i):
    for k in range(20000):
        c[str(k % 97)] += 1
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(json.dumps(sorted(c.items())[:3]))'
same "python3 subprocess" /usr/bin/python3 -c '
import subprocess
print(subprocess.run(["sh", "-c", "echo sub; ls / >/dev/null; exit 2"], capture_output=True).returncode)'
same "bash pipeline" bash -c 'set -o pipefail; seq 1 30000 | sort -r | uniq | head -3; (echo a; echo b) | tr a-z A-Z'
if command -v sqlite3 >/dev/null; then
	same "sqlite3" sh -c "sqlite3 :memory: <'$SRC/bench/workloads/sql_alloc.sql' | head -1"
fi
if command -v gcc >/dev/null; then
	printf '#include <stdio.h>\nint main(void){puts("compiled");return 0;}\n' >hello.c
	same "gcc" gcc -O2 -g -o hello hello.c
	[ "$(./hello)" = compiled ] || fail "gcc under memtap built a broken binary"
	check_json r.json 'len(j["alloc"]["processes"]) >= 3' "gcc: cc1, as and ld not traced"
fi

# 16 threads allocating at once: every call of every thread counted.
"$MEMTAP" record -q -f -o t.mtap -- "$WORKLOADS/alloc-threads" 16 20000 >t.out || fail "16 threads: record"
"$MEMTAP" report t.mtap --format json >t.json || fail "16 threads: report"
python3 - t.out t.json <<'PY' || fail "16 threads: calls do not add up"
import json, sys
want = json.load(open(sys.argv[1]))["thread_calls"]
a = json.load(open(sys.argv[2]))["alloc"]
# On top: the main thread's own calls (the thread array, stdout's buffer) and glibc's for
# each new thread (its TLS vector).
print("threads made %d calls; the trace has %d" % (want, a["calls"]))
sys.exit(0 if want <= a["calls"] <= want + 2 + 2 * 16 and a["untracked_frees"] == 0 else 1)
PY
ok "16 threads: every call counted"

# redis-server with its own allocator (jemalloc) under redis-benchmark, then shut down.
if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
	port=$((20000 + $$ % 20000))
	"$MEMTAP" record -q -f -o redis.mtap -- redis-server --port $port --save '' \
		--appendonly no --logfile "$T/redis.log" >redis.out 2>&1 &
	rec=$!
	for i in $(seq 1 100); do
		redis-cli -p $port ping 2>/dev/null | grep -q PONG && break
		sleep 0.1
	done
	redis-cli -p $port ping | grep -q PONG || { kill $rec; fail "redis: the server did not come up"; }
	redis-benchmark -p $port -n 20000 -q -t set,get,lpush,lpop >bench.out 2>&1 ||
		{ kill $rec; fail "redis-benchmark failed: $(tail -3 bench.out)"; }
	redis-cli -p $port shutdown nosave >/dev/null 2>&1
	wait $rec
	rc=$?
	[ $rc = 0 ] || fail "redis: memtap exited $rc"
	"$MEMTAP" report redis.mtap --format json >redis.json || fail "redis: report"
	check_json redis.json 'j["alloc"]["calls"] > 80000 and j["run"]["lost_events"] == 0 and j["run"]["exit_status"] == 0' \
		"redis: too few allocations, lost events, or a bad exit status"
	ok "redis: $(grep -c 'requests per second' bench.out) benchmarks, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["alloc"]["calls"])' redis.json) allocation calls traced through jemalloc"
else
	echo "redis-server/redis-benchmark not installed: the redis case is skipped"
fi
