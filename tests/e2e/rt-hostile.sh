#!/bin/sh
# SPDX-License-Identifier: MIT
# Another local user attacks a root recording through the runtime's socket: a fake region
# with a claimed pid, a memfd shrunk after the greeting, a flood of silent connections. None
# is accepted, the workload's next process still connects, and the figures are exact. Then
# the workload itself, which knows the key, hands over an unsealed memfd and a region whose
# size computation overflows: both refused, the recorder unharmed.
. "$(dirname "$0")/lib.sh"
need ptrace
[ "$(id -u)" = 0 ] || skip "needs root (the attacker runs as nobody through setpriv)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
A=$SRC/tests/e2e/workloads/rt-attack.py
# the runtime record preloads, for the attacker to speak its protocol (ptrace hides LD_PRELOAD)
export RT_LIB="$(dirname "$MEMTAP")/libmemtap-rt.so"

# 1. The outsider, while alloc-exact waits; then alloc-exact execs (its runtime connects
#    during the flood) and allocates its known totals.
"$MEMTAP" record -q -o h.mtap -- "$WORKLOADS/alloc-exact" "$T/go" >exp.json 2>rec.err &
mp=$!
trap 'kill $mp 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 100); do grep -q "@memtap-$mp-" /proc/net/unix && break; sleep 0.05; done
grep -q "@memtap-$mp-" /proc/net/unix || fail "the recorder's socket never appeared"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - outsider "memtap-$mp-" 4 <"$A" >att.out 2>att.err &
ap=$!
for i in $(seq 200); do grep -q '^flooding' att.out && break; sleep 0.05; done
grep -q '^flooding' att.out || { cat att.out att.err; fail "the attacker never started its flood"; }
t0=$(mono_ns)
touch go
wait $mp || fail "the recording failed: $(cat rec.err)"
t1=$(mono_ns)
wait $ap
cat att.out
grep -q '^inject refused' att.out || fail "the injected region was not refused"
grep -q '^shrink refused' att.out || fail "the shrinking memfd was not refused"
[ $(((t1 - t0) / 1000000)) -lt 3000 ] || fail "the workload took $(((t1 - t0) / 1000000)) ms under the flood (blocked in connect?)"
"$MEMTAP" report h.mtap --format json >r.json || fail "report failed"
python3 - exp.json r.json <<'PY' || fail "the figures are not the workload's own (above)"
import json, sys
want = json.load(open(sys.argv[1]))
a = json.load(open(sys.argv[2]))["alloc"]
bad = [(k, a[k], want[k]) for k in ("calls", "frees", "leaked_bytes", "peak_bytes") if a[k] != want[k]]
print("  alloc: calls %d, peak %d bytes (want %d)" % (a["calls"], a["peak_bytes"], want["peak_bytes"]))
sys.exit(1 if bad else 0)
PY
"$MEMTAP" info h.mtap --format json >i.json || fail "info failed"
check_json i.json '(lambda d: int(d["connections_refused_key"]) >= 2 and int(d["connections_refused_silent"]) >= 1 and int(d["processes_untraced"]) == 0)([c for c in j["collectors"] if c["name"] == "alloc"][0]["details"])' \
	"the trace does not count the refused connections, or a process went untraced"
ok "outsider: injection, shrinking memfd and a 3,000-connection flood refused; figures exact"

# 2. The insider: the right key, an unsealed memfd, then an overflowing geometry.
"$MEMTAP" record -q -o w.mtap --follow=perf -- python3 "$A" insider >ins.out 2>ins.err ||
	fail "the insider's recording failed: $(cat ins.err)"
cat ins.out
grep -q '^unsealed refused' ins.out || fail "an unsealed memfd was accepted"
grep -q '^overflow refused' ins.out || fail "a region with an overflowing node ring was accepted"
"$MEMTAP" info w.mtap --format json >w.json || fail "info failed"
check_json w.json '(lambda d: int(d["connections_refused_memfd"]) == 1 and int(d["connections_refused_malformed"]) == 1)([c for c in j["collectors"] if c["name"] == "alloc"][0]["details"])' \
	"the refusals are not counted by reason"
ok "insider: unsealed memfd and overflowing geometry refused and counted"
