#!/bin/sh
# SPDX-License-Identifier: MIT
# Stacks through code without CFI (issue 14, item 4): allocations made from a hand-written
# function without an FDE and from generated code in an anonymous executable page keep the
# frames walked up to that code, flagged truncated and counted by reason (no_cfi,
# not_in_object); none loses its frames.
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o t.mtap -- "$WORKLOADS/nocfi" 100 >t.out 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s alloc >r.json || fail "report failed"
"$MEMTAP" report t.mtap -s alloc >r.txt || fail "report (text) failed"
"$MEMTAP" dump t.mtap --type alloc >a.jsonl || fail "dump failed"
python3 - r.json a.jsonl t.out <<'PY' || fail "stacks through code without CFI are off (above)"
import json, sys
a = json.load(open(sys.argv[1]))["alloc"]
want = {l.split()[0]: int(l.split()[1]) for l in open(sys.argv[3])}
why = a["stacks_truncated_by_reason"]
print("truncated by reason:", why, "without frames:", a["allocations_without_frames"])
assert why["no_cfi"] == want["no_cfi"] and why["not_in_object"] == want["not_in_object"], why
assert sum(why.values()) == a["stacks_truncated"] == want["no_cfi"] + want["not_in_object"]
assert a["allocations_without_frames"] == 0
# each call kept its frames: a stack, flagged truncated (flags bit 1) for the two kinds
by_size = {}
for l in open(sys.argv[2]):
    e = json.loads(l)
    if e["kind"] == "malloc" and e["size"] in (100, 200, 300):
        by_size.setdefault(e["size"], []).append(e)
for size, trunc in ((100, True), (200, True), (300, False)):
    evs = by_size[size]
    assert len(evs) == 100, (size, len(evs))
    assert all(e["stack"] for e in evs), ("an allocation without frames", size)
    assert all(bool(int(e["flags"]) & 2) == trunc for e in evs), (size, trunc)
PY
grep -q "no_cfi 100" r.txt && grep -q "not_in_object 100" r.txt || fail "the text report does not give the reasons: $(grep stacks r.txt)"
ok "stacks through code without CFI keep their frames, truncations counted by reason"
