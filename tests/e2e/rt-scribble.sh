#!/bin/sh
# SPDX-License-Identifier: MIT
# A hostile workload (issue 36): tests/e2e/workloads/scribble.c writes garbage over the
# runtime's shared region (header and slots) while two threads allocate, then blocks every
# signal, makes itself undumpable, gives up root for nobody, closes the runtime's socket,
# allocates on and unmaps the region. Under three seeds, each recording: memtap ends (well
# within 60 s), its trace is complete and reads, the report runs, every allocation row it
# kept is the workload's own process's, and what it could not read is counted
# (malformed_rows); the region known overwritten (its geometry changed after the greeting), so
# its counters — the workload's scribbles — are left out and counted, never reported as figures.
. "$(dirname "$0")/lib.sh"
need ptrace
W="$WORKLOADS/scribble"
for seed in 1 2 3; do
	timeout -s KILL 60 "$MEMTAP" record -q -o s$seed.mtap -- "$W" 20000 $seed >s$seed.out 2>s$seed.err
	rc=$?
	[ $rc = 137 ] && fail "seed $seed: memtap was still running after 60 s"
	grep -q "^regions [1-9]" s$seed.out || fail "seed $seed: the workload found no region: $(cat s$seed.out)"
	"$MEMTAP" info s$seed.mtap --format json >i$seed.json 2>i$seed.err || fail "seed $seed: info failed: $(cat i$seed.err)"
	"$MEMTAP" report s$seed.mtap --format json >r$seed.json 2>r$seed.err || fail "seed $seed: report failed: $(cat r$seed.err)"
	"$MEMTAP" dump s$seed.mtap --type alloc --format csv >a$seed.csv || fail "seed $seed: dump failed"
	python3 - i$seed.json a$seed.csv "$rc" "$seed" <<'PY' || fail "seed $seed: (above)"
import csv, json, sys
i = json.load(open(sys.argv[1]))
assert i["integrity"]["complete"], "the trace is not complete"
procs = i["processes"]
root = [p["pid"] for p in procs if p["comm"] == "scribble" or "scribble" in " ".join(p.get("argv", []))]
assert root, procs
pids = {int(r["pid"]) for r in csv.DictReader(open(sys.argv[2]))}
assert pids <= set(root), "rows given to another process: %s (the workload is %s)" % (pids, root)
d = [c for c in i["collectors"] if c["name"] == "alloc"][0]["details"]
print("  seed %s: memtap exit %s; %s allocation rows, malformed %s, regions overwritten %s" % (
      sys.argv[4], sys.argv[3], sum(1 for _ in open(sys.argv[2])) - 1, d.get("malformed_rows"),
      d.get("runtime_regions_overwritten")))
# the geometry lies in the header's first words, which the workload hits thousands of times:
# the region is known overwritten, and its counters (the workload's scribbles) left out
assert int(d["runtime_regions_overwritten"]) >= 1, "the overwritten region went unseen"
huge = {k: v for k, v in d.items() if v.isdigit() and int(v) > 1 << 50}
assert not huge, "counters read from the scribbled region: %s" % huge
PY
done
ok "a workload scribbling on the runtime's region: the recorder ended, its trace whole, no row given to another process"
