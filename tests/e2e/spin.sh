#!/bin/sh
# SPDX-License-Identifier: MIT
# Spin-waits apart from data traffic (issue 16): a thread re-reading a flag while the main
# thread streams over an array. The waiter's samples are the spin (its line is the flag's,
# its share about the waiter's share of the samples); the array's samples are data, none
# counted as spin; the hottest region by data traffic is the array, not the flag.
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw

"$MEMTAP" record -q --access-freq 2000 -o t.mtap -- "$WORKLOADS/spin" >t.out 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s access >r.json || fail "report failed"
"$MEMTAP" dump t.mtap --type access --format csv >a.csv || fail "dump failed"
python3 - t.out r.json a.csv <<'PY' || fail "the spin-wait is not apart from the data (above)"
import csv, json, sys
out = dict((l.split()[0], [int(x, 16) for x in l.split()[1:]]) for l in open(sys.argv[1]))
flag, (lo, hi) = out["flag"][0], out["array"]
a = json.load(open(sys.argv[2]))
spin = a["access"]["spin"]
rows = [r for r in csv.DictReader(open(sys.argv[3])) if r["kind"] in ("load", "store")]
on_flag = [r for r in rows if int(r["addr"], 16) >> 6 == flag >> 6]
on_array = [r for r in rows if lo <= int(r["addr"], 16) < hi]
print("samples on the flag's line", len(on_flag), "in the array", len(on_array), "spin", spin["samples"], "sites", spin["sites"][:2])
assert spin["sites"], "no spin site"
s = spin["sites"][0]
assert s["lines"] == 1 and s["samples"] >= 0.8 * len(on_flag), s
assert spin["samples"] <= len(on_flag), "spin samples beyond the flag's line"
regions = {g["region_id"]: g for g in a["regions"]}
arr = [g for g in a["regions"] if g.get("start") and int(g["start"], 16) <= lo < int(g["end"], 16)]
assert arr and arr[0]["spin_samples"] == 0 and arr[0]["samples"] >= 0.8 * len(on_array), arr[:1]
top = a["regions"][0]
print("hottest region:", top["region_id"], top["region_type"], top["samples"], top["spin_samples"])
assert top["region_id"] == arr[0]["region_id"], "the hottest region by data traffic is not the array"
PY
ok "a spin-wait's samples counted apart; the data's region ranks first"
