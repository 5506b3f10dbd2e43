#!/bin/sh
# SPDX-License-Identifier: MIT
# Validity ("tier 3"): the synthetic trace tests/data/behavior.txt, whose answers were
# computed by hand (see its header), gives exactly those answers.
. "$(dirname "$0")/lib.sh"

"$TOOL" gen-text "$SRC/tests/data/behavior.txt" b.mtap || fail "gen-text failed"
"$MEMTAP" report b.mtap --format json >r.json || fail "report failed"
T_=$(printf '%s' "{t['region_type']: t for t in j['metrics']['by_type']}")

check_json r.json "abs(($T_)['weight']['retention_p99_s'] - 30.0) < 1e-9" "weight retention p99 is not 30 s"
check_json r.json "($T_)['weight']['write_once_ratio'] == 1 and ($T_)['weight']['mrm'] == 'high_mrm'" \
	"the read-only weights are not write-once high_mrm"
check_json r.json "abs(($T_)['weight']['mean_stride_bytes'] - 2752 / 29) < 1e-6 and ($T_)['weight']['median_stride_bytes'] == 64 and ($T_)['weight']['same_page_fraction'] == 1" \
	"weight locality is not mean 2752/29 B, median 64 B, same page 1"
check_json r.json "[($T_)['weight'][k] for k in ('iai_p50_ns', 'iai_p90_ns', 'iai_p99_ns')] == [4000000000] * 3 and ($T_)['weight']['n_intervals'] == 26" \
	"weight IAI is not 4 s at every percentile over 26 intervals"
check_json r.json "($T_)['weight']['total_reads'] == 30 and ($T_)['weight']['total_writes'] == 0 and ($T_)['weight']['read_fraction'] == 1" \
	"weight read frequency is off"
check_json r.json "($T_)['kv_cache']['regions'] == 4 and abs(($T_)['kv_cache']['retention_p50_s'] - 0.5) < 1e-9 and abs(($T_)['kv_cache']['retention_p99_s'] - 0.5) < 1e-9 and abs(($T_)['kv_cache']['lifetime_p50_s'] - 0.6) < 1e-9" \
	"KV blocks: not 4 with retention 0.5 s and lifetime 0.6 s"
check_json r.json "($T_)['kv_cache']['write_once_ratio'] == 1 and ($T_)['kv_cache']['mrm'] == 'low_mrm' and ($T_)['kv_cache']['iai_p50_ns'] == 300000000" \
	"short-lived KV blocks are not write-once low_mrm with IAI 0.3 s"
# One sampled store in 29 s; the page-write epochs still show every page rewritten.
check_json r.json "($T_)['activation']['total_writes'] == 1 and ($T_)['activation']['write_once_ratio'] == 0 and ($T_)['activation']['mrm'] == 'low_mrm'" \
	"the activation buffer rewritten every step comes out write-once"
check_json r.json "[r for r in j['regions'] if r['label'] == 'act0'][0]['pages_rewritten'] == 4" \
	"the activation's 4 pages are not all rewritten"
P_=$(printf '%s' "{p['phase']: p for p in j['metrics']['phases']}")
check_json r.json "sorted(k for k in ($P_) if k) == ['generation', 'teardown', 'weight_load'] and ($P_)['generation']['duration_ns'] == 29.5 * 10**9" \
	"phases are not weight_load, generation (29.5 s), teardown"
check_json r.json "($P_)['generation']['pages_written'] == 4 * 4 + 29 * 4 and ($P_)['teardown']['pages_written'] == 0" \
	"pages written per phase are off"
check_json r.json "j['metrics']['working_set']['peak_pages'] == 5 and j['metrics']['page_writes']['unattributed_pages'] == 0" \
	"working-set peak is not 5 pages (one weight page + 4 written)"
ok "hand-computed metrics of the synthetic trace"

# The thresholds are the user's: with retention p99 >= 31 s the weights, alive at the end
# with 30 s so far (censored), are medium at least and high undecided: a longer run decides.
"$MEMTAP" report b.mtap --format json --section metrics --mrm 0.8,31,0.5,1 >r2.json || fail "--mrm failed"
check_json r2.json "($T_)['weight']['mrm'] == 'insufficient_data' and ($T_)['weight']['mrm_decided_by'] == 'censored' and ($T_)['weight']['mrm_note'].endswith('high_mrm needs 31 s')" "--mrm is not applied"
"$MEMTAP" report b.mtap --format json --section metrics --mrm 0,0,0,0 >r0.json || fail "--mrm 0,0,0,0 failed"
check_json r0.json "j['metrics']['mrm_rule']['high_retention_p99_s'] == 0 and ($T_)['kv_cache']['mrm'] == 'high_mrm'" \
	"--mrm 0,0,0,0 is taken for the defaults"
"$MEMTAP" report b.mtap --mrm 0.8,x >/dev/null 2>e.txt && fail "--mrm 0.8,x accepted"
grep -q "four numbers" e.txt || fail "--mrm error does not say what it wants: $(cat e.txt)"
# CSV: one row per region type, the metric names as columns.
"$MEMTAP" report b.mtap --format csv --section metrics >m.csv || fail "csv failed"
head -1 m.csv | grep -q '^region_type,regions,total_reads,total_writes,read_fraction' || fail "csv header: $(head -1 m.csv)"
grep -q '^weight,1,30,0,1,0,30,30,30,' m.csv || fail "csv weight row: $(grep ^weight m.csv)"
ok "thresholds, CSV"

# --rules: a path glob types the tokenizer's mapping; labels still win over rules.
"$MEMTAP" report b.mtap --format json --section metrics --profiles none --rules "$SRC/tests/data/rules-good.yaml" >r3.json || fail "--rules failed"
check_json r3.json "($T_)['tokenizer']['regions'] == 1 and ($T_)['tokenizer']['total_reads'] == 2 and ($T_)['weight']['regions'] == 1 and j['metrics']['rules'] == {'rules': 2, 'regions_typed': 1}" \
	"the path rule does not make the tokenizer mapping a 'tokenizer' region"
ok "rules"

# --by: the metrics table per phase and per region, as CSV for scripts.
"$MEMTAP" report b.mtap --format csv --section metrics --by phase >p.csv || fail "--by phase failed"
[ "$(head -1 p.csv)" = "phase,duration_ns,samples,faults,pages_written,wss_peak_pages,wss_mean_pages" ] ||
	fail "--by phase header: $(head -1 p.csv)"
grep -q '^generation,29500000000,' p.csv || fail "--by phase: generation row: $(grep ^generation p.csv)"
"$MEMTAP" report b.mtap --format csv --section metrics --by region >g.csv || fail "--by region failed"
grep -q '^[0-9]*,activation,act0,16384,1,,30,0,page-writes,' g.csv || fail "--by region: act0 row: $(grep act0 g.csv)"
ok "--by phase, --by region"

# A phase's working-set windows are its own (tests/data/phase-window.txt): a 90 ms phase
# across the run's 100 ms window boundary is one window of 10 pages, not 5 + 5.
"$TOOL" gen-text "$SRC/tests/data/phase-window.txt" pw.mtap || fail "gen-text (phase windows) failed"
"$MEMTAP" report pw.mtap --format json --section metrics >pw.json || fail "report (phase windows) failed"
check_json pw.json "($P_)['load']['wss_peak_pages'] == 10 and ($P_)['decode']['wss_peak_pages'] == 3 and ($P_)['decode']['wss_mean_pages'] == 2 and j['metrics']['working_set']['peak_pages'] == 5" \
	"phase working sets do not follow the phases' own windows"
ok "phase windows"

# Reuse distance: 4 rounds over 4096 distinct lines of one labelled buffer: every reuse has
# 4095 other lines in between; SHARDS follows about 1/16 of them and scales back.
python3 - >rd.txt <<'PY'
print("mmap t=0 pid=7 addr=0x500000000 len=262144 prot=3")
print("label t=0 pid=7 op=label addr=0x500000000 len=262144 region_type=scan name=buf")
t = 1000
for r in range(4):
    for k in range(4096):
        print(f"access t={t} pid=7 addr=0x{0x500000000 + k * 64:x} kind=load weight=1 mechanism=timer")
        t += 1000
PY
"$TOOL" gen-text rd.txt rd.mtap || fail "gen-text (reuse) failed"
"$MEMTAP" report rd.mtap --format json --section metrics >rd.json || fail "report (reuse) failed"
check_json rd.json "abs(($T_)['scan']['reuse_p50_lines'] - 4095) < 0.15 * 4095 and ($T_)['scan']['reuse_far'] == 0" \
	"reuse distance of a 4096-line cyclic scan is not about 4095 lines"
check_json rd.json "abs(($T_)['scan']['reuse_cold'] * 16 - 4096) < 0.3 * 4096 and ($T_)['scan']['reuses'] == 3 * ($T_)['scan']['reuse_cold']" \
	"SHARDS does not follow about 1/16 of the lines, each reused 3 times"
ok "reuse distance (SHARDS)"
