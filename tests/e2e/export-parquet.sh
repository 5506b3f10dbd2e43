#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap export --to parquet, read back by an independent reader (hyparquet + its ZSTD
# decompressor, installed from npm here; the test skips only when npm cannot install them)
# and compared with memtap's own report of the same synthetic trace.
. "$(dirname "$0")/lib.sh"

need_npm hyparquet@1.31.5 hyparquet-compressors@1.1.2 @duckdb/node-api@1.5.6-r.1
cp "$SRC/tests/e2e/read-parquet.mjs" "$SRC/tests/e2e/duck-query.mjs" "$NPM_DIR/"

"$TOOL" gen-text "$SRC/tests/data/behavior.txt" b.mtap || fail "gen-text failed"
"$MEMTAP" report b.mtap --format json >r.json || fail "report failed"
"$MEMTAP" info b.mtap --format json >i.json || fail "info failed"
"$MEMTAP" export b.mtap --to parquet -o out 2>e.txt || fail "export failed: $(cat e.txt)"
ls out/*.tmp.* >/dev/null 2>&1 && fail "temporary files left: $(ls out)"
node "$NPM_DIR/read-parquet.mjs" out/*.parquet >pq.jsonl || fail "hyparquet cannot read the files"

python3 - <<'PY' || fail "the Parquet tables disagree with memtap's report"
import json
r = json.load(open("r.json")); info = json.load(open("i.json"))
files = {f["path"].split("/")[-1]: f for f in map(json.loads, open("pq.jsonl"))}
rm, lc = files["region_map.parquet"], files["kv_block_lifecycle.parquet"]
tr, me = files["trace.parquet"], files["metrics.parquet"]
for f in (rm, lc, tr, me):
    assert f["kv"]["memtap_schema_version"] == "1.7", f["kv"]
    assert f["kv"]["run_id"] == info["run_id"], (f["kv"], info["run_id"])
    assert f["kv"]["memtap_version"] == r["memtap_version"]
    assert f["created_by"].startswith("memtap ")
cols = {c["name"]: c for c in rm["columns"]}
assert cols["start"]["type"] == "INT64" and cols["start"]["unsigned"] is True
assert cols["region_type"]["logical"] == "STRING" and cols["end_ns"]["repetition"] == "OPTIONAL"
# the same regions as the report's list, with the same figures
assert rm["num_rows"] == len(rm["rows"]) == len(r["regions"]), (rm["num_rows"], len(r["regions"]))
byid = {int(x["region_id"]): x for x in rm["rows"]}
for g in r["regions"]:
    x = byid[g["region_id"]]
    assert x["region_type"] == g["region_type"] and x["label"] == g["label"], (x, g)
    assert int(x["samples"]) == g["samples"] and int(x["total_reads"]) == g["total_reads"]
    assert (x["write_once_ratio"] is None) == (g["write_once_ratio"] is None)
    assert x["mrm"] == g["mrm"]
    # schema 1.6: censored lifetimes (alive at the end, or until the process's exit)
    assert int(x["censored"]) == int(g["censored"]) and x["mrm_note"] == g["mrm_note"], (x, g)
assert cols["censored"]["type"] == "INT64" and cols["mrm_note"]["repetition"] == "OPTIONAL"
assert sum(int(x["samples"]) for x in rm["rows"]) == sum(g["samples"] for g in r["regions"])
# nulls: regions alive at the end have no end_ns
assert sum(x["end_ns"] is None for x in rm["rows"]) == sum(g["end_ns"] is None for g in r["regions"])
# kv_block_lifecycle: the 6 labelled objects of the trace (weight, act0, 4 KV blocks)
assert lc["num_rows"] == 6, lc["num_rows"]
kv = [x for x in lc["rows"] if x["region_type"] == "kv_cache"]
assert len(kv) == 4 and all(int(x["end_ns"]) - int(x["start_ns"]) == 600_000_000 for x in kv), kv
assert all(int(x["last_read_ns"]) - int(x["start_ns"]) == 500_000_000 for x in kv)
# trace: every sample and fault with its region, as the report counted them
faults = r.get("faults", {}).get("minor", 0) + r.get("faults", {}).get("major", 0)
assert tr["num_rows"] == sum(g["samples"] for g in r["regions"]) + faults, tr["num_rows"]
ops = {}
for x in tr["rows"]:
    ops[x["op_type"]] = ops.get(x["op_type"], 0) + 1
    assert x["region_type"] == byid[int(x["region_id"])]["region_type"]
    assert int(x["address_page"]) == int(x["address"]) >> 12
assert ops == {"load": 40, "store": 1}, ops
# each row's phase is the timeline's (tests/data/behavior.txt; T0 = 5 s): weight_load before
# 1 s, generation until 30.5 s; a row at the very instant of a change may take either side
T0 = 5_000_000_000
for x in tr["rows"]:
    t = int(x["timestamp_ns"]) - T0
    want = {"weight_load"} if t < 1e9 else {"generation"} if 1e9 < t < 30.5e9 else None
    if t == 1e9:
        want = {"weight_load", "generation"}
    assert want is None or x["phase"] in want, (t, x["phase"])
tcols = {c["name"]: c for c in tr["columns"]}
assert tcols["address"]["unsigned"] is True and tcols["site_id"]["repetition"] == "OPTIONAL"
# metrics: one row per region type, as by_type
types = {t["region_type"]: t for t in r["metrics"]["by_type"]}
assert me["num_rows"] == len(types)
for x in me["rows"]:
    t = types[x["region_type"]]
    # a figure nothing backs is null in both
    for k in ("retention_p99_s", "mean_stride_bytes", "read_fraction"):
        assert (x[k] is None and t[k] is None) or abs(x[k] - t[k]) < 1e-6, (k, x[k], t[k])
    assert (x["iai_p50_ns"] is None and t["iai_p50_ns"] is None) or int(x["iai_p50_ns"]) == t["iai_p50_ns"]
    assert x["mrm"] == t["mrm"] and x["mrm_decided_by"] == t["mrm_decided_by"]
    assert (x["write_once_ratio"] is None) == (t["write_once_ratio"] is None)
# the other tables: one run, its processes, collectors, phases, as the report has them
ru, pr, co, ph = (files[t + ".parquet"] for t in ("runs", "processes", "collectors", "phases"))
assert ru["num_rows"] == 1 and ru["rows"][0]["run_id"] == info["run_id"], ru["rows"]
assert ru["rows"][0]["command"] == r["run"]["command"]
assert pr["num_rows"] == len(r["processes"]) and co["num_rows"] == len(r["run"]["collectors"])
assert sorted(x["phase"] or "" for x in ph["rows"]) == sorted(p["phase"] or "" for p in r["metrics"]["phases"])
assert len(files) == 16, sorted(files)
sp = files["spans.parquet"]
assert [c["name"] for c in sp["columns"]][:6] == ["pid", "tid", "span_id", "parent_id", "name", "fields"], sp["columns"]
# mrm_candidates: the report's candidates, row for row
ca = files["mrm_candidates.parquet"]
assert ca["num_rows"] == len(r["candidates"]), (ca["num_rows"], len(r["candidates"]))
assert [(x["kind"], x["label"], int(x["bytes"]), x["mrm"]) for x in ca["rows"]] == [(c["kind"], c["label"], c["bytes"], c["mrm"]) for c in r["candidates"]]
# placement: the report's what-if placement, row for row (tier, label, bytes, refresh)
pl = files["placement.parquet"]
rp = r["placement"]["rows"]
assert pl["num_rows"] == len(rp), (pl["num_rows"], len(rp))
assert [(x["tier"], x["label"], int(x["bytes"]), x["refresh_bytes"]) for x in pl["rows"]] == [(g["tier"], g["label"], g["bytes"], g["refresh_bytes"]) for g in rp]
print("trace", tr["num_rows"], "region_map", rm["num_rows"], "kv_block_lifecycle",
      lc["num_rows"], "metrics", me["num_rows"], "rows: agree")
PY
ok "Parquet tables read back by hyparquet agree with the report"

# An existing export is kept unless --force; with it, replaced.
"$MEMTAP" export b.mtap --to parquet -o out 2>e2.txt && fail "an existing export was overwritten"
grep -q "already holds" e2.txt || fail "no clear message: $(cat e2.txt)"
"$MEMTAP" export b.mtap --to parquet -o out --force || fail "--force failed"
ok "existing exports kept without --force"

# DuckDB, the second reader: types, sums and metadata; and a Hive tree of several runs
# (workload=W/config=C/rep=R/) read at once with hive_partitioning.
duck() { node "$NPM_DIR/duck-query.mjs" "$1"; }
duck "select count(*) n, sum(weight) w, typeof(any_value(address)) t from read_parquet('out/trace.parquet')" >d1.json ||
	fail "DuckDB cannot read trace.parquet"
check_json d1.json "j[0]['n'] == '41' and j[0]['w'] == '41' and j[0]['t'] == 'UBIGINT'" \
	"DuckDB: not 41 rows of weight 1 with UBIGINT addresses: $(cat d1.json)"
duck "select decode(key) k, decode(value) v from parquet_kv_metadata('out/metrics.parquet')" >d2.json ||
	fail "DuckDB cannot read the key/value metadata"
check_json d2.json "{r['k']: r['v'] for r in j}['memtap_schema_version'] == '1.7'" "DuckDB: no schema version: $(cat d2.json)"
# --layout hive names the directories: the repetition is the first number not taken; three
# runs (run ids differ), and the same run again is refused (--force replaces it in place).
for rep in 1 2 3; do
	"$TOOL" gen-text "$SRC/tests/data/behavior.txt" h$rep.mtap $rep || fail "gen-text $rep failed"
	"$MEMTAP" export h$rep.mtap --to parquet --layout hive --workload toy --config base -o hive ||
		fail "export into the Hive tree failed"
	[ -s "hive/workload=toy/config=base/rep=$rep/trace.parquet" ] || fail "no rep=$rep: $(find hive)"
done
"$MEMTAP" export h2.mtap --to parquet --layout hive --workload toy --config base -o hive 2>he.txt &&
	fail "the same run was added to the Hive tree twice"
grep -q "rep=2' already holds these tables" he.txt && [ ! -e hive/workload=toy/config=base/rep=4 ] ||
	fail "no clear refusal of the run already there: $(cat he.txt)"
"$MEMTAP" export h2.mtap --to parquet --layout hive --workload toy --config base -o hive --force 2>/dev/null &&
	[ ! -e hive/workload=toy/config=base/rep=4 ] || fail "--force did not replace the run in place"
duck "select rep, count(*) n from read_parquet('hive/*/*/*/trace.parquet', hive_partitioning=true) group by rep order by rep" >d3.json ||
	fail "DuckDB cannot read the Hive tree"
check_json d3.json "[(r['rep'], r['n']) for r in j] == [(1, '41'), (2, '41'), (3, '41')] or [(str(r['rep']), r['n']) for r in j] == [('1', '41'), ('2', '41'), ('3', '41')]" \
	"DuckDB: the Hive tree of 3 runs is not 3 x 41 rows: $(cat d3.json)"
ok "DuckDB reads the tables, their metadata and a Hive tree of runs"

# check-schema: every table is compatible; another schema major, the wrong table, a file cut
# short and a non-Parquet file are refused with one line and status 1.
for t in trace region_map kv_block_lifecycle metrics; do
	"$MEMTAP" check-schema "out/$t.parquet" "$t" >cs.out || fail "check-schema $t: $(cat cs.out)"
done
python3 - <<'PY'
d = open("out/metrics.parquet", "rb").read()
open("v2.parquet", "wb").write(d.replace(b"memtap_schema_version\x18\x031.7", b"memtap_schema_version\x18\x032.0"))
open("cut.parquet", "wb").write(d[: len(d) // 2])
PY
"$MEMTAP" check-schema v2.parquet metrics 2>cs.err && fail "schema major 2 accepted"
grep -q "2.0 is not compatible" cs.err || fail "check-schema v2: $(cat cs.err)"
"$MEMTAP" check-schema out/trace.parquet metrics 2>cs.err && fail "the wrong table accepted"
"$MEMTAP" check-schema cut.parquet 2>cs.err && fail "a file cut short accepted"
grep -q "cut short" cs.err || fail "check-schema cut: $(cat cs.err)"
"$MEMTAP" check-schema b.mtap 2>cs.err && fail "a memtap trace accepted as Parquet"
[ "$(wc -l <cs.err)" = 1 ] || fail "more than one line: $(cat cs.err)"
ok "check-schema"

# --layout mrm: mrm-trace's run directory; its manifest checks out with sha256sum -c, and
# metrics.csv is the report's.
"$MEMTAP" export b.mtap --to parquet --layout mrm -o run1 || fail "--layout mrm failed"
for f in trace.parquet region_map.parquet kv_block_lifecycle.parquet metrics.csv metadata.json \
	manifest.json raw/b.mtap; do
	[ -s "run1/$f" ] || fail "--layout mrm: no $f"
done
python3 -c '
import json
for f in json.load(open("run1/manifest.json"))["files"]:
    print(f["sha256"] + "  " + f["path"])' >run1.sha256 || fail "manifest unreadable"
[ "$(wc -l <run1.sha256)" = 19 ] || fail "the manifest does not list the 19 files (16 tables, metrics.csv, metadata.json, raw/): $(cat run1.sha256)"
(cd run1 && sha256sum -c --quiet ../run1.sha256) || fail "the manifest does not verify"
"$MEMTAP" report b.mtap --section metrics --format csv >m.csv || fail "report csv failed"
cmp -s m.csv run1/metrics.csv || fail "metrics.csv differs from the report's"
cmp -s b.mtap run1/raw/b.mtap || fail "raw/ is not the trace"
check_json run1/metadata.json "j['run_id'] == json.load(open('i.json'))['run_id'] and j['recording']['clock'] == 'CLOCK_MONOTONIC' and 'collectors' in j['run']" \
	"metadata.json lacks the run id, the recording's keys or the collectors"
printf 'x' >>run1/metrics.csv
(cd run1 && sha256sum -c --quiet ../run1.sha256 >/dev/null 2>&1) && fail "a changed file still verifies"
ok "--layout mrm: manifest verifies, metrics.csv is the report's"

# Allocation calls are rows of the trace table: malloc with its size and site, the sample in
# the block with the block's region, free with the block's size and site.
cat >al.txt <<'TXT'
mmap t=0 pid=9 addr=0x600000000 len=1048576 prot=3
alloc t=1ms pid=9 kind=malloc addr=0x600010000 size=131072 usable=131072 stack=0
access t=2ms pid=9 addr=0x600010100 kind=load weight=7 mechanism=timer
alloc t=3ms pid=9 kind=free addr=0x600010000
TXT
"$TOOL" gen-text al.txt al.mtap || fail "gen-text (alloc) failed"
"$MEMTAP" export al.mtap --to parquet -o al || fail "export (alloc) failed"
node "$NPM_DIR/read-parquet.mjs" al/trace.parquet >al.jsonl || fail "hyparquet cannot read it"
python3 - <<'PY' || fail "allocation rows are wrong"
import json
rows = json.loads(open("al.jsonl").read())["rows"]
print([(r["op_type"], r["size"], r["site_id"], r["region_type"]) for r in rows])
assert [r["op_type"] for r in rows] == ["malloc", "load", "free"]
m, a, f = rows
assert m["size"] == "131072" and m["region_id"] is None and m["ip"] is None and m["site_id"] is not None
assert a["region_type"] == "allocation" and a["size"] is None and a["weight"] == "7"
assert a["site_id"] == m["site_id"] == f["site_id"] and f["size"] == "131072"
PY
ok "allocation calls in the trace table"

# Row groups past the first are compressed and written by a worker thread while the next is
# filled: 300,000 events make three groups of trace.parquet, read back whole by DuckDB and
# compared with the report's sample counts.
"$TOOL" gen-synth 300000 big.mtap || fail "gen-synth failed"
"$MEMTAP" export big.mtap --to parquet -o big 2>e.txt || fail "export (big) failed: $(cat e.txt)"
"$MEMTAP" report big.mtap --format json --section access,metrics >big.json || fail "report (big) failed"
duck "select count(*) n, sum(weight) w, count(distinct region_id) g, sum(case when op_type = 'store' then 1 else 0 end) s from read_parquet('big/trace.parquet')" >d4.json ||
	fail "DuckDB cannot read the big trace table"
python3 - <<'PY' || fail "the big trace table disagrees with the report"
import json
d = json.load(open("d4.json"))[0]
r = json.load(open("big.json"))
samples = sum(g["samples"] for g in r["regions"])
writes = sum(g["total_writes"] for g in r["regions"])
print(d, "samples", samples, "stores", writes)
assert int(d["n"]) == samples > 262144, (d, samples)
assert int(d["s"]) == writes and int(d["g"]) == len(r["regions"])
PY
node "$NPM_DIR/read-parquet.mjs" big/trace.parquet >big.jsonl || fail "hyparquet cannot read the big table"
check_json big.jsonl "j['num_rows'] == len(j['rows']) > 262144" "hyparquet reads another number of rows"
ok "a trace table of several row groups, written by the worker, reads back whole"
