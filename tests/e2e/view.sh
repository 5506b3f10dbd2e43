#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap view: the page of a real recording is self-contained (no address to load from, a
# policy that forbids loading), and in headless Chromium (Debian's, driven by playwright-core
# from npm) it renders with no console error and no network request, shows every section,
# and a zoom and a region subset change what is shown; a screenshot is kept in
# build/Testing/artifacts. Hostile argv and labels (<script>, quotes) appear only escaped. Its
# timeline's faults are the report's.
. "$(dirname "$0")/lib.sh"
need perf-ring

TOY=$(dirname "$MEMTAP")/examples/toy-llm
"$MEMTAP" record -q -f --syscalls -o t.mtap -- "$TOY" 2 >/dev/null 2>rec.err || fail "record failed: $(cat rec.err)"
"$MEMTAP" view t.mtap -o t.html 2>v.err || fail "view failed: $(cat v.err)"
grep -q "wrote .* to 't.html'" v.err || fail "view does not say what it wrote: $(cat v.err)"
"$MEMTAP" view t.mtap -o t.html 2>v.err && fail "an existing page was overwritten"
grep -q "already exists" v.err || fail "no clear message: $(cat v.err)"
rm t.html && "$MEMTAP" view t.mtap 2>/dev/null && [ -s t.html ] || fail "the default output (t.html) is missing"
"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
python3 - <<'PY' || fail "the page is not self-contained, or its figures are not the report's"
import json, re
h = open("t.html").read()
assert "Content-Security-Policy" in h and "default-src 'none'" in h
# nothing to load: no URL, no src/href to another file, no import
assert not re.search(r"https?://|<link |src=|@import|url\(", h), re.findall(r".{20}(?:https?://|src=|url\().{20}", h)[:3]
d = json.loads(re.search(r'<script type="application/json" id="memtap-data">(.*?)</script>', h, re.S).group(1))
assert d["run"]["command"].endswith("toy-llm 2") and d["address"]["drawn"] > 0
assert {"weight", "kv_cache", "activation"} <= {r["region_type"] for r in d["regions"]}
assert {p["name"] for p in d["timeline"]["phases"]} >= {"weight_load", "generation", "teardown"}
assert d["syscalls"] and d["processes"] and d["timeline"]["rss_anon"] and d["timeline"]["heap"]
# the timeline's faults are the report's workload faults (memtap's own pages apart in both)
f = json.load(open("r.json"))["faults"]
tl = d["timeline"]
assert sum(tl["faults_minor"]) == f["minor"] and sum(tl["faults_major"]) == f["major"], (sum(tl["faults_minor"]), f["minor"])
print("page", len(h), "bytes;", d["address"]["drawn"], "points,", len(d["address"]["segments"]), "bands")
PY
ok "the page is self-contained and holds the run's data"

# The browser: no console error, no request, every section, zoom and subset work.
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "no Chromium (apt-get install chromium)"
need_npm playwright-core@1.64.1
cp "$SRC/tests/e2e/view-check.mjs" "$NPM_DIR/"
mkdir -p "$ARTIFACTS"
node "$NPM_DIR/view-check.mjs" t.html "$ARTIFACTS/view.png" >c.json 2>c.err || fail "Chromium could not render the page: $(tail -3 c.err)"
python3 - <<'PY' || fail "the page misbehaves in Chromium: $(cat c.json)"
import json
c = json.load(open("c.json"))
print({k: c[k] for k in ("ready_ms", "charts", "points", "range_before", "range_after", "shown_before", "shown_zoomed", "shown_region")})
assert c["errors"] == [] and c["requests"] == [] and c["dialogs"] == [], (c["errors"], c["requests"], c["dialogs"])
assert c["sections"] == ["sec-run", "sec-time", "sec-addr", "sec-regions", "sec-types", "sec-sites", "sec-syscalls", "sec-rereads", "sec-procs"], c["sections"]
assert c["rows"]["sec-run"] >= 5 and c["rows"]["sec-regions"] > 3 and c["rows"]["sec-procs"] == 1 and c["rows"]["sec-syscalls"] > 5
assert c["charts"] == 4  # RSS, heap, working set, faults
assert c["range_after"] != c["range_before"] and c["span_after"] < 0.7 * float(c["range_before"].split()[-2])
assert int(c["shown_zoomed"]) < int(c["shown_before"]) and int(c["shown_region"]) < int(c["shown_before"])
t0_zoomed = float(c["range_after"].split()[0])
assert c["t0_panned"] > t0_zoomed and abs(c["span_panned"] - c["span_after"]) < 1e-6, (c["t0_panned"], t0_zoomed)
assert 0 < int(c["shown_addr"]) < int(c["shown_before"]), c["shown_addr"]
PY
[ -s "$ARTIFACTS/view.png" ] || fail "no screenshot"
ok "Chromium: no errors or requests, every section, zoom, pan, region and address subsets; screenshot in $ARTIFACTS/view.png"

# Hostile names: argv, label and phase are '<script>alert(1)</script>"q'\''' -- only escaped.
EVIL='<script>alert(1)</script>"q'"'"
"$MEMTAP" record -q -f -o x.mtap -- "$WORKLOADS/hostile-names" "$EVIL" >x.out 2>x.err || fail "record (hostile) failed: $(cat x.err)"
[ "$(cat x.out)" = ok ] || fail "the workload's output changed: $(cat x.out)"
"$MEMTAP" view x.mtap -o x.html 2>/dev/null || fail "view (hostile) failed"
python3 - "$EVIL" <<'PY' || fail "a hostile string appears unescaped in the page"
import json, re, sys
evil = sys.argv[1]
h = open("x.html").read()
assert "<script>alert(1)" not in h and "alert(1)</script>" not in h, "raw markup in the page"
assert h.count("<script") == 2, h.count("<script")  # the data block and memtap's own script
d = json.loads(re.search(r'<script type="application/json" id="memtap-data">(.*?)</script>', h, re.S).group(1))
assert evil in d["run"]["command"], d["run"]["command"]
assert any(r["label"] == evil and r["region_type"] == evil for r in d["regions"]), [r["label"] for r in d["regions"]][:5]
assert any(p["name"] == evil for p in d["timeline"]["phases"])
PY
node "$NPM_DIR/view-check.mjs" x.html "$ARTIFACTS/view-hostile.png" >xc.json 2>xc.err || fail "Chromium could not render the hostile page: $(tail -3 xc.err)"
python3 - "$EVIL" <<'PY' || fail "the hostile page misbehaves: $(cat xc.json)"
import json, sys
c = json.load(open("xc.json"))
assert c["dialogs"] == [] and c["errors"] == [] and c["requests"] == [], c
assert sys.argv[1] in c["cmd"] and sys.argv[1] in c["title"], (c["cmd"], c["title"])
PY
ok "hostile argv, labels and phases are shown as text, never run"

# A trace with nothing to draw (no samples, faults, RSS or allocations) still gives a page
# that renders without errors and says so.
"$MEMTAP" view "$SRC/tests/data/small.mtap" -o s.html 2>/dev/null || fail "view of a small trace failed"
node "$NPM_DIR/view-check.mjs" s.html "" --no-interact >sc.json 2>sc.err || fail "Chromium could not render the small page: $(tail -3 sc.err)"
check_json sc.json "j['errors'] == [] and j['requests'] == [] and j['points'] == 0 and j['charts'] == 0 and j['rows']['sec-procs'] == 3" \
	"the page of a trace with nothing to draw misbehaves: $(cat sc.json)"
ok "a trace with nothing to draw renders too"
