#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap probe: valid JSON, a reason for every unavailable feature, and facts that can be
# cross-checked against the machine.
. "$(dirname "$0")/lib.sh"

"$MEMTAP" probe --format json >p.json || fail "probe failed"
check_json p.json 'all(f["detail"] for f in j["features"]) and len(j["features"]) >= 20' "every feature explains itself"
feats() { python3 -c "import json; f={x['id']: x for x in json.load(open('p.json'))['features']}; $1"; }
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	feats 'assert not f["pebs"]["available"] and not f["ibs"]["available"] and not f["spe"]["available"]
assert "PMU" in f["pebs"]["detail"] or "not an Intel" in f["pebs"]["detail"], f["pebs"]["detail"]
assert not f["hw-sampling"]["available"] and "no hardware PMU" in f["hw-sampling"]["detail"]' \
		|| fail "no CPU PMU here, yet probe claims precise or hardware sampling"
	ok "no CPU PMU: precise sampling reported unavailable, with the reason"
fi
feats 'assert f["regs-sw"]["available"] == f["perf"]["available"]' || fail "cpu-clock register sampling"
feats 'assert f["regs-sw"]["available"] or f["regs-hw"]["available"]' && ok "user-register sampling works"
MEMTAP_DISABLE_FEAT=all "$MEMTAP" probe --format json >d.json || fail "probe with everything disabled"
check_json d.json 'not any(f["available"] for f in j["features"])' "MEMTAP_DISABLE_FEAT=all"
ok "MEMTAP_DISABLE_FEAT=all turns every feature off"
"$MEMTAP" probe >p.txt || fail "text probe"
grep -q "precise memory sampling: Intel PEBS" p.txt || fail "text probe lacks PEBS row"
ok "text table"
