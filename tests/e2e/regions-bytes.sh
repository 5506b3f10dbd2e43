#!/bin/sh
# SPDX-License-Identifier: MIT
# The region map adds up (issue 35, item 3): for each region type, the bytes of the regions
# alive at any one time never exceed the process's peak mapped size (VmPeak, which the
# workload prints as it exits), and the brk heap is one region that grows, not one per
# growth (its extent: the largest [heap] the kernel reported); memtap's own mappings are left
# out of VmPeak as of the region map. On the CPython allocation
# benchmark and the PyTorch decoder, which grow the heap thousands of times.
. "$(dirname "$0")/lib.sh"
need perf-ring
cat >vmpeak.py <<'PY'
import atexit, runpy, sys
def peak():
    for l in open("/proc/self/status"):
        if l.startswith("VmPeak"):
            sys.stderr.write("vmpeak %d\n" % (int(l.split()[1]) * 1024))
atexit.register(peak)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
PY
check() { # NAME SCRIPT ARGS...
	name=$1
	shift
	PYTHONPATH="$SRC/python" "$MEMTAP" record -q -f -o "$name.mtap" -- /usr/bin/python3 vmpeak.py "$@" \
		>/dev/null 2>"$name.err" || fail "$name: record failed: $(tail -2 "$name.err")"
	"$MEMTAP" report "$name.mtap" --format json >"$name.json" || fail "$name: report failed"
	"$MEMTAP" dump "$name.mtap" --type mmap >"$name.maps" || fail "$name: dump failed"
	python3 - "$name" <<'PY' || fail "$name: region bytes exceed the mapped size, or the heap is split (above)"
import json, sys
name = sys.argv[1]
j = json.load(open(name + ".json"))
pid = j["processes"][0]["pid"]
# the workload's peak mapped size: VmPeak less memtap's own mappings (its 1 GiB arena
# reserve above all), which the region map leaves out
own = sum(e["len"] for e in map(json.loads, open(name + ".maps"))
          if e["origin"] == "memtap" and e["pid"] == pid)
vmpeak = int([l.split()[1] for l in open(name + ".err") if l.startswith("vmpeak")][0]) - own
end = j["run"]["duration_ns"] + min(p["start_ns"] for p in j["processes"])
by = {}
for g in j["regions"]:
    if g["pid"] == pid and g["bytes"]:
        by.setdefault(g["region_type"], []).append((g["start_ns"] or 0, g["end_ns"] or end, g["bytes"]))
worst = {}
for t, rs in by.items():
    # the largest sum over regions alive at once: at every region's start
    worst[t] = max(sum(b for s, e, b in rs if s <= t0 < e or s == t0) for t0, _, _ in rs)
heaps = by.get("heap", [])
print("%s: VmPeak less memtap's own %.1f MiB; most bytes alive at once by type: %s; heap regions %d" % (
      name, vmpeak / 2**20, {t: round(v / 2**20, 1) for t, v in sorted(worst.items())}, len(heaps)))
assert len(heaps) == 1, "the brk heap is %d regions" % len(heaps)
assert all(v <= vmpeak for v in worst.values()), "a type's regions hold more than VmPeak"
PY
	ok "$name: every type's regions within VmPeak; one heap region"
}
check cpython "$SRC/bench/workloads/py_alloc.py"
if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
	check torch "$SRC/examples/engines/torch-decoder.py" --tokens 32 --cache dynamic --dir "$PWD"
fi
