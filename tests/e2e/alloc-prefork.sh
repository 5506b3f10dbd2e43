#!/bin/sh
# SPDX-License-Identifier: MIT
# Children of fork without exec (issue 14, item 6): a pre-fork server's workers, and Python
# multiprocessing's, inherit their parent's mappings, so their allocation stacks, folded
# stacks and regions are symbolized like the parent's, never left as raw addresses.
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o t.mtap -- "$WORKLOADS/prefork" 3 >t.out 2>t.err || fail "record failed: $(cat t.err)"
"$MEMTAP" report t.mtap --format json -s alloc -n 50 >r.json || fail "report failed"
"$MEMTAP" export t.mtap --to folded -o t.folded 2>/dev/null || fail "folded export failed"
python3 - r.json t.out t.folded <<'PY' || fail "a worker's stacks are not symbolized (above)"
import json, sys
a = json.load(open(sys.argv[1]))["alloc"]
workers = {int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("worker")}
assert len(workers) == 3, workers
seen = {}
for s in a["top_sites"]:
    if s["pid"] in workers:
        names = [f.get("function") for f in s["frames"]]
        seen.setdefault(s["pid"], []).append(names)
for pid in workers:
    stacks = seen.get(pid, [])
    ok = [n for n in stacks if n and n[0] == "worker_alloc" and "serve" in n and "main" in n]
    print(pid, "sites", len(stacks), "symbolized through worker_alloc < serve < main:", len(ok))
    assert ok, (pid, stacks[:3])
folded = open(sys.argv[3]).read()
assert folded.count("worker_alloc") >= 3 and "0x" not in "".join(l for l in folded.splitlines() if "worker_alloc" in l), folded[:500]
PY
ok "pre-fork workers' stacks symbolized through the inherited mappings"

# Python multiprocessing (fork): the workers' frames symbolize as well as the parent's.
cat >mp.py <<'PYEOF'
import multiprocessing as mp
def work(n):
    return sum(len(str(i)) for i in range(n))
if __name__ == "__main__":
    mp.set_start_method("fork")
    with mp.Pool(2) as p:
        print(sum(p.map(work, [20000] * 8)))
PYEOF
"$MEMTAP" record -q -f -o p.mtap -- /usr/bin/python3 mp.py >p.out 2>p.err || fail "record (multiprocessing) failed: $(cat p.err)"
"$MEMTAP" report p.mtap --format json -s processes,alloc -n 200 >p.json || fail "report (multiprocessing) failed"
python3 - p.json <<'PY' || fail "multiprocessing workers are less symbolized than their parent (above)"
import json, sys
j = json.load(open(sys.argv[1]))
a = j["alloc"]
root = min(p["pid"] for p in j["processes"])
def frac(pred):
    fr = [f for s in a["top_sites"] if pred(s["pid"]) for f in s["frames"]]
    return (sum(1 for f in fr if f.get("module")) / len(fr)) if fr else None, len(fr)
parent, child = frac(lambda p: p == root), frac(lambda p: p != root)
print("frames in a known module: parent %s, workers %s" % (parent, child))
assert child[1] > 0, "no worker sites"
assert child[0] >= 0.95 * parent[0], (parent, child)
PY
ok "multiprocessing workers symbolized like their parent"
