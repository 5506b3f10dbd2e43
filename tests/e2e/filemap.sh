#!/bin/sh
# SPDX-License-Identifier: MIT
# A file mapped with a length that is not a multiple of the page size (as llama.cpp maps its
# GGUF model): the kernel's record (perf MMAP2) has the path and whole pages, the preload
# runtime's record of the same mmap call has the caller's length and no path. The region
# must stay the file's (type file, labelled with its path), its samples must go to it, and
# the munmap of the caller's length must end it (the region model used to take the
# runtime's record for a new anonymous mapping, and to keep the unmapped region alive).
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv regs-sw

"$MEMTAP" record -q --access-freq 2000 -o t.mtap -- "$WORKLOADS/filemap" "$PWD/filemap.dat" >t.out 2>t.err ||
	fail "record failed: $(cat t.err)"
"$MEMTAP" export t.mtap --to csv -o csv >/dev/null || fail "export failed"
python3 - t.out csv <<'PY' || fail "the file mapping was not kept as the file's region (above)"
import csv, sys
out, d = sys.argv[1:3]
for line in open(out):
    f = line.split()
    if f[0] == "file":
        lo, hi, path = int(f[1], 16), int(f[2], 16), f[3]
    elif f[0] == "unmap":
        t0, t1 = int(f[1]), int(f[2])
regions = [g for g in csv.DictReader(open(d + "/region_map.csv")) if g["start"] and int(g["start"]) == lo]
print("regions at the mapping:", [(g["region_id"], g["region_type"], g["label"], g["bytes"], g["samples"], g["end_ns"]) for g in regions])
assert len(regions) == 1, "one region at the file mapping's address, not %d" % len(regions)
g = regions[0]
assert g["region_type"] == "file" and g["label"] == path, (g["region_type"], g["label"])
assert int(g["bytes"]) == hi - lo, (g["bytes"], hi - lo)
assert g["end_ns"] and t0 <= int(g["end_ns"]) <= t1, ("the munmap did not end the region", g["end_ns"], t0, t1)
inside = [r for r in csv.DictReader(open(d + "/trace.csv")) if r["op_type"] == "load" and lo <= int(r["address"]) < hi]
wrong = [r for r in inside if r["region_id"] != g["region_id"]]
print("samples in the mapping:", len(inside), "elsewhere:", len(wrong))
assert len(inside) >= 20, "too few samples in the file mapping to tell"
assert not wrong, wrong[:3]
PY
ok "a file mapping of a partial last page keeps its path, its samples and its end"
