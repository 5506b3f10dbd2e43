#!/bin/sh
# SPDX-License-Identifier: MIT
# Smaller inconsistencies (issue 14, item 11), each on a real run: the processes-together RSS
# peak is never below one process's; "processes traced" counts processes (with the images
# apart); weighted access figures name their unit; a static binary's allocation collector
# says it could not preload, not "active"; view --open that cannot open says so and fails;
# probe tells "mounted but unreadable" tracefs from "not mounted".
. "$(dirname "$0")/lib.sh"
need ptrace perf-ring

# A shell pipeline: several processes, each an image of its own, one exec'ing twice (sh -> sh).
"$MEMTAP" record -q -o p.mtap -- sh -c 'seq 1 20000 | sort -n | uniq | wc -l; exec sh -c "ls / >/dev/null"' >/dev/null 2>p.err ||
	fail "record failed: $(cat p.err)"
"$MEMTAP" report p.mtap --format json >p.json || fail "report failed"
"$MEMTAP" report p.mtap >p.txt || fail "report (text) failed"
python3 - <<'PY' || fail "inconsistent figures (above)"
import json
j = json.load(open("p.json"))
rss, a = j["rss"], j["alloc"]
print("rss peak one process %d, together %d" % (rss["peak_bytes"], rss["tree_peak_bytes"]))
assert rss["tree_peak_bytes"] >= rss["peak_bytes"] > 0
pids = {p["pid"] for p in a["processes"]}
print("processes traced %d (images %d), alloc processes %d" % (a["processes_traced"], a["process_images_traced"], len(pids)))
assert a["processes_traced"] == len(pids) <= len(j["processes"]) and a["process_images_traced"] >= a["processes_traced"]
PY
grep -q "CPU time at loads / stores" p.txt || fail "weighted access figures without a unit: $(grep -i 'loads / stores' p.txt)"
ok "RSS peaks, process counts and access units agree"

cat >st.c <<'C'
int main(void) { return 0; }
C
if cc -static -o st st.c 2>/dev/null; then
	"$MEMTAP" record -q -o s.mtap -- ./st || fail "record of a static binary failed"
	"$MEMTAP" info s.mtap --format json >s.json || fail "info failed"
	check_json s.json '[c for c in j["collectors"] if c["name"] == "alloc"][0]["status"] == "unavailable" and "static" in [c for c in j["collectors"] if c["name"] == "alloc"][0]["reason"]' \
		"a static binary's allocation collector does not say it could not preload: $(grep -A3 alloc s.json | head -5)"
	ok "a static binary: allocation collector unavailable, and why"
fi

BROWSER=false "$MEMTAP" view p.mtap -o v.html --open 2>v.err >/dev/null && fail "view --open that could not open exited 0"
[ -s v.html ] && [ "$(wc -l <v.err)" -le 2 ] && grep -q "cannot open 'v.html'" v.err || fail "view --open: $(cat v.err)"
ok "view --open that cannot open says so and fails (the page stays)"

# probe, as a user who cannot read tracefs (tracefs is root's): mounted but unreadable
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -d /sys/kernel/tracing/events ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$MEMTAP" probe --format json >pr.json 2>/dev/null || true
	if python3 -c 'import json; f={x["id"]: x for x in json.load(open("pr.json"))["features"]}; exit(0 if not f["tracefs"]["available"] else 1)' 2>/dev/null; then
		check_json pr.json '"mounted" in {x["id"]: x for x in j["features"]}["tracefs"]["detail"] and "not mounted" not in {x["id"]: x for x in j["features"]}["tracefs"]["detail"]' \
			"probe says tracefs is not mounted when it is only unreadable: $(grep -A2 tracefs pr.json | head -4)"
		ok "probe: tracefs mounted but unreadable for this user"
	fi
fi
