#!/bin/sh
# SPDX-License-Identifier: MIT
# Allocation totals that are known exactly; the folded export and dump --type alloc.
. "$(dirname "$0")/lib.sh"
need ptrace

"$WORKLOADS/alloc-exact" >bare.json || fail "workload failed bare"
"$MEMTAP" record -q -o a.mtap -- "$WORKLOADS/alloc-exact" >exp.json || fail "record failed"
cmp -s bare.json exp.json || fail "the workload's output changed under memtap"
"$MEMTAP" report a.mtap --format json >r.json || fail "report failed"
python3 "$SRC/tests/e2e/alloc-exact-check.py" exp.json r.json calls frees leaked_bytes \
	leaked_blocks peak_bytes temporary || fail "totals differ"
ok "calls, frees, peak, leaks, temporaries and calls per function are exact"

# Symbolized from DWARF: the loop's site names mid_alloc in alloc-exact.c.
check_json r.json 'any(f["function"] == "mid_alloc" and f["file"].endswith("alloc-exact.c") and f["line"] for s in j["alloc"]["top_sites"] for f in s["frames"])' \
	"no symbolized mid_alloc frame with a source line"
check_json r.json 'j["alloc"]["top_sites"][0]["calls"] == 1000 and j["alloc"]["top_sites"][0]["temporary"] == 1000' \
	"the top site by calls is not the 1000-call loop"
ok "sites symbolized with file:line"

# Folded stacks: flamegraph.pl's line grammar, weights that add up to the report's totals.
for w in calls bytes; do
	"$MEMTAP" export a.mtap --to folded -w $w -o a.$w.folded || fail "export $w failed"
done
python3 - a.calls.folded a.bytes.folded r.json <<'PY' || fail "folded output is wrong"
import json, re, sys
a = json.load(open(sys.argv[3]))["alloc"]
line_re = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$")  # flamegraph.pl's own parse of a line
for path, total in ((sys.argv[1], a["calls"]), (sys.argv[2], a["bytes"])):
    s = 0
    for line in open(path):
        m = line_re.match(line.rstrip("\n"))
        assert m, "unparseable line: %r" % line
        frames = m.group(1).split(";")
        assert len(frames) >= 2 and all(frames), "empty frame in %r" % line
        assert frames[0].startswith("alloc-exact "), "the root is not the process: %r" % line
        s += int(m.group(2))
    assert s == total, "%s: weights add up to %d, the report says %d" % (path, s, total)
calls = open(sys.argv[1]).read()
assert ";main;mid_alloc 1000\n" in calls, "no 'main;mid_alloc 1000' stack"
PY
ok "folded stacks parse as flamegraph.pl parses them and add up to the report"

"$MEMTAP" dump a.mtap --type alloc --format csv >d.csv || fail "dump --type alloc failed"
head -1 d.csv | grep -q '^time_ns,type,pid,tid,kind,addr,size,usable,old_addr,stack,flags,span$' ||
	fail "dump --type alloc: unexpected columns: $(head -1 d.csv)"
[ "$(grep -c ',malloc,.*,100,' d.csv)" -ge 1000 ] || fail "dump --type alloc: the loop's mallocs are missing"
ok "dump --type alloc"

"$MEMTAP" report a.mtap -s alloc --format md >r.md || fail "report --format md"
grep -q '^## Allocations' r.md || fail "md report has no allocation section"
"$MEMTAP" report a.mtap -s alloc --format csv >r.csv || fail "report --format csv"
head -1 r.csv | grep -q '^site_id,pid,calls,bytes' || fail "csv report: $(head -1 r.csv)"
ok "text, md and csv renderings"

# --no-alloc: no runtime, no allocation section.
"$MEMTAP" record -q -o n.mtap --no-alloc -- "$WORKLOADS/alloc-exact" >/dev/null || fail "--no-alloc"
"$MEMTAP" report n.mtap --format json >n.json
check_json n.json '"alloc" not in j' "--no-alloc still has an allocation section"
"$MEMTAP" export n.mtap --to folded -o n.folded 2>n.err && fail "folded export of a trace without allocations succeeded"
[ "$(wc -l <n.err)" = 1 ] || fail "more than one error line: $(cat n.err)"
ok "--no-alloc records no allocations and export says so in one line"
