#!/bin/sh
# SPDX-License-Identifier: MIT
# fork, fork+exec, vfork+exec, posix_spawn, threads, exit codes and a signal death: the
# workload prints the tree it made; the trace must show exactly that.
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o f.mtap -- "$WORKLOADS/forky" >expect.jsonl
rc=$?
[ "$rc" = 5 ] || fail "record exited $rc, not 5"
"$MEMTAP" info f.mtap --format json >info.json || fail "info failed"
python3 - expect.jsonl info.json <<'PY' || fail "process tree differs from what the workload made"
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
got = {p["pid"]: p for p in json.load(open(sys.argv[2]))["processes"]}
assert len(got) == len(want), (len(got), len(want))
for w in want:
    g = got[w["pid"]]
    for k, v in w.items():
        assert g[k] == v, (w["pid"], k, g[k], v)
print("matched", len(want), "processes")
PY
ok "tree, exit statuses (0, 3, 7, 143, 5) and thread count match"
