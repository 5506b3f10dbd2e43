#!/bin/sh
# SPDX-License-Identifier: MIT
# Page-write settling (issue 38's decision: a page written in two epochs is not protected
# again) keeps the answers it must keep, on three layouts of three kinds of kept memory whose
# names no profile knows (workloads/keep-kinds.c a and b, workloads/keep-kinds.py on numpy):
# a table written once and read to the end is weight, a history filled row by row over the
# run kv_cache, a work area rewritten step after step activation — by behaviour, with the
# default settling and with --page-writes=full, each by the evidence its mode has (settled:
# where the pages were first written; full: the epochs per page). Write-once is exact in
# both. What settling saves: the workload's write-protect faults, at most two per tracked
# page settled, against one per page and epoch in full (at least 4 times as many here).
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw

cat >judge.py <<'PY'
import json, sys
name, mode = sys.argv[1], sys.argv[2]
r = json.load(open(name + ".json"))
out = dict((l.split()[0], int(l.split()[1])) for l in open(name + ".out") if len(l.split()) == 2)
num = lambda v: int(v, 16) if isinstance(v, str) else v
by_addr = {}
for g in r["regions"]:
    if g.get("start") is not None and g.get("start_ns") and num(g["start"]) in out.values():
        a = num(g["start"])
        if a not in by_addr or g["start_ns"] > by_addr[a]["start_ns"]:
            by_addr[a] = g
want = {"weight": ("weight", "written once early"),
        "kv": ("kv_cache", "first written over its life" if mode == "settle" else "each page in a few epochs"),
        "act": ("activation", "settled pages" if mode == "settle" else "epoch after epoch")}
pages = 0
for kind, (rtype, evidence) in want.items():
    g = by_addr.get(out[kind])
    assert g, "%s: no region at %#x" % (kind, out[kind])
    pages += (g["bytes"] or 0) // 4096
    print("%s %s %s: %s, %s, write-once %s, %d faults" % (name, mode, kind, g["region_type"],
          g["typed_by"], g["write_once_ratio"], g["faults_minor"]))
    assert g["region_type"] == rtype and (g["typed_by"] or "").startswith("behaviour:") and \
        evidence in g["typed_by"], (kind, g["region_type"], g["typed_by"])
wo = lambda k: by_addr[out[k]]["write_once_ratio"]
assert wo("weight") >= 0.99 and wo("act") == 0, (wo("weight"), wo("act"))
pw, f = r["metrics"]["page_writes"], r["faults"]
print("%s %s: %d pages settled; write-protect faults %d (%d pages in the three blocks)" % (
      name, mode, pw["settled_pages"], f["page_write_tracking_minor"], pages))
if mode == "settle":
    assert pw["settled_pages"] > 0
    # at most two per page (one after its first scan, one if it was armed present), and the
    # process's other tracked memory (its .data, the interpreter's arenas) besides
    assert f["page_write_tracking_minor"] <= 2 * pages + 1024, f["page_write_tracking_minor"]
else:
    assert pw["settled_pages"] == 0
open(name + "." + mode + ".faults", "w").write(str(f["page_write_tracking_minor"]))
PY

for case in a b py; do
	for mode in settle full; do
		if [ $case = py ]; then
			/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "py: numpy is not installed: skipped"; continue; }
			set -- /usr/bin/python3 "$SRC/tests/e2e/workloads/keep-kinds.py" 3
		else
			set -- "$WORKLOADS/keep-kinds" $case 3
		fi
		"$MEMTAP" record -q -f --access-freq 2000 --page-writes=$mode -o $case.mtap -- "$@" >$case.out 2>$case.err ||
			fail "$case $mode: record failed: $(tail -3 $case.err)"
		"$MEMTAP" report $case.mtap --format json -n 3000 >$case.json || fail "$case $mode: report failed"
		python3 judge.py $case $mode || fail "$case $mode: not typed by its behaviour, or its faults (above)"
	done
	[ -f $case.full.faults ] || continue
	s=$(cat $case.settle.faults)
	f=$(cat $case.full.faults)
	[ "$f" -ge $((4 * s)) ] || fail "$case: full tracking took $f write-protect faults, settled $s: not 4 times"
	ok "$case: weight, kv_cache and activation by behaviour, settled and full; faults $s settled, $f full"
done
