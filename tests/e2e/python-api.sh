#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python module (python/memtap): without memtap every call does nothing and says so
# (False), the program's output unchanged; under memtap record a labelled buffer becomes a
# region of its type, name and exact size, and a phase block a phase (issue 16). With
# Debian's python3-torch, a tensor labelled through data_ptr()/nbytes too.
. "$(dirname "$0")/lib.sh"
need perf-ring

cat >w.py <<'PY'
import sys
import memtap
buf = bytearray(8 << 20)
print("active", memtap.active(), "label", memtap.label_buffer(buf, "kv_cache", "blk0"))
with memtap.phase("generation"):
    for k in range(40):
        for i in range(0, len(buf), 4096):
            buf[i] = k & 0xff
t = None
try:
    import torch
    t = torch.ones(1 << 20)
    print("tensor", memtap.label(t.data_ptr(), t.element_size() * t.numel(), "activation", "ones"), t.data_ptr(), t.element_size() * t.numel())
except ImportError:
    pass
print("unlabel", memtap.unlabel(buf), sum(buf[::4096]))
PY
PYTHONPATH="$SRC/python" /usr/bin/python3 w.py >bare.out 2>bare.err || fail "the script fails bare: $(cat bare.err)"
grep -q "^active False label False" bare.out || fail "without memtap the module claims to record: $(cat bare.out)"
PYTHONPATH="$SRC/python" "$MEMTAP" record -q -o t.mtap -- /usr/bin/python3 w.py >rec.out 2>rec.err || fail "record failed: $(cat rec.err)"
grep -q "^active True label True" rec.out || fail "under memtap the module does not record: $(cat rec.out)"
sed 's/True/False/g; s/tensor False [0-9]* /tensor X /; s/tensor True [0-9]* /tensor X /' rec.out >rec.cmp
sed 's/tensor False [0-9]* /tensor X /' bare.out >bare.cmp
cmp -s bare.cmp rec.cmp || fail "the program's output differs under memtap"
"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
python3 - r.json rec.out <<'PY' || fail "the labels or the phase are not in the report (above)"
import json, sys
r = json.load(open(sys.argv[1]))
kv = [g for g in r["regions"] if g["region_type"] == "kv_cache" and g["label"] == "blk0"]
print("kv_cache:", [(g["bytes"], g["typed_by"], g["end_ns"]) for g in kv])
assert len(kv) == 1 and kv[0]["bytes"] == 8 << 20 and kv[0]["typed_by"] == "memtap_label" and kv[0]["end_ns"], kv
ph = [p for p in r["metrics"]["phases"] if p["phase"] == "generation"]
assert ph and ph[0]["source"] == "memtap_phase" and ph[0]["duration_ns"] > 0, r["metrics"]["phases"]
for line in open(sys.argv[2]):
    if line.startswith("tensor"):
        _, ok, addr, n = line.split()
        act = [g for g in r["regions"] if g["label"] == "ones"]
        print("tensor:", [(g["region_type"], g["start"], g["bytes"]) for g in act])
        assert ok == "True" and len(act) == 1 and int(act[0]["start"], 16) == int(addr) and act[0]["bytes"] == int(n)
PY
ok "python module: no-ops without memtap; under it, labels and phases as the report shows them"
