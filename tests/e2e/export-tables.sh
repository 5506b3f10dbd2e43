#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap export --to csv|jsonl|sqlite|perfetto: every table as CSV and JSON lines agrees with
# the report; an SQLite database of three recorded runs answers a cross-run query with the
# sqlite3 CLI (and a run added again replaces itself); the Perfetto timeline is structurally
# valid (phases, fields, timestamps monotonic per track); a trace cut short exports what is
# readable and says so; a failed export leaves no file that looks complete.
. "$(dirname "$0")/lib.sh"

TABLES="runs collectors processes trace region_map kv_block_lifecycle metrics sites phases syscalls faults rss rss_timeline"
"$TOOL" gen-text "$SRC/tests/data/behavior.txt" b.mtap || fail "gen-text failed"
"$MEMTAP" report b.mtap --format json >r.json || fail "report failed"
"$MEMTAP" export b.mtap --to csv -o csv 2>e.txt || fail "export csv failed: $(cat e.txt)"
"$MEMTAP" export b.mtap --to jsonl -o jsonl 2>e.txt || fail "export jsonl failed: $(cat e.txt)"
for t in $TABLES; do
	[ -f "csv/$t.csv" ] || fail "no csv/$t.csv"
	[ -f "jsonl/$t.jsonl" ] || fail "no jsonl/$t.jsonl"
done
ls csv/*.tmp.* jsonl/*.tmp.* >/dev/null 2>&1 && fail "temporary files left"
python3 - $TABLES <<'PY' || fail "CSV or JSON lines disagree with the report"
import csv, json, sys
r = json.load(open("r.json"))
for t in sys.argv[1:]:
    rows = list(csv.DictReader(open(f"csv/{t}.csv", newline="")))
    objs = [json.loads(l) for l in open(f"jsonl/{t}.jsonl")]
    assert len(rows) == len(objs), (t, len(rows), len(objs))
    header = open(f"csv/{t}.csv").readline().strip().split(",")
    for o, c in zip(objs, rows):
        assert list(o) == header, (t, list(o), header)  # every column, in order
        for k, v in o.items():  # null <-> empty cell; numbers and strings the same
            assert (v is None) == (c[k] == "") or v == "", (t, k, v, c[k])
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                assert abs(float(c[k]) - v) <= 1e-9 * max(1, abs(v)), (t, k, v, c[k])
            elif v is not None:
                assert c[k] == v, (t, k, v, c[k])
def load(t):
    return [json.loads(l) for l in open(f"jsonl/{t}.jsonl")]
regions = {g["region_id"]: g for g in r["regions"]}
rm = load("region_map")
assert len(rm) == len(regions) and all(x["samples"] == regions[x["region_id"]]["samples"] for x in rm)
tr = load("trace")
assert len(tr) == sum(g["samples"] for g in r["regions"]), len(tr)
assert sum(x["weight"] for x in tr) == 41
assert all(x["address_page"] == x["address"] >> 12 for x in tr)
types = {t["region_type"]: t for t in r["metrics"]["by_type"]}
me = load("metrics")
assert {x["region_type"] for x in me} == set(types)
for x in me:
    assert x["mrm"] == types[x["region_type"]]["mrm"]
    want = types[x["region_type"]]["retention_p99_s"]  # null where no read was sampled
    assert (x["retention_p99_s"] is None and want is None) or abs(x["retention_p99_s"] - want) < 1e-9
ph = {x["phase"]: x for x in load("phases")}
assert ph["generation"]["duration_ns"] == 29_500_000_000 and ph["generation"]["pages_written"] == 132
lc = load("kv_block_lifecycle")
assert sorted(x["label"] for x in lc if x["region_type"] == "kv_cache") == [f"block{i}" for i in range(4)]
runs = load("runs")
assert len(runs) == 1 and runs[0]["command"] == r["run"]["command"] and runs[0]["schema_version"] == "1.7"
print({t: sum(1 for _ in open(f"jsonl/{t}.jsonl")) for t in sys.argv[1:]})
PY
ok "CSV and JSON lines: every table, every column, the report's figures"

# A CSV cell with a comma, a quote and a newline (a label) is quoted as RFC 4180 says.
cat >q.txt <<'TXT'
mmap t=0 pid=9 addr=0x600000000 len=1048576 prot=3
label t=1ms pid=9 op=label addr=0x600000000 len=4096 region_type=kv_cache name=a,"b"
access t=2ms pid=9 addr=0x600000010 kind=load weight=1 mechanism=timer
TXT
"$TOOL" gen-text q.txt q.mtap || fail "gen-text (quotes) failed"
"$MEMTAP" export q.mtap --to csv -o qcsv || fail "export (quotes) failed"
python3 -c '
import csv
rows = list(csv.DictReader(open("qcsv/region_map.csv", newline="")))
assert [r["label"] for r in rows if r["region_type"] == "kv_cache"] == ["a,\"b\""], rows' ||
	fail "a label with a comma and quotes is not quoted: $(cat qcsv/region_map.csv)"
# an empty string is "" and a null an empty cell (PostgreSQL's convention)
python3 -c '
line = open("csv/runs.csv").read().splitlines()[1]
assert ",\"\"," in line, line' || fail "an empty string is not written as \"\": $(cat csv/runs.csv)"
ok "CSV quoting"

# SQLite: three recorded runs in one database, a cross-run query through the sqlite3 CLI.
command -v sqlite3 >/dev/null || skip "no sqlite3 CLI"
for n in 1 2 3; do
	"$MEMTAP" record -q -f --syscalls -o "run$n.mtap" -- sh -c "head -c $((n * 1000000)) /dev/zero >/dev/null; true" \
		>/dev/null 2>rec.err || fail "record $n failed: $(cat rec.err)"
	"$MEMTAP" export "run$n.mtap" --to sqlite -o runs.db 2>e.txt || fail "export sqlite $n failed: $(cat e.txt)"
done
[ "$(sqlite3 runs.db 'select count(*) from runs')" = 3 ] || fail "not 3 runs: $(sqlite3 runs.db 'select * from runs')"
sqlite3 -separator ' ' runs.db "select r.command, count(distinct p.pid), sum(s.calls)
	from runs r join processes p using (run_id) join syscalls s using (run_id)
	where s.name = 'read' and s.caller = 'workload' group by r.run_id order by r.command" >q.out ||
	fail "the cross-run query failed"
[ "$(wc -l <q.out)" = 3 ] || fail "the cross-run query gives not 3 rows: $(cat q.out)"
python3 - <<'PY' || fail "the cross-run query's figures are off"
# each run: sh and head; head -c N reads N bytes of /dev/zero in reads of a fixed size (no
# pipe, whose reads depend on timing), so more bytes take more reads
rows = [l.split() for l in open("q.out")]
print(rows)
reads = [int(r[-1]) for r in rows]
procs = [int(r[-2]) for r in rows]
assert procs == [2, 2, 2], procs
assert reads[0] < reads[1] < reads[2], reads
PY
for n in 1 2 3; do
	"$MEMTAP" report "run$n.mtap" --format json >"rep$n.json" || fail "report $n failed"
done
python3 - <<'PY' || fail "the database's syscall counts differ from the reports'"
import json, sqlite3
db = sqlite3.connect("runs.db")
for n in (1, 2, 3):
    r = json.load(open(f"rep{n}.json"))
    rid = db.execute("select run_id from runs where trace = ?", (f"run{n}.mtap",)).fetchone()[0]
    got = dict(db.execute("select name, calls from syscalls where run_id = ? and caller = 'workload'", (rid,)))
    want = {s["name"]: s["calls"] for s in r["syscalls"]}
    assert got == want, (n, got, want)
    (pk,) = db.execute("select max(peak_bytes) from rss where run_id = ?", (rid,)).fetchone()
    assert pk == max(p["peak_bytes"] for p in r["rss"]["processes"]) if "processes" in r["rss"] else pk > 0
PY
"$MEMTAP" export run2.mtap --to sqlite -o runs.db 2>e.txt || fail "adding run 2 again failed"
grep -q "replaced" e.txt || fail "adding a run again does not say it replaced it: $(cat e.txt)"
[ "$(sqlite3 runs.db 'select count(*) from runs')" = 3 ] || fail "a run added again is not replaced"
[ "$(sqlite3 runs.db "select count(*) from processes")" = 6 ] || fail "its rows are doubled"
# A database of another schema is refused with one line, and left as it was.
sqlite3 bad.db "create table runs (x int); insert into runs values (1)"
"$MEMTAP" export run1.mtap --to sqlite -o bad.db 2>e.txt && fail "an incompatible database accepted"
[ "$(wc -l <e.txt)" = 1 ] || fail "not one line: $(cat e.txt)"
grep -q "bad.db" e.txt || fail "the message does not name the database: $(cat e.txt)"
[ "$(sqlite3 bad.db 'select count(*) from sqlite_master')" = 1 ] || fail "the failed export left tables behind"
ok "SQLite: three runs, a cross-run query, replacement, an incompatible database refused"

# Perfetto: structure, the tracks memtap promises, monotonic timestamps per track.
"$MEMTAP" record -q -f --syscalls -o t.mtap -- "$(dirname "$MEMTAP")/examples/toy-llm" 1 >/dev/null 2>rec.err ||
	fail "record toy-llm failed: $(cat rec.err)"
"$MEMTAP" export t.mtap --to perfetto --perfetto-json --min-syscall-us 0 --min-alloc 65536 -o t.json 2>e.txt ||
	fail "export perfetto failed: $(cat e.txt)"
python3 - <<'PY' || fail "the Perfetto JSON is not valid"
import json
j = json.load(open("t.json"))
assert j["displayTimeUnit"] == "ns" and isinstance(j["traceEvents"], list)
ev = j["traceEvents"]
last = {}
names = {}
for e in ev:
    ph = e["ph"]
    assert ph in "MCiX", e
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int) and isinstance(e["name"], str), e
    if ph == "M":
        assert e["name"] in ("process_name", "thread_name") and isinstance(e["args"]["name"], str), e
        continue
    assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if ph == "C":
        assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), e
        track = ("C", e["pid"], e["name"])
    else:
        track = ("T", e["pid"], e["tid"])
        if ph == "X":
            assert e["dur"] >= 0, e
        else:
            assert e["s"] in "tpg", e
    assert e["ts"] >= last.get(track, 0), ("timestamps go back on", track, e)
    last[track] = e["ts"]
    names.setdefault(ph, set()).add(e["name"])
print({k: sorted(v)[:8] for k, v in names.items()})
assert {"rss", "heap", "working set", "faults"} <= names["C"], names["C"]
assert {"weight_load", "generation", "teardown"} <= names["X"], names["X"]
assert any(n in names["X"] for n in ("openat", "write", "mmap")), names["X"]
assert any(n.startswith("aligned_alloc") or n.startswith("malloc") for n in names["i"]), names["i"]
assert any(e["ph"] == "M" and e["name"] == "process_name" and e["args"]["name"] == "toy-llm" for e in ev)
PY
ok "Perfetto: counters, instants, slices, names; timestamps monotonic per track"

# A trace cut short: what is readable is exported, with one warning saying what was lost.
"$MEMTAP" export "$SRC/tests/data/truncated.mtap" --to csv -o cut 2>cut.err || fail "a truncated trace is not exported: $(cat cut.err)"
grep -q "truncated" cut.err || fail "no word of the truncation: $(cat cut.err)"
[ -s cut/runs.csv ] || fail "nothing exported from the truncated trace"
ok "a truncated trace exports what is readable and says so"

# Failures: an existing export is kept without --force; an export that fails midway leaves no
# table that looks complete and no temporary file; bad -o values are usage errors.
"$MEMTAP" export b.mtap --to csv -o csv 2>e.txt && fail "an existing export was overwritten"
grep -q "already holds" e.txt || fail "no clear message: $(cat e.txt)"
mkdir -p fail && mkdir fail/trace.csv
"$MEMTAP" export b.mtap --to csv -o fail --force 2>e.txt && fail "an export that cannot rename succeeded"
[ "$(find fail -name '*.tmp.*' | wc -l)" = 0 ] || fail "temporary files left: $(find fail)"
"$MEMTAP" export b.mtap --to sqlite -o - 2>e.txt; [ $? = 2 ] || fail "--to sqlite -o - is not a usage error"
"$MEMTAP" export b.mtap --to csv --workload x -o y 2>e.txt; [ $? = 2 ] || fail "--workload without hive accepted"
ok "failed exports leave nothing that looks complete"
