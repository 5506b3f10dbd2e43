#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap's stacks against libunwind's on a program built without frame pointers:
# recursion, alloca and VLA frames, signal handlers, longjmp, threads.
. "$(dirname "$0")/lib.sh"
need ptrace
[ -x "$WORKLOADS/alloc-unwind" ] || skip "built without libunwind"

compare() {
python3 - "$MEMTAP" u.mtap ref.txt <<'PY' || fail "stacks differ from libunwind's${1:-}"
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
}
"$MEMTAP" record -q -o u.mtap --stack-depth 256 -- "$WORKLOADS/alloc-unwind" ref.txt >out.txt ||
	fail "record failed"
[ "$(cat out.txt)" = done ] || fail "workload output: $(cat out.txt)"
compare
ok "every stack identical to libunwind's"
"$MEMTAP" report u.mtap --format json >r.json
check_json r.json 'j["alloc"]["stacks_truncated"] == 0' "stacks were truncated"
sites=$(python3 -c 'import json; print(json.load(open("r.json"))["alloc"]["sites"])')
ok "no stack truncated"

# The same with the runtime's tables shrunk: a trie index of 256 entries, emptied every 128
# new nodes, and a node ring of 64 that threads must wait on: the stacks stay identical
# (ids interned again are folded back into one by the reader).
MEMTAP_RT_TEST="tbits=8;nodes=64" "$MEMTAP" record -q -f -o u.mtap --stack-depth 256 -- "$WORKLOADS/alloc-unwind" ref.txt >out.txt ||
	fail "record (small tables) failed"
compare " with small tables"
"$MEMTAP" info u.mtap --format json >i.json
check_json i.json '[int(c["details"]["unwind_trie_resets"]) for c in j["collectors"] if c["name"] == "alloc"][0] > 10' \
	"the trie index was not emptied"
"$MEMTAP" report u.mtap --format json -s alloc >r.json
check_json r.json 'j["alloc"]["stacks_truncated"] == 0 and j["alloc"]["allocations_without_frames"] == 0' \
	"stacks were lost with small tables"
check_json r.json "j['alloc']['sites'] == $sites" "a stack interned again became a second site"
ok "identical stacks with the trie emptied and the node ring full"
