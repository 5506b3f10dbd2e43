#!/bin/sh
# SPDX-License-Identifier: MIT
# Censored lifetimes (issue 37): memory the program never released — alive at the end of
# the recording, or until its process exits — has a lifetime and a retention of at least
# what was seen, so a short run can never make it low_mrm. Three layouts of memory written
# once and read for the whole run (workloads/retained.c: a const table in .rodata, a file
# mapped read-only, a malloc block under page-write tracking; and memory that exists before
# the runtime starts, a 16 MiB .bss table and a 2 MiB .data table the program fills once):
# - 0.4 s runs: each is insufficient_data, decided by "censored", with the run that could
#   settle it; text shows "≥"; region_map.parquet's censored column agrees;
# - a block freed before the end: observed (not censored), its lifetime inside the
#   program's own bracket of the malloc and free calls (within the stated time bound), and
#   low_mrm by that lifetime;
# - a 12 s run of the table: high_mrm by write-once and retention.
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw
W="$WORKLOADS/retained"

run() { # NAME ARGS...
	name=$1
	shift
	"$MEMTAP" record -q -f -o "$name.mtap" -- "$W" "$@" >"$name.out" 2>"$name.err" ||
		fail "$name: record failed: $(tail -2 "$name.err")"
	"$MEMTAP" report "$name.mtap" --format json >"$name.json" || fail "$name: report failed"
}

cat >pick.py <<'PY'
import json
def region(name):
    """The report's innermost region holding the middle of the memory the workload printed."""
    r = json.load(open(name + ".json"))
    w = open(name + ".out").read().split()
    lo = (int(w[1], 16) + int(w[2], 16)) // 2
    num = lambda v: int(v, 16) if isinstance(v, str) else v
    hits = [g for g in r["regions"] if g.get("start") is not None and num(g["start"]) <= lo < num(g["end"])]
    assert hits, "no region holds %#x" % lo
    return r, min(hits, key=lambda g: num(g["end"]) - num(g["start"]))
PY

run lut lut 0.4
run file file 0.4 "$PWD/table.bin"
run keep block 0.4 keep
run bss bss 0.4
run data data 0.4
for name in lut file keep bss data; do
	python3 - "$name" <<'PY' || fail "$name: a censored region was labelled from its lifetime (above)"
import sys
sys.path.insert(0, ".")
from pick import region
name = sys.argv[1]
r, g = region(name)
print("%s: %s %s, %d samples, retention %s s, lifetime %s s, censored %s, write-once %s (%s): %s by %s; %s" % (
      name, g["region_type"], g["label"], g["samples"], g["retention_s"], g["lifetime_s"], g["censored"],
      g["write_once_ratio"], g["write_once_basis"], g["mrm"], g["mrm_decided_by"], g["mrm_note"]))
assert g["censored"] is True and g["samples"] >= 100, g
assert g["write_once_ratio"] is not None and g["write_once_ratio"] >= 0.99, g
assert g["mrm"] == "insufficient_data" and g["mrm_decided_by"] == "censored", g
assert "alive at the end" in g["mrm_note"] and "high_mrm 10 s" in g["mrm_note"], g
assert 9.9 < g["run_needed_s"] < 10.6, g
# no region the program never released is low_mrm by its lifetime alone
for x in r["regions"]:
    assert not (x["censored"] and x["mrm"] == "low_mrm" and x["mrm_decided_by"] == "lifetime"), x
PY
done
ok "0.4 s runs: the table, the file, the block, .bss and .data are undecided (censored), never low_mrm"

# .bss filled twice, 0.3 s apart: exactly rewritten, so low_mrm by write-once even censored
run again bss 0.4 again
python3 - <<'PY' || fail "again: a .bss table written in two epochs is not write-once 0 (above)"
import sys
sys.path.insert(0, ".")
from pick import region
r, g = region("again")
print("again: %s, pages tracked %s, rewritten %s, write-once %s: %s by %s" % (
      g["region_type"], g.get("pages_tracked"), g.get("pages_rewritten"), g["write_once_ratio"], g["mrm"], g["mrm_decided_by"]))
assert g["write_once_basis"] == "page-writes" and g["pages_tracked"] == 4096, g
assert g["pages_rewritten"] == 4096 and g["write_once_ratio"] == 0, g
assert g["mrm"] == "low_mrm" and g["mrm_decided_by"] == "write_once", g
PY
ok ".bss written in two epochs: write-once 0 exactly, low_mrm by write-once"

"$MEMTAP" report lut.mtap -s metrics >lut.txt || fail "text report failed"
grep -q "≥ 4[0-9][0-9]\.[0-9] ms" lut.txt || fail "the text does not mark censored figures with ≥: $(cat lut.txt)"
grep -q "insufficient_data (censored" lut.txt || fail "the text does not say what kept the label open"
ok "text: censored figures shown as lower bounds"

run free block 0.4 free
python3 - <<'PY' || fail "free: the freed block's lifetime is not the program's (above)"
import sys
sys.path.insert(0, ".")
from pick import region
r, g = region("free")
lo, hi = [int(x) for x in open("free.out").read().split("life")[1].split()[:2]]
bound = r["alloc"]["time_conversion_bound_ns"] or 0
life = round(g["lifetime_s"] * 1e9)
print("free: lifetime %d ns, the program's bracket [%d, %d] ns, bound %d ns; censored %s; %s by %s" % (
      life, lo, hi, bound, g["censored"], g["mrm"], g["mrm_decided_by"]))
assert g["censored"] is False and g["end_ns"], g
assert lo - 2 * bound - 1000 <= life <= hi + 2 * bound + 1000, (life, lo, hi)
assert g["mrm"] == "low_mrm" and "lifetime" in g["mrm_decided_by"], g
PY
ok "a freed block: observed lifetime within the program's own bracket"

# The flag per row of region_map (CSV here; the Parquet file is written from the same rows,
# read back with hyparquet by export-parquet.sh), as the JSON, with the note
"$MEMTAP" export keep.mtap --to csv -o tables 2>tables.err || fail "export failed: $(cat tables.err)"
python3 - <<'PY' || fail "region_map's censored column disagrees with the report"
import csv, json
r = json.load(open("keep.json"))
rows = {int(x["region_id"]): x for x in csv.DictReader(open("tables/region_map.csv"))}
assert rows and len(rows) == len(r["regions"]), (len(rows), len(r["regions"]))
for g in r["regions"]:
    x = rows[g["region_id"]]
    assert int(x["censored"]) == int(g["censored"]), (x, g)
    assert (x["mrm_note"] or None) == g["mrm_note"], (x["mrm_note"], g["mrm_note"])
print("region_map: %d rows, %d censored" % (len(rows), sum(int(x["censored"]) for x in rows.values())))
PY
ok "region_map carries the censored flag and the note"

run long lut 12
python3 - <<'PY' || fail "long: a 12 s run of the table is not high_mrm (above)"
import sys
sys.path.insert(0, ".")
from pick import region
r, g = region("long")
print("long: retention %s s, censored %s, write-once %s: %s by %s" % (
      g["retention_s"], g["censored"], g["write_once_ratio"], g["mrm"], g["mrm_decided_by"]))
assert g["retention_s"] >= 10 and g["mrm"] == "high_mrm", g
assert g["mrm_decided_by"] == "write_once+retention", g
PY
ok "a 12 s run: the table is high_mrm"
