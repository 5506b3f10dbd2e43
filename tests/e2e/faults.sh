#!/bin/sh
# SPDX-License-Identifier: MIT
# Page faults: minor and major counts within 1% of perf stat's on the same runs, and each
# fault attributed to the mapping it hit (the anonymous range, the file).
. "$(dirname "$0")/lib.sh"
need perf-ring sw-faults
command -v perf >/dev/null || skip "perf (Debian linux-perf) is not installed"
W="$WORKLOADS/faults-truth"
head -c $((16 << 20)) /dev/urandom >data.bin

# perf stat -x: "count,unit,event,..."; both count user and kernel mode as root.
pstat() {
	perf stat -x, -e minor-faults,major-faults -o ps.txt -- "$@" >/dev/null ||
		fail "perf stat failed"
	pmin=$(awk -F, '/minor-faults/ {print $1}' ps.txt)
	pmaj=$(awk -F, '/major-faults/ {print $1}' ps.txt)
}
[ "$(id -u)" = 0 ] || skip "perf stat counts kernel-mode faults only as root; memtap then counts user mode"

for mode in "anon 64" "file data.bin"; do
	set -- $mode
	pstat "$W" "$1" "$2"
	"$MEMTAP" record -q -f --no-alloc --access=off -o f.mtap -- "$W" "$1" "$2" >w.out ||
		fail "$1: record failed"
	"$MEMTAP" report f.mtap --format json >r.json || fail "$1: report failed"
	python3 - "$pmin" "$pmaj" "$1" <<'PY' || fail "$1: fault counts or places are off"
import json, sys
pmin, pmaj, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
j = json.load(open("r.json"))
f = j["faults"]
lo, hi = (int(x) for x in open("w.out").read().split()[1:3])
pages = (hi - lo) // 4096
# Two runs (perf stat's, memtap's) differ by a few start-up faults with the address-space
# layout: 1% of the run's faults, and never less than 5.
total = max(pmin + pmaj, f["minor"] + f["major"])
def near(a, b):
    return abs(a - b) <= max(0.01 * total, 5)
print("%s: memtap minor %d major %d; perf stat minor %d major %d; %d pages" % (
    mode, f["minor"], f["major"], pmin, pmaj, pages))
assert near(f["minor"], pmin) and near(f["major"], pmaj), "counts differ by more than 1%"
reg = [g for g in j["regions"] if g.get("start") == "0x%x" % lo]
assert reg, "no region starts at the faulted range"
g = reg[0]
if mode == "anon":
    assert g["region_type"] == "anon" and g["faults_minor"] >= pages, g
else:
    assert g["region_type"] == "file" and g["label"].endswith("data.bin"), g
    assert g["faults_major"] >= 0.99 * pages, g
PY
	ok "$1: counts match perf stat, faults in the right mapping"
done

# --no-faults turns the collector off and the report says nothing of faults.
"$MEMTAP" record -q -f --no-faults -o n.mtap -- "$W" anon 1 >/dev/null || fail "--no-faults"
"$MEMTAP" report n.mtap --format json >n.json
check_json n.json '"faults" not in j' "--no-faults still reports faults"
ok "--no-faults"
