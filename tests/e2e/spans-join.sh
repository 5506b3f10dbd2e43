#!/bin/sh
# SPDX-License-Identifier: MIT
# Every join of the spans analysis against a synthetic trace with known answers
# (tests/data/spans.txt says each case): an allocation stamped before its span's begin and a
# free after its end (the span id decides, not the time), another thread's fault, a fault
# after the end, a fault on memtap's own memory, nested spans, a free of a block from before
# the trace, a sample in a labelled range, RSS over the window, a thread and an exec ending
# open spans, an unmatched end, a span open at the end, span ids reused after an exec.
. "$(dirname "$0")/lib.sh"

"$TOOL" gen-text "$SRC/tests/data/spans.txt" j.mtap || fail "gen-text failed"
"$MEMTAP" events j.mtap --format json >j.json || fail "events failed"
python3 - j.json <<'PY' || fail "a join is wrong (above)"
import json, sys
e = json.load(open(sys.argv[1]))
want = {  # probe: n, wall_ms, alloc, alloc calls, freed, free calls, faults, samples by type, heap peak, rss
    "a": (1, 10.0, 100, 1, 100, 1, 1, {}, 100, 40960),
    "c": (1, 20.0, 300, 1, 0, 1, 1, {}, 5300, 0),
    "b": (1, 10.0, 5000, 1, 0, 0, 1, {"kv_cache": 1}, 5300, 0),
    "d": (1, 10.0, 64, 1, 0, 0, 0, {}, 5364, 0),
    "x": (1, 10.0, 7, 1, 0, 0, 0, {}, 7, None),
    "y": (1, 10.0, 11, 1, 0, 0, 0, {}, 11, None),
}
bad = False
got = {}
for p in e["per_probe"]:
    m = p["memory"]
    got[p["probe"]] = (p["n_events"], p["total_ms"], m["alloc_bytes"], m["alloc_calls"], m["freed_bytes"],
                       m["free_calls"], m["faults"], m["samples_by_type"], m["heap_peak_max_bytes"],
                       m["rss_change_bytes"])
for k, w in want.items():
    if got.get(k) != w:
        print("probe", k, "got", got.get(k), "want", w)
        bad = True
s = e["spans"]
ws = {"spans": 6, "events": 0, "open_at_end": 1, "ended_by_exit": 2, "unmatched_ends": 1,
      "alloc_events_attributed": 8, "alloc_events_unattributed": 1, "frees_of_unknown_blocks": 1,
      "faults_in_spans": 3, "faults_on_memtap_memory": 1, "samples_in_spans": 1, "rss_records": 2}
if s != ws:
    print("spans", s, "want", ws)
    bad = True
print("probes:", sorted(got), "spans:", "ok" if s == ws else "DIFFER")
sys.exit(1 if bad or set(got) != set(want) else 0)
PY
ok "every join of spans with memory as the synthetic trace says (ids over times, threads, nesting, exits, exec)"
"$MEMTAP" events j.mtap --group-by probe --format csv >g.csv || fail "events --group-by on a trace failed"
grep -q '^b,1,10.0,10.0,10.0,10.0,10.0,0,1$' g.csv || fail "the grouped spans differ: $(cat g.csv)"
ok "--group-by on a trace: a span's duration is its time"
