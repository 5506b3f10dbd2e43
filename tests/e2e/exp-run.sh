#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap run (issue 17): an experiment of 2 workloads x 3 configurations (one a baseline) x 3
# repetitions runs to completion into its Hive-style tree; transparent huge pages are set per
# configuration (the workload reads them back) and restored after the experiment, after a
# failing workload and after SIGINT; an interrupted experiment run again completes only what
# is missing; a run whose files no longer match its manifest runs again.
. "$(dirname "$0")/lib.sh"
THP=/sys/kernel/mm/transparent_hugepage
[ -w $THP/enabled ] && [ -w $THP/defrag ] || skip "transparent huge pages cannot be set here (root and $THP needed)"
orig_e=$(sed 's/.*\[\(.*\)\].*/\1/' $THP/enabled)
orig_d=$(sed 's/.*\[\(.*\)\].*/\1/' $THP/defrag)
restore() { echo "$orig_e" >$THP/enabled; echo "$orig_d" >$THP/defrag; }
trap 'restore; rm -rf "$T"' EXIT
same_thp() {
	[ "$(sed 's/.*\[\(.*\)\].*/\1/' $THP/enabled)" = "$orig_e" ] &&
		[ "$(sed 's/.*\[\(.*\)\].*/\1/' $THP/defrag)" = "$orig_d" ] || fail "THP not restored $1: $(cat $THP/enabled) / $(cat $THP/defrag)"
}

cat >exp.yaml <<YAML
experiment: two-by-three
seed: 11
repetitions: 3
# These workloads are smaller than memtap's own memory in them: bounds this wide let their
# traced runs be aggregated here (e2e/exp-validity checks the classes themselves).
validity: {observer_memory: [1000, 2000], observer_cpu: [1000, 2000], idle_seconds: 0.5}
workloads:
  - name: thp
    command: [cat, $THP/enabled]
  - name: alloc
    command: [$WORKLOADS/alloc-threads, "1", "2000"]
configurations:
  - name: dry
    baseline: true
  - name: never
    record: [--access=off]
    thp: {enabled: never, defrag: never}
  - name: always
    record: [--access=off]
    thp: {enabled: always, defrag: always}
YAML
"$MEMTAP" validate exp.yaml >v.out || fail "validate: $(cat v.out)"
"$MEMTAP" run exp.yaml 2>run.err || fail "run failed: $(cat run.err)"
same_thp "after the experiment"
R=results/two-by-three
[ "$(find $R -name run.json | wc -l)" = 30 ] || fail "$(find $R -name run.json | wc -l) runs complete, 30 planned"
[ "$(find $R -path '*kind=traced*' -name trace.mtap | wc -l)" = 12 ] || fail "not 12 traces"
for c in never always; do
	for k in traced baseline; do
		grep -q "\[$c\]" "$R/workload=thp/config=$c/kind=$k/rep=2/stdout" ||
			fail "config $c ($k): the workload saw $(cat "$R/workload=thp/config=$c/kind=$k/rep=2/stdout")"
	done
done
grep -q "\[$orig_e\]" "$R/workload=thp/config=dry/kind=baseline/rep=1/stdout" || fail "dry: THP not as found"
check_json "$R/workload=alloc/config=never/kind=traced/rep=3/metadata.json" \
	'j["status"] == "ok" and j["knobs"]["thp_enabled"] == "never" and j["argv"][1] == "record" and j["wall_ns"] > 0' \
	"metadata.json of a traced run"
(cd "$R/workload=alloc/config=never/kind=traced/rep=3" && sha256sum -c --quiet manifest.sha256) || fail "manifest"
ok "2 workloads x 3 configurations x 3 repetitions: 30 runs, THP per configuration and restored"

# memtap runs stat against a recomputation from the index (SQLite) in this test.
"$MEMTAP" runs list $R --format json >list.json || fail "runs list failed"
check_json list.json 'len(j) == 30 and all(r["status"] == "ok" for r in j)' "runs list: not the 30 runs"
"$MEMTAP" runs stat $R --format json >stat.json || fail "runs stat failed"
python3 - $R/index.sqlite stat.json <<'PY' || fail "runs stat differs from the index (above)"
import json, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
def near(a, b):  # the JSON carries 10 significant digits
    return abs(a - b) <= 1e-8 * max(1.0, abs(b))
got = {(s["workload"], s["configuration"]): s for s in json.load(open(sys.argv[2]))}
assert len(got) == 6, got.keys()
for (w, c), s in got.items():
    def walls(kind):  # contaminated runs are left out of stat
        return [r[0] / 1e9 for r in db.execute(
            "SELECT wall_ns FROM runs WHERE workload=? AND config=? AND kind=? AND status='ok'"
            " AND validity IS NOT 'contaminated'", (w, c, kind))]
    t, b = walls("traced"), walls("baseline")
    main = t or b
    bad = db.execute("SELECT count(*) FROM runs WHERE workload=? AND config=? AND status='ok'"
                     " AND validity='contaminated'", (w, c)).fetchone()[0]
    assert s["traced_runs"] == len(t) and s["baseline_runs"] == len(b), s
    assert s["contaminated_runs"] == bad, (s, bad)
    if len(main) < 2:
        print("%-6s %-7s too few clean or marginal runs to check (%d contaminated)" % (w, c, bad))
        continue
    assert near(s["wall_mean_s"], statistics.mean(main)), (s, main)
    assert near(s["wall_sd_s"], statistics.stdev(main)), (s, main)
    if t:
        ratio = statistics.mean(t) / statistics.mean(b)
        assert near(s["observer_effect"], ratio), (s, ratio)
        assert s["observer_effect_ci_low"] <= ratio * (1 + 1e-8) and ratio <= s["observer_effect_ci_high"] * (1 + 1e-8), s
    else:
        assert s["observer_effect"] is None, s
    print("%-6s %-7s %d+%d runs, wall %.3f s, observer %s" % (w, c, len(t), len(b), s["wall_mean_s"], s["observer_effect"]))
PY
ok "runs list and stat match the index (counts, means, sd, observer effect and its interval)"

# runs compare: each figure's mean under both configurations, B/A and its interval, from
# the same index; contaminated runs left out as in stat.
"$MEMTAP" runs compare $R never always --include-contaminated --format json >cmp.json || fail "runs compare failed"
"$MEMTAP" runs compare $R never always >cmp.txt || fail "runs compare (text) failed"
python3 - $R/index.sqlite cmp.json <<'PY' || fail "runs compare differs from the index (above)"
import json, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
j = json.load(open(sys.argv[2]))
assert j["kind"] == "traced" and len(j["workloads"]) == 2, j
for w in j["workloads"]:
    def col(c, expr):
        return [r[0] for r in db.execute("SELECT %s FROM runs WHERE workload=? AND config=? AND kind='traced'"
                                         " AND status='ok'" % expr, (w["workload"], c))]
    for fig, expr in (("wall_s", "wall_ns / 1e9"), ("peak_rss_bytes", "peak_rss_bytes"), ("faults", "faults_minor + faults_major")):
        a, b = statistics.mean(col("never", expr)), statistics.mean(col("always", expr))
        f = w[fig]
        assert abs(f["a"] - a) <= 1e-8 * a and abs(f["b"] - b) <= 1e-8 * b, (fig, f, a, b)
        assert abs(f["ratio"] - b / a) <= 1e-8 * b / a and f["ci_low"] <= f["ratio"] * (1 + 1e-8) <= f["ci_high"] * (1 + 2e-8), (fig, f)
        print("%-5s %-14s never %.6g  always %.6g  %.3fx [%.3f, %.3f]" % (w["workload"], fig, a, b, f["ratio"], f["ci_low"], f["ci_high"]))
PY
ok "runs compare: means, ratios and intervals match the index"

# Resume: nothing to do; a run whose stdout no longer matches its manifest runs again.
"$MEMTAP" run exp.yaml 2>again.err || fail "second run: $(cat again.err)"
grep -q "0 ok, 0 failed, 30 complete before" again.err || fail "second run ran something: $(cat again.err)"
echo tampered >"$R/workload=thp/config=always/kind=traced/rep=1/stdout"
"$MEMTAP" run exp.yaml 2>again.err || fail "third run: $(cat again.err)"
grep -q "1 ok, 0 failed, 29 complete before" again.err || fail "a tampered run not run again: $(cat again.err)"
ok "run again: complete runs skipped, a run that fails its manifest run again"

# SIGINT: the current run stops, knobs go back, the next run completes only what is missing.
rm -rf results
sed 's/"2000"\]/"2000000"]/' exp.yaml >slow.yaml
"$MEMTAP" run slow.yaml 2>int.err &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "interrupted run: exit status $rc"
same_thp "after SIGINT"
n1=$(find results -name run.json | wc -l)
[ "$n1" -lt 30 ] || fail "the interrupt came too late ($n1 runs complete)"
find results -name run.json -exec stat -c '%n %Y %i' {} + | sort >before.txt
"$MEMTAP" run slow.yaml 2>resume.err || fail "resume failed: $(cat resume.err)"
[ "$(find results -name run.json | wc -l)" = 30 ] || fail "resume left runs missing"
grep -q "complete before" resume.err && grep -q " $n1 complete before" resume.err ||
	fail "resume did not skip the $n1 complete runs: $(cat resume.err)"
find results -name run.json -exec stat -c '%n %Y %i' {} + | sort | grep -F -f before.txt | cmp -s - before.txt ||
	fail "complete runs were rewritten"
ok "SIGINT after $n1 runs: exit 130, THP restored; run again completes the other $((30 - n1))"

# A failing workload: recorded as failed with its reason, the experiment goes on, THP restored.
cat >fail.yaml <<YAML
experiment: failing
workloads:
  - name: bad
    command: "echo broken >&2; exit 4"
  - name: good
    command: [true]
configurations:
  - name: never
    baseline: true
    thp: {enabled: never}
YAML
"$MEMTAP" run fail.yaml 2>fail.err
rc=$?
[ $rc = 1 ] || fail "a failing workload: exit status $rc"
same_thp "after a failing workload"
grep -q "workload=bad/config=never/kind=baseline/rep=1): exit status 4" fail.err || fail "no reason: $(cat fail.err)"
check_json results/failing/workload=good/config=never/kind=baseline/rep=1/metadata.json 'j["status"] == "ok"' \
	"the experiment did not go on after a failing run"
ok "a failing workload: failed with its reason, the others run, THP restored"

# CPU and NUMA placement and perf's limits: the workload on its CPUs and node (set by memtap
# record for a traced run, by memtap run for a baseline), memtap on its own CPUs, the perf
# sysctls set for the configuration and restored after it.
P=/proc/sys/kernel
orig_rate=$(cat $P/perf_event_max_sample_rate) orig_pct=$(cat $P/perf_cpu_time_max_percent)
last=$(($(nproc) - 1))
[ -d /sys/devices/system/node/node0 ] && node="numa_node: 0" || node=""
cat >place.yaml <<YAML
experiment: placed
workloads:
  - name: where
    command: "grep -E 'Cpus_allowed_list|Mems_allowed_list' /proc/self/status; grep Cpus_allowed_list /proc/\$PPID/status; cat $P/perf_event_max_sample_rate $P/perf_cpu_time_max_percent"
configurations:
  - name: pinned
    cpus: "$last"
    memtap_cpus: "0"
    $node
    perf: {max_sample_rate: 4000, cpu_time_max_percent: 7}
    record: [--access=off]
YAML
"$MEMTAP" run place.yaml 2>place.err || fail "placement: $(cat place.err)"
for k in traced baseline; do
	o=results/placed/workload=where/config=pinned/kind=$k/rep=1/stdout
	sed -n 1p $o | grep -q "Cpus_allowed_list:[[:space:]]*$last\$" || fail "$k: the workload not on CPU $last: $(cat $o)"
	[ -z "$node" ] || sed -n 2p $o | grep -q "Mems_allowed_list:[[:space:]]*0\$" || fail "$k: memory not on node 0: $(cat $o)"
	[ "$(sed -n 4,5p $o | tr '\n' ' ')" = "4000 7 " ] || fail "$k: perf limits not set: $(cat $o)"
done
sed -n 3p results/placed/workload=where/config=pinned/kind=traced/rep=1/stdout | grep -q "Cpus_allowed_list:[[:space:]]*0\$" ||
	fail "memtap record not on CPU 0: $(cat results/placed/workload=where/config=pinned/kind=traced/rep=1/stdout)"
[ "$(cat $P/perf_event_max_sample_rate) $(cat $P/perf_cpu_time_max_percent)" = "$orig_rate $orig_pct" ] ||
	fail "perf limits not restored: $(cat $P/perf_event_max_sample_rate) $(cat $P/perf_cpu_time_max_percent)"
check_json results/placed/workload=where/config=pinned/kind=traced/rep=1/metadata.json \
	'j["knobs"]["perf_max_sample_rate"] == 4000 and j["knobs"]["cpus"] == "'$last'" and j["knobs"]["memtap_cpus"] == "0"' \
	"metadata.json: the knobs as applied"
ok "cpus, memtap_cpus${node:+, numa_node} and perf's limits applied per run and restored"
