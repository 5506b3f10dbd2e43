#!/bin/sh
# SPDX-License-Identifier: MIT
# Validity classes (issue 17): a run made deliberately contaminated — stress-ng busy on the
# other CPU, started by the workload's setup and stopped by its teardown — is classified
# contaminated with its reason (background CPU), kept in the index and in metadata.json, and
# left out of runs stat (unless --include-contaminated); the same workload without the
# neighbour is not. Each run's telemetry is in its metadata.json; runs show prints one run;
# DuckDB reads the whole results tree with Hive partitioning, as the index says.
. "$(dirname "$0")/lib.sh"
command -v stress-ng >/dev/null || skip "stress-ng is not installed (scripts/install-deps.sh)"
[ "$(nproc)" -ge 2 ] || skip "one CPU: no other CPU for the neighbour"
cat >exp.yaml <<'YAML'
experiment: neighbours
seed: 5
repetitions: 2
validity: {idle_seconds: 1}
workloads:
  - name: alone
    command: [stress-ng, --cpu, "1", --cpu-method, int64, --timeout, "2", -q]
  - name: beside-hog
    command: [stress-ng, --cpu, "1", --cpu-method, int64, --timeout, "2", -q]
    setup: "stress-ng --cpu 1 --cpu-method int64 --timeout 30 -q >/dev/null 2>&1 </dev/null & echo $! >hog.pid"
    teardown: "kill $(cat hog.pid); rm -f hog.pid"
configurations:
  - name: plain
    record: [--access=off]
YAML
"$MEMTAP" run exp.yaml 2>run.err || fail "run failed: $(cat run.err)"
R=results/neighbours
"$MEMTAP" runs list $R --format json >list.json || fail "runs list failed"
python3 - list.json <<'PY' || fail "the neighbour's runs are not contaminated, or the others are (above)"
import json, statistics, sys
runs = json.load(open(sys.argv[1]))
for r in runs:
    print("%-10s %-8s %d  %-12s background %5.1f %%  %s" % (r["workload"], r["kind"], r["rep"], r["validity"],
          r["background_cpu_pct"], r["validity_reason"]))
hog = [r for r in runs if r["workload"] == "beside-hog"]
alone = [r for r in runs if r["workload"] == "alone"]
assert len(hog) == 4 and len(alone) == 4 and all(r["status"] == "ok" for r in runs)
assert all(r["validity"] == "contaminated" and "background CPU" in r["validity_reason"] for r in hog)
assert all("background CPU" not in r["validity_reason"] for r in alone)
# the neighbour took one CPU of the machine's: that share, and none without it
share = 100.0 / len(open("/proc/cpuinfo").read().split("processor\t")[1:])
assert statistics.median(r["background_cpu_pct"] for r in hog) > 0.75 * share
assert statistics.median(r["background_cpu_pct"] for r in alone) < 0.25 * share
PY
ok "stress-ng on the other CPU: every run beside it contaminated (background CPU), none without"

m=$R/workload=beside-hog/config=plain/kind=traced/rep=1/metadata.json
check_json "$m" 'j["validity"]["class"] == "contaminated" and j["validity"]["reason"].startswith("background CPU")
and j["telemetry"]["idle_baseline_cpu_pct"] is not None and j["telemetry"]["steal_pct"] is not None
and "throttle_events" in j["telemetry"] and "cpu_freq_mhz" in j["telemetry"]
and j["observer"]["recorder_cpu_ns"] > 0 and j["observer"]["cpu_pct"] is not None
and j["observer"]["memory_pct"] is not None and j["figures"]["peak_rss_bytes"] > 0' "metadata.json: telemetry, observer, validity"
n=$(python3 -c "import json; print(next(r['index'] for r in json.load(open('list.json')) if r['workload'] == 'beside-hog' and r['kind'] == 'traced' and r['rep'] == 1))")
"$MEMTAP" runs show $R "$n" >show.txt || fail "runs show failed"
grep -q "validity .*contaminated: background CPU" show.txt || fail "runs show: no class and reason: $(cat show.txt)"
"$MEMTAP" runs show $R "workload=beside-hog/config=plain/kind=traced/rep=1/" --format json | cmp -s - "$m" ||
	fail "runs show --format json is not the run's metadata.json"
ok "metadata.json carries telemetry, memtap's own cost and the class; runs show prints them"

"$MEMTAP" runs stat $R --format json >stat.json || fail "runs stat failed"
"$MEMTAP" runs stat $R --format json --include-contaminated >all.json || fail "runs stat --include-contaminated failed"
python3 - $R/index.sqlite stat.json all.json <<'PY' || fail "runs stat does not leave the contaminated runs out (above)"
import json, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
for path, with_bad in ((sys.argv[2], False), (sys.argv[3], True)):
    for s in json.load(open(path)):
        q = "SELECT wall_ns FROM runs WHERE workload=? AND kind='traced' AND status='ok'"
        if not with_bad:
            q += " AND validity != 'contaminated'"
        t = [r[0] / 1e9 for r in db.execute(q, (s["workload"],))]
        bad = db.execute("SELECT count(*) FROM runs WHERE workload=? AND validity='contaminated'", (s["workload"],)).fetchone()[0]
        print(s["workload"], "with" if with_bad else "without", "contaminated:", s["traced_runs"], "traced runs,", s["contaminated_runs"], "left out")
        assert s["traced_runs"] == len(t) and s["contaminated_runs"] == (0 if with_bad else bad), s
        if t:
            assert abs(s["wall_mean_s"] - statistics.mean(t)) <= 1e-8 * statistics.mean(t), s
        else:
            assert s["wall_mean_s"] is None, s
PY
ok "runs stat leaves contaminated runs out, --include-contaminated counts them"

need_npm @duckdb/node-api@1.5.6-r.1
node "$NPM_DIR/duck-query.mjs" "select workload, kind, count(*) n, count(*) filter (where validity.class = 'contaminated') bad
	from read_json_auto('$R/*/*/*/*/metadata.json', hive_partitioning = true) group by all order by all" >duck.json ||
	fail "DuckDB cannot read the results tree"
python3 - $R/index.sqlite duck.json <<'PY' || fail "DuckDB's table differs from the index (above)"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = [list(r) for r in db.execute("SELECT workload, kind, count(*), sum(validity = 'contaminated') FROM runs GROUP BY 1, 2 ORDER BY 1, 2")]
got = [[r["workload"], r["kind"], int(r["n"]), int(r["bad"])] for r in json.load(open(sys.argv[2]))]
print("DuckDB:", got)
assert got == want, (got, want)
PY
ok "DuckDB reads the results tree with Hive partitioning: the same runs and classes as the index"
