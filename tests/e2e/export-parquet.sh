#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap export --to parquet, read back by an independent reader (hyparquet + its ZSTD
# decompressor, installed from npm here; the test skips only when npm cannot install them)
# and compared with memtap's own report of the same synthetic trace.
. "$(dirname "$0")/lib.sh"

NPM_DIR=${MEMTAP_NPM_DIR:-$(dirname "$MEMTAP")/npm-test}
if [ ! -d "$NPM_DIR/node_modules/hyparquet-compressors" ]; then
	command -v npm >/dev/null || skip "npm is not installed"
	mkdir -p "$NPM_DIR" && (cd "$NPM_DIR" && [ -f package.json ] || npm init -y >/dev/null 2>&1)
	(cd "$NPM_DIR" && timeout 300 npm install --no-audit --no-fund --silent \
		hyparquet@1.31.5 hyparquet-compressors@1.1.2 >/dev/null 2>npm.err) ||
		skip "npm could not install hyparquet: $(tail -1 "$NPM_DIR/npm.err" 2>/dev/null)"
fi
cp "$SRC/tests/e2e/read-parquet.mjs" "$NPM_DIR/"

"$TOOL" gen-text "$SRC/tests/data/behavior.txt" b.mtap || fail "gen-text failed"
"$MEMTAP" report b.mtap --format json >r.json || fail "report failed"
"$MEMTAP" info b.mtap --format json >i.json || fail "info failed"
"$MEMTAP" export b.mtap --to parquet -o out 2>e.txt || fail "export failed: $(cat e.txt)"
ls out/*.tmp.* >/dev/null 2>&1 && fail "temporary files left: $(ls out)"
node "$NPM_DIR/read-parquet.mjs" out/region_map.parquet out/kv_block_lifecycle.parquet >pq.jsonl ||
	fail "hyparquet cannot read the files"

python3 - <<'PY' || fail "the Parquet tables disagree with memtap's report"
import json
r = json.load(open("r.json")); info = json.load(open("i.json"))
files = {f["path"].split("/")[-1]: f for f in map(json.loads, open("pq.jsonl"))}
rm, lc = files["region_map.parquet"], files["kv_block_lifecycle.parquet"]
for f in (rm, lc):
    assert f["kv"]["memtap_schema_version"] == "1.0", f["kv"]
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
assert sum(int(x["samples"]) for x in rm["rows"]) == sum(g["samples"] for g in r["regions"])
# nulls: regions alive at the end have no end_ns
assert sum(x["end_ns"] is None for x in rm["rows"]) == sum(g["end_ns"] is None for g in r["regions"])
# kv_block_lifecycle: the 6 labelled objects of the trace (weight, act0, 4 KV blocks)
assert lc["num_rows"] == 6, lc["num_rows"]
kv = [x for x in lc["rows"] if x["region_type"] == "kv_cache"]
assert len(kv) == 4 and all(int(x["end_ns"]) - int(x["start_ns"]) == 600_000_000 for x in kv), kv
assert all(int(x["last_read_ns"]) - int(x["start_ns"]) == 500_000_000 for x in kv)
print("region_map", rm["num_rows"], "rows; kv_block_lifecycle", lc["num_rows"], "rows: agree")
PY
ok "Parquet tables read back by hyparquet agree with the report"

# An existing export is kept unless --force; with it, replaced.
"$MEMTAP" export b.mtap --to parquet -o out 2>e2.txt && fail "an existing export was overwritten"
grep -q "already holds" e2.txt || fail "no clear message: $(cat e2.txt)"
"$MEMTAP" export b.mtap --to parquet -o out --force || fail "--force failed"
ok "existing exports kept without --force"
