#!/bin/sh
# SPDX-License-Identifier: MIT
# Every process memtap could not trace is counted, with why: a static program and the three
# children it forks without an exec (they were not counted: only processes that exec'd
# were), under both followers; and a static program attached to with --pid, into which the
# runtime cannot be loaded (it was not counted at all).
. "$(dirname "$0")/lib.sh"
need ptrace
W=$WORKLOADS/forkstatic
readelf -l "$W" 2>/dev/null | grep -q INTERP && skip "forkstatic is not a static program here (no static libc?)"

untraced() { # TRACE: "traced untraced" of the alloc collector, and its reasons
	"$MEMTAP" info "$1" --format json >u.json || fail "info $1 failed"
	python3 -c 'import json, sys
d = [c for c in json.load(open("u.json"))["collectors"] if c["name"] == "alloc"][0]["details"]
print(d["processes_traced"], d["processes_untraced"], d.get("untraced", ""))'
}
for follow in ptrace perf; do
	"$MEMTAP" record -q -o $follow.mtap --follow=$follow -- "$W" >$follow.out 2>$follow.err ||
		fail "$follow: record failed: $(cat $follow.err)"
	set -- $(untraced $follow.mtap)
	echo "  --follow=$follow: traced $1, untraced $2: $(untraced $follow.mtap | cut -d' ' -f3- | cut -c1-120)"
	[ "$1" = 0 ] && [ "$2" = 4 ] || fail "$follow: the static program and its 3 children are not all counted untraced"
	untraced $follow.mtap | grep -q "a child of untraced" || fail "$follow: the children's reason is not given"
done
ok "a static program and its forked children: all 4 counted untraced, with why"

"$W" wait &
wp=$!
trap 'kill $wp 2>/dev/null; rm -rf "$T"' EXIT
sleep 0.2
"$MEMTAP" record -q -o pid.mtap --pid $wp --duration 1 2>pid.err || fail "record --pid failed: $(cat pid.err)"
set -- $(untraced pid.mtap)
echo "  --pid: traced $1, untraced $2"
[ "$2" = 1 ] || fail "--pid: the process the runtime could not be loaded into is not counted untraced"
untraced pid.mtap | grep -q "could not be loaded" || fail "--pid: the reason is not given"
ok "--pid: a process the runtime cannot be loaded into is counted untraced"
