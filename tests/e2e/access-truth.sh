#!/bin/sh
# SPDX-License-Identifier: MIT
# Access sampling against ground truth with --access=auto: per phase, >= 80% of samples
# resolve (pointer chasing excepted, which must be reported as such) and >= 99% of the
# resolved accesses fall in the right array with the right kind; the report's access
# section and regions carry the estimates; a mechanism this machine lacks is refused.
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv
"$MEMTAP" probe --format json | python3 -c '
import json, sys
f = {x["id"]: x["available"] for x in json.load(sys.stdin)["features"]}
sys.exit(0 if f["regs-sw"] or f["regs-hw"] or f["pebs"] or f["ibs"] else 1)' ||
	skip "no access sampling mechanism works here"
access_truth auto 0.25

"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
check_json r.json 'j["access"]["mechanism"] in ("timer", "regs", "pebs", "ibs") and j["access"]["samples"] >= j["access"]["resolved"] > 1000' \
	"report.access counts"
check_json r.json 'j["access"]["reads"] > 0 and j["access"]["writes"] > 0 and j["access"]["weight_unit"]' \
	"report.access reads/writes"
check_json r.json 'sum(j["access"]["unresolved"].values()) == j["access"]["samples"] - j["access"]["resolved"]' \
	"unresolved reasons add up"
# The three arrays are regions of their own (allocations): A mostly read, B mostly written, C
# only written, and together the bulk of the samples.
python3 - <<'PY' || fail "the arrays are not the regions they should be"
import json
j = json.load(open("r.json"))
arr = {l.split()[1]: int(l.split()[2]) for l in open("t.out") if l.startswith("array ")}
# heap blocks of their own (typed allocation, or by their sites' behaviour: weight-like...)
reg = {g["start"]: g for g in j["regions"] if g.get("site_id") is not None and g["bytes"]}
a, b, c = (reg["0x%x" % arr[k]] for k in "ABC")
assert a["reads"] > a["writes"] and b["writes"] > b["reads"] and c["writes"] > c["reads"], (a, b, c)
assert c["read_samples"] == 0  # C is only ever written
total = sum(g["samples"] for g in j["regions"])
assert a["samples"] + b["samples"] + c["samples"] > 0.5 * total
PY
check_json r.json 'sum(g["reads"] + g["writes"] for g in j["regions"]) == j["access"]["reads"] + j["access"]["writes"]' \
	"regions account for every weighted access"
"$MEMTAP" report t.mtap -s access >r.txt || fail "text report failed"
grep -q "hottest regions" r.txt || fail "text report lacks the regions table"
ok "report: access section and regions"

# Asking for what the machine lacks: one line, exit 2, before anything runs.
"$MEMTAP" probe --format json >p.json || fail "probe failed"
for m in pebs ibs spe regs timer; do
	python3 - "$m" <<'PY' && continue
import json, sys
ids = {"pebs": "pebs", "ibs": "ibs", "spe": "spe", "regs": "regs-hw", "timer": "regs-sw"}
f = {x["id"]: x["available"] for x in json.load(open("p.json"))["features"]}
# SPE is refused by x86-64 builds even where the probe finds it.
sys.exit(0 if f[ids[sys.argv[1]]] and sys.argv[1] != "spe" else 1)
PY
	"$MEMTAP" record -f -o x.mtap --access="$m" -- sh -c 'echo ran' >x.out 2>x.err
	rc=$?
	[ "$rc" = 2 ] || fail "--access=$m on a machine without it: exit $rc, want 2"
	[ ! -s x.out ] || fail "--access=$m: the workload ran"
	[ "$(wc -l <x.err)" = 1 ] || fail "--access=$m: want one line, got: $(cat x.err)"
	grep -q "auto would use" x.err || fail "--access=$m: the message does not say what auto picks"
	ok "--access=$m refused: $(cat x.err)"
done
