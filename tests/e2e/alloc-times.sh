#!/bin/sh
# SPDX-License-Identifier: MIT
# Allocation times after idle gaps, blocking and busy stretches (issue 14, item 1): every
# bracketed malloc/free of the workload lies inside its call on the workload's own
# CLOCK_MONOTONIC, give or take the trace's stated conversion bound (~20 ns), and every
# page fault and access sample inside a big block's range and life is joined to the block's
# site, with exactly one fault of the workload's per page it touched first; since the big
# blocks are page-write tracked by default (16 MiB >= --page-writes-min), tracking's own
# write-protect faults come apart (rows fault_tracking), exactly one per page and epoch the
# block was written in after the page's first (its page_write events). With interpolated
# times (--time-every 32, the old default) the blocks were stamped tens of ms late and their
# faults went to "(anonymous)".
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o t.mtap -- "$WORKLOADS/alloc-times" 4 >t.out 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" dump t.mtap --type alloc >alloc.jsonl || fail "dump failed"
"$MEMTAP" dump t.mtap --type page_write --format csv >pw.csv || fail "dump failed"
"$MEMTAP" export t.mtap --to csv -o csv >/dev/null || fail "export failed"
"$MEMTAP" report t.mtap --format json -s alloc >r.json || fail "report failed"

python3 - t.out alloc.jsonl csv r.json pw.csv <<'PY' || fail "allocation times or their joins are off (above)"
import csv, json, sys
out, dump, d, rj, pwcsv = sys.argv[1:6]
# the trace's stated bound of its TSC conversion (0: the hooks read CLOCK_MONOTONIC)
BOUND = json.load(open(rj))["alloc"]["time_conversion_bound_ns"] or 0
calls = []
for line in open(out):
    f = line.split()
    if f[0] == "alloc":
        calls.append(("alloc", int(f[1], 16), int(f[2]), int(f[3]), int(f[4]), f[5]))
    else:
        calls.append(("free", int(f[1], 16), 0, int(f[2]), int(f[3]), ""))
evs = {}
for l in open(dump):
    e = json.loads(l)
    kind = "free" if e["kind"] == "free" else "alloc"
    evs.setdefault((kind, int(e["addr"], 16)), []).append(e["time_ns"])
worst = 0
for kind, addr, size, t0, t1, what in calls:
    ts = evs.get((kind, addr), [])
    assert ts, ("no %s event at %#x" % (kind, addr))
    t = min(ts, key=lambda x: 0 if t0 <= x <= t1 else min(abs(x - t0), abs(x - t1)))
    err = 0 if t0 <= t <= t1 else min(abs(t - t0), abs(t - t1))
    worst = max(worst, err)
    if err > BOUND:
        print("%s %#x (%s) at %d: %.1f us outside its call [%d, %d]" % (kind, addr, what, t, err / 1e3, t0, t1))
        sys.exit(1)
print("%d bracketed calls, worst distance from the call %.2f us" % (len(calls), worst / 1e3))

# The big blocks' lives, from the workload's own brackets: (addr, size, returned, freed).
lives, ends = [], []
for i, (kind, addr, size, t0, t1, what) in enumerate(calls):
    if what != "big":
        continue
    fr = next(c for c in calls[i + 1:] if c[0] == "free" and c[1] == addr)
    lives.append((addr, size, t1, fr[3]))
    ends.append(fr[4]) # the free's return: its own last scan of the block lies inside the call
sites = {r["site_id"]: r["function"] for r in csv.DictReader(open(d + "/sites.csv"))}
faults, tracking, samples, fsites, ssites = [0] * len(lives), [0] * len(lives), 0, set(), set()
for r in csv.DictReader(open(d + "/trace.csv")):
    a, t = int(r["address"]), int(r["timestamp_ns"])
    for k, (addr, size, born, freed) in enumerate(lives):
        if addr <= a < addr + size and born < t < freed:
            fn = sites.get(r["site_id"], "(no site: region %s %s)" % (r["region_id"], r["region_type"]))
            if r["op_type"] == "fault_tracking":
                tracking[k] += 1
                fsites.add(fn)
            elif r["op_type"].startswith("fault"):
                faults[k] += 1
                fsites.add(fn)
            elif r["op_type"] in ("load", "store"):
                samples += 1
                ssites.add(fn)
# page-write tracking's own faults: one per page and epoch written, after its first epoch
# (page_write events; the first write of a page is its first touch, the workload's fault)
wp, written = [0] * len(lives), [set() for _ in lives]
for r in csv.DictReader(open(pwcsv)):
    if r["type"] != "page_write":
        continue
    lo, hi, t = int(r["addr"], 16), int(r["addr"], 16) + int(r["len"]), int(r["time_ns"])
    for k, (addr, size, born, freed) in enumerate(lives):
        if born < t <= ends[k]:
            for p in range(max(lo, addr) >> 12, (min(hi, addr + size) + 4095) >> 12):
                if p << 12 >= max(lo, addr) and (p + 1) << 12 <= min(hi, addr + size):
                    wp[k] += 1
                    written[k].add(p)
for k, (addr, size, born, freed) in enumerate(lives):
    pages = ((addr + size - 1) >> 12) - (addr >> 12) + 1
    # malloc wrote the chunk header (the first page) before it returned: every other page
    # faults once, when the memset first touches it: the workload's own faults.
    want = wp[k] - len(written[k])
    if faults[k] != pages - 1 or tracking[k] != want:
        print("block %#x: %d faults of the workload's in its life, expected %d; %d of "
              "tracking's, expected %d" % (addr, faults[k], pages - 1, tracking[k], want))
        sys.exit(1)
print("write-protect faults of page-write tracking in the big blocks:", tracking)
print("faults in the big blocks' lives:", faults, "joined to", fsites)
assert len(fsites) == 1 and "big_alloc" in next(iter(fsites)), fsites
print("access samples in the big blocks' lives:", samples, "joined to", ssites or "-")
assert not ssites or ssites == fsites, ssites
PY
ok "allocation events inside their calls within the stated bound; faults and samples joined to the big blocks' site"
