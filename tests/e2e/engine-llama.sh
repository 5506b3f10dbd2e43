#!/bin/sh
# SPDX-License-Identifier: MIT
# llama.cpp, unmodified (node-llama-cpp's prebuilt CPU libraries, driven by
# examples/engines/llama.mjs), recorded with default options: the model is a GGUF file with
# random weights written by examples/engines/make-gguf.py, mapped by llama.cpp. The report
# must answer from the engine profiles alone (issue 16):
# - the GGUF mapping is typed weight (profile model-files), write-once 1.0 (read-only, so
#   exact) and read throughout generation;
# - a kv_cache region (profile llama.cpp) whose allocation is the KV cache's size computed
#   from the model's parameters: context x layers x (n_embd_k + n_embd_v) x 2 bytes (F16);
# - the compute buffers typed activation, apart;
# - the KV cache's and compute buffers' write-once ratios exact (page-write tracking of large
#   blocks, on by default), not unknown.
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw
need_node_llama

CTX=256 LAYERS=4 EMBD=512 HEADS=8 KV_HEADS=4 FF=1536 TOKENS=48
python3 "$SRC/examples/engines/make-gguf.py" "$PWD/model.gguf" --embd $EMBD --layers $LAYERS \
	--heads $HEADS --kv-heads $KV_HEADS --ff $FF >gguf.out || fail "make-gguf.py failed"
"$MEMTAP" record -q -o t.mtap -- node "$SRC/examples/engines/llama.mjs" "$PWD/model.gguf" $TOKENS $CTX >t.out 2>t.err ||
	fail "record failed: $(tail -3 t.err)"
grep -q "^generated" t.out || fail "llama.cpp generated nothing: $(cat t.out t.err)"
"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
"$MEMTAP" dump t.mtap --type alloc --format csv >a.csv || fail "dump failed"
python3 - r.json a.csv t.out "$PWD/model.gguf" $CTX $LAYERS $EMBD $HEADS $KV_HEADS <<'PY' || fail "the engine's memory is not answered (above)"
import csv, json, sys
r = json.load(open(sys.argv[1]))
ctx, layers, embd, heads, kv_heads = (int(x) for x in sys.argv[5:10])
t0, t1 = next(map(int, l.split()[1:3]) for l in open(sys.argv[3]) if l.startswith("generation"))
regions = r["regions"]
# the model file: weight, by the profile's path rule; write-once 1.0 exact; read throughout
w = [g for g in regions if g["label"] == sys.argv[4]]
print("gguf:", [(g["region_type"], g["typed_by"], g["bytes"], g["samples"], g["write_once_ratio"], g["write_once_basis"]) for g in w])
assert len(w) == 1, "one region for the GGUF mapping"
w = w[0]
assert w["region_type"] == "weight" and w["typed_by"] == "profile model-files: path *.gguf", w
assert w["write_once_ratio"] == 1 and w["write_once_basis"] == "read-only", w
span = t1 - t0
print("generation %.2f s; weight reads from +%.2f s to +%.2f s, %d samples" % (span / 1e9, (w["first_read_ns"] - t0) / 1e9, (w["last_read_ns"] - t0) / 1e9, w["read_samples"]))
assert w["read_samples"] >= 20, "too few samples in the weights to tell"
assert w["first_read_ns"] <= t0 + span // 4 and w["last_read_ns"] >= t1 - span // 4, "not read throughout generation"
# the KV cache: typed by the llama.cpp profile; its allocation is the computed size
kv_bytes = ctx * layers * 2 * (embd // heads * kv_heads) * 2
sizes = {}
for a in csv.DictReader(open(sys.argv[2])):
    if a["kind"] != "free":
        sizes[int(a["addr"], 16)] = int(a["size"])
kv = [g for g in regions if g["region_type"] == "kv_cache" and g.get("start")]
print("kv_cache regions:", [(g["typed_by"], g["bytes"], sizes.get(int(g["start"], 16))) for g in kv], "want", kv_bytes)
assert any(g["typed_by"].startswith("profile llama.cpp: symbol ^llama_kv_cache") and sizes.get(int(g["start"], 16)) == kv_bytes for g in kv), "no kv_cache allocation of the KV cache's size"
# the compute buffers: activation, apart from the KV cache
act = [g for g in regions if g["region_type"] == "activation"]
print("activation regions:", len(act), [g["bytes"] for g in act if g["bytes"]][:4])
assert any(g["typed_by"].startswith("profile llama.cpp") for g in act)
assert all(g["typed_by"].startswith(("profile llama.cpp", "behaviour: ")) for g in act), act
assert not {g["region_id"] for g in act} & {g["region_id"] for g in kv}
# the answer in one place: the weights lead the MRM candidates, the KV cache is among them
c = r["candidates"]
print("candidates:", [(x["kind"], x["region_type"], x["bytes"], x["write_once_ratio"], x["mrm"]) for x in c[:6]])
assert c[0]["label"] == sys.argv[4] and c[0]["region_type"] == "weight" and c[0]["write_once_ratio"] == 1, c[0]
# its label follows the rule from its own figures (write-once 1.0; the run's speed sets the
# retention): high from 10 s, medium from 1 s, else low; movable bytes only when high or
# medium. Mapped to the end (censored), a retention below 10 s decides nothing (issue 37).
want = "high_mrm" if c[0]["retention_s"] >= 10 else "medium_mrm" if c[0]["retention_s"] >= 1 else "low_mrm"
if c[0]["censored"] and want != "high_mrm":
    want = "insufficient_data"
    assert c[0]["mrm_decided_by"] == "censored" and c[0]["mrm_note"], c[0]
assert c[0]["bytes"] == w["bytes"] and c[0]["mrm"] == want, (c[0], want)
assert c[0]["movable_bytes"] == (c[0]["bytes"] if want in ("high_mrm", "medium_mrm") else 0), c[0]
assert any(x["kind"] == "site" and x["region_type"] == "kv_cache" for x in c), "no kv_cache site among the candidates"
# page-write tracking of large blocks, by default: the KV cache's and the compute buffers'
# write-once ratios are exact (their pages were tracked from allocation on), not unknown
kvg = [g for g in kv if sizes.get(int(g["start"], 16)) == kv_bytes]
print("write-once: KV cache", [(g["write_once_ratio"], g["write_once_basis"], g.get("pages_written"), g.get("pages_tracked")) for g in kvg],
      "compute", [(g["write_once_ratio"], g["write_once_basis"]) for g in act if g["write_once_basis"] != "unknown"][:3])
assert all(g["write_once_basis"] == "page-writes" and 0 <= g["write_once_ratio"] <= 1 for g in kvg), kvg
assert any(g["write_once_basis"] == "page-writes" for g in act), "no compute buffer tracked"
PY
ok "llama.cpp: the GGUF is weight (write-once 1.0, read throughout), the KV cache its computed size, compute buffers apart"
