#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap's stacks against libunwind's on a program built without frame pointers:
# recursion, alloca and VLA frames, signal handlers, longjmp, threads.
. "$(dirname "$0")/lib.sh"
need ptrace
[ -x "$WORKLOADS/alloc-unwind" ] || skip "built without libunwind"

"$MEMTAP" record -q -o u.mtap --stack-depth 256 -- "$WORKLOADS/alloc-unwind" ref.txt >out.txt ||
	fail "record failed"
[ "$(cat out.txt)" = done ] || fail "workload output: $(cat out.txt)"
python3 - "$MEMTAP" u.mtap ref.txt <<'PY' || fail "stacks differ from libunwind's"
import csv, subprocess, sys
memtap, trace, ref = sys.argv[1:4]
want = {}
for line in open(ref):
    f = line.split()
    want[f[0]] = [int(x, 16) for x in f[1:]]
got = {}
out = subprocess.run([memtap, "dump", trace, "--type", "alloc", "--stacks", "--format", "csv"],
                     capture_output=True, text=True, check=True).stdout
for r in csv.DictReader(out.splitlines()):
    if r["kind"] == "malloc" and r["size"] in want:
        got[r["size"]] = [int(x, 16) for x in r["stack"].split(";")[1:]]
same = diff = missing = 0
for size, ips in want.items():
    g = got.get(size)
    if g is None:
        missing += 1
    elif g[1:] == ips:  # memtap's frame 0 is the malloc call, libunwind's list starts above
        same += 1
    else:
        diff += 1
        if diff <= 3:
            print("size", size, "\n  memtap   ", [hex(x) for x in g[1:]],
                  "\n  libunwind", [hex(x) for x in ips])
print("identical %d, different %d, missing %d" % (same, diff, missing))
sys.exit(0 if diff == 0 and missing == 0 and same >= 1000 else 1)
PY
ok "every stack identical to libunwind's"
"$MEMTAP" report u.mtap --format json >r.json
check_json r.json 'j["alloc"]["stacks_truncated"] == 0' "stacks were truncated"
ok "no stack truncated"
