#!/bin/sh
# SPDX-License-Identifier: MIT
# What-if placement's known answer (issue 37): workloads/placement.c sets four anonymous
# mappings' sizes, write times, lifetimes and read shares; with a tier model of a slower
# tier and an MRM with a 2 s retention window, every column of `memtap report --section
# placement` has an expected value:
# - bytes: each mapping's size;
# - refresh (the MRM): floor(age / 2 s) x size for data written once (A, D: 3 x 16 MiB over
#   7 s; C: 2 x 4 MiB over 5 s), 0 for B (rewritten every 0.5 s) and on the tier without a
#   window; exact, and the epochs' bounds agree;
# - access time (cpu-clock samples): the user-mode CPU time the program spent reading A and D
#   (its thread's user share of the reading's CPU time: samples are user-mode only), within
#   the stated 95% error plus 5% (the loop's own clock reads are not loads of them);
# - added time, refresh time, cost and rank: the stated model's formulas on those columns;
# - the placement table of the CSV export: the same rows.
# Bad input: a tier model with a missing field, a negative latency, a retention of 0 — one
# line with FILE:LINE, exit 2; a trace without samples or page writes names what is missing
# and leaves those columns null.
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw
W="$WORKLOADS/placement"

cat >tiers.yaml <<'Y'
# a slower tier and a retention-limited one with a 2 s window
tiers:
  - name: dram
    read_latency_ns: 100
    write_latency_ns: 100
  - name: slow
    read_latency_ns: 300
    write_latency_ns: 300
  - name: mrm
    read_latency_ns: 100
    write_latency_ns: 500
    retention_s: 2
Y
# every epoch's page writes (--page-writes=full): B's rewrites, which settle by default, are
# what its refresh is made of (the default run is judged below)
"$MEMTAP" record -q -f --page-writes=full -o p.mtap -- "$W" >p.out 2>p.err || fail "record failed: $(tail -2 p.err)"
"$MEMTAP" report p.mtap --tiers tiers.yaml -s placement --format json >p.json ||
	fail "report failed"
"$MEMTAP" report p.mtap --tiers tiers.yaml -s placement >p.txt || fail "text report failed"
grep -q "tier model (tiers.yaml): dram 100/100 ns; slow 300/300 ns; mrm 100/500 ns, retention 2 s" p.txt ||
	fail "the text does not state the tier model: $(head -3 p.txt)"
"$MEMTAP" export p.mtap --to csv -o csv --tiers tiers.yaml >/dev/null || fail "export failed"

python3 - <<'PY' || fail "placement differs from the known answer"
import csv, json, math, sys
r = json.load(open("p.json"))["placement"]
out = open("p.out").read().split("\n")
maps, cpu = {}, {}
for line in out:
    w = line.split()
    if w and w[0] == "map":
        maps[w[1]] = dict(start=int(w[2], 16), size=int(w[3]), written=int(w[4]), gone=int(w[5]))
    elif w and w[0] == "read_cpu_ns":
        cpu = {w[1]: int(w[2]) / 1e9, w[3]: int(w[4]) / 1e9}
    elif w and w[0] == "cpu_us":
        user_share = int(w[2]) / (int(w[2]) + int(w[4]))
# samples are taken in user mode only: the reading's own kernel time (its clock calls, ~5 %)
# is no sample's; the truth is the user part of the reading's CPU time
print("user share of the reading's CPU time %.3f" % user_share)
cpu = {k: v * user_share for k, v in cpu.items()}
assert r["basis"] == "cpu_time" and r["sample_unit"] == "ns", r["basis"]
assert r["missing"] is None, r["missing"]
rows = {(g["start"], g["tier"]): g for g in r["rows"]}
bad = []
def check(what, ok, got):
    print("%-40s %s" % (what, got))
    if not ok:
        bad.append(what)
R = 2e9
for name, m in sorted(maps.items()):
    for tier in ("slow", "mrm"):
        g = rows.get((m["start"], tier))
        if g is None:
            bad.append("no %s row for %s" % (tier, name)); continue
        check("%s %s bytes" % (name, tier), g["bytes"] == m["size"], g["bytes"])
        if tier == "mrm":
            age = m["gone"] - m["written"]
            want = (age // R) * m["size"] if name != "B" else 0
            check("%s mrm refresh_bytes = %d" % (name, want),
                  g["refresh_bytes"] == want == g["refresh_bytes_low"] == g["refresh_bytes_high"],
                  (g["refresh_bytes"], g["refresh_bytes_low"], g["refresh_bytes_high"]))
            check("%s mrm refresh per s" % name,
                  math.isclose(g["refresh_bytes_per_s"], want / r["duration_s"], rel_tol=1e-9),
                  g["refresh_bytes_per_s"])
            check("%s mrm refresh time" % name,
                  math.isclose(g["refresh_time_s"], want / 64 * 500e-9, rel_tol=1e-9, abs_tol=1e-12),
                  g["refresh_time_s"])
            added = g["write_time_s"] * (500 / 100 - 1)
        else:
            check("%s slow refresh 0" % name, g["refresh_bytes"] == 0, g["refresh_bytes"])
            added = (g["read_time_s"] + g["write_time_s"]) * 2
        check("%s %s added time = model" % (name, tier),
              math.isclose(g["added_time_s"], added, rel_tol=1e-9, abs_tol=1e-12), g["added_time_s"])
        check("%s %s cost" % (name, tier),
              math.isclose(g["cost_s"], g["added_time_s"] + g["refresh_time_s"], rel_tol=1e-9, abs_tol=1e-12),
              g["cost_s"])
        if g["cost_s"] > 0:
            check("%s %s score" % (name, tier),
                  math.isclose(g["dram_bytes_per_cost_s"], g["bytes"] / g["cost_s"], rel_tol=1e-9),
                  g["dram_bytes_per_cost_s"])
        else:
            check("%s %s no cost" % (name, tier), g["no_cost"] and g["dram_bytes_per_cost_s"] is None, g["no_cost"])
        if name in cpu:
            t, err = g["read_time_s"], g["access_time_error_s"]
            check("%s %s read time ~ %.3f s" % (name, tier, cpu[name]),
                  abs(t - cpu[name]) <= err + 0.05 * cpu[name], "%.3f ± %.3f" % (t, err))
        else:
            check("%s %s read time ~ 0" % (name, tier), g["read_time_s"] <= g["access_time_error_s"] + 0.002,
                  g["read_time_s"])
        if name == "B":
            check("B writes sampled", g["write_time_s"] > 0, g["write_time_s"])
# the ranking: known costs first, most DRAM freed per second of cost first
score = lambda g: math.inf if g["no_cost"] else g["dram_bytes_per_cost_s"]
known = [score(g) for g in r["rows"] if g["cost_s"] is not None]
check("ranked by DRAM freed per cost", all(a >= b for a, b in zip(known, known[1:])), len(known))
# by_type: the rows summed by tier and region type
for t in r["by_type"]:
    mine = [g for g in r["rows"] if g["tier"] == t["tier"] and g["region_type"] == t["region_type"]]
    check("by_type %s %s" % (t["tier"], t["region_type"]),
          t["rows"] == len(mine) and t["bytes"] == sum(g["bytes"] for g in mine) and
          math.isclose(t["read_time_s"], sum(g["read_time_s"] for g in mine), rel_tol=1e-9, abs_tol=1e-12) and
          (t["refresh_bytes"] is None) == any(g["refresh_bytes"] is None for g in mine),
          (t["rows"], t["bytes"]))
with open("csv/placement.csv") as f:
    c = list(csv.DictReader(f))
check("CSV placement rows", len(c) == len(r["rows"]) and c[0]["tier"] == r["rows"][0]["tier"], len(c))
sys.exit(1 if bad else 0)
PY
ok "placement: every column of the known answer (bytes, refresh, access time, model, rank)"

# with the default settling, B (rewritten every 0.5 s) settles at its second write: its later
# writes are not seen, so its refresh is null and `missing` says why; A, C and D (written
# once) keep their exact refresh — unless a scan fell inside the memset that wrote one, whose
# pages on both sides of it are then written in two epochs and settle too (said by the
# trace's settled page_write events: then null as well)
"$MEMTAP" record -q -f -o s.mtap -- "$W" >s.out 2>s.err || fail "record (settling) failed: $(tail -2 s.err)"
"$MEMTAP" report s.mtap --tiers tiers.yaml -s placement --format json >s.json || fail "report failed"
"$MEMTAP" dump s.mtap --type page_write --format csv >s.pw.csv || fail "dump failed"
python3 - <<'PY' || fail "the default settling's placement"
import csv, json
r = json.load(open("s.json"))["placement"]
maps = {w[1]: (int(w[2], 16), int(w[3]), int(w[4]), int(w[5])) for w in (l.split() for l in open("s.out")) if w and w[0] == "map"}
settled = [(int(e["addr"], 16), int(e["len"])) for e in csv.DictReader(open("s.pw.csv")) if e["settled"] == "1"]
rows = {(g["start"], g["tier"]): g for g in r["rows"]}
assert r["missing"] and "settled" in r["missing"], r["missing"]
for name, (start, size, written, gone) in sorted(maps.items()):
    g = rows[(start, "mrm")]
    some = any(a < start + size and a + n > start for a, n in settled)
    want = None if some else ((gone - written) // 2000000000) * size
    print("settled: %s mrm refresh_bytes %s (want %s; settled pages: %s)" % (name, g["refresh_bytes"], want, some))
    assert g["refresh_bytes"] == want, g
    assert some or name != "B", "B never settled"
print("missing:", r["missing"])
PY
ok "settling: B's refresh null and said why, A, C and D exact unless their writing straddled a scan"

# bad tier models: one line naming FILE:LINE, exit 2
bad() { # NAME EXPECT: the tier model on stdin
	cat >"$1.yaml"
	"$MEMTAP" report p.mtap -s placement --tiers "$1.yaml" >/dev/null 2>"$1.err"
	rc=$?
	[ $rc = 2 ] || fail "$1: exit $rc, not 2"
	[ "$(wc -l <"$1.err")" = 1 ] || fail "$1: not one line: $(cat "$1.err")"
	grep -q "$1.yaml:[0-9]*:[0-9]*: .*$2" "$1.err" || fail "$1: $(cat "$1.err")"
	ok "$1: $(cat "$1.err")"
}
printf 'tiers:\n  - name: dram\n    read_latency_ns: 90\n    write_latency_ns: 90\n  - name: x\n    read_latency_ns: 200\n' |
	bad missing "without 'write_latency_ns'"
printf 'tiers:\n  - {name: dram, read_latency_ns: 90, write_latency_ns: 90}\n  - {name: x, read_latency_ns: -5, write_latency_ns: 90}\n' |
	bad negative "greater than 0"
printf 'tiers:\n  - {name: dram, read_latency_ns: 90, write_latency_ns: 90}\n  - {name: m, read_latency_ns: 90, write_latency_ns: 90, retention_s: 0}\n' |
	bad retention0 "'retention_s' must be greater than 0"
"$MEMTAP" report p.mtap -s placement --tiers nonexistent.yaml >/dev/null 2>nx.err
[ $? = 2 ] && grep -q "nonexistent.yaml" nx.err || fail "a missing tier model: $(cat nx.err)"

# without samples and page writes: the columns that need them are null, and said why
"$MEMTAP" record -q -f --access=off --page-writes-ms 0 -o bare.mtap -- "$W" >/dev/null 2>bare.err ||
	fail "record without access failed: $(tail -2 bare.err)"
"$MEMTAP" report bare.mtap -s placement --format json >bare.json || fail "report failed"
"$MEMTAP" report bare.mtap -s placement >bare.txt || fail "report failed"
python3 - <<'PY' || fail "a trace without samples or page writes"
import json
r = json.load(open("bare.json"))["placement"]
assert "access" in r["missing"] and "pagewrites" in r["missing"], r["missing"]
anon = [g for g in r["rows"] if g["kind"] == "anon"]
assert anon, r["rows"]
for g in anon:
    assert g["read_time_s"] is None and g["added_time_s"] is None and g["cost_s"] is None, g
    if g["tier"] == "mrm":
        assert g["refresh_bytes"] is None, g
print("missing:", r["missing"])
PY
grep -q "missing: access" bare.txt || fail "the text does not say what is missing"
ok "without samples and page writes: null columns, the missing collectors named"
