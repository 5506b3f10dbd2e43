#!/bin/sh
# SPDX-License-Identifier: MIT
# Typing by behaviour (issue 37), judged on transformers it was not tuned on and whose names
# no profile knows (workloads/tx-variants.py), and on the bundled one with the profiles off:
# - gqa: grouped-query attention, the weights copied out of a mapped file into tensors of
#   their own, the keys and values heads-major and grown by torch.cat: the weight copies
#   are weight, the K and V sites kv_cache, the attention's growing scores activation;
# - ring: the weights drawn in memory, the keys and values in one preallocated tensor per
#   layer written in place: the weights weight, the caches kv_cache;
# - examples/engines/torch-decoder.py with --profiles none: its DynamicCache's sites are
#   kv_cache without the pytorch profile's names.
# Every such region says typed_by "behaviour: ... (confidence C)", with C in (0, 1]; no
# weight is typed kv_cache or activation, no cache weight or activation. The test knows the
# answer from what the workloads print (their tensors' addresses), never from names.
. "$(dirname "$0")/lib.sh"
need perf-ring regs-sw
/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null || skip "python3-torch is not installed (apt-get install python3-torch)"

cat >judge.py <<'PY'
import json, re, sys
name, want_act = sys.argv[1], sys.argv[2] == "act"
r = json.load(open(name + ".json"))
out = [l.split() for l in open(name + ".out")]
num = lambda v: int(v, 16) if isinstance(v, str) else v
latest = {}  # the newest region at each address: the tensor the workload printed
for g in r["regions"]:
    if g.get("start") is not None and g["region_type"] in ("allocation", "heap_objects", "weight", "kv_cache", "activation"):
        a = num(g["start"])
        if a not in latest or g["start_ns"] > latest[a]["start_ns"]:
            latest[a] = g
def check(kind, addrs, want):
    # a tensor never touched by a sample, a fault or a page write has no region
    got = [g for g in (latest.get(a) for a in addrs) if g]
    typed = [g for g in got if g["region_type"] == want]
    print("%s: %d %s tensors printed, %d regions found, %d typed %s" % (name, len(addrs), kind, len(got), len(typed), want))
    assert len(got) >= 0.75 * len(addrs) and len(typed) >= 0.9 * len(got), [(g["region_type"], g["typed_by"]) for g in got][:5]
    for g in typed:
        m = re.match(r"behaviour: .* \(confidence ([0-9.]+)\)$", g["typed_by"] or "")
        assert m and 0 < float(m.group(1)) <= 1, g["typed_by"]
weights = [int(l[1]) for l in out if l[0] == "weights"]
kv = [int(l[1]) for l in out if l[0] == "kv"]
if weights:
    check("weight", weights, "weight")
if kv:
    check("kv", kv, "kv_cache")
    tracked = [latest[a] for a in kv if a in latest and latest[a]["write_once_basis"] == "page-writes"]
    print("%s: %d of %d caches below 1 MiB page-write tracked (their site's blocks reached it)" % (name, len(tracked), len(kv)))
    assert len(tracked) >= len(kv) - 1, [latest.get(a) for a in kv]
types = {}
for s in r["metrics"]["by_site"]:
    b = s["behaviour"]
    if b["region_type"]:
        types.setdefault(b["region_type"], []).append((s["site_id"], round(b["confidence"], 2), b["allocs"]))
print("%s: sites typed by behaviour: %s" % (name, {k: len(v) for k, v in types.items()}))
if not kv:  # grown caches: sites of kv_cache by behaviour, their regions typed so
    assert types.get("kv_cache"), types
    kvr = [g for g in r["regions"] if g["region_type"] == "kv_cache" and (g["typed_by"] or "").startswith("behaviour: kv-like")]
    assert kvr, "no kv_cache region typed by behaviour"
if want_act:
    assert types.get("activation"), types
bad = [g for g in latest.values() if num(g["start"]) in weights and g["region_type"] != "weight"] + \
      [g for g in latest.values() if num(g["start"]) in kv and g["region_type"] != "kv_cache"]
assert len(bad) <= 0.1 * (len(weights) + len(kv)), [(g["region_type"], g["typed_by"]) for g in bad][:5]
PY

# ring: 220 positions make each layer's cache 880 KiB, below --page-writes-min (1 MiB): its
# site's blocks add up to it at the second layer's, so that one and the third are
# page-write tracked (a site that allocates much), and seen written to the end
for layout in gqa:220 ring:220; do
	steps=${layout#*:}
	layout=${layout%:*}
	PYTHONPATH="$SRC/python" "$MEMTAP" record -q --access-freq 2000 -o $layout.mtap -- /usr/bin/python3 \
		"$SRC/tests/e2e/workloads/tx-variants.py" $layout --steps $steps --dir "$PWD" \
		>$layout.out 2>$layout.err || fail "$layout: record failed: $(tail -3 $layout.err)"
	"$MEMTAP" report $layout.mtap --format json -n 3000 >$layout.json || fail "$layout: report failed"
	act=act
	[ $layout = ring ] && act=-
	python3 judge.py $layout $act || fail "$layout: not typed by its behaviour (above)"
	ok "$layout: weights, caches and activations typed by behaviour"
done

PYTHONPATH="$SRC/python" "$MEMTAP" record -q --access-freq 2000 -o dyn.mtap -- /usr/bin/python3 \
	"$SRC/examples/engines/torch-decoder.py" --tokens 128 --dir "$PWD" >dyn.out 2>dyn.err ||
	fail "decoder: record failed: $(tail -3 dyn.err)"
"$MEMTAP" report dyn.mtap --format json -n 3000 --profiles none >dyn.json || fail "decoder: report failed"
python3 judge.py dyn - || fail "decoder: its cache is not kv_cache by behaviour without the profiles (above)"
ok "the bundled decoder without profiles: its KV cache typed by behaviour"
