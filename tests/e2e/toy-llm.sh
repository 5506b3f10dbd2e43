#!/bin/sh
# SPDX-License-Identifier: MIT
# The toy LLM-inference example (examples/toy-llm.c), recorded: the report classifies its
# weights high_mrm, its short-lived KV blocks low_mrm by their real lifetimes, its
# activations (rewritten every token) as not write-once, and shows per-phase working sets.
. "$(dirname "$0")/lib.sh"
need perf-ring vm-readv regs-sw

TOY=$(dirname "$MEMTAP")/examples/toy-llm
[ -x "$TOY" ] || fail "no $TOY"
# A fixed sampling rate: the default is calibrated to the machine's cost and can fall far
# under CI load, and retention ends at the last *sampled* read of the weights.
"$MEMTAP" record -q -f --access-freq 2000 -o t.mtap -- "$TOY" 12 >out.txt 2>err.txt ||
	fail "record failed: $(cat err.txt)"
grep -q "^toy-llm: [0-9]* tokens" out.txt || fail "the example's output changed: $(cat out.txt)"
"$MEMTAP" report t.mtap --format json >r.json || fail "report failed"
python3 - r.json <<'PY' || skip "page-write tracking is unavailable on this machine (see memtap report)"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit({c["name"]: c["status"] for c in j["run"]["collectors"]}["pagewrites"] != "active")
PY
T_="{t['region_type']: t for t in j['metrics']['by_type']}"
P_="{p['phase']: p for p in j['metrics']['phases']}"
python3 - r.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = {x["region_type"]: x for x in j["metrics"]["by_type"]}
for k in ("weight", "kv_cache", "activation"):
    print(k, {f: t[k][f] for f in ("regions", "samples", "write_once_ratio", "lifetime_p50_s",
                                   "retention_p50_s", "retention_p99_s", "mrm", "wss_peak_pages")})
print({p["phase"]: (p["duration_ns"], p["wss_peak_pages"]) for p in j["metrics"]["phases"]})
PY
check_json r.json "($T_)['weight']['mrm'] == 'high_mrm' and ($T_)['weight']['write_once_ratio'] == 1 and ($T_)['weight']['retention_p99_s'] >= 10" \
	"the weights are not high_mrm (write-once, retained >= 10 s)"
check_json r.json "($T_)['kv_cache']['regions'] >= 30 and ($T_)['kv_cache']['write_once_ratio'] >= 0.95 and ($T_)['kv_cache']['lifetime_p50_s'] < 1 and ($T_)['kv_cache']['mrm'] == 'low_mrm'" \
	"the KV blocks are not >= 30 short-lived write-once low_mrm blocks (a loaded machine makes fewer tokens)"
check_json r.json "($T_)['activation']['write_once_ratio'] <= 0.1 and ($T_)['activation']['mrm'] == 'low_mrm'" \
	"the activations rewritten every token come out write-once"
check_json r.json "($P_)['weight_load']['wss_peak_pages'] >= 2048 and ($P_)['generation']['wss_peak_pages'] > 0 and 'teardown' in ($P_) and ($P_)['generation']['duration_ns'] >= 11 * 10**9" \
	"per-phase working sets: loading must touch the 2048 weight pages; generation ~12 s"
check_json r.json "any(s['allocated_bytes'] and s['pages_touched'] and s['faults'] for s in j['metrics']['by_site'])" \
	"the per-site view joins no heap bytes with pages touched and faults"
# --rules: a symbol rule types the loading buffer's allocation by its stack; a phase rule puts
# the samples taken in main() in a phase of their own.
printf 'types: [load_buffer]\nrules:\n  - symbol: "^make_weights$"\n    region_type: load_buffer\nphases:\n  - symbol: "^main$"\n    phase: in_main\n' >rules.yaml
"$MEMTAP" report t.mtap --format json --section metrics --rules rules.yaml >rr.json || fail "report --rules failed"
check_json rr.json "'load_buffer' in ($T_) and j['metrics']['rules']['regions_typed'] >= 1" \
	"the symbol rule does not type make_weights' buffer"
check_json rr.json "($P_)['in_main']['source'] == 'rule' and ($P_)['in_main']['samples'] > 0 and ($P_)['in_main']['duration_ns'] is None" \
	"the phase rule puts no samples in 'in_main'"
ok "toy LLM: weights high_mrm, KV blocks low_mrm (short-lived), activations not write-once, phases"
