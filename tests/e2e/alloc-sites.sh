#!/bin/sh
# SPDX-License-Identifier: MIT
# --alloc=sites: the compact allocation mode. Its totals are the exact ones of the full mode
# (a program whose answer is known; two threads; a process tree), the figures it cannot give
# are null and named, and its trace is a fraction of the full one.
. "$(dirname "$0")/lib.sh"
need ptrace

# A program whose totals are known (it prints them): every figure sites mode keeps is exact.
"$MEMTAP" record -q -o s.mtap --alloc=sites -- "$WORKLOADS/alloc-exact" >exp.json ||
	fail "record --alloc=sites failed"
"$MEMTAP" report s.mtap --format json >s.json || fail "report failed"
python3 "$SRC/tests/e2e/alloc-exact-check.py" exp.json s.json calls frees leaked_bytes \
	leaked_blocks peak_bytes || fail "sites-mode totals differ from the known ones"
python3 - s.json <<'PY' || fail "sites mode: a figure it cannot give is not null"
import json, sys
a = json.load(open(sys.argv[1]))["alloc"]
bad = []
if a["mode"] != "sites":
    bad.append("mode")
    print("mode", a["mode"])
# what the mode cannot give: null, and named
for k in ("temporary", "temporary_heaptrack", "peak_blocks", "lifetime_ns"):
    if a[k] is not None:
        bad.append(k)
        print("%s is %r, not null" % (k, a[k]))
if "lifetime_ns" not in a["not_recorded"] or a["rankings"]["temporary"] is not None:
    bad.append("not_recorded")
    print("not_recorded:", a["not_recorded"], "rankings:", a["rankings"])
top = a["top_sites"][0]
if top["calls"] != 1000 or top["temporary"] is not None or top["lifetime_ns"] is not None or \
        not any(f["function"] == "mid_alloc" for f in top["frames"]):
    bad.append("top site")
    print("top site:", {k: top[k] for k in ("calls", "temporary", "lifetime_ns")})
sys.exit(1 if bad else 0)
PY
ok "calls, frees, peak, leaks and calls per function exact; the figures it lacks are null"
"$MEMTAP" report s.mtap | grep -q "not recorded (--alloc=sites)" ||
	fail "the text report does not say which figures the mode lacks"
"$MEMTAP" export s.mtap --to folded -w calls -o s.folded || fail "folded export failed"
grep -q ";main;mid_alloc\(;leaf_alloc\)\? 1000$" s.folded || fail "folded stacks lack 'main;mid_alloc 1000'"
ok "the report says what the mode lacks; folded stacks from the site windows"

# Two threads: every per-site figure sites mode keeps equals the full mode's (the program is
# deterministic), and its trace is a fraction of the full one.
"$MEMTAP" record -q -o e2.mtap --access=off --no-faults --no-rss -- \
	"$WORKLOADS/alloc-threads" 2 200000 >/dev/null || fail "record (events) failed"
"$MEMTAP" record -q -o s2.mtap --alloc=sites --access=off --no-faults --no-rss -- \
	"$WORKLOADS/alloc-threads" 2 200000 >/dev/null || fail "record (sites) failed"
"$MEMTAP" report e2.mtap --format json --top 1000 >e2.json || fail "report failed"
# a thread's slots drained in the order it filled them (its bits in the ready bitmap are read
# word by word: a slot's may be seen before its predecessor's), every row in its thread's order
"$MEMTAP" info e2.mtap --format json >e2i.json || fail "info failed"
check_json e2i.json '[c for c in j["collectors"] if c["name"] == "alloc"][0]["details"]["event_times_raised"] == "0"' \
	"two threads: a slot's rows were drained after a later slot of their thread"
"$MEMTAP" report s2.mtap --format json --top 1000 >s2.json || fail "report failed"
python3 - e2.json s2.json e2.mtap s2.mtap <<'PY' || fail "two threads: sites mode differs"
import json, os, sys
e = json.load(open(sys.argv[1]))["alloc"]
s = json.load(open(sys.argv[2]))["alloc"]
bad = []
for k in ("calls", "frees", "bytes", "slack_bytes", "leaked_bytes", "leaked_blocks",
          "untracked_frees"):
    if e[k] != s[k]:
        bad.append(k)
        print("%s: events %s, sites %s" % (k, e[k], s[k]))
def sites(a):
    return sorted((x["calls"], x["bytes"], x["frees"], x["leaked_bytes"],
                   tuple(f["function"] for f in x["frames"])) for x in a["top_sites"])
if sites(e) != sites(s):
    bad.append("sites")
    print("per-site figures differ:\n", sites(e)[:5], "\n", sites(s)[:5])
# the heap's peak in the fold's order: each thread in order, threads by buffer hand-over
if not (0 < s["peak_bytes"] <= e["bytes"]):
    bad.append("peak")
    print("peak", s["peak_bytes"])
es, ss = os.path.getsize(sys.argv[3]), os.path.getsize(sys.argv[4])
print("trace: events %d B, sites %d B for %d calls (%.3f B/call)" % (es, ss, s["calls"],
                                                                   ss / s["calls"]))
if ss * 10 > es:
    bad.append("size")
sys.exit(1 if bad else 0)
PY
ok "two threads: calls, frees, bytes, leaks and every site's figures equal the full mode's; trace a tenth"

# A process tree: each image's own peak; the tree's is null (the windows do not pin down
# the moments the images' heaps add up).
"$MEMTAP" record -q -o s3.mtap --alloc=sites -- sh -c \
	"'$WORKLOADS/alloc-exact' >/dev/null; '$WORKLOADS/alloc-exact' >/dev/null" ||
	fail "record of a tree failed"
"$MEMTAP" report s3.mtap --format json >s3.json || fail "report failed"
check_json s3.json 'j["alloc"]["peak_bytes"] is None and len([p for p in j["alloc"]["processes"] if p["calls"] > 1000]) == 2 and all(p["peak_bytes"] == 405000 for p in j["alloc"]["processes"] if p["calls"] > 1000)' \
	"a tree in sites mode: the overall peak must be null, each image's own exact"
ok "a process tree: each image's peak exact, the tree's null"

"$MEMTAP" record -q -o x.mtap --alloc=bogus -- true 2>err.txt
[ $? -eq 2 ] && grep -q "one of: events, sites" err.txt || fail "--alloc=bogus: $(cat err.txt)"
ok "--alloc=bogus is refused with the choices"

"$MEMTAP" export s.mtap --to folded -w peak -o pk.folded 2>err.txt
[ $? -eq 1 ] && grep -q "alloc=sites, which keeps no heap blocks" err.txt ||
	fail "folded -w peak of a sites trace: $(cat err.txt)"
ok "a weight the mode cannot give is refused in one line, not exported as zeros"

# memtap diff of a full and a compact run: the sites' heap at the peak is unknown on the
# compact side (null), every kept figure equal.
"$MEMTAP" diff e2.mtap s2.mtap --format json >d.json || fail "diff failed"
check_json d.json 'all(s["peak_bytes"]["b"] is None and s["peak_bytes"]["delta"] is None and s["calls"]["delta"] == 0 and s["bytes"]["delta"] == 0 for s in j["sites"]) and [t for t in j["totals"] if t["figure"] == "alloc_calls"][0]["value"]["delta"] == 0' \
	"diff: a compact run's site peaks must be null, its calls and bytes equal"
ok "memtap diff: the compact side's site peaks null, calls and bytes equal"
