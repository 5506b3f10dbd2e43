#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap diff (issue 19): two runs of workloads/diffsite, whose one site (grows_with) doubles
# its allocations: that site comes first, with ratio 2.0 in calls and bytes, the others at
# 1.0; --folded is difffolded.pl's format ("stack A B", every stack of either run); traces of
# another format are refused with one line; a damaged trace is read up to its damage, said.
. "$(dirname "$0")/lib.sh"
need perf-ring

"$MEMTAP" record -q -o d1.mtap -- "$WORKLOADS/diffsite" 1 >/dev/null || fail "record 1 failed"
"$MEMTAP" record -q -o d2.mtap -- "$WORKLOADS/diffsite" 2 >/dev/null || fail "record 2 failed"
"$MEMTAP" diff d1.mtap d2.mtap --format json >d.json || fail "diff failed"
python3 - d.json <<'PY' || fail "the doubled site is not first with ratio 2.0 (above)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sites"]
for x in s:
    print(x["stack"].split(";")[-1], x["bytes"], x["calls"]["ratio"])
first = s[0]
assert first["stack"].endswith(";grows_with"), first["stack"]
assert first["bytes"]["ratio"] == 2.0 and first["calls"]["ratio"] == 2.0, first
assert first["bytes"]["a"] == 200 * 1000 and first["bytes"]["b"] == 400 * 1000, first
for x in s[1:]:
    assert x["bytes"]["ratio"] == 1.0 and x["calls"]["delta"] == 0, x
t = {x["figure"]: x["value"] for x in d["totals"]}
assert t["alloc_calls"]["delta"] == 200 and t["alloc_bytes"]["delta"] == 200000, t
PY
ok "the doubled site first, ratio 2.0 in calls and bytes; every other site 1.0; totals +200 calls"

"$MEMTAP" diff d1.mtap d2.mtap --folded >d.folded || fail "diff --folded failed"
python3 - d.folded <<'PY' || fail "--folded is not difffolded's format (above)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
pat = re.compile(r"^(\S[^;]*)(;[^;]+)+ (\d+) (\d+)$")
bad = [l for l in lines if not pat.match(l)]
print(len(lines), "lines;", "bad:", bad[:3])
grow = [l for l in lines if ";grows_with " in l]
sys.exit(1 if bad or not lines or len(grow) != 1 or not grow[0].endswith(" 200000 400000") else 0)
PY
"$MEMTAP" diff d1.mtap d2.mtap >d.txt || fail "diff (text) failed"
grep -q "grows_with.*2.00" d.txt || fail "the text has no grows_with at 2.00: $(head -20 d.txt)"
ok "--folded: \"stack A B\" lines (difffolded.pl's), the grown site 200000 -> 400000; the text table"

old="$SRC/tests/data/small.mtap" # format 1.0, written by the tests' generator
if "$MEMTAP" diff "$old" d1.mtap >o.out 2>o.err; then fail "traces of another format were compared"; fi
[ "$(wc -l <o.err)" = 1 ] && grep -q "one memtap version and format" o.err || fail "not one clear line: $(cat o.err)"
size=$(stat -c %s d2.mtap)
head -c $((size * 2 / 3)) d2.mtap >cut.mtap
"$MEMTAP" diff d1.mtap cut.mtap --format json >c.json 2>c.err || fail "a cut trace failed: $(cat c.err)"
grep -q "cut.mtap" c.err || fail "the cut trace's damage is not said: $(cat c.err)"
ok "another format refused with one line; a cut trace compared up to its damage, said"
