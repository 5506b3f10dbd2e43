#!/bin/sh
# SPDX-License-Identifier: MIT
# Run-to-run comparability (issue 14, item 9): the same command gets the same documented
# access-sampling rate by default on every run (1 kHz of CPU time: a 1 ms cpu-clock period),
# whatever the machine's measured cost per sample, and every sample-based output names it
# (text, JSON, CSV, the plot's figure); --access-freq sets another.
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv regs-sw

for i in 1 2 3; do
	"$MEMTAP" record -q -o r$i.mtap -- "$WORKLOADS/globals" >/dev/null 2>r$i.err || fail "record $i failed: $(cat r$i.err)"
	"$MEMTAP" report r$i.mtap --format json -s access,metrics >r$i.json || fail "report $i failed"
done
python3 - <<'PY' || fail "the default rate is not the same on every run (above)"
import json
per = [json.load(open("r%d.json" % i))["metrics"]["sources"]["access"] for i in (1, 2, 3)]
print([(p.get("period"), p.get("weight_unit")) for p in per])
assert all(p.get("period") == "1000000" and p.get("weight_unit") == "ns" for p in per), per
for i in (1, 2, 3):
    a = json.load(open("r%d.json" % i))["access"]
    assert a["period"] == 1000000, a["period"]
PY
"$MEMTAP" report r1.mtap -s metrics >m.txt || fail "report (text) failed"
grep -q "every 1000000 ns" m.txt || fail "the text report does not name the rate: $(grep samples m.txt)"
"$MEMTAP" report r1.mtap -s metrics --format csv >m.csv || fail "report (csv) failed"
python3 - <<'PY' || fail "the CSV rows do not carry the rate"
import csv
rows = list(csv.DictReader(open("m.csv")))
assert rows and all(r["sample_period"] == "1000000" and r["sample_unit"] == "ns" for r in rows), rows[:2]
PY
"$MEMTAP" plot r1.mtap r2.mtap --kind wss -o w.svg 2>/dev/null || fail "plot failed"
[ "$(grep -o 'cpu-clock samples every 1000000 ns' w.svg | wc -l)" -ge 1 ] || fail "the figure does not name the rate"
ok "the same 1 ms period on every run, named in text, JSON, CSV and figures"

"$MEMTAP" record -q -f --access-freq 500 -o f.mtap -- "$WORKLOADS/globals" >/dev/null 2>&1 || fail "record --access-freq failed"
"$MEMTAP" report f.mtap --format json -s access >f.json
check_json f.json 'j["access"]["period"] == 2000000' "--access-freq 500 is not a 2 ms period"
ok "--access-freq sets the rate"
