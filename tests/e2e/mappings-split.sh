#!/bin/sh
# SPDX-License-Identifier: MIT
# Mappings split by mprotect, partial munmap and mremap keep the rest (issue 14, item 2):
# samples of a C program's globals (.data behind the loader's RELRO page, .bss) and of an
# anonymous mapping it splits and moves are all attributed to the mapping holding them;
# none is "unknown (no recorded mapping)". The region model dropped the whole data mapping
# when the RELRO mprotect reported its first page. A stack grown down by a deep recursion
# is one region, not one per growth.
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv regs-sw

"$MEMTAP" record -q --access-freq 5000 -o t.mtap -- "$WORKLOADS/globals" >t.out 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s access >r.json || fail "report failed"
check_json r.json 'j["access"]["samples"] > 0' "no access samples were recorded" || exit 1
"$MEMTAP" export t.mtap --to csv -o csv >/dev/null || fail "export failed"
python3 - t.out csv <<'PY' || fail "samples of a split mapping were misattributed (above)"
import csv, sys
out, d = sys.argv[1:3]
ranges, maps = {}, []
for line in open(out):
    f = line.split()
    if f and f[0] == "map":
        lo, hi = (int(x, 16) for x in f[1].split("-"))
        maps.append((lo, hi, f[6] if len(f) > 6 else ""))
    elif len(f) == 3:
        ranges[f[0]] = (int(f[1], 16), int(f[2], 16))
regions = {r["region_id"]: r for r in csv.DictReader(open(d + "/region_map.csv"))}
seen = {k: 0 for k in ranges}
bad = 0
for r in csv.DictReader(open(d + "/trace.csv")):
    if r["op_type"] not in ("load", "store"):
        continue
    a = int(r["address"])
    for name, (lo, hi) in ranges.items():
        if lo <= a < hi:
            seen[name] += 1
            # What the kernel holds there: a file mapping's path, or anonymous memory.
            path = next(p for l, h, p in maps if l <= a < h)
            g = regions.get(r["region_id"], {})
            if not path:
                ok = r["region_type"] == "anon"
            elif path == "[stack]":
                ok = r["region_type"] == "stack" and g.get("label") == path
            else:
                ok = r["region_type"] == "file" and g.get("label") == path
            if not ok:
                bad += 1
                if bad <= 5:
                    print("%s sample at %#x (mapped: %s) went to region %s (%s, %s)" % (name, a, path or "anonymous", r["region_id"], r["region_type"], g.get("label")))
print("samples per range:", seen)
assert not bad, "%d samples misattributed" % bad
for name, n in seen.items():
    assert n >= 5, "too few samples in %s to tell" % name
unknown = [g for g in regions.values() if g["region_type"] == "unknown" and int(g["samples"] or 0)]
assert not unknown, ("samples with no recorded mapping", unknown)
# The stack grew down 4 MiB, the kernel reporting each growth as a new mapping: one region.
stacks = [g for g in regions.values() if g["label"] == "[stack]"]
print("stack regions:", [(g["region_id"], int(g["bytes"]), g["samples"]) for g in stacks])
assert len(stacks) == 1 and int(stacks[0]["bytes"]) >= 4 << 20, stacks
PY
ok "globals and split mappings keep their samples"
