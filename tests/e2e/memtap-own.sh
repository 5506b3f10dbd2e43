#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap's own memory apart from the workload's (issue 14, item 12): the preload runtime's
# shared region and private arena in a busy two-thread allocator are typed memtap, their
# faults are counted apart and in no region, type or working set of the workload, and their
# resident pages are measured and taken out of the process's RSS (its shmem was almost all
# memtap's slots), shown apart; the runtime's own accesses are not the workload's.
. "$(dirname "$0")/lib.sh"
need ptrace perf-ring sw-faults

"$MEMTAP" record -q -o t.mtap -- "$WORKLOADS/alloc-threads" 2 1000000 >/dev/null 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
"$MEMTAP" dump t.mtap --type rss >rss.jsonl || fail "dump failed"
"$MEMTAP" dump t.mtap --type mmap >mm.jsonl || fail "dump (mmap) failed"
"$MEMTAP" dump t.mtap --type fault >fault.jsonl || fail "dump (fault) failed"
"$MEMTAP" info t.mtap --format json >i.json || fail "info failed"
python3 - <<'PY' || fail "memtap's own memory is mixed with the workload's (above)"
import json, os
j = json.load(open("r.json"))
f, rss = j["faults"], j["rss"]
own = [json.loads(l) for l in open("mm.jsonl")]
own = [e for e in own if e["origin"] == "memtap"]
assert {e["path"] for e in own} == {"[memtap-rt region]", "[memtap-rt arena]", "[memtap-rt image]"}, own
print("faults: workload %d, memtap's own %d" % (f["minor"], f["memtap_own_minor"]))
assert f["memtap_own_minor"] > 0
# The known answer from the fault's own fields: a fault on the runtime's image (its code, data
# and bss, from the loader's first mapping on), region or arena is memtap's, whenever it came,
# and so is a fault the runtime's own code took (its instruction in the image: the unwinder
# reading a library's unwind tables, say); every other fault is the workload's. (No exec
# here: each range holds for the process's life.)
mine = {}
for e in own:
    mine.setdefault(e["pid"], []).append((int(e["addr"], 16), int(e["addr"], 16) + e["len"]))
n_own = n_all = 0
for l in open("fault.jsonl"):
    e = json.loads(l)
    a, ip = int(e["addr"], 16), int(e["ip"], 16)
    n_all += 1
    n_own += any(lo <= a < hi or lo <= ip < hi for lo, hi in mine.get(e["pid"], []))
print("faults by address: %d of %d on memtap's own pages" % (n_own, n_all))
assert n_own == f["memtap_own_minor"] + f["memtap_own_major"], (n_own, f)
assert n_all - n_own == f["minor"] + f["major"], (n_all, n_own, f)
for g in j["regions"]:
    assert g["region_type"] != "memtap" and "memtap-rt" not in g["label"] or not (g["samples"] or g["faults_minor"]), g
raw = [json.loads(l) for l in open("rss.jsonl")]
raw_shmem = max(e["shmem"] for e in raw if e["source"] != "memtap")
own_shmem = max(e["shmem"] for e in raw if e["source"] == "memtap")
p = max(rss["processes"], key=lambda p: p["memtap_own_peak_bytes"])
print("shmem: recorded %d, memtap's %d, the workload's %d; memtap's own peak %d" % (
    raw_shmem, own_shmem, p["peak_shmem_bytes"], rss["memtap_own_peak_bytes"]))
assert rss["memtap_own_measured"] and rss["memtap_own_peak_bytes"] >= own_shmem > 0
assert raw_shmem > 1 << 20, "the runtime's slots should show as shmem: %d" % raw_shmem
# memtap's part is exact but for the block being populated at that instant (one 64 KiB slot
# per thread): what is left of every shmem record is at most that (the kernel's counter can
# spike for one record; the median is taken)
left, own_now = [], 0
for e in raw:
    if e["source"] == "memtap":
        own_now = e["shmem"]
    elif e["shmem"]:
        left.append(max(0, e["shmem"] - own_now))
left.sort()
print("shmem left after memtap's part: median %d, records %d" % (left[len(left) // 2], len(left)))
assert left[len(left) // 2] <= 2 * 65536, left[len(left) // 2]

info = json.load(open("i.json"))
alloc = [c for c in info["collectors"] if c["name"] == "alloc"][0]["details"]
# a recorder that keeps up loses none; a sanitizer-built one may fall behind (counted)
assert (alloc["own_memory_reports_lost"] == "0" or os.environ.get("ASAN_OPTIONS")) and alloc["own_memory_outside_arena"] == "0", alloc
for t in j["metrics"]["by_type"]:
    assert t["region_type"] != "memtap", t
PY
# Samples of the runtime's code (the unwinder reads the workload's stack) are memtap's
# accesses, whatever their address: none is the workload's, and they are counted apart.
"$MEMTAP" export t.mtap --to csv -o csv >/dev/null || fail "export failed"
python3 - <<'PY' || fail "the runtime's own accesses are counted as the workload's (above)"
import csv, json
code = [(int(e["addr"], 16), int(e["addr"], 16) + e["len"]) for e in map(json.loads, open("mm.jsonl"))
        if "libmemtap-rt" in e["path"] and "x" in e["prot"]]
assert code, "no mapping of the runtime's code"
a = json.load(open("r.json"))["access"]
mine = sum(1 for r in csv.DictReader(open("csv/trace.csv"))
           if r["op_type"] in ("load", "store") and any(lo <= int(r["ip"]) < hi for lo, hi in code))
print("accesses: workload's %d resolved samples, memtap's own %d; by the runtime's code in the workload's rows: %d"
      % (a["resolved"], a["memtap_own_accesses"], mine))
assert a["memtap_own_accesses"] > 0 and mine == 0
PY
"$MEMTAP" report t.mtap -s faults,rss >r.txt
grep -q "on memtap's own pages" r.txt && grep -q "memtap's own (apart)" r.txt || fail "the text report does not show memtap's own memory apart"
ok "memtap's own memory typed, counted apart, out of the workload's faults, types and RSS"
