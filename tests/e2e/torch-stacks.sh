#!/bin/sh
# SPDX-License-Identifier: MIT
# A real PyTorch engine with default options (issue 14, items 4 and 5): a small decoder in
# Debian's python3-torch makes over a million allocations under two million distinct stack
# nodes. No allocation may lose its frames (the runtime's stack table used to fill up and
# 20% of the calls came out "(no stack recorded)"), truncations are counted by reason, and
# the lifetime percentiles come from every free: checked against an exact replay of the
# trace's own allocation events, within the relative error the report states.
. "$(dirname "$0")/lib.sh"
need ptrace
/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "python3-torch is not installed (apt-get install python3-torch)"

"$MEMTAP" record -q -o t.mtap -- /usr/bin/python3 "$SRC/tests/e2e/workloads/torch-decoder.py" 24 >t.out 2>t.err ||
	fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s alloc >r.json || fail "report failed"
"$MEMTAP" dump t.mtap --type alloc --format csv >a.csv || fail "dump failed"
python3 - r.json a.csv <<'PY' || fail "stacks or lifetimes are off (above)"
import csv, json, sys
a = json.load(open(sys.argv[1]))["alloc"]
print("calls", a["calls"], "frees", a["frees"], "sites", a["sites"], "without frames",
      a["allocations_without_frames"], "truncated", a["stacks_truncated"], a["stacks_truncated_by_reason"])
assert a["calls"] > 500000, "not a real engine's allocation load: %d calls" % a["calls"]
assert a["allocations_without_frames"] == 0, a["allocations_without_frames"]
assert set(a["stacks_truncated_by_reason"]) >= {"no_cfi", "not_in_object", "cfi_unsupported", "bad_cfa", "table_full"}
assert sum(a["stacks_truncated_by_reason"].values()) == a["stacks_truncated"]
assert a["stacks_truncated_by_reason"]["table_full"] == 0
assert not any(s["function"] == "(no stack recorded)" for s in a["top_sites"] if "function" in s)
# Every free's lifetime, by an exact replay of the recorded events.
live, life = {}, []
for r in csv.DictReader(open(sys.argv[2])):
    pid, t, kind, addr = r["pid"], int(r["time_ns"]), r["kind"], int(r["addr"], 16)
    old = int(r["old_addr"], 16)
    if kind == "free":
        if (pid, addr) in live:
            life.append(t - live.pop((pid, addr)))
        continue
    if kind in ("realloc", "reallocarray") and old and (pid, old) in live:
        life.append(t - live.pop((pid, old)))
    if addr:
        live[(pid, addr)] = t
L = a["lifetime_ns"]
print("lifetimes: replay", len(life), "report", L["count"], "error bound", L["relative_error"], "not kept", a["lifetimes_not_kept"])
assert a["lifetimes_not_kept"] == 0
assert L["count"] == len(life), (L["count"], len(life))
life.sort()
for p, k in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
    want = life[max(0, -(-int(p * len(life) * 1000000) // 1000000) - 1)]
    got = L[k]
    print(k, "exact", want, "report", got)
    assert abs(got - want) <= L["relative_error"] * want + 1, (k, got, want)
PY
ok "no allocation without frames, truncations by reason, lifetimes of every free within the stated error"
