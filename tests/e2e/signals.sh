#!/bin/sh
# SPDX-License-Identifier: MIT
# Signal deaths become 128+N; signals sent to memtap reach the workload; job control works.
. "$(dirname "$0")/lib.sh"
need ptrace

"$MEMTAP" record -q -o k.mtap -- sh -c 'kill -9 $$'
[ $? = 137 ] || fail "SIGKILL death is not 137"
"$MEMTAP" info k.mtap --format json >k.json
check_json k.json 'j["processes"][0]["exit_status"] == 137 and j["processes"][0]["signal"] == 9' "signal in trace"
ok "killed by SIGKILL: 137"

"$MEMTAP" record -q -o t.mtap -- sh -c 'trap "echo got-term; kill \$!; exit 7" TERM; sleep 5 & wait' >term.out &
mp=$!
sleep 0.5
kill -TERM $mp
wait $mp
rc=$?
[ "$rc" = 7 ] || fail "SIGTERM to memtap: exit $rc, not 7"
grep -q got-term term.out || fail "the workload never saw SIGTERM"
ok "SIGTERM forwarded; the workload's handler exit 7 passed through"

"$MEMTAP" record -q -o h.mtap -- sh -c 'trap "kill \$!; exit 9" HUP; sleep 5 & wait' &
mp=$!
sleep 0.5
kill -HUP $mp
wait $mp
[ $? = 9 ] || fail "SIGHUP not forwarded"
ok "SIGHUP forwarded"

"$MEMTAP" record -q -o s.mtap -- sh -c 'sleep 0.4; echo resumed' >s.out &
mp=$!
sleep 0.1
w=$(pgrep -P $mp | head -1)
[ -n "$w" ] || fail "no workload process"
kill -STOP "$w"
sleep 0.6
grep -q resumed s.out && fail "the workload ran while stopped"
kill -CONT "$w"
wait $mp
[ $? = 0 ] || fail "stop/continue changed the exit status"
grep -q resumed s.out || fail "the workload did not resume"
ok "SIGSTOP/SIGCONT job control preserved"

# A signal sent to memtap's whole process group reaches the workload once: memtap in a
# session of its own (a supervisor, a batch job: the command gets its own group), and
# memtap as a terminal's foreground job (script(1)'s pty: one group, nothing passed on);
# the workload's kill(0) of its own group likewise. script(1) runs its command through
# $SHELL or /bin/sh, and dash stays as the session's leader: "exec" makes memtap the leader,
# as a terminal's shell would be beside it (a signal to the group must not end the session,
# which would hang the terminal up and lose the workload's output).
S=$WORKLOADS/sigcount
killpg() { python3 -c 'import os, signal, sys; os.killpg(int(sys.argv[2]), getattr(signal, "SIG" + sys.argv[1]))' "$1" "$2"; }
setsid "$MEMTAP" record -q -o g1.mtap -- "$S" 1.5 >g1.out 2>g1.err &
for i in $(seq 50); do grep -q ready g1.err 2>/dev/null && break; sleep 0.05; done
mp=$(pgrep -f "record -q -o g1.mtap" | head -1)
[ -n "$mp" ] || fail "no memtap process for the group test"
killpg TERM "$mp"
killpg HUP "$mp"
wait
grep -q '^TERM=1 HUP=1 INT=0$' g1.out || fail "group signals, own session: $(cat g1.out) (want TERM=1 HUP=1)"
setsid "$MEMTAP" record -q -o g2.mtap -- "$S" self >g2.out 2>/dev/null
grep -q '^TERM=1 ' g2.out || fail "the workload's kill(0): $(cat g2.out) (want TERM=1)"
if command -v script >/dev/null; then
	script -qfec "exec \"$MEMTAP\" record -q -o g3.mtap -- \"$S\" 1.5" /dev/null >g3.out 2>&1 &
	sp=$!
	for i in $(seq 50); do grep -q ready g3.out 2>/dev/null && break; sleep 0.05; done
	mp=$(pgrep -f "record -q -o g3.mtap" | grep -v "^$sp\$" | tail -1)
	pg=$(ps -o pgid= -p "$mp" | tr -d ' ')
	killpg TERM "$pg"
	wait $sp
	grep -q 'TERM=1 HUP=0' g3.out || fail "group signal, terminal foreground: $(cat g3.out) (want TERM=1)"
	script -qfec "exec \"$MEMTAP\" record -q -o g4.mtap -- \"$S\" self" /dev/null >g4.out 2>&1
	grep -q 'TERM=1 ' g4.out || fail "the workload's kill(0) in the foreground: $(cat g4.out)"
else
	echo "skipped the terminal cases: script(1) is not installed"
fi
ok "signals to the process group reach the workload once (own session, terminal foreground, kill 0)"
