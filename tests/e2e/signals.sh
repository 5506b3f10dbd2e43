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
