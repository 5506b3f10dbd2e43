#!/bin/sh
# SPDX-License-Identifier: MIT
# Long recordings under load (issue 36): redis-server under redis-benchmark, and (when
# node-llama-cpp and a GGUF model are given) the llama.cpp serving example, each recorded
# with every default collector for SECONDS. At a tenth, half and the end of the run it reads
# the recorder's resident memory (VmRSS of `memtap record`) and the trace's size; at the end
# the trace's events and lost events (memtap info). One line per program:
#   load PROGRAM SECONDS rss_kb@10% rss_kb@50% rss_kb@100% trace_mb_per_min events lost
# usage: load.sh MEMTAP SECONDS [LLAMA_SCRIPT MODEL.gguf]   (writes into the current directory)
set -u
M=$1
SECS=$2
LLAMA=${3:-}
MODEL=${4:-}

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# watch NAME RECORDER_PID: the recorder's RSS and the trace's size at 10 %, 50 % and 100 %
watch() {
	at10=$((SECS * 10 / 100))
	at50=$((SECS * 50 / 100))
	sleep "$at10"
	r10=$(rss "$2")
	sleep $((at50 - at10))
	r50=$(rss "$2")
	sleep $((SECS - at50))
	r100=$(rss "$2")
	s100=$(stat -c %s "$1.mtap")
	echo "$r10 $r50 $r100 $s100" >"$1.watch"
}

summary() {
	"$M" info "$1.mtap" --format json >"$1.json" 2>"$1.ierr" || { echo "load $1: info failed: $(cat "$1.ierr")"; return 1; }
	read -r r10 r50 r100 size <"$1.watch"
	python3 - "$1" "$SECS" "$r10" "$r50" "$r100" "$size" <<'PY'
import json, sys
name, secs, r10, r50, r100, size = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:])
j = json.load(open(name + ".json"))
ev = sum(v for k, v in j["events"].items() if isinstance(v, int) and k != "lost")
# events lost (perf rings full, the runtime without a slot...), as each collector counted them
lost_by = {c["name"]: c.get("lost", 0) for c in j["collectors"] if c.get("lost")}
lost = sum(lost_by.values())
print("load %s %d %d %d %d %.2f %d %d %s" % (name, secs, r10, r50, r100, size / 1048576 / (secs / 60),
                                           ev, lost, json.dumps(lost_by, separators=(",", ":"))))
PY
}

# redis: the server recorded, the benchmark (untraced) hammering it until SECONDS pass
PORT=$((20000 + $$ % 20000))
"$M" record -q -f -o redis.mtap -- redis-server --port "$PORT" --save "" --appendonly no \
	--disable-thp no >redis.out 2>redis.err &
mp=$!
for i in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
(while kill -0 $mp 2>/dev/null; do
	redis-benchmark -p "$PORT" -q -n 20000 -c 8 -P 4 -d 256 -r 100000 -t set,get,lpush,lpop >/dev/null 2>&1 || sleep 0.2
done) &
bp=$!
watch redis $mp
# the driver loop stops before the server does: a redis-benchmark left running when its server
# goes away can outlive the test (seen spinning at 90 % CPU as an orphan), so it is killed by
# its port, which no other test uses
kill $bp 2>/dev/null
wait $bp 2>/dev/null
pkill -f "redis-benchmark -p $PORT " 2>/dev/null
redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1
wait $mp
summary redis || exit 1

if [ -n "$LLAMA" ]; then
	"$M" record -q -f -o llama.mtap -- node "$LLAMA" "$MODEL" --serve "$SECS" 4 1024 >llama.out 2>llama.err &
	mp=$!
	watch llama $mp
	wait $mp || { echo "load llama: the recording failed: $(tail -3 llama.err)"; exit 1; }
	summary llama || exit 1
fi
