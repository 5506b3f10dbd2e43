#!/bin/sh
# SPDX-License-Identifier: MIT
# A local user maps files executable and puts a FIFO (or a symbolic link to one) at each
# file's path at once: a root recorder that opened the path to read its build-id waited for
# a writer forever, past --duration, SIGINT and SIGTERM. Against a plain recording (the
# attacker is the workload), --pid and -a: every recording ends when it should, its trace is
# whole, and none of the swapped files has a build-id (nothing was read through the path).
. "$(dirname "$0")/lib.sh"
need ptrace
[ "$(id -u)" = 0 ] || skip "needs root (the attacker runs as nobody through setpriv)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
# (not a function: $! must be the attacker itself, which setpriv becomes)
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
D=$(mktemp -d /tmp/mt-swap-XXXXXX)
chown 65534:65534 "$D"
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null; done; rm -rf "$T" "$D"' EXIT

# ended NAME LIMIT_S START_NS: the recording NAME took less than LIMIT_S seconds.
ended() {
	took=$((($(mono_ns) - $3) / 1000000))
	echo "  $1: ended after $took ms"
	[ "$took" -lt $(($2 * 1000)) ] || fail "$1: the recording took $took ms (limit $2 s)"
}

# whole NAME TRACE: the trace is complete, and no swapped file was given a build-id.
whole() {
	"$MEMTAP" info "$2" --format json >"$1.info" 2>"$1.ierr" || fail "$1: info failed: $(cat "$1.ierr")"
	check_json "$1.info" 'j["integrity"]["complete"] is True' "$1: the trace is not complete"
	"$MEMTAP" dump "$2" --type mmap --format jsonl >"$1.maps" || fail "$1: dump failed"
	python3 - "$1.maps" "$1" <<'PY' || fail "$1: a swapped file's mapping is wrong (above)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ours = [r for r in rows if "/code-" in (r.get("path") or "")]
bad = [r for r in ours if r.get("build_id")]
print("  %s: %d mappings of the swapped files, %d with a build-id" % (sys.argv[2], len(ours), len(bad)))
sys.exit(1 if bad or not ours else 0)
PY
}

# attack NAME COUNT INTERVAL_MS [wait]: the attacker in a directory of its own, in the
# background; $ap is its pid
attack() {
	mkdir "$D/$1" && chown 65534:65534 "$D/$1"
	$NOBODY "$WORKLOADS/swapmap" "$D/$1" "$2" "$3" ${4:-} >"$1.out" 2>&1 &
	ap=$!
	pids="$pids $ap"
}

# 1. A plain recording: the workload is the attacker; the recording ends with it.
t0=$(mono_ns)
timeout -s KILL 40 "$MEMTAP" record -q -o plain.mtap -- $NOBODY "$WORKLOADS/swapmap" "$D" 16 20 >plain.out 2>plain.err ||
	fail "the plain recording failed or hung (status $?): $(cat plain.err)"
ended plain 20 "$t0"
grep -q '^swapmap mapped=16 swapped=16$' plain.out || fail "the workload's output: $(cat plain.out)"
whole plain plain.mtap
ok "plain recording: ended with its workload"

# 2. --pid, with --duration: the attacker maps a file every 100 ms while attached to.
attack pid 60 100 wait
sleep 0.3
t0=$(mono_ns)
timeout -s KILL 40 "$MEMTAP" record -q --duration 3 -o pid.mtap --pid $ap 2>pid.err ||
	fail "record --pid failed or hung (status $?): $(cat pid.err)"
ended --pid 15 "$t0"
kill -0 $ap 2>/dev/null || fail "the attached process died"
whole pid pid.mtap
ok "--pid --duration 3: ended on time, the process running on"

# 3. -a, with --duration, while the attacker maps a file every 100 ms.
attack all 60 100
t0=$(mono_ns)
timeout -s KILL 40 "$MEMTAP" record -q -a --duration 3 -o all.mtap </dev/null 2>all.err ||
	fail "record -a failed or hung (status $?): $(cat all.err)"
ended -a 15 "$t0"
whole all all.mtap
ok "-a --duration 3: ended on time"

# 4. SIGINT to a --pid recording with no --duration, while the attacker goes on swapping.
attack int 100 50 wait
sleep 0.2
"$MEMTAP" record -q -o int.mtap --pid $ap 2>int.err &
rp=$!
sleep 2
t0=$(mono_ns)
kill -INT $rp
for i in $(seq 150); do kill -0 $rp 2>/dev/null || break; sleep 0.1; done
kill -0 $rp 2>/dev/null && { kill -9 $rp; fail "SIGINT: the recording did not end within 15 s"; }
wait $rp || fail "SIGINT: the recording failed: $(cat int.err)"
ended SIGINT 15 "$t0"
whole int int.mtap
ok "--pid, SIGINT: ended at once"
