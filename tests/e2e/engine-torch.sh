#!/bin/sh
# SPDX-License-Identifier: MIT
# PyTorch, unmodified (Debian's python3-torch), as examples/engines/torch-decoder.py drives it:
# random weights written to a .npy file and mapped read-only at load, the tensors viewing the
# mapping; greedy generation with a KV cache grown by torch.cat (and, once, the static cache).
# Recorded with default options but the sampling rate (4 kHz, below), the report must give
# (issue 16):
# - the weights' mapping typed weight by the model-files profile, write-once 1.0 exact
#   (read-only), read throughout generation;
# - the phases the example names through the memtap Python module (load, prefill,
#   generation), generation holding most of the weights' samples;
# - the KV cache typed kv_cache by the pytorch profile from the Python frames of its
#   allocation stacks (DynamicCache.update < Attention.forward < Decoder.forward), the two
#   sites of its K and V tensors with exactly layers x tokens calls and layers x sum(ctx x
#   dim x 4) bytes, each tensor living one decoding step (the lifetime p50 the report gives
#   against the median step period the example prints); the MLP's tensors typed activation;
# - the static cache run: the same weights answer, and the preallocated cache (from
#   StaticCache.__init__) is kv_cache with layers x 2 x n_ctx x dim x 4 bytes.
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw
/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || skip "python3-torch is not installed (apt-get install python3-torch)"

# Samples at 4 kHz over 128 tokens: sampling is of CPU time, and on a CPU with AVX-512 (an
# EPYC here) the matrix products that read the weights take so little of it that the default
# 1 kHz over 96 tokens gave 4 to 12 samples in the weights, and 256 tokens 9 to 13 (the
# default rate is examples/engines/torch.sh's and e2e/engine-scripts')
for cache in dynamic static; do
	PYTHONPATH="$SRC/python" "$MEMTAP" record -q --access-freq 4000 -o $cache.mtap -- /usr/bin/python3 \
		"$SRC/examples/engines/torch-decoder.py" --tokens 128 --cache $cache --dir "$PWD" >$cache.out 2>$cache.err ||
		fail "record ($cache cache) failed: $(tail -3 $cache.err)"
	"$MEMTAP" report $cache.mtap --format json -n 1000 >$cache.json || fail "report failed"
	python3 - $cache.json $cache.out <<'PY' || fail "the $cache cache run is not answered (above)"
import json, sys
r = json.load(open(sys.argv[1]))
out = [l.split() for l in open(sys.argv[2])]
path = next(l[-1] for l in out if l[0] == "model")
steps = [(int(l[2]), int(l[3])) for l in out if l[0] == "step"]
t0, t1 = steps[0][0], steps[-1][1]
w = [g for g in r["regions"] if g["label"] == path]
print("weights:", [(g["region_type"], g["typed_by"], g["bytes"], g["read_samples"], g["write_once_ratio"], g["write_once_basis"]) for g in w])
assert len(w) == 1, "one region for the weights' mapping"
w = w[0]
assert w["region_type"] == "weight" and w["typed_by"] == "profile model-files: path *.npy", w
assert w["write_once_ratio"] == 1 and w["write_once_basis"] == "read-only", w
span = t1 - t0
print("generation %.2f s; weight reads from %+.2f s to %+.2f s" % (span / 1e9, (w["first_read_ns"] - t0) / 1e9, (w["last_read_ns"] - t1) / 1e9))
assert w["read_samples"] >= 10, "too few samples in the weights to tell"
# sampled CPU time: a test run beside others may be descheduled for a while, so the first
# and last sampled reads are asked of the generation's halves, not its very ends
assert w["first_read_ns"] <= t0 + span // 2 and w["last_read_ns"] >= t1 - span // 2, "not read throughout generation"
ph = {p["phase"]: p for p in r["metrics"]["phases"]}
print("phases:", {k: v["samples"] for k, v in ph.items()})
assert {"load", "prefill", "generation"} <= set(ph) and ph["generation"]["source"] == "memtap_phase"
assert ph["generation"]["duration_ns"] >= span * 0.9, (ph["generation"]["duration_ns"], span)
c = [x for x in r["candidates"] if x["label"] == path]
assert c and c[0]["region_type"] == "weight" and c[0]["write_once_ratio"] == 1, c
# The KV cache, by the Python frames of its allocation stacks.
model = next(l for l in out if l[0] == "model")
dim, layers, cache = int(model[2]), int(model[4]), model[10]
ntok = len(steps)
n_ctx = 4 + ntok
sites = r["alloc"]["top_sites"]
region_of = {g["site_id"]: g for g in r["regions"] if g.get("site_id") is not None}
def py(s):
    return [f["function"] for f in s["frames"] if f["python"]]
def typed(s, t):
    g = region_of.get(s["site_id"])
    return g and g["region_type"] == t and g["typed_by"].startswith("profile pytorch: "), g
if cache == "dynamic":
    want = layers * sum(c * dim * 4 for c in range(5, n_ctx + 1))
    kv = [s for s in sites if py(s)[:1] == ["DynamicCache.update"] and s["bytes"] == want]
    if not kv:
        print("DynamicCache.update sites:", [(s["calls"], s["bytes"]) for s in sites if py(s)[:1] == ["DynamicCache.update"]])
    print("KV sites:", [(s["site_id"], s["calls"], s["bytes"], s["lifetime_ns"]["p50"], py(s)) for s in kv])
    assert len(kv) == 2, "the K and V tensors' two sites, %d bytes each" % want
    period = sorted(b[0] - a[0] for a, b in zip(steps, steps[1:]))[(ntok - 1) // 2]
    for s in kv:
        assert s["calls"] == layers * ntok, s["calls"]
        assert py(s)[1:3] == ["Attention.forward", "Decoder.forward"], py(s)
        assert typed(s, "kv_cache")[0], typed(s, "kv_cache")[1]
        life = s["lifetime_ns"]["p50"]
        print("KV tensor lifetime p50 %.2f ms, decoding step %.2f ms: %.3f steps" % (life / 1e6, period / 1e6, life / period))
        assert 0.85 <= life / period <= 1.18, "a per-token KV tensor lives one step"
else:
    kv = [s for s in sites if "StaticCache.__init__" in py(s)]
    print("KV sites:", [(s["site_id"], s["calls"], s["bytes"], py(s)) for s in kv])
    big = [s for s in kv if s["bytes"] == layers * n_ctx * dim * 4]
    assert len(big) == 2 and all(typed(s, "kv_cache")[0] for s in big), big
    assert all(s["calls"] == layers for s in big), big
act = [s for s in sites if "MLP.forward" in py(s) and typed(s, "activation")[0]]
assert act, "no MLP tensor typed activation"
PY
done
ok "PyTorch: the mapped weights are weight, write-once 1.0 and read throughout generation; the phases named from Python; the KV cache typed from its Python frames, each dynamic-cache tensor living one decoding step"
