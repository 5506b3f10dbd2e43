#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace times are CLOCK_MONOTONIC: the workload's own clock readings fall between its
# process's exec and exit events.
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o c.mtap -- "$WORKLOADS/clock-bounds" >clock.out || fail "record failed"
"$MEMTAP" dump c.mtap --type task >c.jsonl || fail "dump failed"
python3 - clock.out c.jsonl <<'PY' || fail "clock readings outside their process's lifetime"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[2])]
for line in open(sys.argv[1]):
    who, pid, start, end = line.split()
    pid, start, end = int(pid), int(start), int(end)
    born = [e["time_ns"] for e in ev if e["pid"] == pid and e["type"] in ("task_new", "task_exec")]
    died = [e["time_ns"] for e in ev if e["pid"] == pid and e["type"] == "task_exit"]
    assert born and died, (who, pid)
    assert min(born) <= start <= end <= max(died), (who, min(born), start, end, max(died))
    print(who, "lived", (max(died) - min(born)) // 1000, "us; its clock:", (end - start) // 1000, "us")
PY
ok "workload clock readings lie within the recorded lifetimes"
