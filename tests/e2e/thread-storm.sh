#!/bin/sh
# SPDX-License-Identifier: MIT
# 500 threads allocating at once (1,000,000 malloc/free pairs in all) against the same pairs
# made by 2 threads, each recorded with defaults, interleaved, three rounds. Waiting threads
# once polled the recorder every 50 µs (and spun on the runtime's locks): on 2 CPUs the
# recorder, the one that could free them, got 1/500 of the time, and a 0.05 s program took
# 30-60 s. Now they sleep on futexes: 500 threads cost at most 4 times what 2 threads making
# the same calls cost (measured 2.0-2.5x), and every call is in the trace.
. "$(dirname "$0")/lib.sh"
need ptrace
W=$WORKLOADS/threadstorm

# secs CMD...: the wall time of CMD in seconds (its output in last.out)
secs() {
	t0=$(mono_ns)
	"$@" >last.out 2>last.err || fail "$*: $(cat last.err)"
	echo "$t0 $(mono_ns)" | awk '{printf "%.3f", ($2 - $1) / 1e9}'
}
many= two= bare=
for r in 1 2 3; do
	many="$many $(secs timeout -s KILL 120 "$MEMTAP" record -q -f -o many.mtap -- "$W" 500 2000)"
	grep -q '^threadstorm threads=500 allocs=1000000$' last.out || fail "500 threads: $(cat last.out)"
	two="$two $(secs "$MEMTAP" record -q -f -o two.mtap -- "$W" 2 500000)"
	bare="$bare $(secs "$W" 500 2000)"
done
python3 - "$many" "$two" "$bare" <<'PY' || fail "500 threads are slower than the bound (above)"
import statistics, sys
many, two, bare = (statistics.median(float(x) for x in a.split()) for a in sys.argv[1:4])
print("  500 threads traced %.3f s, 2 threads traced %.3f s (%.2fx), bare %.3f s" % (
    many, two, many / two, bare))
sys.exit(0 if many <= 4 * two else 1)
PY
"$MEMTAP" info many.mtap --format json >i.json || fail "info failed"
python3 - i.json <<'PY' || fail "the 500 threads' calls are not all in the trace (above)"
import json, sys
a = [c for c in json.load(open(sys.argv[1]))["collectors"] if c["name"] == "alloc"][0]
d = a["details"]
print("  %d alloc events, %d lost, %s dropped, stalls %s (%s ms), slot rescans %s, times raised %s" % (
    a["events"], a["lost"], d["events_dropped_no_wait"], d["runtime_stalls"], d["runtime_stall_ms"],
    d["slot_rescans"], d["event_times_raised"]))
# every thread's slots drained in their order: no row timed before its thread's previous one
sys.exit(0 if a["events"] >= 2000000 and a["lost"] == 0 and d["event_times_raised"] == "0" else 1)
PY
ok "500 threads at once: recorded whole, within 4x of 2 threads making the same calls"
