#!/bin/sh
# SPDX-License-Identifier: MIT
# Spans joined with memory (issue 18): workloads/spans.c marks calls with memtap_span_begin
# /end (three probes over two views, a nested span, work outside any span, point events)
# and prints what each probe allocated, freed and faulted (its thread's own fault count from
# getrusage inside each span); `memtap events t.mtap` must give exactly that per probe and
# per view. The same from Python (memtap.span) with bytearrays
# of known sizes. Without memtap both programs run the same.
. "$(dirname "$0")/lib.sh"
need perf-ring

"$WORKLOADS/spans" 5 >bare.out || fail "the workload fails bare"
"$MEMTAP" record -q --page-writes-ms 0 -o t.mtap -- "$WORKLOADS/spans" 5 >t.out 2>t.err ||
	fail "record failed: $(cat t.err)"
cmp -s bare.out t.out || fail "the workload's output differs under memtap"
"$MEMTAP" events t.mtap --format json >e.json || fail "events failed"
python3 - e.json t.out <<'PY' || fail "the spans' memory is not the workload's (above)"
import json, sys
e = json.load(open(sys.argv[1]))
want = {}
for l in open(sys.argv[2]):
    f = l.split()
    if f and f[0] == "want":
        want[f[1]] = {f[i]: int(f[i + 1]) for i in range(2, len(f), 2)}
probes = {p["probe"]: p for p in e["per_probe"]}
keys = ["alloc_bytes", "alloc_calls", "freed_bytes", "free_calls", "faults"]
bad = 0
for name, w in want.items():
    p = probes.get(name)
    got = [p["n_events"]] + [p["memory"][k] for k in keys] if p else None
    exp = [w["spans"]] + [w[k] for k in keys]
    print("%-9s spans, alloc, calls, freed, calls, faults: %s want %s (the thread's own count: %d faults)"
          % (name, got, exp, w["rusage_faults"]))
    # faults: the thread's own count inside the span (getrusage, a window within the span's)
    # is the truth; it holds at least the pages the span wrote
    exp[-1] = w["rusage_faults"]
    bad += got != exp or w["rusage_faults"] < w["faults"]
views = {v["view_id"]: v["memory"] for v in e["per_view"]}
for view, members in {"v1": ["p-small", "p-faulty"], "v2": ["p-large"], "v9": ["inner"]}.items():
    exp = [sum(want[m]["rusage_faults" if k == "faults" else k] for m in members) for k in keys]
    got = [views[view][k] for k in keys]
    print("view %s: %s want %s" % (view, got, exp))
    bad += got != exp
s = e["spans"]
print("spans:", s)
bad += s["spans"] != 5 * 4 + 1 or s["events"] != 5 or s["open_at_end"] or s["unmatched_ends"] \
    or s["alloc_events_unattributed"] or s["ended_by_exit"]
bad += probes["round-marker"]["n_events"] != 5
bad += probes["<unassigned>"]["n_events"] != 1 or probes["<unassigned>"]["memory"]["alloc_calls"] != 0
sys.exit(1 if bad else 0)
PY
ok "C spans: allocated and freed bytes and calls, and page faults, exactly per probe and per view; nested and outside work apart"

cat >w.py <<'PY'
import resource
import memtap

SIZES = {"py-a": (100000, 3), "py-b": (300000, 2)}
for n, k in SIZES.values():  # code paths and the heap, outside any span
    blocks = [bytearray(n) for _ in range(k)]
    del blocks
for _ in range(2):  # the module's and ctypes's paths, once (their caches are made there)
    with memtap.span("warmup", probe="warmup"):
        blocks = [bytearray(10) for _ in range(2)]
        del blocks
want = {p: [0, 0] for p in SIZES}
for r in range(4):
    for probe, (n, k) in SIZES.items():
        with memtap.span("score", probe=probe, view_id="pv", hit=r % 2 == 1):
            blocks = [bytearray(n) for _ in range(k)]
            del blocks
        want[probe][0] += 1
        want[probe][1] += k * (n + 1)
for p, (spans, b) in want.items():
    print("want", p, "spans", spans, "bytes", b)
PY
PYTHONPATH="$SRC/python" /usr/bin/python3 w.py >pbare.out || fail "the script fails bare"
PYTHONPATH="$SRC/python" "$MEMTAP" record -q --page-writes-ms 0 -o p.mtap -- /usr/bin/python3 w.py >p.out 2>p.err ||
	fail "record failed: $(cat p.err)"
cmp -s pbare.out p.out || fail "the script's output differs under memtap"
"$MEMTAP" events p.mtap --format json >pe.json || fail "events failed"
"$MEMTAP" dump p.mtap --type alloc --format csv >pa.csv || fail "dump failed"
python3 - pe.json p.out pa.csv <<'PY' || fail "the Python spans' memory is not the script's (above)"
import csv, json, sys
e = json.load(open(sys.argv[1]))
probes = {p["probe"]: p for p in e["per_probe"]}
bad = 0
for l in open(sys.argv[2]):
    f = l.split()
    if f and f[0] == "want":
        p = probes[f[1]]
        m = p["memory"]
        print("%s: %d spans, %d bytes allocated in %d calls, %d freed; want %s spans, %s bytes"
              % (f[1], p["n_events"], m["alloc_bytes"], m["alloc_calls"], m["freed_bytes"], f[3], f[5]))
        bad += p["n_events"] != int(f[3]) or m["alloc_bytes"] != int(f[5]) or m["freed_bytes"] != int(f[5])
sys.exit(1 if bad else 0)
PY
ok "Python spans (memtap.span): the bytearrays' bytes exactly per probe"

"$MEMTAP" view t.mtap -f -o v.html >/dev/null 2>&1 || fail "view failed"
[ "$(grep -o '"name":"score","start"' v.html | wc -l)" = 15 ] && [ "$(grep -o '"depth":1,"name":"inner"' v.html | wc -l)" = 5 ] ||
	fail "the view does not carry the 15 score spans and the 5 nested ones"
ok "the view draws every span (15 score, 5 nested inner) on the timeline"

# The spans table: CSV and SQLite rows sum to the summary's per-probe figures.
"$MEMTAP" export t.mtap --to csv -o ex >/dev/null || fail "export csv failed"
rm -f s.db
"$MEMTAP" export t.mtap --to sqlite -o s.db >/dev/null || fail "export sqlite failed"
python3 - ex/spans.csv s.db e.json <<'PY' || fail "the spans table does not add up to the summary (above)"
import csv, json, sqlite3, sys
rows = list(csv.DictReader(open(sys.argv[1])))
db = sqlite3.connect(sys.argv[2])
e = json.load(open(sys.argv[3]))
bad = len(rows) != e["spans"]["spans"] or db.execute("select count(*) from spans").fetchone()[0] != len(rows)
for p in e["per_probe"]:
    if p["probe"] in ("<unassigned>", "round-marker"):
        continue
    mine = [r for r in rows if r["fields"] and json.loads(r["fields"]).get("probe") == p["probe"]]
    got = [len(mine), sum(int(r["alloc_bytes"]) for r in mine), sum(int(r["faults"]) for r in mine)]
    want = [p["n_events"], p["memory"]["alloc_bytes"], p["memory"]["faults"]]
    print(p["probe"], got, want)
    bad |= got != want
nested = [r for r in rows if r["name"] == "inner"]
bad |= not nested or any(not r["parent_id"] for r in nested)
sys.exit(1 if bad else 0)
PY
ok "export: the spans table (CSV, SQLite) adds up to the summary, nested spans with their parent"

# Access samples by where they lay: a span scanning a labelled kv_cache buffer, one scanning
# an unlabelled heap block (300 ms each; sampled, so at least 90% where the scan was).
"$MEMTAP" record -q -f -o s.mtap -- "$WORKLOADS/spans" samples >s.out 2>s.err || fail "record failed: $(cat s.err)"
"$MEMTAP" events s.mtap --format json >se.json || fail "events failed"
python3 - se.json <<'PY' || fail "the spans' samples do not lie where they scanned (above)"
import json, sys
e = json.load(open(sys.argv[1]))
p = {x["probe"]: x["memory"] for x in e["per_probe"]}
bad = False
for probe, where in (("scan-kv", "kv_cache"), ("scan-heap", "heap")):
    m = p[probe]
    print(probe, m["samples"], m["samples_by_type"])
    bad |= m["samples"] < 50 or m["samples_by_type"].get(where, 0) < 0.9 * m["samples"]
sys.exit(1 if bad else 0)
PY
ok "access samples in spans by where they lay: a labelled kv_cache buffer, a heap block"

# Edges: 600 nested spans (90 beyond the runtime's 510, refused with their ends), fields of
# 5000 bytes (left out, the span kept), a fork child ending its parent's span (unmatched, in
# the child), a thread exiting inside a span (ended there, its allocation kept); the
# program's own view of its calls unchanged.
"$WORKLOADS/spans" edge >ebare.out || fail "the edge workload fails bare"
"$MEMTAP" record -q -f -o ed.mtap -- "$WORKLOADS/spans" edge >ed.out 2>ed.err || fail "record failed: $(cat ed.err)"
grep -q "^refused 600 ended 0 child 4$" ebare.out || fail "bare: $(cat ebare.out)"
grep -q "^refused 90 ended 510 child 4$" ed.out || fail "traced: $(cat ed.out)"
"$MEMTAP" info ed.mtap --format json >ei.json && "$MEMTAP" events ed.mtap --format json >ee.json || fail "info/events failed"
python3 - ei.json ee.json <<'PY' || fail "the edges are not counted as they happened (above)"
import json, sys
d = [c for c in json.load(open(sys.argv[1]))["collectors"] if c["name"] == "alloc"][0]["details"]
e = json.load(open(sys.argv[2]))
want = {"app_events": "1025", "app_fields_too_long": "1", "spans_unmatched_ends": "1", "spans_too_deep": "90", "app_events_dropped": "0"}
got = {k: d.get(k) for k in want}
p = {x["probe"]: (x["n_events"], x["memory"]["alloc_bytes"]) for x in e["per_probe"]}
print(got, e["spans"]["ended_by_exit"], p)
sys.exit(0 if got == want and e["spans"]["ended_by_exit"] == 1 and p.get("deep") == (510, 0)
         and p.get("thread") == (1, 100) and p.get("<unassigned>") == (1, 1000) else 1)
PY
ok "edges: 90 spans too deep refused with their ends, long fields left out, a fork child's end unmatched, a thread's open span ended at its exit"
