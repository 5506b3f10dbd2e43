#!/bin/sh
# SPDX-License-Identifier: MIT
# Attach races (issue 36): memtap record --pid on a target that exits, execs or forks while
# the runtime is being injected, and two recorders on one target at once. Every recorder
# ends (within 30 s) with exit 0, or 1 or 2 after a reason on stderr; every target finishes
# its own work with its own output and exit status.
. "$(dirname "$0")/lib.sh"
need ptrace
[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" = 0 ] ||
	skip "attaching needs root or ptrace_scope 0"
cat >exits.py <<'PY'
import sys, time
time.sleep(float(sys.argv[1]))
print("exiting")
sys.exit(7)
PY
cat >execs.py <<'PY'
import os, sys, time
n = int(sys.argv[1])
d = [bytearray(4096) for _ in range(200)]
time.sleep(0.02)
if n > 0:
    os.execv(sys.executable, [sys.executable, sys.argv[0], str(n - 1)])
print("last image")
PY
cat >forks.py <<'PY'
import os, time
kids = []
for i in range(40):
    pid = os.fork()
    if pid == 0:
        x = [str(j) for j in range(2000)]
        os._exit(len(x) % 256)
    kids.append(pid)
    time.sleep(0.01)
print("codes", sorted({os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids}))
PY
# rec NAME PID: one recorder, 30 s at most; judged by its exit and stderr
rec() {
	timeout -s KILL 30 "$MEMTAP" record -q -o "$1.mtap" --pid "$2" --duration 2 >"$1.rout" 2>"$1.rerr"
	echo $? >"$1.rc"
}
judge() {
	rc=$(cat "$1.rc")
	[ "$rc" != 137 ] || fail "$1: the recorder did not end in 30 s"
	case $rc in
	0) ;;
	1 | 2) [ -s "$1.rerr" ] || fail "$1: exit $rc without a reason" ;;
	*) fail "$1: recorder exit $rc: $(cat "$1.rerr")" ;;
	esac
	if [ -s "$1.mtap" ]; then
		"$MEMTAP" info "$1.mtap" >/dev/null 2>"$1.ierr" || [ $? = 1 ] ||
			fail "$1: info on its trace: $(cat "$1.ierr")"
	fi
}
for d in 0 0.01 0.03 0.06 0.1 0.2; do
	python3 exits.py $d >x$d.out &
	p=$!
	rec x$d $p
	wait $p
	[ $? = 7 ] && [ "$(cat x$d.out)" = exiting ] || fail "exits after $d s: the target's status or output changed"
	judge x$d
done
ok "a target exiting while attached to (6 moments): each recorder ended, the target's status 7"
for n in 3 6; do
	python3 execs.py $n >e$n.out &
	p=$!
	sleep 0.03
	rec e$n $p
	wait $p || fail "execs $n: the target failed"
	[ "$(cat e$n.out)" = "last image" ] || fail "execs $n: its output changed: $(cat e$n.out)"
	judge e$n
done
ok "a target exec'ing itself while attached to: its last image finished"
python3 forks.py >f.out &
p=$!
sleep 0.05
rec f $p
wait $p || fail "forks: the target failed"
[ "$(cat f.out)" = "codes [208]" ] || fail "forks: the children's codes changed: $(cat f.out)"
judge f
ok "a target forking while attached to: every child's status as bare"
python3 exits.py 1.5 >two.out &
p=$!
sleep 0.1
rec two1 $p &
r1=$!
rec two2 $p &
r2=$!
wait $r1
wait $r2
wait $p
[ $? = 7 ] && [ "$(cat two.out)" = exiting ] || fail "two recorders: the target's status or output changed"
judge two1
judge two2
echo "  two recorders on one target: exits $(cat two1.rc) and $(cat two2.rc); $(cat two1.rerr two2.rerr | head -2 | tr '\n' ' ')"
ok "two recorders on one target at once: both ended, the target unharmed"
