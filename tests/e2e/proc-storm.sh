#!/bin/sh
# SPDX-License-Identifier: MIT
# Many processes (issue 36): a shell starting MEMTAP_STORM_N (2,000; bench/soak.sh-sized runs
# set 5,000) short processes one after another, and a program forking 100 children under a
# process limit (ulimit -u 30, as nobody: root is not held to it) so that most forks fail
# with EAGAIN. Every process the kernel made is in the trace — traced, or counted untraced
# with the reason — and none is invented: the trace's count equals the workload's own.
. "$(dirname "$0")/lib.sh"
need ptrace
N=${MEMTAP_STORM_N:-2000}
"$MEMTAP" record -q -o many.mtap -- sh -c "i=0; while [ \$i -lt $N ]; do /bin/true; i=\$((i + 1)); done" \
	2>many.err || fail "record of $N processes failed: $(cat many.err)"
"$MEMTAP" info many.mtap --format json >many.json || fail "info failed"
python3 - "$N" <<'PY' || fail "$N short processes: not every one accounted for (above)"
import json, sys
n = int(sys.argv[1])
j = json.load(open("many.json"))
procs = j["processes"]
d = [c for c in j["collectors"] if c["name"] == "alloc"][0]["details"]
true = [p for p in procs if p.get("exe", "").endswith("/true")]
traced, untraced = int(d["processes_traced"]), int(d["processes_untraced"])
print("  %d processes in the trace (%d of /bin/true); runtime: %d traced, %d untraced; lost %s" % (
      len(procs), len(true), traced, untraced, j["events"].get("lost")))
assert len(true) == n and len(procs) == n + 1, "the trace holds %d processes, want %d" % (len(procs), n + 1)
assert traced + untraced == n + 1, "traced + untraced = %d, want %d" % (traced + untraced, n + 1)
PY
ok "$N short processes: every one in the trace"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cat >forks.py <<'PY'
import os, time
kids, failed = [], 0
for i in range(100):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(0.3)
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
print("forked", len(kids), "failed", failed)
PY
	chmod 777 "$T" && chmod 644 forks.py
	command -v prlimit >/dev/null || skip "prlimit (util-linux) is not installed"
	setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --nproc=30:30 \
		"$MEMTAP" record -q -o "$T/lim.mtap" -- /usr/bin/python3 "$T/forks.py" \
		>lim.out 2>lim.err || fail "record under ulimit -u 30 failed: $(cat lim.err)"
	cat lim.out
	"$MEMTAP" info lim.mtap --format json >lim.json || fail "info failed"
	python3 - <<'PY' || fail "ulimit -u: the trace's processes are not the program's (above)"
import json
w = open("lim.out").read().split()
forked, failed = int(w[1]), int(w[3])
j = json.load(open("lim.json"))
procs = j["processes"]
d = [c for c in j["collectors"] if c["name"] == "alloc"][0]["details"]
print("  forked %d, failed %d; the trace: %d processes, %s traced, %s untraced" % (
      forked, failed, len(procs), d["processes_traced"], d["processes_untraced"]))
assert failed > 0, "no fork failed: the limit did not bite"
assert len(procs) == forked + 1, "the trace holds %d processes, the program made %d" % (len(procs), forked + 1)
PY
	ok "ulimit -u 30: the processes the kernel made, all of them, none invented"
fi
