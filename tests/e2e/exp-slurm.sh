#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap run --slurm (issue 17) against a single-node Slurm cluster this test configures,
# starts and stops (Debian's slurmctld, slurmd and munge, in its own directory, on its own
# ports and munge socket): the experiment's runs are one job array, a task per run in the
# plan's order; runs list shows every run complete; submitting again submits nothing.
. "$(dirname "$0")/lib.sh"
for p in slurmctld slurmd munged sbatch squeue sinfo scontrol; do
	command -v $p >/dev/null || skip "$p is not installed (scripts/install-deps.sh: slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" = 0 ] || skip "the test cluster runs its daemons as root"
D=$(pwd)
mkdir -p munge state spool log
chmod 700 munge
dd if=/dev/urandom of=munge/munge.key bs=1024 count=1 2>/dev/null && chmod 400 munge/munge.key
H=$(hostname -s)
cat >slurm.conf <<CONF
ClusterName=memtaptest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=16917
SlurmdPort=16918
AuthType=auth/munge
AuthInfo=socket=$D/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=memtap Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
stop_cluster() {
	scontrol shutdown >/dev/null 2>&1
	for f in slurmctld.pid slurmd.pid munge/pid; do
		[ -f "$D/$f" ] && kill "$(cat "$D/$f")" 2>/dev/null
	done
	sleep 1
	for f in slurmctld.pid slurmd.pid munge/pid; do
		[ -f "$D/$f" ] && kill -9 "$(cat "$D/$f")" 2>/dev/null
	done
}
trap 'stop_cluster; rm -rf "$T"' EXIT
munged -f --socket="$D/munge/sock" --key-file="$D/munge/munge.key" --pid-file="$D/munge/pid" \
	--log-file="$D/munge/log" --seed-file="$D/munge/seed" || fail "munged did not start: $(tail -3 munge/log)"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start: $(tail -5 log/slurmctld.log)"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start: $(tail -5 log/slurmd.log)"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	[ $i -lt 60 ] || fail "the node never became idle: $(sinfo 2>&1; tail -5 log/slurmctld.log log/slurmd.log)"
	sleep 0.5
done
ok "a single-node Slurm cluster is up ($(slurmctld -V))"

cat >exp.yaml <<YAML
experiment: on-slurm
seed: 4
repetitions: 2
validity: {idle_seconds: 0.2}
workloads:
  - name: alloc
    command: [$WORKLOADS/alloc-threads, "1", "2000"]
  - name: task
    command: "echo task \$SLURM_ARRAY_TASK_ID"
configurations:
  - name: plain
    record: [--access=off]
YAML
"$MEMTAP" run exp.yaml --slurm >job.txt 2>sub.err || fail "--slurm failed: $(cat sub.err)"
job=$(cat job.txt)
grep -q "job array $job submitted: 8 of 8 runs, 1 at once" sub.err || fail "submission: $(cat sub.err)"
R=results/on-slurm
grep -q -- '--task "$SLURM_ARRAY_TASK_ID"' $R/slurm/job.sh || fail "job script: $(cat $R/slurm/job.sh)"
i=0
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -lt 240 ] || fail "the job array did not finish: $(squeue; tail -5 log/slurmctld.log)"
	sleep 0.5
done
"$MEMTAP" runs list $R --format json >list.json || fail "runs list failed"
"$MEMTAP" plan exp.yaml --format json >plan.json || fail "plan failed"
python3 - list.json plan.json $R <<'PY' || fail "the array's runs are not the plan's (above)"
import json, sys
runs, plan = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for r in runs:
    print("%d %-6s %-8s %d %s" % (r["index"], r["workload"], r["kind"], r["rep"], r["status"]))
assert len(runs) == 8 and all(r["status"] == "ok" for r in runs), "not 8 complete runs"
want = [(p["workload"], p["kind"], p["rep"]) for p in plan["runs"]]
assert [(r["workload"], r["kind"], r["rep"]) for r in runs] == want, "not the plan's runs"
# one task at a time, in the plan's order: each run started after the one before ended
starts = [json.load(open("%s/%s/metadata.json" % (sys.argv[3], r["directory"])))["start_ns"] for r in runs]
assert starts == sorted(starts), starts
# the task of run i ran run i
for r in runs:
    if r["workload"] == "task":
        out = open("%s/%s/stdout" % (sys.argv[3], r["directory"])).read().split()
        assert out == ["task", str(r["index"])], (r, out)
PY
[ "$(ls $R/slurm/"${job}"_*.out | wc -l)" = 8 ] || fail "not 8 task logs: $(ls $R/slurm)"
ok "job array $job: 8 tasks, one per run, in the plan's order; runs list shows them complete"

"$MEMTAP" run exp.yaml --slurm >again.txt 2>again.err || fail "second --slurm failed: $(cat again.err)"
[ ! -s again.txt ] && grep -q "every run is complete: nothing submitted" again.err || fail "resubmitted: $(cat again.err)"
rm "$R/workload=task/config=plain/kind=traced/rep=2/run.json"
"$MEMTAP" run exp.yaml --slurm >third.txt 2>third.err || fail "third --slurm failed: $(cat third.err)"
grep -q "1 of 8 runs" third.err || fail "not only the incomplete run: $(cat third.err)"
ok "submitting again: nothing when complete, only the runs not complete"
